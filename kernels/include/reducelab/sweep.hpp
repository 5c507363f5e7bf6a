#pragma once
// Sweeps: one axis (block size, N, element type or kernel) varied over a base configuration,
// for one or more kernels. Planning is plain C++; runSweep drives an Engine.
#include <atomic>
#include <functional>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "reducelab/config.hpp"
#include "reducelab/record.hpp"

namespace rl {

class Engine;

// Tile and Size belong to the matrix families: each kernel's tiles, and square matrices
// (rows = cols = inner) from sizeMin to sizeMax, doubling, each also 7 past it (a ragged edge).
enum class SweepAxis { Block, N, Type, Kernel, Tile, Size };
std::string_view name(SweepAxis a);
std::optional<SweepAxis> parseSweepAxis(std::string_view s);

struct SweepSpec {
  SweepAxis axis = SweepAxis::Block;
  RunConfig base;
  std::vector<std::string> kernels = {"k7"};  // one series per kernel (ignored for the kernel axis)
  uint64_t nMin = uint64_t(1) << 10;
  uint64_t nMax = 0;                          // 0: the largest power of two that fits the device
  uint64_t sizeMin = 256, sizeMax = 4096;     // matrix sides of the size axis
  // Family parameters by key (the command line's --rows, --tile), set on each kernel's run
  // before the swept value (KernelFamily::parameters; s.base holds one family's only).
  std::map<std::string, uint64_t, std::less<>> parameters;
};

// The configurations of a sweep in run order, skipping combinations a kernel refuses (listed in
// *skipped with the reason). `device` may be the assumed H200 when planning without a GPU.
std::vector<RunConfig> planSweep(const SweepSpec& s, const DeviceInfo& device,
                                 std::vector<std::string>* skipped, std::string* error);

// Runs the configurations, sharing exact references between runs of the same data; calls
// onResult after each (from the calling thread). Stops early when *cancel becomes true.
// `betweenRuns` (optional) is called before each configuration, outside any measurement;
// `betweenRepetitions` is handed to each measurement (MeasureOptions).
struct SweepHooks {
  std::function<void()> betweenRuns;
  std::function<void(const RunConfig&)> betweenRepetitions;
};
std::vector<Measurement> runSweep(Engine& engine, const std::vector<RunConfig>& configs,
                                  const std::function<void(const Measurement&, int done, int total)>& onResult,
                                  const std::atomic<bool>* cancel, const SweepHooks& hooks = {});

}  // namespace rl
