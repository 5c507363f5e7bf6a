// `reducelab tune`: measures the tuned kernel's launch policies (k13: loads in flight x CTAs per SM
// x cache hint, per type, block and N) on this GPU and stores the fastest per device, beside the
// measured peaks. `--show` prints the stored table.
#include <cstdio>
#include <sstream>

#include "commands.hpp"
#include "interrupt.hpp"
#include "reducelab/backend.hpp"
#include "reducelab/engine.hpp"

namespace rl::app {

namespace {

// "int32,float64" -> types; "256,512" -> blocks; "" or the reason.
std::string parseTypes(const std::string& text, std::vector<ElemType>* out) {
  out->clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto t = parseElemType(item);
    if (!t) return "--type '" + item + "' is not one of: int32, int64, float32, float64";
    out->push_back(*t);
  }
  return out->empty() ? "--type names no type" : "";
}

std::string parseBlocks(const std::string& text, std::vector<int>* out) {
  out->clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const long b = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || b < 32 || b > 1024 || (b & (b - 1)))
      return "--block '" + item + "' is not a power of two from 32 to 1024";
    out->push_back(int(b));
  }
  return out->empty() ? "--block names no block size" : "";
}

void printTable(const PolicyTable& t) {
  if (t.empty()) {
    std::printf("No tuned policies are stored for this device: k13 uses the latency rule (reducelab tune measures them).\n");
    return;
  }
  std::printf("Tuned policies of k13 on %s (driver %s, %s):\n", t.deviceName.c_str(), t.driver.c_str(), t.date.c_str());
  std::printf("  %-8s %6s %6s  %-7s %-10s %-16s %10s\n", "type", "block", "N", "loads", "CTAs/SM", "cache hint", "median us");
  for (const auto& [key, p] : t.entries) {
    const auto& [type, block, lg] = key;
    std::printf("  %-8s %6d %6s  %-7d %-10s %-16s %10.2f\n", std::string(name(type)).c_str(), block,
                ("2^" + std::to_string(lg)).c_str(), p.loadsInFlight,
                p.ctasPerSM > 0 ? std::to_string(p.ctasPerSM).c_str() : "wave", std::string(name(p.hint)).c_str(),
                p.medianUs);
  }
}

}  // namespace

int runTune(const TuneCommandOptions& o) {
  TuneOptions t;
  if (std::string e = parseTypes(o.types, &t.types); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 2;
  }
  if (std::string e = parseBlocks(o.blocks, &t.blocks); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 2;
  }
  std::string err;
  const auto lo = parseCount(o.nMin, &err);
  const auto hi = lo ? parseCount(o.nMax, &err) : std::nullopt;
  if (!lo || !hi) {
    std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
    return 2;
  }
  auto log2Of = [](uint64_t n) { int e = 0; while ((uint64_t(1) << (e + 1)) <= n) ++e; return e; };
  if (*lo > *hi) {
    std::fprintf(stderr, "reducelab: error: --n-min is above --n-max\n");
    return 2;
  }
  t.log2Sizes.clear();
  for (int e = log2Of(*lo); e <= log2Of(*hi); e += o.nStep) t.log2Sizes.push_back(e);
  t.reps = o.reps;
  std::unique_ptr<Backend> gpu = makeLocalGpuBackend(0);  // this machine's GPU, through the measurement service
  if (std::string no = gpu->measuresNot(); !no.empty()) {
    std::fprintf(stderr, "reducelab: error: tune needs an NVIDIA GPU (%s)\n",
                 gpu->device().available ? no.c_str() : gpu->device().unavailableReason.c_str());
    return 1;
  }
  if (o.show) {
    PolicyTable stored;
    gpu->onEngine([&](Engine& e) { stored = e.policies(); });
    printTable(stored);
    return 0;
  }
  installInterruptHandler();
  t.cancel = [] { return interrupted(); };
  t.progress = [](const std::string& line) { std::fprintf(stderr, "  %s\n", line.c_str()); };
  PolicyTable table;
  std::string e;
  gpu->onEngine([&](Engine& engine) { e = engine.tune(t, &table); });
  if (!e.empty()) {
    if (interrupted()) {
      std::fprintf(stderr, "reducelab: interrupted; no policies were stored\n");
      return kExitInterrupted;
    }
    std::fprintf(stderr, "reducelab: error: %s; no policies were stored\n", e.c_str());
    return 1;
  }
  printTable(table);
  return 0;
}

}  // namespace rl::app
