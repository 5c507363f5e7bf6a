// The tuned kernel's launch policies: the latency rule, the grid a policy gives, and the stored
// table (read back as written, refused with a reason when it does not read).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "reducelab/config.hpp"
#include "reducelab/family.hpp"
#include "reducelab/launch_plan.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/policy.hpp"
#include "test_support.hpp"

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


TEST(PolicyTable, AGridCapAndTheArchitectureReadBackAndTheCapIsRefusedOutOfRange) {
  PolicyTable t;
  t.architecture = "sm_90";
  t.entries[{ElemType::Float32, 256, 12}] = {4, 0, CacheHint::None, 3.5, 1};
  t.entries[{ElemType::Float32, 512, 20}] = {2, 0, CacheHint::None, 6.1, 0, true};
  PolicyTable back;
  ASSERT_EQ(policyTableFromJson(policyTableJson(t), &back), "");
  EXPECT_EQ(back.entries, t.entries);
  EXPECT_EQ(back.architecture, "sm_90");
  EXPECT_EQ(policyGrid(back.entries.begin()->second, 4, 528, 132, 4), 1u) << "one CTA however many it could cover";
  EXPECT_NE(describePolicy(back.entries.begin()->second).find("one CTA"), std::string::npos);
  EXPECT_NE(describePolicy(back.entries.rbegin()->second).find("atomic finish"), std::string::npos);
  nlohmann::json j = policyTableJson(t);
  j["policies"][0]["grid_cap"] = -1;
  PolicyTable out;
  EXPECT_NE(policyTableFromJson(j, &out).find("grid_cap"), std::string::npos);
  j = policyTableJson(t);
  j["policies"][1]["finish"] = "sometimes";
  EXPECT_NE(policyTableFromJson(j, &out).find("finish"), std::string::npos);
  // A table of an earlier version (no grid_cap, no architecture) still reads, uncapped.
  j = policyTableJson(t);
  j["policies"][0].erase("grid_cap");
  j["policies"][1].erase("finish");
  j.erase("architecture");
  ASSERT_EQ(policyTableFromJson(j, &out), "");
  EXPECT_EQ(out.entries.begin()->second.gridCap, 0);
  EXPECT_FALSE(out.entries.rbegin()->second.atomicFinish);
}

// The atomic finish is auto's only, where the atomic is native, and never in a graph replay.
TEST(AutoDispatch, TheAtomicFinishOnlyForAutoWhereTheAtomicIsNativeAndNotInAGraph) {
  DeviceInfo h200 = assumedH200();
  h200.uuid.clear();
  LaunchPolicy atomic;
  atomic.loadsInFlight = 2;
  atomic.atomicFinish = true;
  class Facts : public LaunchFacts {
   public:
    explicit Facts(PolicyTable t) : t_(std::move(t)) {}
    int smCount() const override { return 132; }
    int ccMajor() const override { return 9; }
    int ccMinor() const override { return 0; }
    int residentPerSM(const KernelInfo&, const RunConfig&, size_t) override { return 4; }
    int largestCluster(const KernelInfo&, const RunConfig&, size_t) override { return 16; }
    const PolicyTable& policies() override { return t_; }
   private:
    PolicyTable t_;
  };
  PolicyTable t;
  for (ElemType type : {ElemType::Int32, ElemType::Float32})
    for (int block : {512}) t.entries[{type, block, 20}] = atomic;
  Facts facts(t);
  auto plan = [&](const char* kernel, ElemType type, Op op, TimingMode timing) {
    RunConfig c;
    c.kernel = kernel;
    c.type = type;
    c.op = op;
    c.n = uint64_t(1) << 20;
    c.block = 512;
    c.timing = timing;
    Geometry g;
    EXPECT_EQ(planLaunch(c, facts, &g), "");
    return g;
  };
  EXPECT_EQ(plan("auto", ElemType::Float32, Op::Sum, TimingMode::Blocked).final, FinalStage::Atomic);
  EXPECT_EQ(plan("auto", ElemType::Int32, Op::Max, TimingMode::Blocked).final, FinalStage::Atomic);
  const Geometry cas = plan("auto", ElemType::Float32, Op::Max, TimingMode::Blocked);
  EXPECT_EQ(cas.final, FinalStage::LastBlock) << "a float max would be a compare-and-swap loop";
  EXPECT_NE(cas.policySource.find("ordered finish"), std::string::npos) << cas.policySource;
  EXPECT_EQ(plan("auto", ElemType::Float32, Op::Sum, TimingMode::Graph).final, FinalStage::LastBlock);
  EXPECT_EQ(plan("k13", ElemType::Float32, Op::Sum, TimingMode::Blocked).final, FinalStage::LastBlock)
      << "k13 keeps its fixed-order finish";
}

// The tables checked into the source read (a table that does not is a build defect, which
// architecturePolicyTable would otherwise turn silently into "no table"), and each says its
// architecture and holds every type auto is asked for.
TEST(PolicyTable, EveryCheckedInArchitectureTableReads) {
  const std::filesystem::path dir = std::filesystem::path(test::sourceDir()) / "assets" / "kernels";
  int tables = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    const std::string file = f.path().filename().string();
    if (!file.starts_with("policies-sm") || f.path().extension() != ".json") continue;
    ++tables;
    std::ifstream in(f.path());
    PolicyTable t;
    ASSERT_EQ(policyTableFromJson(nlohmann::json::parse(in, nullptr, false), &t), "") << file;
    std::string arch = t.architecture;  // "sm_90" -> "sm90"
    arch.erase(std::remove(arch.begin(), arch.end(), '_'), arch.end());
    EXPECT_EQ("policies-" + arch + ".json", file) << file;
    const int major = std::stoi(t.architecture.substr(3, t.architecture.size() - 4));
    const int minor = t.architecture.back() - '0';
    EXPECT_EQ(architecturePolicyTable(major, minor).entries, t.entries) << file << ": the embedded copy differs";
    for (ElemType type : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64})
      for (int lg = 4; lg <= 30; ++lg)
        EXPECT_GT(t.bestBlock(type, uint64_t(1) << lg), 0) << file << " " << name(type) << " 2^" << lg;
  }
  if (tables == 0) GTEST_SKIP() << "no architecture table is checked in yet";
  EXPECT_TRUE(architecturePolicyTable(7, 5).empty()) << "no table for Turing: the latency rule";
}

// auto: the block and the policy come from the table the device's architecture has (the CPU
// model answers for an H200: sm_90), and the record says what ran and why.
TEST(AutoDispatch, PicksTheBlockAndPolicyItsTableMeasuredAndSaysWhy) {
  DeviceInfo h200 = assumedH200();
  h200.uuid.clear();  // no tuned table of this machine's in the way
  RunConfig c;
  c.kernel = "auto";
  c.type = ElemType::Float32;
  c.block = 64;  // asked for, but auto picks
  const PolicyTable& arch = architecturePolicyTable(h200.ccMajor, h200.ccMinor);
  for (int lg : {4, 12, 16, 20, 24, 30, 34}) {
    c.n = uint64_t(1) << lg;
    std::string err;
    const Geometry g = modelGeometry(c, h200, &err);
    ASSERT_EQ(err, "") << lg;
    EXPECT_EQ(g.policySource.rfind("auto: block ", 0), 0u) << g.policySource;
    const RunConfig ran = modelDispatchedConfig(c, h200);
    EXPECT_EQ(ran.block, int(g.block)) << "the record's block is the block that ran";
    EXPECT_EQ(ran.kernel, "auto");
    if (arch.empty()) {
      EXPECT_EQ(int(g.block), kAutoDefaultBlock);
      continue;
    }
    const int block = arch.bestBlock(c.type, c.n);
    EXPECT_EQ(int(g.block), block) << lg;
    int entry = 0;
    const LaunchPolicy* p = arch.find(c.type, block, c.n, &entry);
    ASSERT_NE(p, nullptr);
    EXPECT_NE(g.policySource.find("sm_90 table"), std::string::npos) << g.policySource;
    if (p->gridCap == 1) EXPECT_EQ(g.grid(), 1u) << lg;
    else if (g.clusterCtas == 0) EXPECT_EQ(g.loadsInFlight, p->loadsInFlight) << lg;
  }
  // k13 itself does not read the architecture's table: its figures stay the latency rule's.
  c.kernel = "k13";
  c.block = 512;
  c.n = uint64_t(1) << 24;
  EXPECT_EQ(modelGeometry(c, h200).policySource.find("sm_90 table"), std::string::npos);
}

// Without any table (an architecture none was measured on), auto still plans: block 512 and the
// latency rule, said in words.
TEST(AutoDispatch, WithoutATableTheLatencyRuleAndBlock512) {
  DeviceInfo turing = assumedH200();
  turing.uuid.clear();
  turing.ccMajor = 7;
  turing.ccMinor = 5;
  RunConfig c;
  c.kernel = "auto";
  c.n = uint64_t(1) << 20;
  const Geometry g = modelGeometry(c, turing);
  EXPECT_EQ(int(g.block), kAutoDefaultBlock);
  EXPECT_NE(g.policySource.find("no table"), std::string::npos) << g.policySource;
  EXPECT_NE(g.policySource.find("latency rule"), std::string::npos) << g.policySource;
}

// auto --deterministic: a k10 plan fixed by N and type alone (block 256, one block per tile, GPU
// passes), whatever block was asked; other kernels are refused.
TEST(AutoDispatch, TheDeterministicPlanIsFixedByNAndTypeAlone) {
  RunConfig c;
  c.kernel = "auto";
  c.type = ElemType::Float32;
  c.n = (uint64_t(1) << 20) + 3;
  std::string err;
  RunConfig first;
  for (int block : {32, 128, 512, 1024}) {
    c.block = block;
    const RunConfig d = deterministicPlan(c, &err);
    EXPECT_EQ(err, "");
    EXPECT_EQ(d.kernel, "k10");
    EXPECT_EQ(d.block, kDeterministicBlock);
    EXPECT_EQ(d.final, FinalStage::Gpu);
    EXPECT_EQ(d.n, c.n);
    const FamilyParameter* grid = ownParameter(d, "grid");
    ASSERT_NE(grid, nullptr);
    EXPECT_EQ(grid->get(d), blocksToCover(*findKernel("k10"), c.n, kDeterministicBlock, c.type));
    const Geometry g = modelGeometry(d, assumedH200());
    EXPECT_EQ(g.passGrids.front(), grid->get(d)) << "one block per tile";
    if (block == 32) first = d;
    else EXPECT_EQ(modelGeometry(first, assumedH200()).passGrids, g.passGrids) << "the same tree for block " << block;
  }
  c.kernel = "k13";
  deterministicPlan(c, &err);
  EXPECT_NE(err.find("mode of auto"), std::string::npos) << err;
}

}  // namespace
}  // namespace rl
