// Reduction across GPUs (label gpu; skipped with fewer than 2 GPUs): every measured row of the
// scalar Reduce / AllReduce equals the single-GPU reduction (integers and min/max exactly), every
// element of the vector AllReduce on every GPU equals the closed form, N and sizes that the GPU
// count does not divide included; without NCCL the hand-written rows still run.
#include <gtest/gtest.h>

#include "gpu_support.hpp"
#include "reducelab/multi.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

int visibleGpus() {
  static const int n = [] {
    multi::Options o;
    o.scalar = false;
    o.ring = o.tree = o.hand = false;
    o.gpus = 1;
    const multi::Report r = multi::measure(o, {});
    return r.ok ? r.gpusVisible : 0;
  }();
  return n;
}

#define REQUIRE_TWO_GPUS()                                                           \
  do {                                                                               \
    if (visibleGpus() < 2) GTEST_SKIP() << "needs 2 GPUs, " << visibleGpus() << " visible"; \
  } while (0)

void expectAllMeasuredAndPassing(const multi::Report& r, size_t expectedRows) {
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
    if (w.algorithm == "single-gpu") continue;
    EXPECT_TRUE(w.checked);
    EXPECT_TRUE(w.pass) << w.check;
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
  expectAllMeasuredAndPassing(r, 1 + 2 * 3);
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
    const multi::Report r = multi::measure(o, {});
    SCOPED_TRACE(std::string(name(t)));
    expectAllMeasuredAndPassing(r, o.vectorBytes.size() * 3);
    for (const multi::Row& w : r.rows) {
      EXPECT_NEAR(w.busbwGBs, w.algbwGBs * 2.0 * (r.gpusUsed - 1) / r.gpusUsed, 1e-9 * w.algbwGBs);
      EXPECT_EQ(w.bytes % elemBytes(t), 0u);
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
