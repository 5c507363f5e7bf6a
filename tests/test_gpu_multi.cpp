// Reduction across GPUs (label multigpu; skipped with fewer than 2 GPUs unless
// REDUCELAB_EXPECT_GPUS says the machine has them, then failed): every measured row of the scalar
// Reduce / AllReduce, on every GPU that holds it, equals the tests' own exact reduction of the
// same data (integers and min/max exactly), every element of the vector AllReduce on every GPU
// equals the closed form computed here, N and sizes that the GPU count does not divide included;
// without NCCL the hand-written rows still run. A measurement that fails is a failure, never a skip.
#include <gtest/gtest.h>

#include <cstdlib>

#include "gpu_support.hpp"
#include "independent_reference.hpp"
#include "reducelab/multi_record.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

int visibleGpus() { return countDevices().count; }

#define REQUIRE_TWO_GPUS()                                                                             \
  do {                                                                                                 \
    const DeviceCount c_ = countDevices();                                                             \
    if (c_.broken) FAIL() << "the GPU setup is broken: " << c_.reason;                                 \
    if (c_.count < 2) {                                                                                \
      if (rl::test::gpusExpected() >= 2)                                                               \
        FAIL() << "REDUCELAB_EXPECT_GPUS=" << rl::test::gpusExpected() << " but " << c_.count << " visible"; \
      GTEST_SKIP() << "needs 2 GPUs, " << c_.count << " visible";                                      \
    }                                                                                                  \
    if (rl::test::gpusExpected() > c_.count)                                                           \
      FAIL() << "REDUCELAB_EXPECT_GPUS=" << rl::test::gpusExpected() << " but " << c_.count << " visible";  \
  } while (0)

// A row's value against the test's own exact reduction of the N elements (multi.hpp: uniform data,
// seed 1), on every GPU that holds it.
void expectRowExact(const multi::Row& w, const multi::Options& o, const test::ExactReduction& exact) {
  ASSERT_FALSE(w.holderResults.empty() && w.algorithm != "single-gpu") << "no GPU's value was reported";
  std::vector<std::string> values = w.holderResults;
  if (values.empty()) values.push_back(w.result);
  for (size_t g = 0; g < values.size(); ++g) {
    Value v;
    v.isInt = !isFloat(o.type);
    if (v.isInt) v.i = std::strtoll(values[g].c_str(), nullptr, 10);
    else v.f = std::strtod(values[g].c_str(), nullptr);
    // Each GPU reduces its slice over at least a wave of 128-thread blocks, then a tree.
    const uint64_t threads = uint64_t(countDevices().count) * 132 * 128;
    EXPECT_EQ(test::checkAgainstExact(exact, o.type, v, test::chainBoundOf(o.n, threads) + 64), "")
        << "GPU " << g << " holds " << values[g];
  }
}

void expectAllMeasured(const multi::Report& r, size_t expectedRows) {
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.rows.size(), expectedRows);
  for (const multi::Row& w : r.rows) {
    SCOPED_TRACE(w.kind + " " + w.collective + " " + w.algorithm + " " + std::to_string(w.bytes));
    // NCCL documents trees for AllReduce only: a Reduce with NCCL_ALGO=Tree may be refused, and
    // then the row must carry NCCL's reason.
    if (!w.ok && w.collective == "reduce" && w.algorithm == "nccl-tree") {
      EXPECT_TRUE(w.error.find("nccl") != std::string::npos || w.error.find("NCCL") != std::string::npos) << w.error;
      continue;
    }
    EXPECT_TRUE(w.ok) << w.error;
    EXPECT_GT(w.ms.median, 0);
  }
}

}  // namespace

struct ScalarCase {
  ElemType type;
  Op op;
  uint64_t n;
};

class MultiScalar : public ::testing::TestWithParam<ScalarCase> {};

TEST_P(MultiScalar, EveryAlgorithmMatchesOneGpu) {
  REQUIRE_TWO_GPUS();
  multi::Options o;
  o.type = GetParam().type;
  o.op = GetParam().op;
  o.n = GetParam().n;
  o.reps = 3;
  o.warmup = 1;
  const multi::Report r = multi::measure(o, {});
  // single-gpu, then reduce and allreduce by hand, NCCL ring and NCCL tree.
  expectAllMeasured(r, 1 + 2 * 3);
  const test::ExactReduction exact = test::exactReduction(o.type, o.op, DataSpec{DataPattern::Uniform, 1, -1000, 1000}, o.n);
  for (const multi::Row& w : r.rows)
    if (w.ok) {
      SCOPED_TRACE(w.collective + " " + w.algorithm);
      expectRowExact(w, o, exact);
      if (w.collective == "allreduce") EXPECT_EQ(int(w.holderResults.size()), r.gpusUsed) << "every GPU holds the result";
    }
  EXPECT_EQ(r.gpusUsed, visibleGpus());
  EXPECT_FALSE(r.ncclVersion.empty()) << r.ncclLibrary;
}

INSTANTIATE_TEST_SUITE_P(Multi, MultiScalar,
                         ::testing::Values(ScalarCase{ElemType::Int32, Op::Sum, (1u << 24) + 7},
                                           ScalarCase{ElemType::Int64, Op::Sum, 1000003},
                                           ScalarCase{ElemType::Float32, Op::Sum, (1u << 26) + 3},
                                           ScalarCase{ElemType::Float64, Op::Sum, 999999},
                                           ScalarCase{ElemType::Float32, Op::Max, 12345},
                                           ScalarCase{ElemType::Int32, Op::Min, 5}),
                         [](const auto& info) {
                           return std::string(name(info.param.type)) + "_" + std::string(name(info.param.op)) + "_" +
                                  std::to_string(info.param.n);
                         });

TEST(MultiVector, EveryElementOnEveryGpuMatchesTheClosedForm) {
  REQUIRE_TWO_GPUS();
  for (ElemType t : {ElemType::Int32, ElemType::Float32, ElemType::Float64}) {
    multi::Options o;
    o.type = t;
    o.scalar = false;
    o.vectorBytes = {8, 3000, uint64_t(1) << 20, (uint64_t(64) << 20) + 40};
    o.reps = 3;
    o.warmup = 1;
    o.keepVectorOutputsUpTo = uint64_t(128) << 20;
    const multi::Report r = multi::measure(o, {});
    SCOPED_TRACE(std::string(name(t)));
    expectAllMeasured(r, o.vectorBytes.size() * 3);
    for (const multi::Row& w : r.rows) {
      EXPECT_NEAR(w.busbwGBs, w.algbwGBs * 2.0 * (r.gpusUsed - 1) / r.gpusUsed, 1e-9 * w.algbwGBs);
      EXPECT_EQ(w.bytes % elemBytes(t), 0u);
      // Every element on every GPU: GPU g contributed (i % 101 x 7 + 13 g) % 101 (multi.hpp), and the
      // sum of small integers is exact in every type.
      ASSERT_EQ(int(w.outputs.size()), r.gpusUsed) << w.algorithm << " " << w.bytes;
      for (int g = 0; g < r.gpusUsed; ++g) {
        ASSERT_EQ(w.outputs[size_t(g)].size(), w.count);
        uint64_t wrong = 0, first = 0;
        for (uint64_t i = 0; i < w.count; ++i) {
          double expected = 0;
          for (int src = 0; src < r.gpusUsed; ++src) expected += double((i % 101 * 7 + uint64_t(src) * 13) % 101);
          if (w.outputs[size_t(g)][i] != expected && wrong++ == 0) first = i;
        }
        EXPECT_EQ(wrong, 0u) << w.algorithm << " " << w.bytes << " bytes, GPU " << g << ": first wrong element " << first;
      }
    }
  }
}

TEST(MultiVector, FewerGpusThanAskedSaysWhatWasNotMeasured) {
  REQUIRE_TWO_GPUS();
  multi::Options o;
  o.gpus = visibleGpus() + 1;
  o.scalar = false;
  o.vectorBytes = {4096};
  o.reps = 2;
  const multi::Report r = multi::measure(o, {});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.gpusUsed, visibleGpus());
  bool said = false;
  for (const std::string& s : r.notMeasured) said = said || s.find("asked for") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(MultiCliGpu, WithoutNcclTheHandWrittenRowsStillRun) {
  REQUIRE_TWO_GPUS();
  auto r = rl::test::runReducelab("multi --n 2^20 --sizes 1M --reps 2 --format csv",
                                  "REDUCELAB_NCCL_LIBRARY=/nonexistent/libnccl.so.2");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("needs NCCL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("scalar,allreduce,hand"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

TEST(MultiCliGpu, TableAndChartFiles) {
  REQUIRE_TWO_GPUS();
  const std::string json = rl::test::tempPath("multi-run.json"), chart = rl::test::tempPath("multi-run.pdf");
  auto r = rl::test::runReducelab("multi --n 2^22 --sizes 1K..4M --reps 3 --format json --force --out " + json +
                                  " --chart " + chart);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  multi::Report back;
  std::string err;
  ASSERT_TRUE(multi::fromJson(nlohmann::json::parse(rl::test::readFile(json)), &back, &err)) << err;
  EXPECT_EQ(back.rows.size(), 1u + 6u + 13u * 3u);
  EXPECT_EQ(rl::test::readFile(chart).rfind("%PDF-", 0), 0u);  // its text is checked by MultiRecords.*
}
