#include "reducelab/usercode/contract.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>

namespace rl::usercode {

std::string_view name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: break;
  }
  return "note";
}

std::string_view name(GridRule g) {
  switch (g) {
    case GridRule::OnePerThread: return "one-per-thread";
    case GridRule::ElementsPerThread: return "elements-per-thread";
    case GridRule::Fixed: break;
  }
  return "fixed";
}

std::string_view name(UserFinal f) {
  switch (f) {
    case UserFinal::Gpu: return "gpu";
    case UserFinal::Cpu: return "cpu";
    case UserFinal::Atomic: break;
  }
  return "atomic";
}

std::string_view name(TemplateArg a) {
  switch (a) {
    case TemplateArg::Type: return "T";
    case TemplateArg::Op: return "Op";
    case TemplateArg::Block: break;
  }
  return "BLOCK";
}

std::string Diagnostic::text() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s + ": " + std::string(name(severity)) + ": " + message;
}

bool hasErrors(const std::vector<Diagnostic>& list) {
  return std::any_of(list.begin(), list.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

bool Contract::claims(Op o) const { return std::find(ops.begin(), ops.end(), o) != ops.end(); }
bool Contract::claims(ElemType t) const { return std::find(types.begin(), types.end(), t) != types.end(); }
bool Contract::claimsBlock(int b) const { return std::find(blocks.begin(), blocks.end(), b) != blocks.end(); }

uint64_t Contract::dynamicSharedBytes(int block, ElemType t) const {
  switch (shared) {
    case SharedRule::PerThread: return sharedFactor * uint64_t(block) * elemBytes(t);
    case SharedRule::PerWarp: return (uint64_t(block) + 31) / 32 * elemBytes(t);
    case SharedRule::Bytes: return sharedFactor;
    case SharedRule::None: break;
  }
  return 0;
}

bool Contract::perBlockInstances() const {
  return std::find(templateArgs.begin(), templateArgs.end(), TemplateArg::Block) != templateArgs.end();
}

std::string Contract::nameExpression(int block) const {
  if (!templated) return kernel;
  std::string s = kernel + "<";
  for (size_t i = 0; i < templateArgs.size(); ++i) {
    if (i) s += ", ";
    s += templateArgs[i] == TemplateArg::Block ? std::to_string(block) : std::string(name(templateArgs[i]));
  }
  return s + ">";
}

namespace {

template <class T, class F> std::string joined(const std::vector<T>& v, F&& f) {
  std::string s;
  for (const T& x : v) s += (s.empty() ? "" : ", ") + std::string(f(x));
  return s;
}

}  // namespace

std::vector<std::string> Contract::describe() const {
  std::vector<std::string> out;
  std::string k = "kernel " + kernel;
  if (perBlockInstances()) {
    k += " (template, one instance per block:";
    for (size_t i = 0; i < blocks.size(); ++i) k += (i ? ", " : " ") + nameExpression(blocks[i]);
    k += ")";
  } else if (templated) {
    k += " (template, instantiated as " + nameExpression(0) + ")";
  }
  out.push_back(k + ", called as " + kernel + "(const T* in, T* out, n)");
  switch (grid) {
    case GridRule::OnePerThread: out.push_back("grid: ceil(n / block) blocks, one element per thread"); break;
    case GridRule::ElementsPerThread:
      out.push_back("grid: ceil(n / (block x " + std::to_string(elementsPerThread) + ")) blocks, " +
                    std::to_string(elementsPerThread) + " elements per thread");
      break;
    case GridRule::Fixed:
      out.push_back("grid: min(" + std::to_string(fixedGrid) + ", ceil(n / block)) blocks, a grid-stride loop");
      break;
  }
  switch (shared) {
    case SharedRule::PerThread:
      out.push_back("dynamic shared memory: " + (sharedFactor == 1 ? std::string() : std::to_string(sharedFactor) + " x ") +
                    "block x sizeof(T) bytes");
      break;
    case SharedRule::PerWarp: out.push_back("dynamic shared memory: ceil(block / 32) x sizeof(T) bytes"); break;
    case SharedRule::Bytes: out.push_back("dynamic shared memory: " + std::to_string(sharedFactor) + " bytes"); break;
    case SharedRule::None: out.push_back("dynamic shared memory: none"); break;
  }
  switch (final) {
    case UserFinal::Gpu: out.push_back("final: the kernel again on the partials until one value remains"); break;
    case UserFinal::Cpu:
      out.push_back("final: " + std::to_string(cpuPasses) + (cpuPasses == 1 ? " launch" : " launches") +
                    ", then the CPU combines the partials");
      break;
    case UserFinal::Atomic: out.push_back("final: one launch combining into out[0] (set to the identity first)"); break;
  }
  if (zeroedOutput) out.push_back("output: set to 0 before each launch (as the host's cudaMemset)");
  out.push_back("blocks: " + joined(blocks, [](int b) { return std::to_string(b); }));
  out.push_back("ops: " + joined(ops, [](Op o) { return name(o); }) +
                "; types: " + joined(types, [](ElemType t) { return name(t); }));
  return out;
}

// ---- reading the source ----
namespace {

struct Token {
  std::string text;
  int line = 0, column = 0;
  bool identifier = false;
};

struct Annotation {
  std::string text;  // after "@reducelab"
  int line = 0, column = 0;
};

bool identStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool identChar(char c) { return identStart(c) || (c >= '0' && c <= '9'); }

// Tokens of the source without comments, preprocessor lines and the contents of literals;
// the annotation comments on the side.
void scan(const std::string& s, std::vector<Token>* tokens, std::vector<Annotation>* notes) {
  int line = 1;
  size_t lineStart = 0;
  bool lineHasCode = false;  // a token seen on this line (a '#' after one is not a directive)
  auto col = [&](size_t i) { return int(i - lineStart) + 1; };
  size_t i = 0;
  auto newline = [&](size_t at) {
    ++line;
    lineStart = at + 1;
    lineHasCode = false;
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      newline(i);
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      size_t e = s.find('\n', i);
      if (e == std::string::npos) e = s.size();
      std::string_view body(s.data() + i + 2, e - i - 2);
      const size_t first = body.find_first_not_of(" \t");
      if (first != std::string_view::npos && body.substr(first).starts_with("@reducelab"))
        notes->push_back({std::string(body.substr(first + 10)), line, col(i + 2 + first)});
      i = e;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t j = i + 2;
      while (j < s.size() && !(s[j] == '*' && j + 1 < s.size() && s[j + 1] == '/')) {
        if (s[j] == '\n') newline(j);
        ++j;
      }
      i = std::min(s.size(), j + 2);
    } else if (c == '#' && !lineHasCode) {
      // A directive, continued over lines ending in a backslash.
      while (i < s.size() && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') newline(++i);
        ++i;
      }
    } else if (c == '"' || c == '\'') {
      const int l = line, cl = col(i);
      size_t j = i + 1;
      while (j < s.size() && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      tokens->push_back({std::string(1, c) + c, l, cl, false});
      lineHasCode = true;
      i = std::min(s.size(), j + 1);
    } else if (identStart(c)) {
      size_t j = i;
      while (j < s.size() && identChar(s[j])) ++j;
      tokens->push_back({s.substr(i, j - i), line, col(i), true});
      lineHasCode = true;
      i = j;
    } else if (c >= '0' && c <= '9') {
      size_t j = i;
      while (j < s.size() && (identChar(s[j]) || s[j] == '.' || s[j] == '\'')) ++j;
      tokens->push_back({s.substr(i, j - i), line, col(i), false});
      lineHasCode = true;
      i = j;
    } else {
      tokens->push_back({std::string(1, c), line, col(i), false});
      lineHasCode = true;
      ++i;
    }
  }
}

struct Candidate {
  std::string name;
  int line = 0, column = 0;
  bool definition = false;
  bool templated = false;
  std::vector<TemplateArg> inferred;  // from the template's parameter list
  std::string templateProblem;        // a parameter that cannot be bound
};

// The index of the bracket that matches tokens[open] (going forward) or -1.
long matching(const std::vector<Token>& t, size_t open, const char* o, const char* c) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == o) ++depth;
    else if (t[i].text == c && --depth == 0) return long(i);
  }
  return -1;
}

// Binds the template parameters in order: the first type parameter is T, the second Op; an
// integer parameter is the block size.
void inferTemplate(const std::vector<Token>& t, size_t lt, size_t gt, Candidate* k) {
  int typeParams = 0;
  size_t start = lt + 1;
  int depth = 0;
  for (size_t i = lt + 1; i <= gt; ++i) {
    const std::string& x = t[i].text;
    if (x == "<" || x == "(") ++depth;
    else if ((x == ">" || x == ")") && i != gt) --depth;
    if ((x == "," && depth == 0) || i == gt) {
      if (start == i) break;
      const std::string& first = t[start].text;
      if (first == "class" || first == "typename") {
        ++typeParams;
        if (typeParams == 1) k->inferred.push_back(TemplateArg::Type);
        else if (typeParams == 2) k->inferred.push_back(TemplateArg::Op);
        else k->templateProblem = "its third type parameter cannot be bound (T and Op are the only types ReduceLab passes)";
      } else {
        k->inferred.push_back(TemplateArg::Block);
      }
      start = i + 1;
    }
  }
}

std::vector<Candidate> findKernels(const std::vector<Token>& t) {
  static const char* kAttributes[] = {"__launch_bounds__", "__maxnreg__", "__cluster_dims__", "__attribute__",
                                      "alignas", "decltype", "__declspec"};
  std::vector<Candidate> out;
  for (size_t g = 0; g < t.size(); ++g) {
    if (t[g].text != "__global__") continue;
    Candidate k;
    // Backwards over specifiers to a template header.
    long b = long(g) - 1;
    while (b >= 0 && (t[b].text == "static" || t[b].text == "inline" || t[b].text == "__forceinline__" ||
                      t[b].text == "extern" || t[b].text == "\"\""))
      --b;
    if (b >= 0 && t[b].text == ">") {
      int depth = 0;
      long lt = b;
      for (; lt >= 0; --lt) {
        if (t[lt].text == ">") ++depth;
        else if (t[lt].text == "<" && --depth == 0) break;
      }
      if (lt > 0 && t[lt - 1].text == "template") {
        k.templated = true;
        inferTemplate(t, size_t(lt), size_t(b), &k);
      }
    }
    // Forwards to the name: the identifier before the first '(' that is not an attribute.
    for (size_t i = g + 1; i + 1 < t.size(); ++i) {
      if (t[i].text == ";" || t[i].text == "{" || t[i].text == "}") break;
      if (!t[i].identifier || t[i + 1].text != "(") continue;
      if (std::find(std::begin(kAttributes), std::end(kAttributes), t[i].text) != std::end(kAttributes)) {
        const long close = matching(t, i + 1, "(", ")");
        if (close < 0) break;
        i = size_t(close);
        continue;
      }
      k.name = t[i].text;
      k.line = t[i].line;
      k.column = t[i].column;
      const long close = matching(t, i + 1, "(", ")");
      // A definition has its body after the parameters (and perhaps attributes).
      for (long j = close + 1; close >= 0 && j < long(t.size()); ++j) {
        if (t[j].text == "{") k.definition = true;
        if (t[j].text == "{" || t[j].text == ";") break;
      }
      break;
    }
    if (!k.name.empty()) out.push_back(k);
  }
  return out;
}

std::string trim(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return {};
  const size_t b = s.find_last_not_of(" \t\r");
  return std::string(s.substr(a, b - a + 1));
}

std::vector<std::string> splitList(const std::string& v) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = v.find(',', start);
    out.push_back(trim(std::string_view(v).substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> words(const std::string& v) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && (v[i] == ' ' || v[i] == '\t')) ++i;
    size_t j = i;
    while (j < v.size() && v[j] != ' ' && v[j] != '\t') ++j;
    if (j > i) out.push_back(v.substr(i, j - i));
    i = j;
  }
  return out;
}

bool parseUnsigned(const std::string& s, uint64_t lo, uint64_t hi, uint64_t* out) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

constexpr const char* kKeys = "kernel, template, types, ops, blocks, grid, shared, final, passes, output";

class AnnotationReader {
 public:
  AnnotationReader(const std::string& file, Contract* c, std::vector<Diagnostic>* d) : file_(file), c_(c), d_(d) {}

  void read(const Annotation& a) {
    const size_t colon = a.text.find(':');
    const std::string key = trim(std::string_view(a.text).substr(0, colon == std::string::npos ? 0 : colon));
    if (colon == std::string::npos || key.empty() || (a.text[0] != ' ' && a.text[0] != '\t')) {
      error(a, "an annotation reads `// @reducelab KEY: VALUE` (keys: " + std::string(kKeys) + ")");
      return;
    }
    const std::string value = trim(std::string_view(a.text).substr(colon + 1));
    if (const auto it = seen_.find(key); it != seen_.end()) {
      error(a, "'" + key + "' is given twice (first on line " + std::to_string(it->second) + ")");
      return;
    }
    seen_[key] = a.line;
    if (value.empty()) return error(a, "'" + key + "' has no value");
    if (key == "kernel") kernel(a, value);
    else if (key == "template") templ(a, value);
    else if (key == "types") types(a, value);
    else if (key == "ops") ops(a, value);
    else if (key == "blocks") blocks(a, value);
    else if (key == "grid") grid(a, value);
    else if (key == "shared") shared(a, value);
    else if (key == "final") final(a, value);
    else if (key == "passes") passes(a, value);
    else if (key == "output") output(a, value);
    else {
      seen_.erase(key);
      error(a, "unknown key '" + key + "' (keys: " + std::string(kKeys) + ")");
    }
  }

  int lineOf(const std::string& key) const {
    const auto it = seen_.find(key);
    return it == seen_.end() ? 0 : it->second;
  }
  std::string kernelName, kernelAsked;
  int kernelLine = 0;
  bool templateGiven = false;
  std::vector<TemplateArg> templateArgs;
  int templateLine = 0;
  bool passesGiven = false;

 private:
  void error(const Annotation& a, const std::string& message) {
    d_->push_back({file_, a.line, a.column, Severity::Error, message});
  }

  void kernel(const Annotation& a, const std::string& v) {
    if (!identStart(v[0]) || !std::all_of(v.begin(), v.end(), identChar))
      return error(a, "kernel: '" + v + "' is not a function name");
    kernelAsked = v;
    kernelLine = a.line;
  }
  void templ(const Annotation& a, const std::string& v) {
    templateGiven = true;
    templateLine = a.line;
    for (const std::string& w : splitList(v)) {
      if (w == "T") templateArgs.push_back(TemplateArg::Type);
      else if (w == "Op") templateArgs.push_back(TemplateArg::Op);
      else if (w == "BLOCK") templateArgs.push_back(TemplateArg::Block);
      else return error(a, "template: '" + w + "' is not T, Op or BLOCK (the arguments, in the template's order)");
    }
    for (TemplateArg x : {TemplateArg::Type, TemplateArg::Op, TemplateArg::Block})
      if (std::count(templateArgs.begin(), templateArgs.end(), x) > 1)
        return error(a, "template: " + std::string(name(x)) + " is given twice");
  }
  void types(const Annotation& a, const std::string& v) {
    std::vector<ElemType> out;
    for (const std::string& w : splitList(v)) {
      const auto t = parseElemType(w);
      if (!t) return error(a, "types: '" + w + "' is not int32, int64, float32 or float64");
      if (std::find(out.begin(), out.end(), *t) != out.end()) return error(a, "types: " + w + " is given twice");
      out.push_back(*t);
    }
    c_->types = out;
    c_->typesLine = a.line;
  }
  void ops(const Annotation& a, const std::string& v) {
    std::vector<Op> out;
    for (const std::string& w : splitList(v)) {
      const auto o = parseOp(w);
      if (!o) return error(a, "ops: '" + w + "' is not sum, min or max");
      if (std::find(out.begin(), out.end(), *o) != out.end()) return error(a, "ops: " + w + " is given twice");
      out.push_back(*o);
    }
    c_->ops = out;
    c_->opsLine = a.line;
  }
  void blocks(const Annotation& a, const std::string& v) {
    std::vector<int> out;
    for (const std::string& w : splitList(v)) {
      uint64_t b = 0;
      if (!parseUnsigned(w, 1, 1024, &b)) return error(a, "blocks: '" + w + "' is not a block size from 1 to 1024");
      if (std::find(out.begin(), out.end(), int(b)) != out.end()) return error(a, "blocks: " + w + " is given twice");
      out.push_back(int(b));
    }
    c_->blocks = out;
    c_->blocksLine = a.line;
  }
  void grid(const Annotation& a, const std::string& v) {
    const std::vector<std::string> w = words(v);
    uint64_t x = 0;
    if (w.size() == 1 && w[0] == "one-per-thread") {
      c_->grid = GridRule::OnePerThread;
    } else if (w.size() == 2 && w[0] == "elements-per-thread" && parseUnsigned(w[1], 1, 1u << 20, &x)) {
      c_->grid = GridRule::ElementsPerThread;
      c_->elementsPerThread = x;
    } else if (w.size() == 2 && w[0] == "fixed" && parseUnsigned(w[1], 1, 0x7fffffffu, &x)) {
      c_->grid = GridRule::Fixed;
      c_->fixedGrid = x;
    } else {
      return error(a, "grid: '" + v + "' is not one-per-thread, elements-per-thread K (1..2^20) or fixed G (1..2^31-1)");
    }
    c_->gridLine = a.line;
  }
  void shared(const Annotation& a, const std::string& v) {
    const std::vector<std::string> w = words(v);
    uint64_t x = 0;
    if (w.size() == 1 && w[0] == "block") {
      c_->shared = SharedRule::PerThread;
      c_->sharedFactor = 1;
    } else if (w.size() == 3 && w[1] == "x" && w[2] == "block" && parseUnsigned(w[0], 1, 1024, &x)) {
      c_->shared = SharedRule::PerThread;
      c_->sharedFactor = x;
    } else if (w.size() == 1 && w[0] == "warps") {
      c_->shared = SharedRule::PerWarp;
    } else if (w.size() == 1 && w[0] == "none") {
      c_->shared = SharedRule::None;
      c_->sharedFactor = 0;
    } else if (w.size() == 2 && w[1] == "bytes" && parseUnsigned(w[0], 0, uint64_t(1) << 30, &x)) {
      c_->shared = SharedRule::Bytes;
      c_->sharedFactor = x;
    } else {
      return error(a, "shared: '" + v + "' is not block, K x block, warps, none or B bytes");
    }
    c_->sharedLine = a.line;
  }
  void final(const Annotation& a, const std::string& v) {
    if (v == "gpu") c_->final = UserFinal::Gpu;
    else if (v == "cpu") c_->final = UserFinal::Cpu;
    else if (v == "atomic") c_->final = UserFinal::Atomic;
    else return error(a, "final: '" + v + "' is not gpu, cpu or atomic");
    c_->finalLine = a.line;
  }
  void passes(const Annotation& a, const std::string& v) {
    uint64_t x = 0;
    if (!parseUnsigned(v, 1, 16, &x)) return error(a, "passes: '" + v + "' is not a number of launches from 1 to 16");
    c_->cpuPasses = int(x);
    passesGiven = true;
  }
  void output(const Annotation& a, const std::string& v) {
    if (v != "zeroed") return error(a, "output: '" + v + "' is not `zeroed` (the output set to 0 before each launch)");
    c_->zeroedOutput = true;
    c_->outputLine = a.line;
  }

  const std::string& file_;
  Contract* c_;
  std::vector<Diagnostic>* d_;
  std::map<std::string, int> seen_;
};

}  // namespace

ContractResult parseContract(const std::string& source, const std::string& file) {
  ContractResult r;
  Contract& c = r.contract;
  std::vector<Token> tokens;
  std::vector<Annotation> notes;
  scan(source, &tokens, &notes);
  AnnotationReader reader(file, &c, &r.diagnostics);
  for (const Annotation& a : notes) reader.read(a);

  auto error = [&](int line, int column, const std::string& message) {
    r.diagnostics.push_back({file, line, column, Severity::Error, message});
  };
  if (reader.passesGiven && c.final != UserFinal::Cpu)
    error(reader.lineOf("passes"), 0,
          "passes: applies to `final: cpu` only (the GPU final repeats the kernel until one value remains; "
          "the atomic final launches once)");

  // The kernel: its definition, named by `kernel:` when the file has several.
  std::vector<Candidate> found;
  for (const Candidate& k : findKernels(tokens)) {
    auto same = std::find_if(found.begin(), found.end(), [&](const Candidate& f) { return f.name == k.name; });
    if (same == found.end()) found.push_back(k);
    else if (k.definition && !same->definition) *same = k;
  }
  const Candidate* chosen = nullptr;
  if (!reader.kernelAsked.empty()) {
    for (const Candidate& k : found)
      if (k.name == reader.kernelAsked) chosen = &k;
    if (!chosen) {
      std::string names;
      for (const Candidate& k : found) names += (names.empty() ? "" : ", ") + k.name;
      error(reader.kernelLine, 0,
            "kernel: no __global__ function '" + reader.kernelAsked + "' in this file" +
                (names.empty() ? std::string() : " (there is " + names + ")"));
    }
  } else if (found.empty()) {
    error(0, 0, "no __global__ function in this file: the kernel reads `__global__ void NAME(const T* in, T* out, unsigned int n)`");
  } else if (found.size() > 1) {
    std::string names;
    for (const Candidate& k : found) names += (names.empty() ? "" : ", ") + k.name;
    error(found[1].line, found[1].column,
          "this file has " + std::to_string(found.size()) + " __global__ functions (" + names +
              "): name the one ReduceLab launches with `// @reducelab kernel: NAME`");
  } else {
    chosen = &found.front();
  }
  if (chosen) {
    c.kernel = chosen->name;
    c.kernelLine = chosen->line;
    c.templated = chosen->templated;
    if (!chosen->definition)
      error(chosen->line, chosen->column, "kernel " + chosen->name + " is declared but not defined in this file");
    if (reader.templateGiven) {
      if (!chosen->templated)
        error(reader.templateLine, 0, "template: kernel " + chosen->name + " is not a template");
      else if (reader.templateArgs.size() != chosen->inferred.size())
        error(reader.templateLine, 0,
              "template: " + std::to_string(reader.templateArgs.size()) + " arguments given, kernel " + chosen->name +
                  " has " + std::to_string(chosen->inferred.size()) + " template parameters");
      c.templateArgs = reader.templateArgs;
    } else if (chosen->templated) {
      if (!chosen->templateProblem.empty())
        error(chosen->line, chosen->column, "template kernel " + chosen->name + ": " + chosen->templateProblem);
      c.templateArgs = chosen->inferred;
    }
  }
  return r;
}

// ---- launches ----
namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
int log2Ceil(uint64_t v) { return v <= 1 ? 0 : 64 - std::countl_zero(v - 1); }

uint64_t gridFor(const Contract& c, uint64_t n, int block) {
  switch (c.grid) {
    case GridRule::OnePerThread: return ceilDiv(n, uint64_t(block));
    case GridRule::ElementsPerThread: return ceilDiv(n, uint64_t(block) * c.elementsPerThread);
    case GridRule::Fixed: break;
  }
  return std::min(c.fixedGrid, ceilDiv(n, uint64_t(block)));
}

}  // namespace

LaunchPlan planLaunch(const Contract& c, ElemType type, uint64_t n, int block, uint64_t maxGrid) {
  LaunchPlan p;
  p.block = block;
  p.final = c.final;
  p.zeroedOutput = c.zeroedOutput;
  p.dynamicSharedBytes = c.dynamicSharedBytes(block, type);
  if (block < 1 || block > 1024) return p.error = "block " + std::to_string(block) + " is not from 1 to 1024", p;
  if (n == 0) return p.error = "N is 0", p;
  const int depth = log2Ceil(uint64_t(block));
  auto add = [&](uint64_t count) -> bool {
    const uint64_t grid = gridFor(c, count, block);
    if (grid > maxGrid) {
      p.error = "N = " + std::to_string(count) + " needs a grid of " + std::to_string(grid) + " blocks; the GPU launches at most " +
                std::to_string(maxGrid);
      return false;
    }
    p.passes.push_back({count, grid});
    p.chainBound += ceilDiv(count, grid * uint64_t(block)) + uint64_t(depth) + 1;
    return true;
  };
  if (!add(n)) return p;
  switch (c.final) {
    case UserFinal::Gpu:
      while (p.passes.back().grid > 1) {
        const uint64_t left = p.passes.back().grid;
        if (gridFor(c, left, block) >= left) {
          p.error = "block " + std::to_string(block) + " never reduces " + std::to_string(left) +
                    " partials to fewer (each launch must shrink them)";
          return p;
        }
        if (!add(left)) return p;
      }
      break;
    case UserFinal::Cpu:
      while (int(p.passes.size()) < c.cpuPasses && p.passes.back().grid > 1)
        if (!add(p.passes.back().grid)) return p;
      p.cpuValues = p.passes.back().grid;
      p.chainBound += p.cpuValues;
      break;
    case UserFinal::Atomic: p.chainBound += p.passes.back().grid; break;
  }
  p.chainBound += 2;
  return p;
}

}  // namespace rl::usercode
