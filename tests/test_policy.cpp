// The tuned kernel's launch policies: the latency rule, the grid a policy gives, and the stored
// table (read back as written, refused with a reason when it does not read).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "reducelab/config.hpp"
#include "reducelab/policy.hpp"

namespace rl {
namespace {

TEST(LaunchPolicy, TheLatencyRuleSpreadsSmallNOverEverySmAndGoesDeepAtLargeN) {
  const uint64_t resident = 132 * 4;  // H200, block 512
  // 2^16 int32 at block 512: 16384 vectors, one per thread = 32 CTAs (k12 launched 8).
  LaunchPolicy p = defaultPolicy(32, resident);
  EXPECT_EQ(p.loadsInFlight, 1);
  EXPECT_EQ(policyGrid(p, 32, resident, 132, 4), 32u);
  // Twice a wave: two loads each over one wave.
  p = defaultPolicy(2 * resident, resident);
  EXPECT_EQ(p.loadsInFlight, 2);
  EXPECT_EQ(policyGrid(p, 2 * resident, resident, 132, 4), resident);
  // 2^30: a resident wave, four in flight.
  p = defaultPolicy(uint64_t(1) << 21, resident);
  EXPECT_EQ(p.loadsInFlight, 4);
  EXPECT_EQ(policyGrid(p, uint64_t(1) << 21, resident, 132, 4), resident);
  // A CTA cap per SM limits the grid, never above what is resident.
  p.ctasPerSM = 2;
  EXPECT_EQ(policyGrid(p, uint64_t(1) << 21, resident, 132, 4), 264u);
  p.ctasPerSM = 16;
  EXPECT_EQ(policyGrid(p, uint64_t(1) << 21, resident, 132, 4), resident);
  EXPECT_EQ(policyGrid(p, 0, resident, 132, 4), 1u);  // never an empty grid
}

// The cluster finish at small N: the whole grid as one cluster up to kClusterMaxVectorsPerThread
// (4) vectors a thread in the largest cluster, the ticket above. Run 2 showed 8 (the old
// threshold) too high: 2^18 int32 at block 512 is 128 one-vector CTAs, 8 vectors a thread on a
// 16-CTA cluster, and ran as one; it was no faster than the ticket over 128 CTAs.
TEST(LaunchPolicy, TheClusterFinishStopsAtFourVectorsAThread) {
  EXPECT_EQ(kClusterMaxVectorsPerThread, 4u);
  EXPECT_EQ(clusterCtasForWork(16 * 4, 16), 16) << "at the boundary: 4 vectors a thread";
  EXPECT_EQ(clusterCtasForWork(16 * 4 + 1, 16), 0) << "one CTA of work more: the ticket";
  EXPECT_EQ(clusterCtasForWork(16 * 8, 16), 0) << "8 vectors a thread (the old threshold): the ticket";
  EXPECT_EQ(clusterCtasForWork(8 * 4, 8), 8);
  EXPECT_EQ(clusterCtasForWork(8 * 4 + 1, 8), 0);
  EXPECT_EQ(clusterCtasForWork(10, 16), 10) << "less work than the cluster: one CTA per vector group";
  EXPECT_EQ(clusterCtasForWork(1, 16), 0) << "one CTA needs no finish";
  EXPECT_EQ(clusterCtasForWork(32, 0), 0) << "no cluster fits";
  // At block 512 int32: 2^16 (32 one-vector CTAs, 2 a thread) and 2^17 (64, 4 a thread) run as a
  // cluster of 16; 2^18 (128, 8 a thread) no longer does.
  EXPECT_EQ(clusterCtasForWork(32, 16), 16);
  EXPECT_EQ(clusterCtasForWork(64, 16), 16);
  EXPECT_EQ(clusterCtasForWork(128, 16), 0);
}

// The grid of the latency rule, derived here from its documented words: one 16-byte vector per
// thread while the work fits one resident wave, else one wave (policy.hpp).
TEST(LaunchPolicy, TheLatencyRuleGivesOneVectorAThreadWithinAWaveAndAWaveBeyond) {
  const uint64_t resident = 132 * 4;
  for (uint64_t cover : {uint64_t(1), uint64_t(100), resident, resident + 1, resident * 2, resident * 3, resident * 1000}) {
    const LaunchPolicy p = defaultPolicy(cover, resident);
    const uint64_t grid = policyGrid(p, cover, resident, 132, 4);
    EXPECT_EQ(grid, std::min(cover, resident)) << cover;
    const uint64_t perThread = (cover + resident - 1) / resident;
    EXPECT_EQ(p.loadsInFlight, perThread <= 1 ? 1 : perThread <= 2 ? 2 : 4) << cover;
  }
  LaunchPolicy capped;
  capped.ctasPerSM = 1;
  EXPECT_EQ(policyGrid(capped, 10000, resident, 132, 4), 132u) << "one CTA per SM";
}

TEST(PolicyTable, ReadsBackWhatItWroteAndFindsTheNearestMeasuredN) {
  PolicyTable t;
  t.deviceName = "NVIDIA H200";
  t.uuid = "GPU-1";
  t.driver = "13.0";
  t.date = "2026-11-21 09:00";
  t.entries[{ElemType::Int32, 512, 16}] = {1, 0, CacheHint::None, 4.9};
  t.entries[{ElemType::Int32, 512, 30}] = {8, 2, CacheHint::EvictFirst, 930.0};
  t.entries[{ElemType::Int32, 256, 30}] = {4, 0, CacheHint::NoAllocate, 925.0};
  PolicyTable back;
  ASSERT_EQ(policyTableFromJson(policyTableJson(t), &back), "");
  EXPECT_EQ(back.entries, t.entries);
  EXPECT_EQ(back.driver, "13.0");
  int lg = 0;
  const LaunchPolicy* p = back.find(ElemType::Int32, 512, uint64_t(1) << 18, &lg);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(lg, 16);
  p = back.find(ElemType::Int32, 512, uint64_t(1) << 34, &lg);  // beyond the largest: the largest
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->loadsInFlight, 8);
  EXPECT_EQ(lg, 30);
  EXPECT_EQ(back.find(ElemType::Float64, 512, 1 << 16), nullptr);
  EXPECT_EQ(back.find(ElemType::Int32, 1024, 1 << 16), nullptr);
  EXPECT_EQ(back.bestBlock(ElemType::Int32, uint64_t(1) << 30), 256);
  EXPECT_EQ(back.bestBlock(ElemType::Float32, uint64_t(1) << 30), 0);
  EXPECT_FALSE(describePolicyTable(back).empty());
}

TEST(PolicyTable, AFileThatDoesNotReadIsRefusedWithTheReasonAndNothingHalfRead) {
  PolicyTable t;
  t.entries[{ElemType::Int32, 512, 16}] = {1, 0, CacheHint::None, 4.9};
  const nlohmann::json good = policyTableJson(t);
  struct Bad {
    const char* field;
    nlohmann::json value;
    const char* reason;
  };
  const Bad cases[] = {{"loads_in_flight", 3, "loads_in_flight"},
                       {"loads_in_flight", "4", "loads_in_flight"},
                       {"block", 500, "block"},
                       {"block", 2048, "block"},
                       {"log2_n", 41, "log2_n"},
                       {"ctas_per_sm", -1, "ctas_per_sm"},
                       {"cache_hint", "L3::sometimes", "cache hint"},
                       {"type", "float16", "unknown type"},
                       {"median_us", -1.0, "median_us"}};
  for (const Bad& b : cases) {
    nlohmann::json j = good;
    j["policies"][0][b.field] = b.value;
    PolicyTable out;
    out.uuid = "untouched";
    const std::string e = policyTableFromJson(j, &out);
    EXPECT_NE(e.find(b.reason), std::string::npos) << b.field << ": " << e;
    EXPECT_EQ(out.uuid, "untouched") << b.field;
  }
  PolicyTable out;
  EXPECT_NE(policyTableFromJson(nlohmann::json::array(), &out), "");
  EXPECT_NE(policyTableFromJson(nlohmann::json{{"policies", 3}}, &out), "");
}

}  // namespace
}  // namespace rl
