// The user's kernel through NVRTC: prelude, options, diagnostics, resources, the build cache.
#include "reducelab/usercode/compiler.hpp"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "reducelab/atomic_file.hpp"
#include "reducelab/usercode/nvrtc.hpp"

namespace rl::usercode {

namespace {

constexpr const char* kPreludeName = "reducelab-prelude.cuh";
constexpr const char* kNameMapFile = "__nv_name_map";  // where NVRTC reports a bad name expression
constexpr int kMaxStaticShared = 48 * 1024;              // static __shared__ of one block, every GPU

std::string cType(ElemType t) {
  switch (t) {
    case ElemType::Int32: return "int";
    case ElemType::Int64: return "long long";
    case ElemType::Float32: return "float";
    case ElemType::Float64: break;
  }
  return "double";
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = char(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

}  // namespace

std::string KernelResources::text() const {
  if (!known) return "resources unknown (ptxas reported none)";
  std::string s = std::to_string(registers) + " registers, " + std::to_string(staticSharedBytes) + " B static shared, " +
                  std::to_string(stackBytes) + " B stack, ";
  if (spillStoreBytes == 0 && spillLoadBytes == 0) s += "no spills";
  else s += std::to_string(spillStoreBytes) + " B spill stores, " + std::to_string(spillLoadBytes) + " B spill loads";
  return s + ", " + std::to_string(barriers) + (barriers == 1 ? " barrier" : " barriers");
}

const KernelBuild* CompileResult::kernelFor(int block) const {
  for (const KernelBuild& k : kernels)
    if (k.block == 0 || k.block == block) return &k;
  return nullptr;
}

int parseArch(const std::string& text) {
  if (!text.starts_with("sm_") || text.size() < 5 || text.size() > 7) return 0;
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data() + 3, text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 10) return 0;
  return v;
}

std::string archName(int sm) { return "sm_" + std::to_string(sm); }

std::string defaultCacheDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return std::string(xdg) + "/reducelab/kernels";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/reducelab/kernels";
  return {};
}

std::string programPrelude(ElemType type, Op op) {
  const std::string t = cType(type);
  std::string maxV, lowestV;
  switch (type) {
    case ElemType::Int32: maxV = "2147483647", lowestV = "(-2147483647 - 1)"; break;
    case ElemType::Int64: maxV = "9223372036854775807LL", lowestV = "(-9223372036854775807LL - 1)"; break;
    case ElemType::Float32: maxV = "__int_as_float(0x7f800000)", lowestV = "__int_as_float(0xff800000)"; break;
    case ElemType::Float64:
      maxV = "__longlong_as_double(0x7ff0000000000000LL)", lowestV = "__longlong_as_double((long long)0xfff0000000000000ULL)";
      break;
  }
  std::string s;
  s += "// ReduceLab's prelude (docs/your-kernel.md): the element type and the operation of this build.\n";
  s += "typedef " + t + " T;\n";
  s += "#define REDUCELAB 1\n";
  s += "#define OP_" + upper(name(op)) + " 1\n";
  s += "#define TYPE_" + upper(name(type)) + " 1\n";
  s += "struct SumOp {\n"
       "  __device__ static T identity() { return T(0); }\n"
       "  __device__ T operator()(T a, T b) const { return a + b; }\n"
       "};\n";
  s += "struct MinOp {\n"
       "  __device__ static T identity() { return " + maxV + "; }\n"
       "  __device__ T operator()(T a, T b) const { return b < a ? b : a; }\n"
       "};\n";
  s += "struct MaxOp {\n"
       "  __device__ static T identity() { return " + lowestV + "; }\n"
       "  __device__ T operator()(T a, T b) const { return a < b ? b : a; }\n"
       "};\n";
  s += "typedef " + std::string(op == Op::Sum ? "SumOp" : op == Op::Min ? "MinOp" : "MaxOp") + " Op;\n";
  return s;
}

// ---- NVRTC's log ----
namespace {

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

bool readInt(std::string_view s, int* out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// "FILE(LINE): SEVERITY: MESSAGE" (SEVERITY may carry a number: "warning #177-D").
bool parseHead(const std::string& line, std::string* file, int* lineNo, std::string* severity, std::string* message) {
  size_t from = 0;
  for (;;) {
    const size_t close = line.find("): ", from);
    if (close == std::string::npos) return false;
    const size_t open = line.rfind('(', close);
    if (open != std::string::npos && open > 0 && readInt(std::string_view(line).substr(open + 1, close - open - 1), lineNo)) {
      const std::string rest = line.substr(close + 3);
      const size_t colon = rest.find(": ");
      if (colon != std::string::npos) {
        const std::string sev = rest.substr(0, colon);
        if (sev.starts_with("error") || sev.starts_with("warning") || sev.starts_with("catastrophic error") ||
            sev.starts_with("remark") || sev.starts_with("note")) {
          *file = line.substr(0, open);
          *severity = sev;
          *message = rest.substr(colon + 2);
          return true;
        }
      }
    }
    from = close + 1;
  }
}

}  // namespace

std::vector<Diagnostic> parseNvrtcLog(const std::string& log, const std::string& userFile, const std::string& userSource) {
  const std::vector<std::string> lines = splitLines(log);
  const std::vector<std::string> source = splitLines(userSource);
  std::vector<Diagnostic> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    std::string file, severity, message;
    int lineNo = 0;
    if (parseHead(l, &file, &lineNo, &severity, &message)) {
      Diagnostic d;
      d.file = file;
      d.line = lineNo;
      d.severity = severity.starts_with("warning") ? Severity::Warning
                   : severity.starts_with("remark") || severity.starts_with("note") ? Severity::Note
                                                                                    : Severity::Error;
      d.message = rtrim(message);
      if (const size_t hash = severity.find('#'); hash != std::string::npos) d.message += " [" + severity.substr(hash) + "]";
      // The line echoed and a caret under the column: trusted when the echo is the user's line.
      if (i + 2 < lines.size() && lines[i + 1].starts_with("  ") && file == userFile && lineNo >= 1 &&
          size_t(lineNo) <= source.size() && rtrim(lines[i + 1].substr(2)) == rtrim(source[size_t(lineNo) - 1])) {
        const size_t caret = lines[i + 2].find('^');
        if (caret != std::string::npos && caret >= 2 &&
            lines[i + 2].find_first_not_of(" \t") == caret)
          d.column = int(caret - 2) + 1;
        i += 2;
      }
      out.push_back(d);
      continue;
    }
    // "          detected during instantiation of "..." at line 12 [of FILE]"
    const size_t det = l.find("detected during");
    if (det != std::string::npos && !out.empty()) {
      Diagnostic n;
      n.severity = Severity::Note;
      n.file = out.back().file;
      std::string text = rtrim(l.substr(det));
      const size_t at = text.rfind(" at line ");
      if (at != std::string::npos) {
        std::string where = text.substr(at + 9);
        const size_t of = where.find(" of ");
        int ln = 0;
        if (readInt(std::string_view(where).substr(0, of), &ln)) {
          n.line = ln;
          if (of != std::string::npos) n.file = where.substr(of + 4);
          text = text.substr(0, at);
        }
      }
      n.message = text;
      out.push_back(n);
      continue;
    }
    // ptxas speaks per line without a source position.
    for (const char* kind : {"ptxas error", "ptxas fatal", "ptxas warning"}) {
      if (!l.starts_with(kind)) continue;
      const size_t colon = l.find(':');
      Diagnostic d;
      d.file = userFile;
      d.severity = std::string_view(kind) == "ptxas warning" ? Severity::Warning : Severity::Error;
      d.message = "ptxas: " + rtrim(colon == std::string::npos ? l : l.substr(colon + 1));
      const size_t first = d.message.find_first_not_of(' ', 7);
      if (first != std::string::npos) d.message = "ptxas: " + d.message.substr(first);
      out.push_back(d);
      break;
    }
  }
  return out;
}

std::map<std::string, KernelResources> parsePtxasInfo(const std::string& log) {
  std::map<std::string, KernelResources> out;
  std::string entry, properties;  // the entry being compiled; the function whose properties follow
  auto quoted = [](const std::string& l, size_t from) {
    const size_t a = l.find('\'', from);
    const size_t b = a == std::string::npos ? a : l.find('\'', a + 1);
    return b == std::string::npos ? std::string() : l.substr(a + 1, b - a - 1);
  };
  // The number before `what` in a comma list: "24 registers", "used 1 barriers".
  auto numberBefore = [](const std::string& l, const std::string& what, int* out) {
    size_t p = l.find(what);
    if (p == std::string::npos) return false;
    size_t end = p;
    while (end > 0 && l[end - 1] == ' ') --end;
    size_t start = end;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(l[start - 1]))) --start;
    return start < end && readInt(std::string_view(l).substr(start, end - start), out);
  };
  for (const std::string& l : splitLines(log)) {
    if (!l.starts_with("ptxas")) continue;
    if (size_t p = l.find("Compiling entry function"); p != std::string::npos) {
      entry = quoted(l, p);
      if (!entry.empty()) out[entry].known = true;
    } else if (size_t q = l.find("Function properties for "); q != std::string::npos) {
      properties = rtrim(l.substr(q + 24));
    } else if (l.find("bytes stack frame") != std::string::npos) {
      const auto it = out.find(properties);
      if (it == out.end()) continue;  // a device function's own frame
      int v = 0;
      if (numberBefore(l, "bytes stack frame", &v)) it->second.stackBytes = std::max(it->second.stackBytes, v);
      if (numberBefore(l, "bytes spill stores", &v)) it->second.spillStoreBytes = v;
      if (numberBefore(l, "bytes spill loads", &v)) it->second.spillLoadBytes = v;
    } else if (l.find("Used ") != std::string::npos && !entry.empty()) {
      KernelResources& r = out[entry];
      int v = 0;
      if (numberBefore(l, "registers", &v)) r.registers = v;
      if (numberBefore(l, "barriers", &v)) r.barriers = v;
      if (numberBefore(l, "bytes smem", &v)) r.staticSharedBytes = v;
      if (numberBefore(l, "bytes cumulative stack size", &v)) r.stackBytes = std::max(r.stackBytes, v);
    }
  }
  return out;
}

std::vector<int> ptxEntryParamBytes(const std::string& ptx, const std::string& loweredName, std::string* error) {
  const std::string head = ".entry " + loweredName + "(";
  size_t p = ptx.find(head);
  if (p == std::string::npos) {
    *error = "entry " + loweredName + " not found in the PTX";
    return {};
  }
  p += head.size();
  const size_t end = ptx.find(')', p);
  if (end == std::string::npos) {
    *error = "the PTX entry " + loweredName + " has no closing parenthesis";
    return {};
  }
  std::vector<int> out;
  std::istringstream list(ptx.substr(p, end - p));
  std::string decl;
  while (std::getline(list, decl, ',')) {
    if (decl.find(".param") == std::string::npos) continue;
    int bytes = 0;
    std::istringstream words(decl);
    std::string w;
    while (words >> w) {
      // .u64 .s32 .b8 .f64 ...: the element type; "name[16]" makes it an array.
      if (w.size() >= 3 && w[0] == '.' && (w[1] == 'u' || w[1] == 's' || w[1] == 'b' || w[1] == 'f')) {
        int bits = 0;
        if (readInt(std::string_view(w).substr(2), &bits) && bits % 8 == 0) bytes = bits / 8;
      }
      if (const size_t lb = w.find('['); lb != std::string::npos && bytes > 0) {
        int count = 0;
        if (readInt(std::string_view(w).substr(lb + 1, w.find(']') - lb - 1), &count)) bytes *= count;
      }
    }
    if (bytes == 0) {
      *error = "cannot read the PTX parameter '" + rtrim(decl) + "'";
      return {};
    }
    out.push_back(bytes);
  }
  return out;
}

// ---- the cache ----
namespace {

constexpr const char* kCacheMagic = "RLKC1";

uint64_t fnv1a(const std::string& s, uint64_t h) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

uint32_t crcOf(const std::string& a, const std::vector<uint8_t>& b) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(a.data()), uInt(a.size()));
  crc = crc32(crc, b.data(), uInt(b.size()));
  return uint32_t(crc);
}

}  // namespace

std::string cacheFileName(const std::string& key) {
  char name[40];
  std::snprintf(name, sizeof name, "%016llx%016llx.rlk", (unsigned long long)fnv1a(key, 0xcbf29ce484222325ull),
                (unsigned long long)fnv1a(key, 0x84222325cbf29ce4ull));
  return name;
}

CacheRead readCacheEntry(const std::string& path, const std::string& key, CacheEntry* out, std::string* why) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return CacheRead::Miss;
  std::string bytes;
  if (std::string e = readTextFile(path, &bytes, uint64_t(64) << 20); !e.empty()) {
    *why = e;
    return CacheRead::Damaged;
  }
  // "RLKC1 <json bytes> <cubin bytes> <crc32>\n" <json> <cubin>
  const size_t nl = bytes.find('\n');
  std::istringstream head(bytes.substr(0, nl == std::string::npos ? 0 : std::min<size_t>(nl, 80)));
  std::string magic;
  unsigned long long jsonBytes = 0, cubinBytes = 0;
  unsigned long crc = 0;
  head >> magic >> jsonBytes >> cubinBytes >> std::hex >> crc;
  if (nl == std::string::npos || magic != kCacheMagic || !head || jsonBytes + cubinBytes + nl + 1 != bytes.size()) {
    *why = "its header or length is wrong";
    return CacheRead::Damaged;
  }
  const std::string json = bytes.substr(nl + 1, jsonBytes);
  const std::vector<uint8_t> cubin(bytes.begin() + long(nl + 1 + jsonBytes), bytes.end());
  if (crcOf(json, cubin) != crc) {
    *why = "its checksum does not match";
    return CacheRead::Damaged;
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(json);
    if (j.at("key").get<std::string>() != key) return CacheRead::Miss;  // another build with the same hash
    out->key = key;
    out->log = j.at("log").get<std::string>();
    out->ptx = j.at("ptx").get<std::string>();
    out->lowered = j.at("lowered").get<std::map<std::string, std::string>>();
  } catch (const std::exception& e) {
    *why = std::string("its contents do not parse (") + e.what() + ")";
    return CacheRead::Damaged;
  }
  if (cubin.empty()) {
    *why = "it holds no cubin";
    return CacheRead::Damaged;
  }
  out->cubin = cubin;
  return CacheRead::Hit;
}

std::string writeCacheEntry(const std::string& path, const CacheEntry& e) {
  const nlohmann::json j = {{"key", e.key}, {"log", e.log}, {"ptx", e.ptx}, {"lowered", e.lowered}};
  const std::string json = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  char head[96];
  std::snprintf(head, sizeof head, "%s %zu %zu %08x\n", kCacheMagic, json.size(), e.cubin.size(), crcOf(json, e.cubin));
  std::string bytes = head + json;
  bytes.append(reinterpret_cast<const char*>(e.cubin.data()), e.cubin.size());
  return writeTextAtomic(path, bytes);
}

// ---- compiling ----
namespace {

// The n parameter's signedness from the Itanium mangling of a builtin type at the name's end.
void readNSign(KernelBuild* k) {
  if (k->loweredName.empty()) return;
  const char last = k->loweredName.back();
  if (std::string_view("ilxsa").find(last) != std::string_view::npos) k->nSigned = true, k->nSignKnown = true;
  else if (std::string_view("jmyth").find(last) != std::string_view::npos) k->nSignKnown = true;
}

// For a kernel that is no template: the pointee of its first parameter, when it is a builtin
// type ("int", 'i'), from the mangled name _Z<len><name>P[K]<code>.
char firstPointee(const std::string& lowered, const std::string& name) {
  const std::string prefix = "_Z" + std::to_string(name.size()) + name;
  if (!lowered.starts_with(prefix)) return 0;
  size_t i = prefix.size();
  if (i >= lowered.size() || lowered[i] != 'P') return 0;
  ++i;
  while (i < lowered.size() && (lowered[i] == 'K' || lowered[i] == 'V')) ++i;
  return i < lowered.size() ? lowered[i] : 0;
}

std::string pointeeText(char code) {
  switch (code) {
    case 'i': return "int";
    case 'j': return "unsigned int";
    case 'l': return "long";
    case 'm': return "unsigned long";
    case 'x': return "long long";
    case 'y': return "unsigned long long";
    case 'f': return "float";
    case 'd': return "double";
    case 's': return "short";
    case 't': return "unsigned short";
    case 'c': return "char";
    case 'a': return "signed char";
    case 'h': return "unsigned char";
    default: return {};
  }
}

char mangledCode(ElemType t) {
  switch (t) {
    case ElemType::Int32: return 'i';
    case ElemType::Int64: return 'x';
    case ElemType::Float32: return 'f';
    case ElemType::Float64: break;
  }
  return 'd';
}

// Checks one instantiation against the contract: (const T* in, T* out, n), n a 32- or 64-bit integer.
void checkSignature(const CompileResult& r, const std::string& file, const KernelBuild& k, std::vector<Diagnostic>* out) {
  const Contract& c = r.contract;
  const auto& p = k.paramBytes;
  if (p.size() != 3 || p[0] != 8 || p[1] != 8 || (p[2] != 4 && p[2] != 8)) {
    std::string sizes;
    for (int b : p) sizes += (sizes.empty() ? "" : ", ") + std::to_string(b);
    out->push_back({file, c.kernelLine, 0, Severity::Error,
                    "kernel " + c.kernel + " takes " + std::to_string(p.size()) + " parameters (" +
                        (sizes.empty() ? std::string("none") : sizes + " bytes") +
                        "); ReduceLab calls it as " + c.kernel + "(const T* in, T* out, n) with n a 32- or 64-bit integer"});
    return;
  }
  if (c.templated) return;  // its pointers are of the template's T, which the prelude binds
  const char code = firstPointee(k.loweredName, c.kernel);
  const std::string text = pointeeText(code);
  if (!text.empty() && code != mangledCode(r.type) && !(r.type == ElemType::Int64 && code == 'l'))
    out->push_back({file, c.kernelLine, 0, Severity::Error,
                    "kernel " + c.kernel + " reads " + text + " elements, but this build is for T = " + cType(r.type) +
                        " (" + std::string(name(r.type)) + "): write the kernel with T, or claim the type it is "
                        "written for (`// @reducelab types: ...`)"});
}

std::string joinedOptions(const std::vector<std::string>& o) {
  std::string s;
  for (const std::string& x : o) s += x + "\n";
  return s;
}

struct ProgramGuard {
  const NvrtcApi& api;
  NvrtcProgram p = nullptr;
  ~ProgramGuard() {
    if (p) api.destroyProgram(&p);
  }
};

}  // namespace

CompileResult compileUserKernel(const CompileRequest& q) {
  CompileResult r;
  r.type = q.type;
  r.op = q.op;
  r.sm = q.sm;
  ContractResult cr = parseContract(q.source, q.file);
  r.contract = cr.contract;
  r.diagnostics = cr.diagnostics;
  if (!cr.ok()) {
    r.status = CompileStatus::ContractError;
    return r;
  }
  const NvrtcApi& api = nvrtc();
  if (!api.loaded) {
    r.environmentError = api.error;
    return r;
  }
  r.nvrtcVersion = api.versionText();
  if (!api.archs.empty() && !api.supports(q.sm)) {
    std::string list;
    for (int a : api.archs) list += (list.empty() ? "" : ", ") + archName(a);
    r.environmentError = "NVRTC " + r.nvrtcVersion + " (" + api.library + ") does not compile for " + archName(q.sm) +
                         "; it knows " + list;
    return r;
  }

  // The program: the prelude, then the user's file at its own line 1.
  std::string quotedFile;
  for (char c : q.file) {
    if (c == '"' || c == '\\') quotedFile += '\\';
    quotedFile += c;
  }
  const std::string program = programPrelude(q.type, q.op) + "#line 1 \"" + quotedFile + "\"\n" + q.source;
  r.options = {"--gpu-architecture=" + archName(q.sm), "--ptxas-options=-v", "--generate-line-info"};
  // NVRTC 12.9+ keeps its own cache where a driver is installed; a build served from it carries no
  // ptxas report (registers, shared memory, spills). Ours is the cache, keyed by the same text.
  if (api.major > 12 || (api.major == 12 && api.minor >= 9)) r.options.push_back("--no-cache");
  std::vector<std::pair<int, std::string>> instances;  // (block, name expression)
  if (r.contract.perBlockInstances()) {
    for (int b : r.contract.blocks) instances.push_back({b, r.contract.nameExpression(b)});
  } else {
    instances.push_back({0, (r.contract.templated ? "" : "&") + r.contract.nameExpression(0)});
  }
  std::string names;
  for (const auto& [b, e] : instances) names += e + "\n";
  const std::string key = std::string("reducelab user kernel cache 1\nnvrtc ") + r.nvrtcVersion + "\n" +
                          joinedOptions(r.options) + names + "----\n" + program;

  CacheEntry entry;
  const std::string dir = q.useCache ? (q.cacheDir.empty() ? defaultCacheDir() : q.cacheDir) : std::string();
  bool fromCache = false;
  if (!dir.empty()) {
    r.cacheFile = dir + "/" + cacheFileName(key);
    std::string why;
    switch (readCacheEntry(r.cacheFile, key, &entry, &why)) {
      case CacheRead::Hit: fromCache = true; break;
      case CacheRead::Damaged: r.cacheNote = "the cache entry " + r.cacheFile + " was damaged (" + why + "): rebuilt"; break;
      case CacheRead::Miss: break;
    }
  }
  if (!fromCache) {
    entry = CacheEntry{};
    entry.key = key;
    ProgramGuard g{api};
    if (NvrtcResult e = api.createProgram(&g.p, program.c_str(), kPreludeName, 0, nullptr, nullptr); e != kNvrtcSuccess) {
      r.environmentError = "NVRTC could not create a program: " + api.text(e);
      return r;
    }
    for (const auto& [b, e] : instances) api.addNameExpression(g.p, e.c_str());
    std::vector<const char*> opts;
    for (const std::string& o : r.options) opts.push_back(o.c_str());
    const NvrtcResult rc = api.compileProgram(g.p, int(opts.size()), opts.data());
    size_t logSize = 0;
    if (api.getProgramLogSize(g.p, &logSize) == kNvrtcSuccess && logSize > 1) {
      entry.log.resize(logSize);
      api.getProgramLog(g.p, entry.log.data());
      entry.log.resize(logSize - 1);  // its terminating NUL
    }
    if (rc != kNvrtcSuccess) {
      r.log = entry.log;
      r.status = CompileStatus::CompileError;
      std::vector<Diagnostic> d = parseNvrtcLog(entry.log, q.file, q.source);
      for (Diagnostic& x : d) {
        if (x.file != kNameMapFile) continue;
        x.file = q.file;
        x.line = r.contract.kernelLine;
        x.column = 0;
        x.message = "kernel " + r.contract.nameExpression(instances.front().first) + " cannot be instantiated: " + x.message;
      }
      if (!hasErrors(d)) {
        // ptxas refuses some programs without a message (static shared memory over the limit).
        std::string why = "NVRTC failed (" + api.text(rc) + ") without saying why";
        for (const auto& [fn, res] : parsePtxasInfo(entry.log))
          if (res.staticSharedBytes > kMaxStaticShared)
            why = "the kernel declares " + std::to_string(res.staticSharedBytes) + " bytes of static __shared__ memory; "
                  "a block can have at most " + std::to_string(kMaxStaticShared) +
                  " static (use extern __shared__ and `// @reducelab shared: ...` for more)";
        d.push_back({q.file, 0, 0, Severity::Error, why});
      }
      r.diagnostics.insert(r.diagnostics.end(), d.begin(), d.end());
      return r;
    }
    size_t size = 0;
    if (api.getCUBINSize(g.p, &size) == kNvrtcSuccess && size > 0) {
      entry.cubin.resize(size);
      api.getCUBIN(g.p, reinterpret_cast<char*>(entry.cubin.data()));
    }
    if (api.getPTXSize(g.p, &size) == kNvrtcSuccess && size > 1) {
      entry.ptx.resize(size);
      api.getPTX(g.p, entry.ptx.data());
      entry.ptx.resize(size - 1);
    }
    for (const auto& [b, e] : instances) {
      const char* lowered = nullptr;
      if (api.getLoweredName(g.p, e.c_str(), &lowered) == kNvrtcSuccess && lowered) entry.lowered[e] = lowered;
    }
    if (entry.cubin.empty()) {
      r.environmentError = "NVRTC " + r.nvrtcVersion + " compiled the kernel but returned no cubin for " + archName(q.sm);
      return r;
    }
  }
  r.cacheHit = fromCache;
  r.log = entry.log;
  r.cubin = entry.cubin;
  std::vector<Diagnostic> d = parseNvrtcLog(entry.log, q.file, q.source);
  r.diagnostics.insert(r.diagnostics.end(), d.begin(), d.end());
  const auto resources = parsePtxasInfo(entry.log);
  for (const auto& [b, e] : instances) {
    KernelBuild k;
    k.block = b;
    k.nameExpression = e.starts_with("&") ? e.substr(1) : e;
    const auto it = entry.lowered.find(e);
    if (it == entry.lowered.end()) {
      r.diagnostics.push_back({q.file, r.contract.kernelLine, 0, Severity::Error,
                               "NVRTC gave no symbol for kernel " + k.nameExpression});
      continue;
    }
    k.loweredName = it->second;
    if (const auto res = resources.find(k.loweredName); res != resources.end()) k.resources = res->second;
    std::string why;
    k.paramBytes = ptxEntryParamBytes(entry.ptx, k.loweredName, &why);
    if (!why.empty()) {
      r.diagnostics.push_back({q.file, r.contract.kernelLine, 0, Severity::Error, "kernel " + k.nameExpression + ": " + why});
      continue;
    }
    readNSign(&k);
    checkSignature(r, q.file, k, &r.diagnostics);
    r.kernels.push_back(k);
  }
  if (hasErrors(r.diagnostics)) {
    r.status = CompileStatus::ContractError;
    return r;
  }
  r.status = CompileStatus::Ok;
  if (!fromCache && !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) r.cacheNote = "not cached: cannot create " + dir + " (" + ec.message() + ")";
    else if (std::string e = writeCacheEntry(r.cacheFile, entry); !e.empty()) r.cacheNote = "not cached: " + e;
    if (!r.cacheNote.empty() && !r.cacheNote.starts_with("the cache entry")) r.cacheFile.clear();
  }
  return r;
}

}  // namespace rl::usercode
