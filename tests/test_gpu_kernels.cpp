// GPU correctness (label gpu): every kernel x operation x type pair x block size x N against the
// tests' own exact reference (independent_reference.hpp: no product code on the expected side);
// integer results and min/max must be exact, float sums within the summation bound of the launch,
// and float sums of ones (exactly representable) exact. The product's own check must agree.
// Plus one N > 2^31.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <tuple>

#include "gpu_checks.hpp"
#include "gpu_support.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/occupancy.hpp"

using namespace rl;

namespace {

struct Pair {
  ElemType in;
  Accumulate acc;
};
const Pair kPairs[] = {{ElemType::Int32, Accumulate::Same},   {ElemType::Int32, Accumulate::Wide},
                       {ElemType::Int64, Accumulate::Same},   {ElemType::Float32, Accumulate::Same},
                       {ElemType::Float32, Accumulate::Wide}, {ElemType::Float64, Accumulate::Same}};

std::vector<uint64_t> sizes() {
  if (quickLevel() >= 2) return {33, 4099};
  if (quickTests()) return {1, 33, 4099, (1u << 20) + 1};
  return {1, 2, 31, 32, 33, 1000, 4099, (1u << 20) - 1, (1u << 20) + 1, 1u << 24, 9999991};
}
std::vector<int> blocks() {
  if (quickLevel() >= 2) return {64, 256};
  if (quickTests()) return {32, 256, 1024};
  return {32, 64, 128, 256, 512, 1024};
}

// References are shared by every kernel and block size of the same data.
const Reference& referenceFor(const RunConfig& c) {
  static std::mutex m;
  static std::map<std::tuple<int, int, int, uint64_t, int>, Reference> cache;
  std::lock_guard<std::mutex> lock(m);
  auto key = std::make_tuple(int(c.type), int(c.accumulate), int(c.op), c.n, int(c.data));
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, computeReference(c)).first;
  return it->second;
}

class KernelCorrectness : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelCorrectness, AllOpsTypesBlocksAndSizes) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const KernelInfo& k = *findKernel(GetParam());
  int runs = 0, skipped = 0;
  for (const Pair& p : kPairs)
    for (uint64_t n : sizes())
      for (Op op : {Op::Sum, Op::Min, Op::Max})
        for (DataPattern data : {DataPattern::Uniform, DataPattern::Ones}) {
          if (quickLevel() >= 2 && (op == Op::Min || p.acc == Accumulate::Wide || p.in == ElemType::Int64))
            continue;
          // Ones only for float sums, where they make the result exact.
          if (data == DataPattern::Ones && (op != Op::Sum || !isFloat(p.in))) continue;
          for (int block : blocks()) {
            RunConfig c;
            c.kernel = std::string(k.key);
            c.type = p.in;
            c.accumulate = p.acc;
            c.op = op;
            c.n = n;
            c.block = block;
            c.data = data;
            c.reps = 1;
            c.warmup = 0;
            c.warmL2 = true;
            if (block < k.minBlock) {
              EXPECT_NE(validate(c, &engine->device()), "");
              ++skipped;
              continue;
            }
            MeasureOptions o;
            o.cpuBaseline = false;
            o.knownReference = &referenceFor(c);
            Measurement m = engine->measure(c, o);
            ++runs;
            ASSERT_TRUE(m.ok) << c.kernel << " n=" << n << " block=" << block << ": " << m.error;
            const std::string what = c.kernel + " " + std::string(name(op)) + " " +
                                     std::string(name(p.in)) + "->" + std::string(name(c.accType())) +
                                     " " + std::string(name(data)) + " n=" + std::to_string(n) +
                                     " block=" + std::to_string(block);
            EXPECT_EQ(test::resultAgainstExact(m, engine->device().smCount), "") << what;
            EXPECT_TRUE(m.check.pass) << what << ": the product's check disagrees: got " << m.result.text()
                                      << " (" << m.check.note << ", tolerance " << m.check.tolerance << ")";
            if (data == DataPattern::Ones && n <= (1u << 24))
              EXPECT_EQ(m.result.f, double(n)) << what << ": a sum of ones must be exact";
          }
        }
  RecordProperty("runs", runs);
  std::printf("%s: %d configurations checked, %d refused as documented\n", k.key.data(), runs, skipped);
}

// Every kernel of kernel_list.hpp, through its descriptor.
INSTANTIATE_TEST_SUITE_P(Catalogue, KernelCorrectness, ::testing::ValuesIn(catalogueKeys()),
                         [](const auto& info) { return info.param; });

// Data the uniform tests miss, for every kernel: all-negative integers (a max that pads the
// last block or idle lanes with 0 instead of the identity returns 0), all-positive integers (the
// same for min), ill-conditioned floats (large values of both signs that cancel), and every final
// stage the kernel allows (the CPU finishing the partials, the GPU passes). Every result is
// checked against the exact reference.
class KernelDataAndFinals : public ::testing::TestWithParam<std::string> {};

TEST_P(KernelDataAndFinals, SignedRangesIllConditionedAndEveryFinal) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const KernelInfo& k = *findKernel(GetParam());
  struct Case {
    DataPattern data;
    int64_t lo, hi;
    Op op;
  };
  const Case cases[] = {
      {DataPattern::IntRange, -1000, -1, Op::Max}, {DataPattern::IntRange, -1000, -1, Op::Min},
      {DataPattern::IntRange, -1000, -1, Op::Sum}, {DataPattern::IntRange, 1, 1000, Op::Min},
      {DataPattern::IntRange, 1, 1000, Op::Max},   {DataPattern::IllConditioned, 0, 0, Op::Sum},
      {DataPattern::IllConditioned, 0, 0, Op::Max}};
  int runs = 0;
  for (const Pair& p : kPairs)
    for (const Case& cs : cases)
      for (uint64_t n : {uint64_t(33), uint64_t(4099), uint64_t(1u << 20) + 1})
        for (FinalStage f : k.finals) {
          RunConfig c;
          c.kernel = std::string(k.key);
          c.type = p.in;
          c.accumulate = p.acc;
          c.op = cs.op;
          c.n = n;
          c.block = std::max(128, k.minBlock);
          c.data = cs.data;
          c.rangeLo = cs.lo;
          c.rangeHi = cs.hi;
          c.final = f;
          c.reps = 1;
          c.warmup = 0;
          c.warmL2 = true;
          ASSERT_EQ(validate(c, &engine->device()), "") << c.kernel;
          MeasureOptions o;
          o.cpuBaseline = false;
          Measurement m = engine->measure(c, o);
          ++runs;
          const std::string what = c.kernel + " " + std::string(name(cs.op)) + " " +
                                   std::string(name(p.in)) + "->" + std::string(name(c.accType())) +
                                   " " + std::string(name(cs.data)) + " [" + std::to_string(cs.lo) +
                                   ", " + std::to_string(cs.hi) + "] n=" + std::to_string(n) +
                                   " final " + std::string(name(f));
          ASSERT_TRUE(m.ok) << what << ": " << m.error;
          EXPECT_EQ(test::resultAgainstExact(m, engine->device().smCount), "") << what;
          EXPECT_TRUE(m.check.pass) << what << ": the product's check disagrees (" << m.check.note << ")";
          if (cs.data == DataPattern::IntRange && cs.op == Op::Max && cs.hi < 0)
            EXPECT_LT(m.result.asDouble(), 0.0) << what << ": the max of negative data is negative";
          if (cs.data == DataPattern::IntRange && cs.op == Op::Min && cs.lo > 0)
            EXPECT_GT(m.result.asDouble(), 0.0) << what << ": the min of positive data is positive";
        }
  std::printf("%s: %d signed-range, ill-conditioned and final-stage runs checked\n", k.key.data(), runs);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, KernelDataAndFinals, ::testing::ValuesIn(catalogueKeys()),
                         [](const auto& info) { return info.param; });

// N above 2^31: 64-bit indices and byte counts everywhere.
TEST(KernelCorrectnessLarge, AboveTwoToThe31ForInt32AndFloat32) {
  REQUIRE_GPU();
  if (quickTests()) GTEST_SKIP() << "not in quick mode";
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  for (ElemType t : {ElemType::Int32, ElemType::Float32}) {
    RunConfig c;
    c.type = t;
    c.n = (uint64_t(1) << 31) + 17;
    c.block = 512;
    c.reps = 1;
    c.warmup = 0;
    c.warmL2 = true;
    const Reference ref = computeReference(c);
    for (const KernelInfo& k : catalogue()) {
      if (k.family != Family::Reduction) continue;  // matrices: float, at most 2^28 elements (test_gpu_matrix.cpp)
      c.kernel = std::string(k.key);
      MeasureOptions o;
      o.cpuBaseline = false;
      o.knownReference = &ref;
      Measurement m = engine->measure(c, o);
      ASSERT_TRUE(m.ok) << c.kernel << ": " << m.error;
      EXPECT_EQ(test::resultAgainstExact(m, engine->device().smCount), "") << c.kernel << " " << name(t) << " n=2^31+17";
      EXPECT_TRUE(m.check.pass) << c.kernel << " " << name(t) << " n=2^31+17: the product's check disagrees";
    }
  }
}

TEST(DeviceData, GenerationOnTheGpuMatchesTheCpu) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  for (ElemType t : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64})
    for (DataPattern d : {DataPattern::Uniform, DataPattern::IntRange, DataPattern::Ones, DataPattern::IllConditioned}) {
      RunConfig c;
      c.type = t;
      c.data = d;
      c.n = 100000;
      const DataSpec spec = dataSpecOf(c);
      for (uint64_t first : {uint64_t(0), c.n - 1000}) {
        std::vector<double> dev = engine->readInput(c, first, 1000);
        ASSERT_EQ(dev.size(), 1000u);
        for (uint64_t i = 0; i < 1000; ++i) {
          double host = 0;
          switch (t) {
            case ElemType::Int32: host = generateElement<int32_t>(spec, first + i); break;
            case ElemType::Int64: host = double(generateElement<int64_t>(spec, first + i)); break;
            case ElemType::Float32: host = generateElement<float>(spec, first + i); break;
            case ElemType::Float64: host = generateElement<double>(spec, first + i); break;
          }
          ASSERT_EQ(dev[i], host) << name(t) << " " << name(d) << " element " << first + i;
        }
      }
    }
}

TEST(Determinism, LastBlockIsBitwiseStableAtomicsAreNotPromised) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  RunConfig c;
  c.n = uint64_t(1) << 24;
  c.reps = 20;
  c.warmup = 1;
  MeasureOptions o;
  o.cpuBaseline = false;
  c.kernel = "k12";
  Measurement m12 = engine->measure(c, o);
  ASSERT_TRUE(m12.ok) << m12.error;
  EXPECT_EQ(m12.distinctResults.size(), 1u) << "k12 must give the same bits every run";
  EXPECT_EQ(test::resultAgainstExact(m12, engine->device().smCount), "");
  c.kernel = "k11";
  Measurement m11 = engine->measure(c, o);
  ASSERT_TRUE(m11.ok) << m11.error;
  EXPECT_EQ(test::resultAgainstExact(m11, engine->device().smCount), "");
  std::printf("k11 float sum over 20 runs: %zu distinct results; k12: %zu\n",
              m11.distinctResults.size(), m12.distinctResults.size());
}

TEST(Measurement, TimingsAndResourcesAreFilled) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  RunConfig c;
  c.kernel = "k3";
  c.reps = 5;
  MeasureOptions o;
  o.cpuBaseline = true;
  Measurement m = engine->measure(c, o);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.kernelMs.size(), 5u);
  EXPECT_GT(m.kernel.median, 0.0);
  EXPECT_GE(m.endToEnd.median, m.kernel.median);
  // Bandwidth is bytes read / kernel time, both derived here: N float32 elements read once.
  const double bytes = double(uint64_t(1) << 24) * 4;
  EXPECT_EQ(m.bytesRead, bytes);
  EXPECT_NEAR(m.bandwidthGBs, bytes / (m.kernel.median * 1e-3) / 1e9, 1e-9 * m.bandwidthGBs);
  // The device's theoretical peak from its memory clock and bus width (DDR: two transfers a clock).
  const DeviceInfo& d0 = engine->device();
  const double theoretical = 2.0 * d0.memClockKHz * 1e3 * d0.busWidthBits / 8.0 / 1e9;
  EXPECT_LE(m.bandwidthGBs, theoretical) << "no kernel reads faster than the memory can deliver";
  EXPECT_GT(m.resources.registers, 0);
  EXPECT_GT(m.resources.activeBlocksPerSM, 0);
  EXPECT_FALSE(m.resources.limiter.empty());
  EXPECT_GT(m.speedupVsCpu, 0.0);
  EXPECT_EQ(test::resultAgainstExact(m, d0.smCount), "");
  const Peaks p = engine->peaks(false);
  EXPECT_NEAR(p.theoreticalGBs, theoretical, 1e-6 * theoretical);
  EXPECT_GE(p.readGBs, 0.70 * theoretical) << "a measured read ceiling far under the memory's rate measures something else";
  EXPECT_LE(p.readGBs, theoretical);
  EXPECT_LE(p.copyGBs, theoretical);
  EXPECT_LE(m.bandwidthGBs, p.readMaxGBs * 1.02) << "a kernel faster than the measured read ceiling";
  // The engine's occupancy agrees with the calculator for this kernel.
  DeviceInfo d = engine->device();
  OccupancyResult calc = computeOccupancy(d, {c.block, m.resources.registers,
                                              m.resources.staticSmemBytes + m.resources.dynamicSmemBytes});
  EXPECT_EQ(calc.activeBlocks, m.resources.activeBlocksPerSM);
}

}  // namespace
