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
};

DataSpec dataSpecOf(const RunConfig& c);

// Exact reference of the config's data, computed on `threads` CPU threads (0: all cores).
Reference computeReference(const RunConfig& c, int threads = 0);

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
};

// The seeds' loop `acc = acc op v[i]` over host data, timed `reps` times (fewer for very
// large N: at most ~`budgetSeconds` of looping). `cancel` may stop it between repetitions.
CpuBaseline runCpuBaseline(const RunConfig& c, int reps, double budgetSeconds = 3.0,
                           const std::function<bool()>& cancel = {});

}  // namespace rl
