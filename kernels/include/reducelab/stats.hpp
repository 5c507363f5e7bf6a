#pragma once
// Summary statistics of repeated timings.
#include <vector>

namespace rl {

struct Stats {
  int count = 0;
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;
  static Stats of(std::vector<double> samples);
};

}  // namespace rl
