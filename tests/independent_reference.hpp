#pragma once
// What a reduction must return, computed by the tests themselves: no product code takes part but
// the input generator (datagen.hpp), which DataGenerator.MatchesValuesComputedOutsideTheProduct
// pins to values computed by an independent script. The product's own reference and check
// (reference.hpp) are never on the expected side of a GPU test.
//
// Exact in every case the data patterns produce: integer sums in 128 bits; float sums as 128-bit
// fixed point at 2^-60 (every generated float value is a multiple of 2^-60 below 2^66 in
// magnitude, which the code checks element by element and reports if ever not).
#include <cstdint>
#include <string>

#include "reducelab/datagen.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/types.hpp"

namespace rl::test {

struct ExactReduction {
  ElemType in = ElemType::Float32;
  Op op = Op::Sum;
  uint64_t n = 0;
  bool exact = true;          // false: an element was not representable in the fixed point
  __int128 sumFixed = 0;      // float sums: the sum x 2^60; integer sums: the sum itself
  long double sumAbs = 0;     // sum of |x|
  long double extremum = 0;   // min or max
  long double value() const;  // the exact result as a long double
};

// Elements [first, first + n) of `spec` in type `in`, reduced by `op`, on all CPU cores.
ExactReduction exactReduction(ElemType in, Op op, const DataSpec& spec, uint64_t n, uint64_t first = 0);

// Whether `got` is what a correct reduction accumulating in `acc` returns: integer results and
// min/max exactly (integer sums wrapped to the accumulator's width, as two's complement adds do in
// any order); float sums within chain x u(acc) x sum|x|, the bound of any summation order whose
// longest chain of dependent additions is `chain` (Higham, Accuracy and Stability, 4.2).
// "" or what differs.
std::string checkAgainstExact(const ExactReduction& x, ElemType acc, const Value& got, uint64_t chain);

// A chain bound from facts of the launch alone: `threads` threads read the input, each adds at
// most ceil(n / threads) + 16 elements in sequence (vector lanes, tails), then trees of depth
// log2 combine the threads and the passes.
uint64_t chainBoundOf(uint64_t n, uint64_t threads);

}  // namespace rl::test
