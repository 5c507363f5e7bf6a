// Seed 002's pitfalls in the CPU model (issue 14, lesson `pitfalls`): each consequence shows,
// each fix removes it, and the guard zone shows exactly the bytes written past the buffer.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "reducelab/cuda_device.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/measurement_service.hpp"
#include "reducelab/pitfalls.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

PitfallResult cpuRun(Pitfall kind, std::vector<uint64_t> sizes = {}, int block = 256) {
  PitfallRequest r;
  r.kind = kind;
  r.block = block;
  r.sizes = std::move(sizes);
  PitfallResult out = runPitfallOnCpu(r);
  EXPECT_TRUE(out.ok) << out.error;
  EXPECT_FALSE(out.onGpu);
  EXPECT_EQ(out.source, "CPU model");
  return out;
}

}  // namespace

TEST(Pitfalls, NamesRoundTripAndBadRequestsAreRefused) {
  for (Pitfall p : allPitfalls()) EXPECT_EQ(parsePitfall(name(p)), p);
  EXPECT_FALSE(parsePitfall("clocks"));
  PitfallRequest r;
  r.kind = Pitfall::FloatSharedSum;
  r.block = 48;
  EXPECT_NE(validatePitfall(r).find("power of two"), std::string::npos);
  r.block = 256;
  r.sizes = {kPitfallMaxN + 1};
  EXPECT_NE(validatePitfall(r).find("out of range"), std::string::npos);
  r.kind = Pitfall::DoubleReadMax;
  r.sizes = {100};  // fewer than 8 blocks' worth: no second half to miss
  EXPECT_NE(validatePitfall(r).find("out of range"), std::string::npos);
  const PitfallResult bad = runPitfallOnCpu(r);
  EXPECT_FALSE(bad.ok);
  EXPECT_FALSE(pitfallFindings(bad).empty());
}

// A float holds integers exactly only to 2^24: one addition past it rounds.
TEST(Pitfalls, FloatTreePartialRoundsPast2To24AndIsExactBelow) {
  std::vector<int32_t> v(32, 0);
  v[0] = 1 << 24;
  v[16] = 1;  // added to v[0] in the first step of the tree
  EXPECT_EQ(floatTreePartial(v.data(), v.size(), 32), int64_t(1) << 24);  // exact: 2^24 + 1
  v[0] = (1 << 24) - 2;
  EXPECT_EQ(floatTreePartial(v.data(), v.size(), 32), (int64_t(1) << 24) - 1);
  // A partial block counts only its own elements (the kernel's i < nverts2 test).
  std::vector<int32_t> three = {5, 6, 7};
  EXPECT_EQ(floatTreePartial(three.data(), 3, 64), 18);
}

TEST(Pitfalls, FloatSharedSumIsWrongOnceBlockSumsPass2To24AndTheFixIsExact) {
  const PitfallResult r = cpuRun(Pitfall::FloatSharedSum, {1000, 1 << 16, 1 << 18});
  ASSERT_EQ(r.floatSum.size(), 6u);
  for (const FloatSumRow& f : r.floatSum) {
    EXPECT_EQ(f.fixSum, f.exact) << f.n;
    if (f.valueMax < 1000) {  // 256 x 999 < 2^24: every partial exact
      EXPECT_EQ(f.seedSum, f.exact) << f.n;
      EXPECT_EQ(f.inexactBlocks, 0u);
    } else {
      EXPECT_NE(f.seedSum, f.exact) << f.n;
      EXPECT_GT(f.inexactBlocks, 0u);
    }
  }
  // The blocks' rounding errors grow with N (values up to 2^20); each block's |error| adds up.
  EXPECT_LT(r.floatSum[3].absBlockError, r.floatSum[4].absBlockError);
  EXPECT_LT(r.floatSum[4].absBlockError, r.floatSum[5].absBlockError);
  EXPECT_GE(r.floatSum[5].absBlockError, std::llabs(r.floatSum[5].seedSum - r.floatSum[5].exact));
  EXPECT_EQ(r.floatSum[0].absBlockError, 0);
  const Table t = pitfallTable(r);
  EXPECT_EQ(t.rows.size(), 6u);
  EXPECT_EQ(t.headers.size(), t.rows[0].size());
}

TEST(Pitfalls, IntegerDivisionTruncatesTheMean) {
  const PitfallResult r = cpuRun(Pitfall::IntegerMean, {1000, 160000});
  ASSERT_EQ(r.mean.size(), 2u);
  for (const MeanRow& m : r.mean) {
    int64_t sum = 0;
    for (uint64_t i = 0; i < m.n; ++i) sum += pitfallInt(2, i, 999);
    EXPECT_EQ(m.sum, sum);
    EXPECT_EQ(double(m.seedMean), std::floor(m.correctMean));
    EXPECT_GT(m.correctMean - double(m.seedMean), 0.0);  // the data's mean is not whole
    EXPECT_DOUBLE_EQ(m.correctMean, double(sum) / double(m.n));
  }
}

TEST(Pitfalls, UndersizedPartialsWriteExactlyTheSecondHalfIntoTheGuardAndTheHostSumsHalf) {
  const PitfallResult r = cpuRun(Pitfall::UndersizedPartials, {100000}, 256);
  ASSERT_TRUE(r.overrun);
  const OverrunResult& o = *r.overrun;
  EXPECT_EQ(o.blocks, 391u);
  EXPECT_EQ(o.allocatedBytes, 4u * 391);
  EXPECT_EQ(o.writtenBytes, 8u * 391);
  ASSERT_EQ(o.arena.size(), o.allocatedBytes + o.guardBytes);
  ASSERT_GE(o.arena.size(), o.writtenBytes + 1);  // every write lands inside the arena
  // Past the buffer's end: partials from index allocatedBytes / 8 on, byte for byte.
  for (uint64_t off = o.allocatedBytes; off < o.writtenBytes; ++off) {
    int64_t p = o.partials[off / 8];
    uint8_t b;
    std::memcpy(&b, reinterpret_cast<const uint8_t*>(&p) + off % 8, 1);
    ASSERT_EQ(o.arena[off], b) << off;
  }
  for (uint64_t off = o.writtenBytes; off < o.arena.size(); ++off) ASSERT_EQ(o.arena[off], o.fill) << off;
  EXPECT_TRUE(o.guardTailIntact);
  EXPECT_TRUE(o.fixGuardIntact);
  EXPECT_TRUE(o.pastEndIsPartials);
  EXPECT_EQ(o.firstChanged, o.allocatedBytes);  // the first partial past the end has a low byte != 0xA5
  EXPECT_LT(o.lastChanged, o.writtenBytes);
  EXPECT_GT(o.changedPastEnd, (o.writtenBytes - o.allocatedBytes) / 2);
  // The host's copy is 4 x blocks bytes: the first 195 partials whole and, blocks being odd, the
  // low four bytes of the 196th (the whole of it: partials here are below 2^32).
  int64_t copied = 0, all = 0;
  for (uint64_t b = 0; b < o.blocks; ++b) all += o.partials[b];
  for (uint64_t b = 0; b < 196; ++b) copied += o.partials[b];
  EXPECT_EQ(o.hostSumSeed, copied);
  EXPECT_EQ(o.hostSumFix, o.exact);
  EXPECT_EQ(all, o.exact);
  EXPECT_NE(o.hostSumSeed, o.exact);
  const Table t = pitfallTable(r);
  EXPECT_FALSE(t.rows.empty());
}

// The guard check itself can fail: a write past the kernel's last byte is seen.
TEST(Pitfalls, GuardSummarySeesAByteBeyondTheLastWriteAndOneInTheFixGuard) {
  OverrunResult o;
  o.allocatedBytes = 16;
  o.writtenBytes = 32;
  o.arena.assign(64, o.fill);
  o.fixArena.assign(64, o.fill);
  summarizeGuard(&o);
  EXPECT_EQ(o.changedPastEnd, 0u);
  EXPECT_TRUE(o.guardTailIntact);
  EXPECT_TRUE(o.fixGuardIntact);
  o.arena[20] = 0;
  o.arena[40] = 1;
  o.fixArena[33] = 7;
  summarizeGuard(&o);
  EXPECT_EQ(o.changedPastEnd, 2u);
  EXPECT_EQ(o.firstChanged, 20u);
  EXPECT_EQ(o.lastChanged, 40u);
  EXPECT_FALSE(o.guardTailIntact);
  EXPECT_FALSE(o.fixGuardIntact);
}

TEST(Pitfalls, DoubleReadMissesAMaximumInTheSecondElementOfAPair) {
  const uint64_t n = 1 << 16;
  const PitfallResult r = cpuRun(Pitfall::DoubleReadMax, {n}, 128);
  ASSERT_EQ(r.max.size(), 2u);
  float exact = -1e30f;
  uint64_t where = 0;  // the maximum's index, found by scanning the data here
  for (uint64_t i = 0; i < n; ++i)
    if (pitfallMaxData(2, i, n) > exact) {
      exact = pitfallMaxData(2, i, n);
      where = i;
    }
  EXPECT_EQ(where % 2, 1u) << "the maximum must be a second element of a pair for the bug to show";
  for (const MaxRow& m : r.max) {
    EXPECT_EQ(m.exactMax, exact);
    EXPECT_EQ(m.fixMax, exact) << m.launch;
    EXPECT_EQ(m.maxIndex, where);
  }
  // The seed's own grid covers N one element per thread: i_seg >= N, right by accident.
  EXPECT_EQ(r.max[0].blocks, n / 128);
  EXPECT_EQ(r.max[0].seedMax, exact);
  // Two per thread: the maximum is a second element, and V_in[i] twice never reads it.
  EXPECT_EQ(r.max[1].blocks, n / 256);
  EXPECT_GE(r.max[1].maxIndex, r.max[1].blocks * 128);
  EXPECT_LT(r.max[1].seedMax, exact);
  const Table t = pitfallTable(r);
  EXPECT_EQ(t.rows[0].back(), "right");
  EXPECT_EQ(t.rows[1].back(), "WRONG");
}

// clock() counts the process's CPU time: a sleep adds (almost) nothing to it.
TEST(Pitfalls, ClockCountsCpuTimeNotElapsedTime) {
  const PitfallResult r = cpuRun(Pitfall::ClockTiming);
  ASSERT_EQ(r.clockCpu.size(), 2u);
  EXPECT_TRUE(r.clock.empty());  // no launch to time without a GPU
  const ClockCpuRow& sleep = r.clockCpu[0];
  EXPECT_GE(sleep.wallMs, 29.0);
  EXPECT_LT(sleep.threadMs, 0.5 * sleep.wallMs);
  const ClockCpuRow& spin = r.clockCpu[1];
  EXPECT_GE(spin.wallMs, 29.0);
  EXPECT_GT(spin.threadMs, sleep.threadMs);
  EXPECT_LE(spin.threadMs, spin.wallMs + 1.0);
  const std::vector<std::string> f = pitfallFindings(r);
  ASSERT_FALSE(f.empty());
  EXPECT_NE(f.front().find("No GPU"), std::string::npos);
}

// Every pitfall's table and findings are complete (no empty cells, a sentence at least).
TEST(Pitfalls, EveryPitfallHasATableFindingsAndCode) {
  for (Pitfall p : allPitfalls()) {
    PitfallRequest req;
    req.kind = p;
    req.sizes = p == Pitfall::ClockTiming ? std::vector<uint64_t>{} : std::vector<uint64_t>{1 << 14};
    const PitfallResult r = runPitfallOnCpu(req);
    ASSERT_TRUE(r.ok) << name(p) << ": " << r.error;
    const Table t = pitfallTable(r);
    EXPECT_FALSE(t.caption.empty()) << name(p);
    ASSERT_FALSE(t.rows.empty()) << name(p);
    for (const auto& row : t.rows) {
      ASSERT_EQ(row.size(), t.headers.size()) << name(p);
      for (size_t c = 1; c < row.size(); ++c) EXPECT_FALSE(row[c].empty()) << name(p) << " column " << t.headers[c];
    }
    EXPECT_FALSE(pitfallFindings(r).empty()) << name(p);
    EXPECT_FALSE(pitfallSeedCode(p).empty());
    EXPECT_FALSE(pitfallFixCode(p).empty());
  }
}

// Without an engine the service answers with the CPU model, labelled so.
TEST(Pitfalls, ServiceWithoutEngineAnswersWithTheCpuModel) {
  MeasurementService s([](std::string* err) {
    *err = "no GPU in this test";
    return std::unique_ptr<Engine>();
  });
  PitfallRequest r;
  r.kind = Pitfall::DoubleReadMax;
  r.sizes = {1 << 14};
  r.label = "row 3";
  s.queuePitfall(r);
  std::vector<PitfallResult> got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (got.empty() && std::chrono::steady_clock::now() < deadline) {
    ServiceEvents ev = s.poll();
    for (PitfallResult& p : ev.pitfalls) got.push_back(std::move(p));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].ok) << got[0].error;
  EXPECT_EQ(got[0].label, "row 3");
  EXPECT_FALSE(got[0].onGpu);
  EXPECT_EQ(got[0].source, "CPU model");
  EXPECT_FALSE(s.busy());
}

// ---- the lesson ----

TEST(PitfallsLesson, PitfallLinesParseAndBadOnesNameFileLineAndReason) {
  std::string err;
  auto l = parseLesson("step: a\ncaption: c\npitfall double-read block=128 sizes=2^14,2^16 seed=7\npitfall clock\n",
                       "x.lesson", &err);
  ASSERT_TRUE(l) << err;
  ASSERT_EQ(l->steps[0].pitfalls.size(), 2u);
  const PitfallRequest& r = l->steps[0].pitfalls[0];
  EXPECT_EQ(r.kind, Pitfall::DoubleReadMax);
  EXPECT_EQ(r.block, 128);
  EXPECT_EQ(r.sizes, (std::vector<uint64_t>{1 << 14, 1 << 16}));
  EXPECT_EQ(r.seed, 7u);
  auto bad = [](const std::string& text) {
    std::string e;
    EXPECT_FALSE(parseLesson(text, "x.lesson", &e)) << text;
    return e;
  };
  EXPECT_NE(bad("step: a\npitfall nosuch\n").find("x.lesson:2: pitfall 'nosuch' is not one of: clock"), std::string::npos);
  EXPECT_NE(bad("step: a\npitfall clock block=48\n").find("x.lesson:2: block size 48"), std::string::npos);
  EXPECT_NE(bad("step: a\npitfall clock colour=red\n").find("unknown pitfall clock setting 'colour'"), std::string::npos);
  EXPECT_NE(bad("step: a\npitfall float-shared sizes=2^40\n").find("out of range"), std::string::npos);
  EXPECT_NE(bad("pitfall clock\n").find("before the first 'step:'"), std::string::npos);
}

// Headless end to end: one PNG per step, every pitfall's CSV, and lesson.md with the seed's
// code, the fix, the findings and where they ran (the CPU model here, the GPU where there is one).
TEST(PitfallsLesson, RunsHeadlessWithEveryConsequence) {
  std::string err;
  auto lesson = loadLesson("pitfalls", &err);
  ASSERT_TRUE(lesson) << err;
  ASSERT_EQ(lesson->steps.size(), 6u);  // the sixth, shared memory for one array, is an exercise (it faults: the worker runs it)
  const std::string dir = rl::test::tempPath("lesson-pitfalls");
  auto r = rl::test::runReducelab("lesson pitfalls --headless --out " + dir + " --size 1280x720");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (size_t i = 0; i < lesson->steps.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "/step-%02zu.png", i + 1);
    rl::test::Image img = rl::test::loadPng(dir + name);
    ASSERT_TRUE(img.ok()) << name;
    EXPECT_GT(rl::test::lumaStdDev(img), 10.0) << name;
  }
  const bool gpu = rl::queryDevice(0).available;
  const std::string md = rl::test::readFile(dir + "/lesson.md");
  for (Pitfall p : allPitfalls()) {
    const std::string csv = rl::test::readFile(dir + "/pitfall-" + std::string(name(p)) + ".csv");
    EXPECT_GT(rl::test::countLines(csv), 1) << name(p);
    EXPECT_NE(md.find("### Pitfall: " + std::string(name(p)) + (gpu ? " (GPU: " : " (CPU model")), std::string::npos)
        << name(p) << "\n" << md;
    EXPECT_NE(md.find(pitfallFixCode(p)), std::string::npos) << name(p);
  }
  EXPECT_EQ(md.find("Not run"), std::string::npos) << md;
  // The consequences, in the words and cells the lesson shows.
  EXPECT_NE(rl::test::readFile(dir + "/pitfall-double-read.csv").find("WRONG"), std::string::npos);
  EXPECT_NE(md.find("missed"), std::string::npos);
  EXPECT_NE(md.find("instead of"), std::string::npos);
  EXPECT_NE(md.find(gpu ? "clock() right after the launch reads" : "No GPU here"), std::string::npos);
  auto again = rl::test::runReducelab("lesson pitfalls --headless --out " + dir);
  EXPECT_EQ(again.exitCode, 1);
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
}

// In the GUI the step's pitfall has its own window over the views: its title, the seed's code,
// the table, nothing cut or overlapping (the layout check of the last frame).
TEST(PitfallsLesson, WindowShowsTheFirstStepWithoutLayoutIssues) {
  const std::string dump = rl::test::tempPath("pitfalls-layout.json");
  auto r = rl::test::runReducelab("lesson pitfalls --headless --frames 3 --size 1280x720 --dump-layout " + dump);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(rl::test::readFile(dump), nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j["layout_issues"].empty()) << j["layout_issues"].dump(1);
  std::string shown;
  for (const auto& t : j["text"])
    if (t["window"].get<std::string>().find("lesson-pitfalls") != std::string::npos) shown += t["text"].get<std::string>() + "\n";
  EXPECT_NE(shown.find("Pitfall: clock"), std::string::npos) << shown;
  EXPECT_NE(shown.find("time = clock()"), std::string::npos) << shown;
  EXPECT_NE(shown.find("cudaEventRecord"), std::string::npos) << shown;
  EXPECT_NE(shown.find(rl::queryDevice(0).available ? "CUDA events" : "wall clock ms"), std::string::npos) << shown;
  EXPECT_TRUE(j["panels"].contains("pitfalls"));
}

// Seed 000's float sum beside Kahan's (the `precision` lesson): the CPU model adds in the kernel's
// order (thread, then tree), and the compensated sum lands within a float's spacing of the exact.
TEST(Pitfalls, KahansSumIsWithinAFloatsSpacingWhereThePlainOneDrifts) {
  // The tree's order: threads 0..3 hold one value each; stride 2 adds 2 into 0 and 3 into 1, stride 1
  // adds 1 into 0: (2^24 + 0) + (1 + 1) = 2^24 + 2, where a loop rounds each 1 away and stays at 2^24.
  const float v[4] = {16777216.0f, 1.0f, 0.0f, 1.0f};
  float out = 0;
  EXPECT_EQ(kahanPass(v, &out, 4, false), 1u);
  EXPECT_EQ(out, 16777218.0f);
  // A thread's 8 elements lie blockDim apart: thread 0 adds elements 0 and 256 (1 + 1), thread 1
  // holds element 1 (2^24); the tree's 2 + 2^24 is exact. Eight neighbours per thread would give 2^24.
  std::vector<float> strided(257, 0.0f);
  strided[0] = 1.0f, strided[256] = 1.0f, strided[1] = 16777216.0f;
  EXPECT_EQ(kahanPass(strided.data(), &out, strided.size(), false), 1u);
  EXPECT_EQ(out, 16777218.0f);
  // 8 elements a thread, blockDim apart: a block covers 2048 elements, the 2049th starts the next.
  std::vector<float> ones(2048 + 1, 1.0f);
  std::vector<float> partial(2);
  EXPECT_EQ(kahanPass(ones.data(), partial.data(), ones.size(), true), 2u);
  EXPECT_EQ(partial[0], 2048.0f);
  EXPECT_EQ(partial[1], 1.0f);

  PitfallRequest r;
  r.kind = Pitfall::KahanSum;
  r.sizes = {uint64_t(1) << 24};
  const PitfallResult res = runPitfallOnCpu(r);
  ASSERT_TRUE(res.ok) << res.error;
  ASSERT_EQ(res.kahan.size(), 1u);
  const KahanRow& k = res.kahan[0];
  // The exact sum, independently: the data are multiples of 2^-24, summed as integers.
  uint64_t units = 0;
  for (uint64_t i = 0; i < k.n; ++i) units += uint64_t(std::ldexp(double(kahanData(r.seed, i)), 24));
  EXPECT_EQ(k.exact, std::ldexp(double(units), -24));
  const double spacing = double(std::nextafter(float(k.exact), 1e30f)) - double(float(k.exact));
  // The loop drifts (N additions to a growing sum), Kahan's loop does not; the tree stays within a
  // few spacings, its compensated version within one.
  EXPECT_GT(std::fabs(double(k.loopSum) - k.exact), 2 * spacing);
  EXPECT_LE(std::fabs(double(k.loopKahanSum) - k.exact), spacing);
  EXPECT_LE(std::fabs(double(k.treeSum) - k.exact), 4 * spacing);
  EXPECT_LE(std::fabs(double(k.treeKahanSum) - k.exact), spacing);
  float loop = 0;  // the loop, written here
  for (uint64_t i = 0; i < k.n; ++i) loop += kahanData(r.seed, i);
  EXPECT_EQ(k.loopSum, loop);
  EXPECT_EQ(k.treeMs, 0);  // nothing timed without a GPU
  EXPECT_GT(k.loopMs, 0);
  const Table t = pitfallTable(res);
  EXPECT_NE(t.caption.find("CPU model"), std::string::npos);
  for (const auto& row : t.rows)
    for (const std::string& cell : row) EXPECT_FALSE(cell.empty());
  EXPECT_FALSE(pitfallFindings(res).empty());
  EXPECT_EQ(pitfallTitle(Pitfall::KahanSum), "Precision: kahan");
}

// Seed 000's nvprof row (the `occupancy` lesson's step 2): without a GPU the theoretical
// occupancy of each launch, the seed's and ncu's figures, and no counter, said so.
TEST(Pitfalls, AchievedOccupancyWithoutAGpuSaysNoCounterWasRead) {
  PitfallRequest r;
  r.kind = Pitfall::AchievedOccupancy;
  const PitfallResult res = runPitfallOnCpu(r);
  ASSERT_TRUE(res.ok) << res.error;
  ASSERT_EQ(res.achieved.size(), 7u);
  EXPECT_EQ(res.achieved[0].label, "Kernel01");
  EXPECT_EQ(res.achieved[5].label, "Kernel06");
  EXPECT_EQ(res.achieved[5].config.kernel, "k5");
  EXPECT_EQ(res.achieved[5].seedNvprof, 0.754);
  for (const AchievedRow& a : res.achieved) {
    EXPECT_EQ(a.config.block, 512);
    EXPECT_EQ(a.config.n, uint64_t(1) << 24);
    EXPECT_GT(a.theoretical, 0.0);
    EXPECT_LE(a.theoretical, 1.0);
    EXPECT_LT(a.achieved, 0.0);
  }
  const Table t = pitfallTable(res);
  EXPECT_NE(t.caption.find("CPU model"), std::string::npos);
  for (const auto& row : t.rows)
    for (const std::string& cell : row) EXPECT_FALSE(cell.empty());
  ASSERT_FALSE(pitfallFindings(res).empty());
  EXPECT_NE(pitfallFindings(res).front().find("not read"), std::string::npos);
  r.sizes = {1024};
  EXPECT_NE(validatePitfall(r).find("no sizes"), std::string::npos);
  std::string err;
  for (const char* line : {"pitfall achieved block=256", "pitfall achieved sizes=1K", "pitfall kahan block=512"})
    EXPECT_FALSE(parseLesson(std::string("title: t\nstep: s\n") + line + "\n", "t", &err)) << line;
  EXPECT_TRUE(parseLesson("title: t\nstep: s\npitfall kahan sizes=2^20 seed=7\n", "t", &err)) << err;
}
