// `reducelab compile FILE.cu`: the user's kernel through NVRTC (docs/your-kernel.md). Diagnostics
// on stderr as `file:line:column: severity: message`, the contract and each build's resources on
// stdout, with the occupancy of every claimed block size on this GPU (or the H200 assumed).
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cmd_usercode.hpp"
#include "reducelab/usercode/check_json.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/compiler.hpp"

namespace rl::app {

namespace uc = rl::usercode;

CLI::App* addCompileCommand(CLI::App& cli, CompileCommandOptions& o) {
  CLI::App* c = cli.add_subcommand("compile", "Compile your own kernel with NVRTC: diagnostics and resources (no GPU needed; "
                                              "docs/your-kernel.md)");
  c->add_option("file", o.file, "The kernel's .cu file")->required();
  c->add_option("--arch", o.arch, "GPU architecture, e.g. sm_90 (default: this GPU's, else sm_90)");
  c->add_option("--type", o.types, "Element types to build, a comma list (default: those the kernel claims)");
  c->add_option("--op", o.ops, "Operations to build: sum, min, max (default: those the kernel claims)");
  c->add_option("--format", o.format, "text or json")->capture_default_str();
  c->add_flag("--no-cache", o.noCache, "Compile even when the build is in the cache (and do not store it)");
  return c;
}

namespace {

int fail(int code, const std::string& what) {
  std::fprintf(stderr, "reducelab: error: %s\n", what.c_str());
  return code;
}

template <class T, class Parse>
std::string parseList(const std::string& text, const char* what, Parse parse, std::vector<T>* out) {
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto v = parse(item);
    if (!v) return std::string("--") + what + ": '" + item + "' is not known";
    out->push_back(*v);
  }
  return {};
}

}  // namespace

// Shared with `check`: the file's text, or exit code 2 with the message printed.
int readKernelSource(const std::string& file, std::string* source) {
  if (std::string e = readTextFile(file, source, uint64_t(4) << 20); !e.empty()) return fail(2, e);
  return 0;
}

int runCompileCommand(const CompileCommandOptions& o) {
  if (o.format != "text" && o.format != "json") return fail(2, "--format must be text or json, got '" + o.format + "'");
  std::string source;
  if (int rc = readKernelSource(o.file, &source)) return rc;
  DeviceInfo device;
  int sm = 90;
  if (!o.arch.empty()) {
    sm = uc::parseArch(o.arch);
    if (!sm) return fail(2, "--arch must read sm_XY (sm_90, sm_100, ...), got '" + o.arch + "'");
  } else if (device = queryDevice(0); device.available) {
    sm = device.ccMajor * 10 + device.ccMinor;
  }
  const uc::ContractResult contract = uc::parseContract(source, o.file);
  std::vector<ElemType> types;
  std::vector<Op> ops;
  if (std::string e = parseList(o.types, "type", [](const std::string& s) { return parseElemType(s); }, &types); !e.empty())
    return fail(2, e);
  if (std::string e = parseList(o.ops, "op", [](const std::string& s) { return parseOp(s); }, &ops); !e.empty())
    return fail(2, e);
  if (types.empty()) types = contract.contract.types;
  if (ops.empty()) ops = contract.contract.ops;

  const std::vector<uc::CompileResult> builds = uc::compileClaims(source, o.file, sm, types, ops, "", !o.noCache);
  const std::vector<uc::Diagnostic> diagnostics = uc::mergedDiagnostics(builds);
  for (const uc::Diagnostic& d : diagnostics) std::fprintf(stderr, "%s\n", d.text().c_str());
  for (const uc::CompileResult& b : builds)
    if (b.status == uc::CompileStatus::Environment) return fail(1, b.environmentError);
  const bool ok = std::all_of(builds.begin(), builds.end(), [](const uc::CompileResult& b) { return b.ok(); });

  // Occupancy of each claimed block on this GPU, or on the H200 ReduceLab assumes without one.
  const bool assumed = !device.available || device.ccMajor * 10 + device.ccMinor != sm;
  const DeviceInfo target = assumed ? assumedH200() : device;
  if (o.format == "json") {
    nlohmann::json j;
    j["file"] = o.file;
    j["arch"] = uc::archName(sm);
    j["ok"] = ok;
    j["exit_code"] = ok ? 0 : 4;
    j["contract"] = contract.contract.describe();
    j["diagnostics"] = uc::diagnosticsJson(diagnostics);
    j["builds"] = nlohmann::json::array();
    for (const uc::CompileResult& b : builds) {
      nlohmann::json kernels = nlohmann::json::array();
      for (const uc::KernelBuild& k : b.kernels) {
        nlohmann::json occupancy = nlohmann::json::array();
        for (int block : b.contract.blocks) {
          if (k.block && k.block != block) continue;
          const int shared = k.resources.staticSharedBytes + int(b.contract.dynamicSharedBytes(block, b.type));
          const OccupancyResult occ = computeOccupancy(target, {block, k.resources.registers, shared});
          occupancy.push_back({{"block", block}, {"occupancy", occ.occupancy}, {"limiter", occ.limiter}});
        }
        nlohmann::json kernel = uc::kernelBuildJson(k);
        kernel["barriers"] = k.resources.barriers;
        kernel["n_bytes"] = k.paramBytes.size() == 3 ? k.paramBytes[2] : 0;
        kernel["occupancy"] = occupancy;
        kernels.push_back(std::move(kernel));
      }
      j["builds"].push_back({{"type", std::string(name(b.type))},
                             {"op", std::string(name(b.op))},
                             {"ok", b.ok()},
                             {"nvrtc", b.nvrtcVersion},
                             {"cache_hit", b.cacheHit},
                             {"cache_file", b.cacheFile},
                             {"cache_note", b.cacheNote},
                             {"kernels", kernels}});
    }
    j["occupancy_device"] = target.name;
    std::printf("%s\n", j.dump(2).c_str());
    return ok ? 0 : 4;
  }

  if (!ok) {
    int errors = 0;
    for (const uc::Diagnostic& d : diagnostics) errors += d.severity == uc::Severity::Error;
    std::fprintf(stderr, "%s: %d error%s; nothing was built\n", o.file.c_str(), errors, errors == 1 ? "" : "s");
    return 4;
  }
  int hits = 0;
  for (const uc::CompileResult& b : builds) hits += b.cacheHit;
  std::printf("%s: compiled for %s with NVRTC %s: %zu build%s (%d from the cache)\n", o.file.c_str(),
              uc::archName(sm).c_str(), builds.front().nvrtcVersion.c_str(), builds.size(), builds.size() == 1 ? "" : "s",
              hits);
  for (const std::string& line : builds.front().contract.describe()) std::printf("  %s\n", line.c_str());
  std::printf("  resources (ptxas) and occupancy on %s:\n", target.name.c_str());
  for (const uc::CompileResult& b : builds) {
    if (!b.cacheNote.empty()) std::printf("  note: %s\n", b.cacheNote.c_str());
    for (const uc::KernelBuild& k : b.kernels) {
      std::string occ;
      for (int block : b.contract.blocks) {
        if (k.block && k.block != block) continue;
        const int shared = k.resources.staticSharedBytes + int(b.contract.dynamicSharedBytes(block, b.type));
        const OccupancyResult r = computeOccupancy(target, {block, k.resources.registers, shared});
        char part[96];
        std::snprintf(part, sizeof part, "%sb%d %.0f%% (%s)", occ.empty() ? "" : ", ", block, r.occupancy * 100,
                      r.limiter.c_str());
        occ += part;
      }
      std::printf("  %-8s %-3s  %s: %s; occupancy %s\n", std::string(name(b.type)).c_str(),
                  std::string(name(b.op)).c_str(), k.nameExpression.c_str(), k.resources.text().c_str(), occ.c_str());
    }
  }
  return 0;
}

}  // namespace rl::app
