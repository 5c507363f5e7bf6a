#include "reducelab/sweep.hpp"

#include "reducelab/family.hpp"

#include <map>
#include <tuple>

#include "reducelab/engine.hpp"

namespace rl {

std::string_view name(SweepAxis a) {
  switch (a) {
    case SweepAxis::Block: return "block";
    case SweepAxis::N: return "n";
    case SweepAxis::Type: return "type";
    case SweepAxis::Kernel: return "kernel";
    case SweepAxis::Tile: return "tile";
    case SweepAxis::Size: return "size";
  }
  return "?";
}

std::optional<SweepAxis> parseSweepAxis(std::string_view s) {
  if (s == "block") return SweepAxis::Block;
  if (s == "n") return SweepAxis::N;
  if (s == "type") return SweepAxis::Type;
  if (s == "kernel") return SweepAxis::Kernel;
  if (s == "tile") return SweepAxis::Tile;
  if (s == "size") return SweepAxis::Size;
  return std::nullopt;
}

std::vector<RunConfig> planSweep(const SweepSpec& s, const DeviceInfo& device,
                                 std::vector<std::string>* skipped, std::string* error) {
  std::vector<RunConfig> out;
  const DeviceInfo* dev = device.available ? &device : nullptr;
  auto add = [&](RunConfig c) {
    if (std::string e = validate(c, dev); !e.empty()) {
      if (skipped) skipped->push_back(c.kernel + " " + e);
      return;
    }
    out.push_back(c);
  };
  auto addFor = [&](const std::string& kernel, auto&& set) {  // s.base, for this kernel, changed by set
    RunConfig c = s.base;
    c.kernel = kernel;
    applyParameters(c, s.parameters);  // the kernel's family's params: s.base's family's may be another's
    set(c);
    normalizeConfig(c);  // matrix kernels: block and N from the tile and the sides
    add(c);
  };
  // Whether a kernel's family sweeps this axis; if not, the refusal is noted once.
  auto sweeps = [&](const std::string& key) { return familyOf(*findKernel(key)).sweepRefusal(s.axis).empty(); };
  auto refuse = [&](const std::string& kernel, const std::string& why) {
    if (skipped) skipped->push_back(kernel + " " + why);
  };
  auto refuseUnswept = [&](const std::vector<std::string>& keys) {
    for (const std::string& k : keys)
      if (!sweeps(k)) refuse(k, familyOf(*findKernel(k)).sweepRefusal(s.axis));
  };
  std::vector<std::string> kernels = s.kernels;
  if (s.axis == SweepAxis::Kernel) {
    kernels.clear();
    for (const KernelInfo& k : catalogue())  // the ladder (matrix kernels: the tile and size axes)
      if (familyOf(k).formsLadder()) kernels.push_back(std::string(k.key));
  }
  for (const std::string& k : kernels)
    if (!findKernel(k)) {
      if (error) *error = "unknown kernel '" + k + "' (known: " + kernelKeys() + ")";
      return {};
    }
  switch (s.axis) {
    case SweepAxis::Block:
      refuseUnswept(kernels);
      for (const std::string& k : kernels)
        if (sweeps(k))
        for (int b = 32; b <= 1024; b *= 2)
          addFor(k, [&](RunConfig& c) {
            c.block = b;
            c.final = FinalStage::Default;
          });
      break;
    case SweepAxis::N: {
      uint64_t nMax = s.nMax;
      if (nMax == 0) {  // the largest power of two whose run fits in free device memory
        nMax = uint64_t(1) << 20;
        for (uint64_t n = nMax; n <= (uint64_t(1) << 36); n *= 2) {
          RunConfig c = s.base;
          c.kernel = kernels.front();
          c.n = n;
          const uint64_t free = device.freeMemBytes > 0 ? uint64_t(device.freeMemBytes) : (uint64_t(8) << 30);
          if (deviceBytesNeeded(c, device) + (uint64_t(1) << 30) > free) break;
          nMax = n;
        }
      }
      if (s.nMin < 1 || s.nMin > nMax) {
        if (error) *error = "the N range is empty (" + formatCount(s.nMin) + " to " + formatCount(nMax) + ")";
        return {};
      }
      // Powers of two, N-major so one input serves every kernel before the next is generated.
      refuseUnswept(kernels);
      for (uint64_t n = s.nMin; n <= nMax; n *= 2)
        for (const std::string& k : kernels)
          if (sweeps(k)) addFor(k, [&](RunConfig& c) { c.n = n; });
      break;
    }
    case SweepAxis::Tile:
      refuseUnswept(kernels);
      for (const std::string& k : kernels)
        for (int t : findKernel(k)->tiles)
          addFor(k, [&](RunConfig& c) { setParametersOfRole(c, ParameterRole::Tile, uint64_t(t)); });
      break;
    case SweepAxis::Size: {
      if (s.sizeMin < 1 || s.sizeMin > s.sizeMax || s.sizeMax > kMaxMatrixSide) {
        if (error)
          *error = "the size range " + std::to_string(s.sizeMin) + ".." + std::to_string(s.sizeMax) +
                   " is empty or outside 1.." + std::to_string(kMaxMatrixSide);
        return {};
      }
      refuseUnswept(kernels);
      for (uint64_t side = s.sizeMin; side <= s.sizeMax; side *= 2)
        for (uint64_t v : {side, side + 7})
          for (const std::string& k : kernels)
            if (sweeps(k))
              addFor(k, [&](RunConfig& c) {  // square matrices: every side, K too
                setParametersOfRole(c, ParameterRole::OutputSide, v);
                setParametersOfRole(c, ParameterRole::InnerSide, v);
              });
      break;
    }
    case SweepAxis::Type:
      for (ElemType t : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64})
        for (const std::string& k : kernels) addFor(k, [&](RunConfig& c) { c.type = t; });
      break;
    case SweepAxis::Kernel:
      for (const std::string& k : kernels) addFor(k, [](RunConfig& c) { c.final = FinalStage::Default; });
      break;
  }
  if (out.empty() && error && error->empty()) *error = "nothing to run: every configuration was refused";
  return out;
}

std::vector<Measurement> runSweep(Engine& engine, const std::vector<RunConfig>& configs,
                                  const std::function<void(const Measurement&, int, int)>& onResult,
                                  const std::atomic<bool>* cancel, const SweepHooks& hooks) {
  std::vector<Measurement> out;
  std::map<std::tuple<int, int, int, uint64_t, int, uint64_t, int64_t, int64_t>, Reference> refs;
  int done = 0;
  for (const RunConfig& c : configs) {
    if (hooks.betweenRuns) hooks.betweenRuns();
    if (cancel && cancel->load()) break;
    if (!familyOf(*findKernel(c.kernel)).scalarResult()) {  // the engine checks the whole output itself
      MeasureOptions o;
      o.cpuBaseline = false;
      o.reference = false;
      o.cancel = [cancel] { return cancel && cancel->load(); };
      if (hooks.betweenRepetitions) o.betweenRepetitions = [&] { hooks.betweenRepetitions(c); };
      Measurement m = engine.measure(c, o);
      if (!m.ok && m.error == "cancelled") break;
      out.push_back(m);
      ++done;
      if (onResult) onResult(out.back(), done, int(configs.size()));
      continue;
    }
    const auto key = std::make_tuple(int(c.type), int(c.accumulate), int(c.op), c.n, int(c.data), c.seed,
                                     c.rangeLo, c.rangeHi);
    auto it = refs.find(key);
    if (it == refs.end()) {
      CpuWork work;
      work.cancelled = [cancel] { return cancel && cancel->load(); };
      Reference ref = computeReference(c, 0, work);
      if (ref.cancelled) break;
      it = refs.emplace(key, ref).first;
    }
    MeasureOptions o;
    o.cpuBaseline = false;
    o.knownReference = &it->second;
    o.cancel = [cancel] { return cancel && cancel->load(); };
    if (hooks.betweenRepetitions) o.betweenRepetitions = [&] { hooks.betweenRepetitions(c); };
    Measurement m = engine.measure(c, o);
    if (!m.ok && m.error == "cancelled") break;
    out.push_back(m);
    ++done;
    if (onResult) onResult(out.back(), done, int(configs.size()));
  }
  return out;
}

}  // namespace rl
