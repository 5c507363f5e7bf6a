// GPU (label gpu): the achieved-occupancy estimate (ResourceUsage::achievedOccupancy, one launch
// of the traced twin whose warps add their clock64 spans per SM). It is measured for every traced
// kernel, never above what the twin's launch allows, follows the grid where the answer is known
// by construction (one block per SM), and shows seed 000's point: the unrolled last warp
// (Kernel06, k5) holds fewer warps than the kernel before it (Kernel05, k4).
#include <gtest/gtest.h>

#include <cstdio>

#include "gpu_support.hpp"
#include "reducelab/engine.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

Measurement measured(Engine& e, RunConfig c) {
  c.reps = 3;
  c.warmup = 1;
  normalizeConfig(c);
  EXPECT_EQ(validate(c, &e.device()), "") << c.kernel;
  MeasureOptions o;
  o.cpuBaseline = false;
  o.reference = false;
  return e.measure(c, o);
}

}  // namespace

TEST(GpuOccupancy, AchievedIsMeasuredForEveryTracedKernelAndNeverAboveItsLimit) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  int checked = 0;
  for (const KernelInfo& k : catalogue()) {
    if (k.minCc > engine->device().ccMajor * 10 + engine->device().ccMinor) continue;
    RunConfig c;
    c.kernel = std::string(k.key);
    c.type = ElemType::Float32;
    if (k.family == Family::Reduction) {
      c.n = uint64_t(1) << 24;
      c.block = 256;
    } else {
      rl::test::setParam(c, "rows", 2048);
      rl::test::setParam(c, "cols", 2048);
      rl::test::setParam(c, "inner", 256);
    }
    normalizeConfig(c);
    const Measurement m = measured(*engine, c);
    ASSERT_TRUE(m.ok) << k.key << ": " << m.error;
    const ResourceUsage& r = m.resources;
    if (!k.traceable) {
      EXPECT_EQ(r.achievedOccupancy, 0) << k.key << ": no traced twin, nothing to estimate with";
      continue;
    }
    EXPECT_GT(r.achievedOccupancy, 0.05) << k.key;
    EXPECT_GT(r.twinOccupancy, 0) << k.key;
    // Spans run from begin() to end() inside each warp's residency: never above the limit.
    EXPECT_LE(r.achievedOccupancy, r.twinOccupancy + 0.01) << k.key;
    std::printf("%-14s theoretical %3.0f %%, twin %3.0f %%, achieved %3.0f %%\n", k.key.data(), 100 * r.occupancy,
                100 * r.twinOccupancy, 100 * r.achievedOccupancy);
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

// One block of 8 warps per SM, long enough to dominate (a copy making 200 passes): each busy SM
// holds 8 of its maximum warps, whatever the kernel does. Worked out from the launch, not asked
// of the product: 8 / (max threads per SM / 32). Two blocks on one SM would double it there.
TEST(GpuOccupancy, OneBlockPerSmHoldsThatBlocksWarps) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const DeviceInfo& d = engine->device();
  RunConfig c;
  c.kernel = "tr-copy";
  c.type = ElemType::Float32;
  rl::test::setParam(c, "tile", 32);  // 32 x 8 threads: 8 warps
  rl::test::setParam(c, "rows", 32);
  rl::test::setParam(c, "cols", 32 * uint64_t(d.smCount));
  rl::test::setParam(c, "repeat", 200);
  const Measurement m = measured(*engine, c);
  ASSERT_TRUE(m.ok) << m.error;
  ASSERT_EQ(m.geometry.grid(), uint64_t(d.smCount));
  const double expected = 8.0 / (d.maxThreadsPerSM / 32.0);
  std::printf("one block per SM: achieved %.3f, expected %.3f\n", m.resources.achievedOccupancy, expected);
  EXPECT_GT(m.resources.achievedOccupancy, 0.9 * expected);
  EXPECT_LT(m.resources.achievedOccupancy, 1.25 * expected);  // a few SMs with two blocks at most
}

// Seed 000's nvprof row: Kernel06 (k5, the last warp unrolled) 0.754 against Kernel05's (k4) 0.949.
TEST(GpuOccupancy, TheUnrolledLastWarpHoldsFewerWarps) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  double achieved[2] = {};
  const char* keys[2] = {"k4", "k5"};
  for (int i = 0; i < 2; ++i) {
    RunConfig c;
    c.kernel = keys[i];
    c.type = ElemType::Float64;
    c.n = uint64_t(1) << 24;
    c.block = 512;
    c.final = FinalStage::Cpu;
    rl::test::setParam(c, "gpu-passes", 2);
    const Measurement m = measured(*engine, c);
    ASSERT_TRUE(m.ok) << m.error;
    achieved[i] = m.resources.achievedOccupancy;
    std::printf("%s: theoretical %.3f achieved %.3f\n", keys[i], m.resources.occupancy, achieved[i]);
  }
  EXPECT_LT(achieved[1], achieved[0]);
}
