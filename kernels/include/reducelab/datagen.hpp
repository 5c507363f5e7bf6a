#pragma once
// Reproducible input data: element i is a pure function of (pattern, seed, i), computed the
// same way on the GPU (generation kernel) and on the CPU (reference, baseline, CPU model).
#include <cstdint>

#include "reducelab/host_device.hpp"
#include "reducelab/types.hpp"

namespace rl {

struct DataSpec {
  DataPattern pattern = DataPattern::Uniform;
  uint64_t seed = 1;
  int64_t lo = -1000, hi = 1000;
};

RL_HD inline uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T> struct IsFloatT { static constexpr bool value = false; };
template <> struct IsFloatT<float> { static constexpr bool value = true; };
template <> struct IsFloatT<double> { static constexpr bool value = true; };

// uniform: [0,1) for floats, 0..999 for integers; int-range: integers lo..hi (any type);
// ones: 1; ill-conditioned: +-big alternating plus a small uniform part, big = 1e8 for floats,
// 2^30 (int32) or 2^60 (int64) for integers. Sums of it cancel and expose rounding.
template <class T>
RL_HD inline T generateElement(const DataSpec& d, uint64_t i) {
  const uint64_t h = mix64(d.seed * 0x2545f4914f6cdd1dull ^ mix64(i));
  switch (d.pattern) {
    case DataPattern::Ones:
      return T(1);
    case DataPattern::IntRange: {
      // Unsigned (modular) arithmetic: lo..hi may span the whole int64 range, where hi - lo + 1
      // overflows a signed integer (span 0 then means all 2^64 values).
      const uint64_t span = uint64_t(d.hi) - uint64_t(d.lo) + 1;
      const uint64_t offset = span == 0 ? h : h % span;
      return T(int64_t(uint64_t(d.lo) + offset));
    }
    case DataPattern::IllConditioned: {
      const bool neg = (i & 1) != 0;
      if constexpr (IsFloatT<T>::value) {
        const T small = T(double(h >> 11) * 0x1.0p-53);
        return neg ? T(-1e8) + small : T(1e8) + small;
      } else {
        const T big = sizeof(T) == 4 ? T(1) << 30 : T(int64_t(1) << 60);
        const T small = T(h % 1000);
        return neg ? T(-big + small) : T(big + small);
      }
    }
    case DataPattern::Uniform:
    default:
      if constexpr (sizeof(T) == 4 && IsFloatT<T>::value) return T(float(h >> 40) * 0x1.0p-24f);
      else if constexpr (IsFloatT<T>::value) return T(double(h >> 11) * 0x1.0p-53);
      else return T(h % 1000);
  }
}

}  // namespace rl
