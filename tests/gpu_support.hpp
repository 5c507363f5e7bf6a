#pragma once
// GPU tests (label gpu). Where no GPU exists they report "skipped" (GTEST_SKIP), never "passed".
// Where one is expected they must not skip at all: REDUCELAB_EXPECT_GPU=1 (set by
// scripts/gpu-run.sh) turns the skip into a failure that names the reason, and a GPU setup that
// answers but fails (driver or runtime errors, DeviceInfo::broken) is a failure everywhere.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "reducelab/cuda_device.hpp"

namespace rl::test {

// REDUCELAB_EXPECT_GPU=1: this run happens on a GPU machine, a missing GPU is a failure.
inline bool gpuExpected() {
  const char* e = std::getenv("REDUCELAB_EXPECT_GPU");
  return e && std::string(e) == "1";
}

// REDUCELAB_EXPECT_GPUS=N: the machine has N GPUs; fewer visible is a failure (0: not said).
inline int gpusExpected() {
  const char* e = std::getenv("REDUCELAB_EXPECT_GPUS");
  return e && *e ? std::atoi(e) : 0;
}

inline const DeviceInfo& firstDevice() {
  static const DeviceInfo d = queryDevice(0);
  return d;
}

}  // namespace rl::test

// Skips the test without a GPU, fails it where a GPU is expected or where the setup is broken.
#define REQUIRE_GPU()                                                                                   \
  do {                                                                                                  \
    const rl::DeviceInfo& d_ = rl::test::firstDevice();                                                 \
    if (!d_.available) {                                                                                \
      if (d_.broken) FAIL() << "the GPU setup is broken: " << d_.unavailableReason;                     \
      if (rl::test::gpuExpected())                                                                      \
        FAIL() << "REDUCELAB_EXPECT_GPU=1 but no GPU answers: " << d_.unavailableReason;                \
      GTEST_SKIP() << "no GPU: " << d_.unavailableReason;                                               \
    }                                                                                                   \
  } while (0)

// REDUCELAB_TEST_QUICK=1 shrinks the matrices; =2 shrinks them to what compute-sanitizer's
// racecheck can instrument in minutes.
inline int quickLevel() {
  const char* q = std::getenv("REDUCELAB_TEST_QUICK");
  return q && *q ? std::atoi(q) : 0;
}
inline bool quickTests() { return quickLevel() > 0; }
