#include "reducelab/stats.hpp"

#include <algorithm>
#include <cmath>

namespace rl {

Stats Stats::of(std::vector<double> v) {
  Stats s;
  s.count = int(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  s.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / double(n);
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.stddev = n > 1 ? std::sqrt(sq / double(n - 1)) : 0.0;
  return s;
}

}  // namespace rl
