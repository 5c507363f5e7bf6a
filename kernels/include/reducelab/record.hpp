#pragma once
// The measurement record: one run's configuration, geometry, resources, timings, result and
// check. Every view, CLI table and export is made from these records.
#include <string>
#include <vector>

#include "reducelab/config.hpp"
#include "reducelab/device_info.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/stats.hpp"

namespace rl {

// What occupancy looks like for one kernel configuration (cudaFuncGetAttributes +
// cudaOccupancyMaxActiveBlocksPerMultiprocessor, and our calculator's limiting resource).
struct ResourceUsage {
  int registers = 0;
  bool registersAssumed = false;  // no device reported them (kAssumedRegisters)
  // Not measured here but recorded from the driver for this architecture (launch_plan.hpp).
  bool registersRecorded = false;
  int staticSmemBytes = 0;
  int dynamicSmemBytes = 0;
  int localBytes = 0;  // spills / stack per thread
  int maxThreadsPerBlock = 0;
  int activeBlocksPerSM = 0;
  double occupancy = 0;     // active warps / max warps per SM
  std::string limiter;      // "threads", "blocks", "registers", "shared memory"
  double waves = 0;         // grid / (active blocks per SM x SMs)
};

// Bandwidth ceilings of the device.
struct Peaks {
  double theoreticalGBs = 0;  // 2 x memory clock x bus width / 8
  double readGBs = 0;         // measured: read-only streaming kernel
  double copyGBs = 0;         // measured: device-to-device copy, (read + write) / time
  std::string source;         // "measured now", "cached (driver 13.0)", "not measured"
  // How the measured peaks were taken: buffer (>= 8 x L2), spread over the repetitions, and the
  // clocks the device ran at (0: unknown).
  double bufferBytes = 0;
  double readMinGBs = 0, readMaxGBs = 0, copyMinGBs = 0, copyMaxGBs = 0;
  int smClockMHz = 0, memClockMHz = 0;
};

// Measured peaks are taken on a buffer of at least this many L2 sizes (smaller ones partly hit L2).
constexpr int kPeakBufferL2Multiple = 8;

struct Measurement {
  RunConfig config;
  std::string label;  // who asked for it: a lesson row ("lesson:3"), empty for plain runs
  std::string kernelName;
  bool ok = false;
  std::string error;  // why nothing was measured (validation, CUDA error)

  Geometry geometry;
  ResourceUsage resources;

  std::vector<double> kernelMs;     // all launches of the reduction, per repetition
  std::vector<double> endToEndMs;   // launches + copy of partials + CPU final, per repetition
  // Repetitions whose blocking kernel gave up waiting for the host (their interval may hold
  // host enqueue time); 0 in a sound measurement.
  int enqueueTimeouts = 0;
  // The empty-launch floor timed the same way (config.timing): the median time of one launch of
  // an empty kernel, per launch of this reduction (0: not measured). A row near it is launch latency.
  double launchFloorMs = 0;
  Stats kernel, endToEnd;
  double bytesRead = 0;             // N x sizeof(element)
  double bandwidthGBs = 0;          // bytesRead / median kernel time
  double endToEndGBs = 0;
  double pctTheoretical = 0, pctMeasuredRead = 0;
  // The matrix families: bandwidth against the measured device-to-device copy (transpose), and
  // GFLOP/s against the device's peak for the type (matmul; 0 where the peak is unknown).
  double pctCopy = 0;
  double gflops = 0, peakGflops = 0, pctPeakFlops = 0;

  Value result;                     // of the last repetition
  std::vector<std::string> distinctResults;  // over all repetitions (determinism)
  Reference reference;
  Check check;
  bool haveReference = false;

  CpuBaseline cpu;
  bool haveCpu = false;
  double speedupVsCpu = 0;          // CPU median / end-to-end median
  // Filled when rows are put side by side (ladder tables): vs the previous row and the first.
  double stepSpeedup = 0, cumulativeSpeedup = 0;
};

// Like for like: which time a set of rows is compared by. Kernel time covers every GPU launch
// (second passes, atomics, last-block finals included) but not a CPU final loop, so rows where a
// CPU final meets another final stage are compared by end-to-end time (launches + copy of
// partials + CPU final); otherwise by kernel time. One basis per screen: the headline, plots,
// tables and exports of one set of rows all use it and name it.
enum class TimeBasis { Kernel, EndToEnd };
TimeBasis comparisonBasis(const std::vector<Measurement>& rows);
// Where a row's reduction ends and, for a CPU final, after how many GPU launches: the CPU's share
// (the copy of the partials left and their sum) differs with them, so two CPU finals after different
// numbers of passes are compared end to end too (the UPC lecture's Kernel01 and Kernel02).
struct FinalWork {
  FinalStage stage = FinalStage::Gpu;
  uint64_t gpuPasses = 1;  // CPU finals: launches before the CPU
};
FinalWork finalWorkOf(const RunConfig& c);  // as configured (a lesson's rows before they run)
FinalWork finalWorkOf(const Geometry& g);   // as planned and run
// The basis two rows of these final stages are compared by (the rule above, for views whose rows
// are configurations not yet measured, such as a lesson's).
TimeBasis basisOfFinals(FinalWork a, FinalWork b);
// Whether a row takes part: ok, and of a family with a final stage (not a transpose or a product).
bool hasTimeBasis(const Measurement& m);
// The basis after one more row: the same as comparisonBasis(rows + row), in O(1) for views that
// append (rows so far: `basis` and the first row that hasTimeBasis, if any).
TimeBasis comparisonBasisAfter(TimeBasis basis, const Measurement* firstOk, const Measurement& added);
// The basis as a JSON value ("kernel" / "e2e"), as words on screen and in headers ("kernel" /
// "end to end"), the sentence that says what it covers, and "GB/s (kernel)" for axes and headlines.
const char* timeBasisLabel(TimeBasis b);
const char* timeBasisName(TimeBasis b);
const char* timeBasisMeaning(TimeBasis b);
std::string bandwidthLabel(TimeBasis b);
// The statistics of the compared time of one row, and its bandwidth.
const Stats& comparedTime(const Measurement& m, TimeBasis b);
double comparedGBs(const Measurement& m, TimeBasis b);

// Like for like across timing modes: rows timed differently (blocked, events, graph) are never
// compared. True when the ok rows use more than one timing mode.
bool mixedTimingModes(const std::vector<Measurement>& rows);
// The caption sentence for such rows ("" when one mode): which modes, and that no speedups are given.
std::string timingModesNote(const std::vector<Measurement>& rows);

// Fills step and cumulative speedups of consecutive rows, by median compared time
// (comparisonBasis of the rows). Rows of mixed timing modes get none (0: not compared).
void fillLadderSpeedups(std::vector<Measurement>& rows);

}  // namespace rl
