// Like for like (one rule for which time rows are compared by, used by every table) and one
// computation of resources and occupancy for the GUI, the CLI and the report.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

#include "reducelab/run_tables.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/family.hpp"
#include "reducelab/record.hpp"
#include "reducelab/results_store.hpp"

namespace rl {
namespace {

Measurement row(const std::string& kernel, FinalStage final, double kernelMs, double e2eMs) {
  Measurement m;
  m.ok = true;
  m.config.kernel = kernel;
  m.geometry.final = final;
  m.kernelMs = {kernelMs};
  m.endToEndMs = {e2eMs};
  m.kernel = Stats::of(m.kernelMs);
  m.endToEnd = Stats::of(m.endToEndMs);
  m.bytesRead = 1e9;
  m.bandwidthGBs = m.bytesRead / (kernelMs * 1e-3) / 1e9;
  m.endToEndGBs = m.bytesRead / (e2eMs * 1e-3) / 1e9;
  return m;
}

TEST(LikeForLike, RowsWithTheSameFinalStageCompareKernelTime) {
  std::vector<Measurement> rows = {row("k3", FinalStage::Cpu, 2, 3), row("k7", FinalStage::Cpu, 1, 2)};
  EXPECT_EQ(comparisonBasis(rows), TimeBasis::Kernel);
  const Table t = benchTable(rows, {});
  EXPECT_NE(std::find(t.headers.begin(), t.headers.end(), "GB/s (kernel)"), t.headers.end());
  EXPECT_NE(t.caption.find("kernel time"), std::string::npos);
}

TEST(LikeForLike, RowsWhoseFinalStagesDifferCompareEndToEndTimeAndSaySo) {
  // k7 ends on the CPU (its kernel time leaves the final loop out), k11 ends with atomics on the
  // GPU. By kernel time k7 looks faster; end to end it is not.
  std::vector<Measurement> rows = {row("k7", FinalStage::Cpu, 1.0, 3.0), row("k11", FinalStage::Atomic, 1.5, 1.6)};
  EXPECT_EQ(comparisonBasis(rows), TimeBasis::EndToEnd);
  fillLadderSpeedups(rows);
  EXPECT_NEAR(rows[1].stepSpeedup, 3.0 / 1.6, 1e-9);  // by e2e, not 1.0 / 1.5
  const Table t = benchTable(rows, {});
  const auto col = std::find(t.headers.begin(), t.headers.end(), "GB/s (end to end)");
  ASSERT_NE(col, t.headers.end());
  EXPECT_NE(std::find(t.headers.begin(), t.headers.end(), "step x (end to end)"), t.headers.end());
  EXPECT_NE(t.caption.find("end-to-end"), std::string::npos);
  const size_t c = size_t(col - t.headers.begin());
  EXPECT_EQ(t.rows[0][c], fixed(rows[0].endToEndGBs, 1));
  EXPECT_EQ(t.rows[1][c], fixed(rows[1].endToEndGBs, 1));
}

// Only a CPU final lies outside the kernel time. A second pass, an atomic and a last-block final
// are all inside it: rows mixing those stay on kernel time (the table once switched to end to end
// for GPU against last-block, and disagreed with the headline and the plot).
TEST(LikeForLike, FinalsThatAllRunOnTheGpuCompareKernelTime) {
  std::vector<Measurement> rows = {row("cub", FinalStage::Gpu, 0.02, 0.03), row("k12", FinalStage::LastBlock, 0.021, 0.03),
                                   row("k11", FinalStage::Atomic, 0.022, 0.03)};
  EXPECT_EQ(comparisonBasis(rows), TimeBasis::Kernel);
  const Table t = benchTable(rows, {});
  EXPECT_NE(std::find(t.headers.begin(), t.headers.end(), "GB/s (kernel)"), t.headers.end());
  rows.push_back(row("k7", FinalStage::Cpu, 0.01, 0.04));
  EXPECT_EQ(comparisonBasis(rows), TimeBasis::EndToEnd);
  // Rows of a family without a final stage (a transpose) take no part.
  const Measurement transpose = row("tr-naive", FinalStage::Cpu, 1, 2);
  EXPECT_FALSE(hasTimeBasis(transpose));
  rows.pop_back();
  rows.push_back(transpose);
  EXPECT_EQ(comparisonBasis(rows), TimeBasis::Kernel);
}

// Two CPU finals after different numbers of GPU launches do different work outside the kernel
// time (the UPC lecture's Kernel01 copies and adds 32768 partials, its Kernel02 launches again and
// adds 64): compared end to end, as a lesson's configurations are before they run.
TEST(LikeForLike, CpuFinalsAfterDifferentGpuPassesCompareEndToEnd) {
  Measurement k01 = row("k1", FinalStage::Cpu, 0.1976, 0.2460), k02 = row("k1", FinalStage::Cpu, 0.2015, 0.2139);
  k01.geometry.passGrids = {32768};
  k02.geometry.passGrids = {32768, 64};
  EXPECT_EQ(comparisonBasis({k01, k02}), TimeBasis::EndToEnd);
  Measurement k03 = k02;
  k03.config.kernel = "k2";
  EXPECT_EQ(comparisonBasis({k02, k03}), TimeBasis::Kernel);  // the same CPU share
  RunConfig a, b;
  a.kernel = b.kernel = "k1";
  a.final = b.final = FinalStage::Cpu;
  familyOf(*findKernel("k1")).parameters().at(0).set(b, 2);
  EXPECT_EQ(basisOfFinals(finalWorkOf(a), finalWorkOf(b)), TimeBasis::EndToEnd);
  EXPECT_EQ(basisOfFinals(finalWorkOf(b), finalWorkOf(b)), TimeBasis::Kernel);
  a.final = FinalStage::Gpu;  // a GPU final beside a CPU one: end to end, passes or not
  EXPECT_EQ(basisOfFinals(finalWorkOf(a), finalWorkOf(b)), TimeBasis::EndToEnd);
}

// The results store keeps the session's basis as rows arrive, and again after clear and undo.
TEST(LikeForLike, TheResultsStoreKeepsTheBasisOfItsRows) {
  ResultsStore store;
  EXPECT_EQ(store.basis(), TimeBasis::Kernel);
  store.append(row("k3", FinalStage::Gpu, 1, 2));
  store.append(row("k12", FinalStage::LastBlock, 1, 2));
  EXPECT_EQ(store.basis(), TimeBasis::Kernel);
  store.append(row("k1", FinalStage::Cpu, 1, 2));
  EXPECT_EQ(store.basis(), TimeBasis::EndToEnd);
  store.clear();
  EXPECT_EQ(store.basis(), TimeBasis::Kernel);
  store.append(row("k3", FinalStage::Gpu, 1, 2));
  EXPECT_EQ(store.basis(), TimeBasis::Kernel);
  store.restoreCleared();
  EXPECT_EQ(store.basis(), comparisonBasis(store.rows()));
  EXPECT_EQ(store.basis(), TimeBasis::EndToEnd);
}

TEST(LikeForLike, TheIncrementalRuleAgreesWithTheWholeTableRule) {
  const FinalStage stages[] = {FinalStage::Cpu, FinalStage::Cpu, FinalStage::Cpu, FinalStage::Atomic};
  std::vector<Measurement> rows;
  rows.reserve(8);  // `first` points into it
  TimeBasis b = TimeBasis::Kernel;
  const Measurement* first = nullptr;
  for (int i = 0; i < 8; ++i) {
    Measurement m = row("k" + std::to_string(i), stages[(i * 5 + 2) % 4], 1, 2);
    if (i == 1) m.ok = false;  // failed rows do not count
    rows.push_back(m);
    b = comparisonBasisAfter(b, first, rows.back());
    if (!first && rows.back().ok) first = &rows.back();
    EXPECT_EQ(b, comparisonBasis(rows)) << "after row " << i;
  }
}

// Rows timed in different modes (blocked kernel + events, events alone, graph replays) are not
// like for like: a graph replay hides launch gaps a plain launch pays. Before the timing modes
// existed the tables computed speedups across such rows silently.
TEST(LikeForLike, RowsOfDifferentTimingModesAreNotComparedAndTheTableSaysSo) {
  std::vector<Measurement> rows = {row("k12", FinalStage::LastBlock, 0.006, 0.02),
                                   row("k12", FinalStage::LastBlock, 0.004, 0.02)};
  rows[1].config.timing = TimingMode::Graph;
  EXPECT_TRUE(mixedTimingModes(rows));
  fillLadderSpeedups(rows);
  EXPECT_EQ(rows[1].stepSpeedup, 0.0);
  EXPECT_EQ(rows[1].cumulativeSpeedup, 0.0);
  const Table t = benchTable(rows, {});
  EXPECT_NE(t.caption.find("timed in different modes (blocked, graph)"), std::string::npos) << t.caption;
  EXPECT_EQ(t.rows[1][11], "-");  // step x
  const Table s = sweepTable(rows, {});
  EXPECT_NE(s.caption.find("different modes"), std::string::npos);
  // One mode (any): compared as before, no note. A failed row's mode does not count.
  rows[0].config.timing = TimingMode::Graph;
  Measurement failed = row("k3", FinalStage::Cpu, 1, 1);
  failed.ok = false;
  rows.push_back(failed);
  EXPECT_FALSE(mixedTimingModes(rows));
  EXPECT_EQ(timingModesNote(rows), "");
  fillLadderSpeedups(rows);
  EXPECT_NEAR(rows[1].stepSpeedup, 1.5, 1e-9);
}

TEST(LikeForLike, TheTimingModeAndTheLaunchFloorSurviveTheSessionFile) {
  std::vector<Measurement> rows = {row("k12", FinalStage::LastBlock, 0.006, 0.02)};
  rows[0].config.timing = TimingMode::Events;
  rows[0].config.final = FinalStage::LastBlock;
  rows[0].config.block = 256;
  rows[0].launchFloorMs = 0.0021;
  SessionInfo s;
  std::string err;
  const std::vector<Measurement> back = measurementsFromJson(sessionJson(s, rows), &err);
  ASSERT_EQ(err, "");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].config.timing, TimingMode::Events);
  EXPECT_NEAR(back[0].launchFloorMs, 0.0021, 1e-12);
  // A file that names an unknown mode is refused with the reason.
  nlohmann::json j = sessionJson(s, rows);
  for (auto& a : j["benchmarks"][0]["states"][0]["axis_values"])
    if (a["name"] == "Timing") a["value"] = "stopwatch";
  EXPECT_TRUE(measurementsFromJson(j, &err).empty());
  EXPECT_NE(err.find("Timing 'stopwatch' is not a timing mode"), std::string::npos) << err;
}

// The PDL switch (programmatic dependent launch of final=gpu's later passes) is part of a row's
// configuration: it survives the session file, a file without it reads as on (the engine's
// behaviour before the switch), and a value other than on/off is refused with the reason.
TEST(LikeForLike, ThePdlSwitchSurvivesTheSessionFile) {
  std::vector<Measurement> rows = {row("k10", FinalStage::Gpu, 0.006, 0.02), row("k10", FinalStage::Gpu, 0.007, 0.02)};
  rows[0].config.pdl = false;
  rows[1].config.pdl = true;
  SessionInfo s;
  std::string err;
  std::vector<Measurement> back = measurementsFromJson(sessionJson(s, rows), &err);
  ASSERT_EQ(err, "");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_FALSE(back[0].config.pdl);
  EXPECT_TRUE(back[1].config.pdl);
  nlohmann::json j = sessionJson(s, rows);
  auto& axes = j["benchmarks"][0]["states"][0]["axis_values"];
  bool named = false;
  for (auto& a : axes) named |= a["name"] == "PDL" && a["value"] == "off";
  EXPECT_TRUE(named) << "the PDL axis is written";
  nlohmann::json older = j;
  auto& oldAxes = older["benchmarks"][0]["states"][0]["axis_values"];
  for (size_t i = 0; i < oldAxes.size(); ++i)
    if (oldAxes[i]["name"] == "PDL") oldAxes.erase(i--);
  back = measurementsFromJson(older, &err);
  ASSERT_EQ(err, "");
  ASSERT_FALSE(back.empty());
  EXPECT_TRUE(back[0].config.pdl) << "files written before the switch read as on";
  for (auto& a : axes)
    if (a["name"] == "PDL") a["value"] = "maybe";
  EXPECT_TRUE(measurementsFromJson(j, &err).empty());
  EXPECT_NE(err.find("PDL 'maybe' is not on or off"), std::string::npos) << err;
}

TEST(OneResourceComputation, K7AtBlock512IsTheSameForTheGuiTheCliAndTheReport) {
  const DeviceInfo d = assumedH200();
  RunConfig c;
  c.kernel = "k7";
  c.block = 512;
  // Without a device (GUI's CPU model and the report without GPU): the registers recorded from the
  // driver for sm_90 (assets/kernels/resources-sm90.json, read here as data), not assumed ones.
  const ResourceUsage r = resourceUsage(c, d, nullptr);
  const nlohmann::json table =
      nlohmann::json::parse(rl::test::readFile(rl::test::sourceDir() + "/assets/kernels/resources-sm90.json"));
  EXPECT_FALSE(r.registersAssumed);
  EXPECT_TRUE(r.registersRecorded);
  EXPECT_EQ(r.registers, table["variants"]["k7 sum float32->float32 i512"][0].get<int>());
  // A device of another architecture has no recorded table: assumed.
  DeviceInfo ampere = d;
  ampere.ccMajor = 8;
  const ResourceUsage other = resourceUsage(c, ampere, nullptr);
  EXPECT_TRUE(other.registersAssumed);
  EXPECT_EQ(other.registers, kAssumedRegisters);
  EXPECT_EQ(r.dynamicSmemBytes, 512 * 4);  // one float per thread
  // The curve the Occupancy tab and the report draw goes through the table's value.
  const OccupancyCurveInputs in = occupancyCurveInputs(r, c.block);
  EXPECT_EQ(in.registers, r.registers);
  EXPECT_EQ(in.sharedPerThreadBytes, 4);
  for (int block : {128, 512, 1024}) {
    RunConfig b = c;
    b.block = block;
    const ResourceUsage atBlock = resourceUsage(b, d, nullptr);
    const OccupancyResult curve =
        computeOccupancy(d, {block, in.registers, in.sharedFixedBytes + in.sharedPerThreadBytes * block});
    EXPECT_EQ(curve.activeBlocks, atBlock.activeBlocksPerSM) << block;
    EXPECT_EQ(curve.limiter, atBlock.limiter) << block;
  }
  // With what a device reports, the same function, and the driver's block count wins.
  KernelAttributes a;
  a.registers = 16;
  a.staticSmemBytes = 0;
  a.maxThreadsPerBlock = 1024;
  a.driverActiveBlocks = 3;
  const ResourceUsage measured = resourceUsage(c, d, &a);
  EXPECT_FALSE(measured.registersAssumed);
  EXPECT_EQ(measured.registers, 16);
  EXPECT_EQ(measured.activeBlocksPerSM, 3);
  EXPECT_DOUBLE_EQ(measured.occupancy, 3.0 * 512 / d.maxThreadsPerSM);
}

TEST(ResultsStore, AppendOnlyWithAGenerationThatClearBumps) {
  ResultsStore s;
  const uint64_t g = s.generation();
  for (Measurement& m : syntheticResults(10)) s.append(std::move(m));
  EXPECT_EQ(s.size(), 10u);
  EXPECT_EQ(s.generation(), g);
  EXPECT_NE(s[0].label.find("synthetic"), std::string::npos);  // never mistaken for a measurement
  s.clear();
  EXPECT_TRUE(s.empty());
  EXPECT_NE(s.generation(), g);
}

}  // namespace
}  // namespace rl
