// GPU (label gpu): the tuned kernel under every policy a table can hold (depth x CTA cap x cache
// hint) computes the exact result; a stored table is what the dispatch uses; the timing modes
// and the launch floor are measured and recorded; tune refuses nothing it measured wrongly.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "gpu_checks.hpp"
#include "gpu_support.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/launch_plan.hpp"

using namespace rl;

namespace {

// Points XDG_CONFIG_HOME at a fresh folder for the test's lifetime (peaks and policies live there).
class ConfigHome {
 public:
  explicit ConfigHome(const std::string& name) : dir_(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "reducelab");
    const char* old = std::getenv("XDG_CONFIG_HOME");
    had_ = old != nullptr;
    saved_ = old ? old : "";
    setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
  }
  ~ConfigHome() {
    if (had_) setenv("XDG_CONFIG_HOME", saved_.c_str(), 1);
    else unsetenv("XDG_CONFIG_HOME");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path policies() const { return dir_ / "reducelab" / "policies.json"; }

 private:
  std::filesystem::path dir_;
  bool had_ = false;
  std::string saved_;
};

TEST(TunedKernel, EveryDepthCapAndHintComputesTheExactResult) {
  REQUIRE_GPU();
  ConfigHome home("reducelab-policy-test");
  const DeviceInfo d = queryDevice(0);
  const uint64_t n = (uint64_t(1) << 22) + 7;  // odd: a scalar tail in every type
  for (int depth : kPolicyLoadsInFlight)
    for (int ctas : {1, 0})
      for (CacheHint hint : {CacheHint::None, CacheHint::NoAllocate, CacheHint::EvictFirst, CacheHint::Prefetch256}) {
        PolicyTable t;
        t.deviceName = d.name;
        t.uuid = d.uuid;
        t.driver = cudaVersionString(d.driverVersion);
        for (ElemType type : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64})
          t.entries[{type, 256, 22}] = {depth, ctas, hint, 0};
        std::ofstream(home.policies()) << nlohmann::json{{d.uuid, policyTableJson(t)}}.dump();
        std::string err;
        auto engine = Engine::create(0, &err);  // reads the table once
        ASSERT_TRUE(engine) << err;
        for (ElemType type : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64})
          for (Op op : {Op::Sum, Op::Max}) {
            RunConfig c;
            c.kernel = "k13";
            c.type = type;
            c.op = op;
            c.n = n;
            c.block = 256;
            c.reps = 2;
            c.warmup = 0;
            c.data = DataPattern::IntRange;  // exact in every type
            MeasureOptions o;
            o.cpuBaseline = false;
            Measurement m = engine->measure(c, o);
            ASSERT_TRUE(m.ok) << m.error;
            EXPECT_EQ(m.geometry.loadsInFlight, depth);
            EXPECT_EQ(m.geometry.cacheHint, hint);
            EXPECT_NE(m.geometry.policySource.find("tuned on this device"), std::string::npos) << m.geometry.policySource;
            if (ctas == 1) {
              EXPECT_EQ(m.geometry.grid(), uint64_t(d.smCount));
            }
            EXPECT_EQ(test::resultAgainstExact(m, d.smCount), "")
                << describePolicy({depth, ctas, hint, 0}) << " " << name(type) << " " << name(op);
            EXPECT_EQ(m.distinctResults.size(), 1u) << "k13 is deterministic";
          }
      }
}

TEST(TunedKernel, WithoutATableTheLatencyRuleSpreadsSmallNOverTheSms) {
  REQUIRE_GPU();
  ConfigHome home("reducelab-policy-rule-test");
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  RunConfig c;
  c.kernel = "k13";
  c.type = ElemType::Int32;
  c.n = uint64_t(1) << 19;
  c.block = 512;
  Geometry g = engine->geometry(c, &err);
  ASSERT_EQ(err, "");
  EXPECT_EQ(g.grid(), 256u) << "one 16-byte load per thread: 131072 vectors / 512";
  EXPECT_EQ(g.loadsInFlight, 1);
  EXPECT_NE(g.policySource.find("latency rule"), std::string::npos);
  c.kernel = "k12";
  EXPECT_EQ(engine->geometry(c, &err).grid(), 64u) << "k12: four loads per thread";
  // 2^16: 32 one-vector CTAs would need the ticket; one cluster of 16 (or 8) CTAs, two (four)
  // vectors a thread, finishes in distributed shared memory.
  c.kernel = "k13";
  c.n = uint64_t(1) << 16;
  g = engine->geometry(c, &err);
  EXPECT_TRUE(g.grid() == 16 || g.grid() == 8) << g.grid();
  EXPECT_EQ(g.loadsInFlight, g.grid() == 16 ? 2 : 4);
  EXPECT_NE(g.policySource.find("one cluster of"), std::string::npos) << g.policySource;
  MeasureOptions o;
  o.cpuBaseline = false;
  for (Op op : {Op::Sum, Op::Min, Op::Max})
    for (ElemType t : {ElemType::Int32, ElemType::Float32, ElemType::Float64}) {
      c.op = op;
      c.type = t;
      c.n = (uint64_t(1) << 16) + 5;
      c.reps = 5;
      c.timing = TimingMode::Graph;  // the cluster launch inside a captured graph too
      const Measurement m = engine->measure(c, o);
      ASSERT_TRUE(m.ok) << m.error;
      EXPECT_EQ(test::resultAgainstExact(m, engine->device().smCount), "") << name(op) << " " << name(t);
      EXPECT_EQ(m.distinctResults.size(), 1u) << "the cluster finish is in rank order: deterministic";
    }
}

TEST(TimingModes, EachModeIsRecordedAndTheFloorIsMeasuredTheSameWay) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  for (TimingMode mode : {TimingMode::Blocked, TimingMode::Events, TimingMode::Graph}) {
    const Stats floor = engine->launchFloor(mode);
    ASSERT_GT(floor.count, 0) << name(mode);
    EXPECT_GT(floor.median, 0);
    EXPECT_LT(floor.median, 1.0) << "an empty launch under a millisecond";
    for (const char* kernel : {"k13", "k10", "k11", "cub"}) {  // one pass, two passes (PDL), identity + pass, library
      RunConfig c;
      c.kernel = kernel;
      c.type = ElemType::Float32;
      c.n = (uint64_t(1) << 20) + 3;
      c.timing = mode;
      c.reps = 5;
      if (std::string(kernel) == "k10") c.final = FinalStage::Gpu;
      MeasureOptions o;
      o.cpuBaseline = false;
      Measurement m = engine->measure(c, o);
      ASSERT_TRUE(m.ok) << kernel << " " << name(mode) << ": " << m.error;
      EXPECT_EQ(test::resultAgainstExact(m, engine->device().smCount), "") << kernel << " " << name(mode);
      EXPECT_EQ(m.config.timing, mode);
      EXPECT_DOUBLE_EQ(m.launchFloorMs, floor.median);
      EXPECT_GT(m.kernel.median, 0.5 * floor.median) << kernel << " " << name(mode) << ": below the floor";
      if (std::string(kernel) == "k10") EXPECT_TRUE(m.geometry.programmaticDependentLaunch);
    }
  }
}

// --pdl off: the engine launches the later passes plainly (the plan says so) and the result is
// the same exact sum; on (the default) they carry the attribute on sm_90. Every timing mode, as
// a captured graph holds the attribute too.
TEST(TimingModes, ThePdlSwitchReachesTheLaunchAndChangesNoResult) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const bool hopper = engine->device().ccMajor >= 9;
  for (TimingMode mode : {TimingMode::Blocked, TimingMode::Graph})
    for (const char* kernel : {"k1", "k4", "k10"})
      for (bool pdl : {true, false}) {
        RunConfig c;
        c.kernel = kernel;
        c.type = ElemType::Int32;
        c.data = DataPattern::IntRange;  // exact: the same integer either way
        c.final = FinalStage::Gpu;
        c.n = (uint64_t(1) << 20) + 5;
        c.timing = mode;
        c.pdl = pdl;
        c.reps = 3;
        MeasureOptions o;
        o.cpuBaseline = false;
        Measurement m = engine->measure(c, o);
        ASSERT_TRUE(m.ok) << kernel << " pdl " << onOff(pdl) << ": " << m.error;
        EXPECT_EQ(test::resultAgainstExact(m, engine->device().smCount), "") << kernel << " pdl " << onOff(pdl);
        EXPECT_EQ(m.config.pdl, pdl);
        ASSERT_GT(m.geometry.passGrids.size(), 1u) << kernel;
        EXPECT_EQ(m.geometry.programmaticDependentLaunch, pdl && hopper) << kernel << " pdl " << onOff(pdl);
      }
}

TEST(TunedKernel, TuneStoresATableTheNextEngineUses) {
  REQUIRE_GPU();
  ConfigHome home("reducelab-tune-test");
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  TuneOptions o;
  o.types = {ElemType::Int32, ElemType::Float64};
  o.blocks = {256};
  o.log2Sizes = {14, 22};
  o.reps = 3;
  PolicyTable t;
  ASSERT_EQ(engine->tune(o, &t), "");
  EXPECT_EQ(t.entries.size(), 4u);
  auto next = Engine::create(0, &err);
  const PolicyTable stored = next->policies();
  EXPECT_EQ(stored.entries, t.entries);
  EXPECT_EQ(stored.orderedEntries, t.orderedEntries);
  RunConfig c;
  c.kernel = "k13";
  c.type = ElemType::Float64;
  c.n = uint64_t(1) << 22;
  c.block = 256;
  const Geometry g = next->geometry(c, &err);
  // k13 keeps its fixed-order finish: the fastest ordered policy measured there.
  EXPECT_EQ(g.loadsInFlight, t.find(ElemType::Float64, 256, c.n, nullptr, /*ordered=*/true)->loadsInFlight);
  EXPECT_EQ(g.final, FinalStage::LastBlock);
  EXPECT_NE(g.policySource.find("2^22"), std::string::npos) << g.policySource;
}

}  // namespace

// auto (the dispatch): exact at every N from 2^4 to 2^26 and odd ones, every type and operation,
// whatever its table picked there (one CTA, a cluster, a ticket over a wave); the record holds
// the block that ran; and its end to end (the result written into mapped pinned host memory) is
// the same value, within a few microseconds of the kernel at small N.
TEST(AutoDispatch, ExactAtEveryNTypeAndOpAndTheMappedResultIsTheSame) {
  REQUIRE_GPU();
  ConfigHome home("reducelab-auto-test");  // no tuned table of this machine: the architecture's
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  MeasureOptions o;
  o.cpuBaseline = false;
  std::vector<uint64_t> sizes;
  for (int lg = 4; lg <= 26; lg += 2) sizes.push_back(uint64_t(1) << lg);
  for (uint64_t odd : {uint64_t(1), uint64_t(3), uint64_t(4093), uint64_t(65541), (uint64_t(1) << 20) + 7}) sizes.push_back(odd);
  int singleCta = 0;
  for (uint64_t n : sizes)
    for (ElemType t : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64})
      for (Op op : {Op::Sum, Op::Min, Op::Max}) {
        RunConfig c;
        c.kernel = "auto";
        c.type = t;
        c.op = op;
        c.n = n;
        c.reps = 3;
        c.warmup = 1;
        const Measurement m = engine->measure(c, o);
        ASSERT_TRUE(m.ok) << m.error << " (" << name(t) << " " << name(op) << " N=" << n << ")";
        EXPECT_EQ(test::resultAgainstExact(m, engine->device().smCount), "") << name(t) << " " << name(op) << " N=" << n;
        EXPECT_EQ(m.config.block, int(m.geometry.block)) << "the record says the block that ran";
        // Ordered finishes give the same bits every run; the atomic finish only where the order
        // cannot matter (integers, min, max) or is allowed to (a float sum; --deterministic fixes it).
        if (m.geometry.final != FinalStage::Atomic || !isFloat(m.config.accType()) || op != Op::Sum)
          EXPECT_EQ(m.distinctResults.size(), 1u) << name(t) << " " << name(op) << " N=" << n;
        if (m.geometry.final == FinalStage::Atomic)
          EXPECT_TRUE(op == Op::Sum || !isFloat(m.config.accType())) << "no compare-and-swap finish";
        EXPECT_EQ(m.geometry.policySource.rfind("auto: ", 0), 0u) << m.geometry.policySource;
        if (m.geometry.grid() == 1) ++singleCta;
        if (n <= (uint64_t(1) << 16))  // the mapped result: no copy after the kernel
          EXPECT_LT(m.endToEnd.median - m.kernel.median, 0.004) << name(t) << " N=" << n << ": end to end "
                                                               << m.endToEnd.median << " ms, kernel " << m.kernel.median;
      }
  EXPECT_GT(singleCta, 0) << "small N runs on one CTA";
}

// auto --deterministic: the same bits for every block asked and every run, on float data whose
// sum depends on the order (uniform values of both signs), in float32 and float64; and auto's
// default is itself the same every run (a fixed-order finish), though not across plans.
TEST(AutoDispatch, DeterministicGivesTheSameBitsWhateverTheBlockAndRun) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  MeasureOptions o;
  o.cpuBaseline = false;
  for (ElemType t : {ElemType::Float32, ElemType::Float64})
    for (uint64_t n : {uint64_t(1000), (uint64_t(1) << 20) + 3, (uint64_t(1) << 26) + 1}) {
      std::set<std::string> bits;
      for (int block : {64, 256, 1024}) {
        RunConfig c;
        c.kernel = "auto";
        c.type = t;
        c.n = n;
        c.block = block;
        c.data = DataPattern::Uniform;
        c.reps = 4;
        const RunConfig d = deterministicPlan(c, &err);
        ASSERT_EQ(err, "");
        const Measurement m = engine->measure(d, o);
        ASSERT_TRUE(m.ok) << m.error;
        EXPECT_EQ(test::resultAgainstExact(m, engine->device().smCount), "") << name(t) << " N=" << n;
        for (const std::string& r : m.distinctResults) bits.insert(r);
      }
      EXPECT_EQ(bits.size(), 1u) << name(t) << " N=" << n << ": " << bits.size() << " distinct results over blocks and runs";
    }
}
