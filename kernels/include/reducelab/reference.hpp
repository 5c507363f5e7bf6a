#pragma once
// The CPU side of a measurement: the exact reference result, the seeds' sequential loop as the
// baseline (timed like the GPU: median of repetitions), and the pass/fail tolerance.
#include <cstdint>
#include <functional>
#include <string>

#include "reducelab/config.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/stats.hpp"

namespace rl {

// A reduction result of any element type: integers exactly, floats as double.
struct Value {
  bool isInt = false;
  int64_t i = 0;
  double f = 0;
  double asDouble() const { return isInt ? double(i) : f; }
  std::string text() const;  // exact integer, or %.17g
};

struct Reference {
  // The mathematically exact result (integers: 128-bit; float sums: long double with
  // compensation, far below float64 rounding for the data patterns offered).
  long double exact = 0;
  __int128 exactInt = 0;
  // What a correct GPU reduction in the accumulator type must produce for integers:
  // the exact value wrapped to the accumulator's width (integer sums are order-independent).
  Value expected;
  bool overflow = false;  // the exact integer sum does not fit the accumulator
  long double sumAbs = 0; // sum of |x|: scales the floating-point tolerance
  bool cancelled = false; // stopped by CpuWork::cancelled: the other fields mean nothing
};

// Hooks of long CPU work (reference, baseline): `cancelled` is polled between chunks of about a
// million elements (the CLI's Ctrl+C flag, the GUI's Cancel button); `progress` is told the
// fraction done (0..1) a few times a second, always from the calling thread.
struct CpuWork {
  std::function<bool()> cancelled;
  std::function<void(double fraction)> progress;
};

DataSpec dataSpecOf(const RunConfig& c);

// Exact reference of the config's data, computed on `threads` CPU threads (0: all cores).
Reference computeReference(const RunConfig& c, int threads = 0);
// The same, stoppable and reporting progress. The reference streams: it holds no buffer.
Reference computeReference(const RunConfig& c, int threads, const CpuWork& work);

// Host memory the CPU side of a run holds: the CPU baseline keeps the N elements in a host
// buffer; the reference needs none.
uint64_t hostBytesNeeded(const RunConfig& c, bool cpuBaseline);
std::string formatBytes(uint64_t bytes);  // "3.0 GiB"
// MemAvailable of /proc/meminfo in bytes; 0 if it cannot be read.
uint64_t hostMemoryAvailable();
// "" if the run's host buffers fit in `availableBytes` (0: read /proc/meminfo), else one line
// saying what it needs and what is free.
std::string checkHostMemory(const RunConfig& c, bool cpuBaseline, uint64_t availableBytes = 0);

struct Check {
  double absError = 0, relError = 0, tolerance = 0;
  bool pass = false;
  std::string note;  // "exact", "within tolerance", "integer overflow: ...", ...
};

// Floats: |result - exact| <= chain x eps(acc) x sum|x|; integers and min/max: exact equality
// with Reference::expected.
Check checkResult(const RunConfig& c, const Value& result, const Reference& ref,
                  uint64_t chainBound);

struct CpuBaseline {
  Stats ms;     // the sequential loop's time
  Value result; // what it computes (in the accumulator type)
  int reps = 0;
  bool cancelled = false;
  std::string error;  // not run: e.g. its host buffer does not fit in memory
};

// The seeds' loop `acc = acc op v[i]` over host data, timed `reps` times (fewer for very
// large N: at most ~`budgetSeconds` of looping). `cancel` may stop it between chunks. An N whose
// buffer does not fit in host memory is not run (CpuBaseline::error says why).
CpuBaseline runCpuBaseline(const RunConfig& c, int reps, double budgetSeconds = 3.0,
                           const std::function<bool()>& cancel = {});
CpuBaseline runCpuBaseline(const RunConfig& c, int reps, double budgetSeconds, const CpuWork& work);
// The CPU baseline of c's kernel's family (KernelFamily::cpuBaseline): the reductions' loop above,
// or a matrix family's plain loops. Every caller that times "the CPU" asks this.
CpuBaseline cpuBaselineOf(const RunConfig& c, int reps, double budgetSeconds, const CpuWork& work);

}  // namespace rl
