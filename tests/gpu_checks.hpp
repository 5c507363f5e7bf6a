#pragma once
// The GPU tests' own judgement of a measured reduction: its result against the tests'
// independent exact reference (independent_reference.hpp), never against the product's check.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "independent_reference.hpp"
#include "reducelab/config.hpp"
#include "reducelab/record.hpp"
#include "reducelab/reference.hpp"

namespace rl::test {

// The exact reduction of a configuration's input, computed once per (data, type, op, N).
inline const ExactReduction& exactFor(const RunConfig& c) {
  static std::mutex m;
  static std::map<std::tuple<int, int, int, uint64_t, int64_t, int64_t, uint64_t>, ExactReduction> cache;
  std::lock_guard<std::mutex> lock(m);
  const auto key = std::make_tuple(int(c.type), int(c.op), int(c.data), c.seed, c.rangeLo, c.rangeHi, c.n);
  auto it = cache.find(key);
  if (it == cache.end()) {
    const DataSpec spec{c.data, c.seed, c.rangeLo, c.rangeHi};
    it = cache.emplace(key, exactReduction(c.type, c.op, spec, c.n)).first;
  }
  return it->second;
}

// "" when the measurement's result is what a correct reduction returns (exactly for integers
// and min/max; within the summation bound of its launch for float sums), else what differs.
// Threads of the launch: the first pass's grid x block as launched; a library launch (CUB) does
// not say, so a single wave of 128-thread blocks bounds its chain from above.
inline std::string resultAgainstExact(const Measurement& m, int smCount) {
  uint64_t threads = m.geometry.grid() * uint64_t(m.geometry.block);
  if (threads <= 1 || m.config.kernel == "cub") threads = uint64_t(std::max(smCount, 1)) * 128;
  return checkAgainstExact(exactFor(m.config), m.config.accType(), m.result, chainBoundOf(m.config.n, threads));
}

}  // namespace rl::test
