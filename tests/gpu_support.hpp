#pragma once
// GPU tests: skip (GTEST_SKIP, reported as skipped by ctest) where no CUDA device exists.
#include <gtest/gtest.h>

#include <cstdlib>

#include "reducelab/cuda_device.hpp"

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    static const rl::DeviceInfo d_ = rl::queryDevice(0);                       \
    if (!d_.available) GTEST_SKIP() << "no GPU: " << d_.unavailableReason;     \
  } while (0)

// REDUCELAB_TEST_QUICK=1 shrinks the matrices; =2 shrinks them to what compute-sanitizer's
// racecheck can instrument in minutes.
inline int quickLevel() {
  const char* q = std::getenv("REDUCELAB_TEST_QUICK");
  return q && *q ? std::atoi(q) : 0;
}
inline bool quickTests() { return quickLevel() > 0; }
