// Tests of the tests: the independent reference the GPU tests compare with, the data generator it
// shares with the product (pinned to values computed outside the product), a GPU run that finds
// no GPU failing where one is expected, the one launch plan of the CPU model and the engine, and
// one version string in every output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>

#include "independent_reference.hpp"
#include "reducelab/config.hpp"
#include "reducelab/launch_plan.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/version.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

// Element i of (pattern, seed) as an independent script computes it (splitmix64 by the formulas of
// datagen.hpp's comment, in Python's arbitrary-precision integers):
//   h = mix64((seed * 0x2545f4914f6cdd1d mod 2^64) ^ mix64(i)); int32/int64 uniform: h % 1000;
//   float32: (h >> 40) * 2^-24; float64: (h >> 11) * 2^-53; int-range [-1000, 1000]: -1000 + h % 2001.
struct Known {
  uint64_t seed, i;
  int64_t uniformInt;
  float uniformFloat;
  double uniformDouble;
  int64_t rangeInt;
};
constexpr Known kKnown[] = {
    {1, 0, 122, 0.6841775178909302f, 0.6841775404973018, -725},
    {1, 1, 686, 0.03136289119720459f, 0.03136290778031481, 783},
    {1, 12345, 226, 0.3460613489151001f, 0.34606140614191105, -990},
    {7, 2147483665ull, 107, 0.9477878212928772f, 0.9477878644799546, -395},
    {42, 999999, 579, 0.1805163025856018f, 0.18051633327346484, 493},
};

}  // namespace

TEST(DataGenerator, MatchesValuesComputedOutsideTheProduct) {
  for (const Known& k : kKnown) {
    DataSpec uniform{DataPattern::Uniform, k.seed, -1000, 1000};
    DataSpec range{DataPattern::IntRange, k.seed, -1000, 1000};
    EXPECT_EQ(generateElement<int32_t>(uniform, k.i), k.uniformInt) << k.seed << " " << k.i;
    EXPECT_EQ(generateElement<int64_t>(uniform, k.i), k.uniformInt);
    EXPECT_EQ(generateElement<float>(uniform, k.i), k.uniformFloat);
    EXPECT_EQ(generateElement<double>(uniform, k.i), k.uniformDouble);
    EXPECT_EQ(generateElement<int32_t>(range, k.i), k.rangeInt);
    EXPECT_EQ(generateElement<double>(range, k.i), double(k.rangeInt));
  }
}

TEST(IndependentReference, SumsMinAndMaxAgreeWithAPlainLoop) {
  for (ElemType t : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64})
    for (DataPattern d : {DataPattern::Uniform, DataPattern::IntRange, DataPattern::Ones, DataPattern::IllConditioned}) {
      const DataSpec spec{d, 3, -50, 40};
      const uint64_t n = 10007;
      const test::ExactReduction sum = test::exactReduction(t, Op::Sum, spec, n);
      const test::ExactReduction mx = test::exactReduction(t, Op::Max, spec, n);
      const test::ExactReduction mn = test::exactReduction(t, Op::Min, spec, n);
      ASSERT_TRUE(sum.exact) << name(t) << " " << name(d);
      // A plain loop in long double: exact for these n and magnitudes except the ill-conditioned
      // floats, where it must still land within a few units of its last place.
      long double plain = 0, hi = -INFINITY, lo = INFINITY;
      for (uint64_t i = 0; i < n; ++i) {
        long double v = 0;
        switch (t) {
          case ElemType::Int32: v = generateElement<int32_t>(spec, i); break;
          case ElemType::Int64: v = generateElement<int64_t>(spec, i); break;
          case ElemType::Float32: v = generateElement<float>(spec, i); break;
          case ElemType::Float64: v = generateElement<double>(spec, i); break;
        }
        plain += v;
        hi = std::max(hi, v);
        lo = std::min(lo, v);
      }
      EXPECT_NEAR(double(sum.value()), double(plain), std::fabs(double(plain)) * 1e-15 + 1e-9) << name(t) << " " << name(d);
      EXPECT_EQ(mx.value(), hi);
      EXPECT_EQ(mn.value(), lo);
      if (d == DataPattern::Ones) EXPECT_EQ(sum.value(), (long double)n);
    }
}

TEST(IndependentReference, TheProductsReferenceAgreesWithIt) {
  // Two implementations that share nothing but the generator: each checks the other.
  for (ElemType t : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64})
    for (DataPattern d : {DataPattern::Uniform, DataPattern::IllConditioned, DataPattern::IntRange})
      for (uint64_t n : {uint64_t(1), uint64_t(33), uint64_t(1) << 20}) {
        RunConfig c;
        c.type = t;
        c.data = d;
        c.n = n;
        const Reference product = computeReference(c, 2);
        const test::ExactReduction mine = test::exactReduction(t, Op::Sum, dataSpecOf(c), n);
        EXPECT_EQ(double(product.exact), double(mine.value())) << name(t) << " " << name(d) << " n=" << n;
      }
}

TEST(IndependentReference, TheFloatBoundRejectsAWrongSumAndAcceptsRoundingOnly) {
  const DataSpec spec{DataPattern::Uniform, 5, 0, 0};
  const uint64_t n = 1 << 20;
  const test::ExactReduction x = test::exactReduction(ElemType::Float32, Op::Sum, spec, n);
  const uint64_t chain = test::chainBoundOf(n, 1024 * 64);
  Value good;
  good.f = double(float(x.value()));  // the exact sum rounded once
  EXPECT_EQ(test::checkAgainstExact(x, ElemType::Float32, good, chain), "");
  // The worst-case bound here is 72 x 2^-24 x ~2^19 = about 2.3: a sum 8 short (about 16 missing
  // elements) is outside it. (One missing element of float32 data can hide inside that bound:
  // the integer and all-ones runs of the GPU suite are what catch single elements exactly.)
  Value missing = good;
  missing.f = double(x.value()) - 8.0;
  EXPECT_NE(test::checkAgainstExact(x, ElemType::Float32, missing, chain), "");
  Value nan = good;
  nan.f = NAN;
  EXPECT_NE(test::checkAgainstExact(x, ElemType::Float32, nan, chain), "");
  // Integers wrap to the accumulator's width: 2^20 values near 2^30 overflow an int32.
  const DataSpec ill{DataPattern::IllConditioned, 5, 0, 0};
  const test::ExactReduction big = test::exactReduction(ElemType::Int32, Op::Sum, ill, 3);
  Value wrapped;
  wrapped.isInt = true;
  wrapped.i = int32_t(uint32_t(int64_t(big.value())));
  EXPECT_EQ(test::checkAgainstExact(big, ElemType::Int32, wrapped, 8), "");
  wrapped.i += 1;
  EXPECT_NE(test::checkAgainstExact(big, ElemType::Int32, wrapped, 8), "");
}

#ifdef REDUCELAB_GPU_TESTS
// A GPU test run that finds no GPU reports "skipped"; told one is expected it fails and says why.
// CUDA_VISIBLE_DEVICES= hides every device, so this holds on a GPU machine too.
TEST(GpuExpectation, ARunThatFindsNoGpuFailsWhereOneIsExpected) {
  const std::string binary = rl::test::builtFile(REDUCELAB_GPU_TESTS);
  const std::string filter = "--gtest_filter=DeviceData.*:Measurement.*";
  const test::CommandResult skipped = test::runProgram(binary, filter, "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX CUDA_VISIBLE_DEVICES= REDUCELAB_EXPECT_GPU=");
  EXPECT_EQ(skipped.exitCode, 0) << skipped.out << skipped.err;
  EXPECT_NE(skipped.out.find("[  SKIPPED ]"), std::string::npos) << skipped.out;
  EXPECT_NE(skipped.out.find("[  PASSED  ] 0 tests"), std::string::npos) << "a skipped GPU test must not count as passed";
  const test::CommandResult failed = test::runProgram(binary, filter, "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX CUDA_VISIBLE_DEVICES= REDUCELAB_EXPECT_GPU=1");
  EXPECT_NE(failed.exitCode, 0) << failed.out;
  EXPECT_NE(failed.out.find("REDUCELAB_EXPECT_GPU=1 but no GPU answers"), std::string::npos) << failed.out;
  EXPECT_EQ(failed.out.find("[  SKIPPED ]"), std::string::npos) << failed.out;
}
#endif

TEST(LaunchPlan, TheCpuModelPlansK13sSmallNClusterAsTheEngineDoes) {
  // k13 int32, block 256, N = 2^16: 16-byte loads of 4 ints give cover = 2^16 / (256 x 4) = 64
  // one-vector CTAs. 64 <= 16 CTAs x 4 vectors a thread, so Hopper launches one cluster of 16
  // CTAs (GpuTunedKernel and the GPU's own answer in LaunchPlan.* of the GPU suite). Before the
  // one launch plan the CPU model planned the 64 CTAs of the latency rule.
  RunConfig c;
  c.kernel = "k13";
  c.type = ElemType::Int32;
  c.n = uint64_t(1) << 16;
  c.block = 256;
  const Geometry g = assumedGeometry(c, assumedH200());
  EXPECT_EQ(g.grid(), 16u) << g.policySource;
  EXPECT_EQ(g.clusterCtas, 16);
  EXPECT_EQ(g.loadsInFlight, 4) << "64 vectors over 16 CTAs: 4 a thread";
  // Before Hopper no cluster: the latency rule's one vector a thread.
  DeviceInfo ampere = assumedH200();
  ampere.ccMajor = 8;
  const Geometry a = assumedGeometry(c, ampere);
  EXPECT_EQ(a.grid(), 64u);
  EXPECT_EQ(a.clusterCtas, 0);
  // 2^20: 1024 vectors-CTAs, more than a cluster holds at 4 a thread: the rule's grid, no cluster.
  c.n = uint64_t(1) << 20;
  EXPECT_EQ(assumedGeometry(c, assumedH200()).clusterCtas, 0);
}

TEST(Versions, EveryOutputCarriesTheProjectsVersion) {
  const std::string expected = REDUCELAB_PROJECT_VERSION;  // CMake's project(VERSION), not the product's string
  EXPECT_EQ(std::string(versionString()), expected);
  const test::CommandResult v = test::runReducelab("--version");
  EXPECT_NE(v.out.find("reducelab " + expected), std::string::npos) << v.out;
  const test::CommandResult cpu = test::runReducelab("bench --cpu-only --n 1000 --format json");
  ASSERT_EQ(cpu.exitCode, 0) << cpu.err;
  const nlohmann::json j = nlohmann::json::parse(cpu.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << cpu.out;
  EXPECT_EQ(j["meta"]["version"]["reducelab"], expected) << cpu.out;
  const std::string report = test::tempPath("version-report");
  const test::CommandResult r = test::runReducelab("report --cpu-model --out " + report);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json session = nlohmann::json::parse(test::readFile(report + "/session.json"), nullptr, false);
  ASSERT_TRUE(session.contains("meta")) << session.dump().substr(0, 300);
  EXPECT_EQ(session["meta"]["version"]["reducelab"]["string"], expected);
}

// Where the build was copied to another machine (the GPU machine), a test that named a built file by
// its build path would run nothing, or an old copy, and fail or pass for the wrong reason. Tests
// name built files only through test::builtFile, and the source tree only through test::sourceDir.
TEST(TestPaths, BuiltFilesAndTheSourceTreeAreFoundOneWay) {
  const std::regex built(R"(\b(REDUCELAB_BINARY|REMOTE_TEST_SERVER|USERCODE_FAKE_WORKER|REDUCELAB_GPU_TESTS|REDUCELAB_INSTRUMENT_PATCHES_PTX)\b)");
  const std::regex source(R"(\bREDUCELAB_SOURCE_DIR\b)");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::sourceDir() + "/tests")) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !(name.ends_with(".cpp") || name.ends_with(".hpp"))) continue;
    if (name == "test_support.cpp") continue;  // the one place that reads them
    ++files;
    std::istringstream in(test::readFile(entry.path().string()));
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      const size_t text = line.find_first_not_of(' ');
      if (text == std::string::npos || line.compare(text, 2, "//") == 0 || line.starts_with("#if") ||
          line.find("std::regex ") != std::string::npos)
        continue;  // comments, #ifdef NAME, and this test's own patterns
      for (auto m = std::sregex_iterator(line.begin(), line.end(), built); m != std::sregex_iterator(); ++m) {
        const std::string before = line.substr(0, size_t(m->position()));
        EXPECT_TRUE(before.ends_with("builtFile(")) << name << ":" << number << ": " << line;
      }
      EXPECT_FALSE(std::regex_search(line, source)) << name << ":" << number << ": " << line;
    }
  }
  EXPECT_GT(files, 40);
}
