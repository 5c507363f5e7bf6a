#pragma once
// Reduction operators and their identities, shared by the kernels (device) and the host code
// that finishes or checks a reduction (CPU final stage, baseline loop). The CPU trace model
// keeps its own operators on purpose: it is an independent implementation.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "reducelab/host_device.hpp"

namespace rl {

struct SumOp {
  template <class T> RL_HD static constexpr T identity() { return T(0); }
  // Integer sums wrap (two's complement) like the seeds' C code, without signed-overflow UB.
  template <class T> RL_HD T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
    else return a + b;
  }
};

struct MinOp {
  template <class T> RL_HD static constexpr T identity() {
    if constexpr (std::is_integral_v<T>) return std::numeric_limits<T>::max();
    else return std::numeric_limits<T>::infinity();
  }
  template <class T> RL_HD T operator()(T a, T b) const { return b < a ? b : a; }
};

struct MaxOp {
  template <class T> RL_HD static constexpr T identity() {
    if constexpr (std::is_integral_v<T>) return std::numeric_limits<T>::lowest();
    else return -std::numeric_limits<T>::infinity();
  }
  template <class T> RL_HD T operator()(T a, T b) const { return a < b ? b : a; }
};

}  // namespace rl
