// GPU (label gpu): the measuring commands end to end, as a user runs them. Each output is parsed
// here and held to what its numbers must mean: bandwidth = bytes / time (to the printed precision),
// no measurement above the device's theoretical peak (computed here from its memory clock and bus
// width), the measured read ceiling between 70 % and 100 % of it, and every result equal to the
// tests' own exact reduction of the same input (independent_reference.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gpu_support.hpp"
#include "independent_reference.hpp"
#include "reducelab/formats/table_writers.hpp"
#include "reducelab/recording.hpp"
#include "reducelab/trace.hpp"
#include "test_support.hpp"

using namespace rl;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Every command of this file shares one config folder: the peaks are measured once, and a tune
// writes its table where no user's table is touched.
const std::string& configHome() {
  static const std::string dir = test::freshTempDir("reducelab-gpu-commands");
  return dir;
}
test::CommandResult run(const std::string& args) {
  return test::runReducelab(args, "XDG_CONFIG_HOME=" + configHome());
}

double theoreticalGBs() {
  const DeviceInfo& d = test::firstDevice();
  return 2.0 * d.memClockKHz * 1e3 * d.busWidthBits / 8.0 / 1e9;
}

const json* summary(const json& state, const std::string& tag) {
  for (const json& s : state["summaries"])
    if (s.value("tag", "") == tag) return &s["data"][0]["value"];
  return nullptr;
}
std::string axis(const json& state, const std::string& name) {
  for (const json& a : state["axis_values"])
    if (a.value("name", "") == name) return a["value"].get<std::string>();
  return "";
}

// One nvbench-layout state of a reduction: bandwidth is its input bytes over its median time, it
// stays under the theoretical peak, and its result is the exact reduction of its input.
void expectStateTellsTheTruth(const json& state) {
  const std::string what = state.value("name", "?");
  SCOPED_TRACE(what);
  ASSERT_FALSE(state.value("is_skipped", false)) << state.value("skip_reason", "");
  const json* bytes = summary(state, "nv/gmem/reads/Input");
  const json* median = summary(state, "nv/cold/time/gpu/median");
  const json* bw = summary(state, "nv/cold/bw/global/bytes_per_second");
  ASSERT_TRUE(bytes && median && bw);
  const ElemType type = *parseElemType(axis(state, "T"));
  const uint64_t n = std::stoull(axis(state, "Elements"));
  EXPECT_EQ(bytes->get<int64_t>(), int64_t(n * elemBytes(type))) << "an input read once";
  EXPECT_NEAR(bw->get<double>(), bytes->get<double>() / median->get<double>(), 1e-9 * bw->get<double>());
  EXPECT_LE(bw->get<double>() / 1e9, theoreticalGBs());
  // The result, against the exact reduction of the data the axes name.
  RunConfig c;
  c.kernel = axis(state, "Kernel");
  c.type = type;
  c.op = *parseOp(axis(state, "Op"));
  c.accumulate = axis(state, "Accumulator") == axis(state, "T") ? Accumulate::Same : Accumulate::Wide;
  c.data = *parseDataPattern(axis(state, "Data"));
  c.seed = std::stoull(axis(state, "Seed"));
  c.n = n;
  const json* result = summary(state, "reducelab/result");
  ASSERT_TRUE(result);
  Value v;
  v.isInt = result->is_number_integer();
  if (v.isInt) v.i = result->get<int64_t>();
  else v.f = result->get<double>();
  const test::ExactReduction exact = test::exactReduction(c.type, c.op, DataSpec{c.data, c.seed, -1000, 1000}, n);
  uint64_t threads = uint64_t(test::firstDevice().smCount) * 128;
  if (const json& grids = state["reducelab"]["grid_per_pass"]; c.kernel != "cub" && grids.is_array() && !grids.empty())
    threads = std::max<uint64_t>(grids[0].get<uint64_t>() * std::stoull(axis(state, "Block")), 1);
  EXPECT_EQ(test::checkAgainstExact(exact, c.accType(), v, test::chainBoundOf(n, threads)), "");
}

std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  return cells;
}

}  // namespace

TEST(CommandsOnGpu, InfoPeaksLieBetween70And100PercentOfTheTheoretical) {
  REQUIRE_GPU();
  const test::CommandResult r = run("info --json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  const double theoretical = theoreticalGBs();
  EXPECT_NEAR(j["device"]["theoretical_peak_gbs"].get<double>(), theoretical, 1e-6 * theoretical);
  for (const char* key : {"read_gbs", "copy_gbs", "read_min_gbs", "read_max_gbs"}) {
    const double v = j["peaks"][key].get<double>();
    EXPECT_GE(v, 0.70 * theoretical) << key;
    EXPECT_LE(v, theoretical) << key;
  }
  EXPECT_NE(r.out.find(test::firstDevice().name), std::string::npos);
}

TEST(CommandsOnGpu, BenchJsonMeansWhatItSays) {
  REQUIRE_GPU();
  const std::string out = test::tempPath("bench-gpu.json");
  const test::CommandResult r = run("bench --kernel k3,k7,k10,k12,k13,cub --type int32 --n 16777219 --reps 5 --no-cpu "
                                    "--format json --force --out " + out);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(test::readFile(out), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const json& states = j["benchmarks"][0]["states"];
  ASSERT_EQ(states.size(), 6u);
  for (const json& s : states) expectStateTellsTheTruth(s);
  const test::CommandResult f = run("bench --kernel k8,k11 --type float64 --op max --n 2^20 --reps 3 --no-cpu "
                                    "--data int-range --format json --force --out " + out);
  ASSERT_EQ(f.exitCode, 0) << f.err;
  for (const json& s : json::parse(test::readFile(out))["benchmarks"][0]["states"]) expectStateTellsTheTruth(s);
}

// Seed 000's Kernel02 as it ran (--final cpu --gpu-passes 2): two launches, 32768 blocks then
// 64, the 64 partials added on the CPU; the result is the exact reduction, the record names the
// passes, and the end-to-end time (with the copy and the CPU's sum) is above the kernel time.
TEST(CommandsOnGpu, TwoGpuPassesBeforeTheCpuAreTheSeedsKernel02) {
  REQUIRE_GPU();
  const std::string out = test::tempPath("bench-gpu-passes.json");
  const test::CommandResult r = run("bench --kernel k1,k3 --final cpu --gpu-passes 2 --type float64 --n 2^24 --block 512 "
                                    "--reps 5 --no-cpu --format json --force --out " + out);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(test::readFile(out), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const json& states = j["benchmarks"][0]["states"];
  ASSERT_EQ(states.size(), 2u);
  for (const json& s : states) {
    expectStateTellsTheTruth(s);
    EXPECT_EQ(axis(s, "GPU passes before the CPU"), "2");
    EXPECT_EQ(axis(s, "Final"), "cpu");
    EXPECT_EQ(s["reducelab"]["grid_per_pass"], json::array({32768, 64}));
    EXPECT_GT(summary(s, "reducelab/time/end_to_end/median")->get<double>(), summary(s, "nv/cold/time/gpu/median")->get<double>());
  }
}

// --grid 4096: the seed's Kernel07 grid (instead of one wave) for the grid-stride kernels, each
// result exact, the record's first pass of 4096 blocks and its axis.
TEST(CommandsOnGpu, AGivenGridIsTheFirstLaunch) {
  REQUIRE_GPU();
  const std::string out = test::tempPath("bench-gpu-grid.json");
  const test::CommandResult r = run("bench --kernel k7,k8,k10 --final cpu --grid 4096 --type float64 --n 2^24 --block 512 "
                                    "--reps 5 --no-cpu --format json --force --out " + out);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(test::readFile(out), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const json& states = j["benchmarks"][0]["states"];
  ASSERT_EQ(states.size(), 3u);
  for (const json& s : states) {
    expectStateTellsTheTruth(s);
    EXPECT_EQ(axis(s, "Grid blocks"), "4096");
    EXPECT_EQ(s["reducelab"]["grid_per_pass"], json::array({4096}));
  }
}

TEST(CommandsOnGpu, BenchTableBandwidthIsBytesOverTimeToThePrintedPrecision) {
  REQUIRE_GPU();
  const test::CommandResult r = run("bench --kernel k4,k7,k13 --type float32 --n 2^24 --reps 5 --no-cpu --format csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Table t = parseCsv(r.out);
  ASSERT_EQ(t.rows.size(), 3u) << r.out;
  auto column = [&](const std::string& prefix) {
    for (size_t i = 0; i < t.headers.size(); ++i)
      if (t.headers[i].rfind(prefix, 0) == 0) return int(i);
    return -1;
  };
  // The header names the basis: "GB/s (end to end)" divides by the end-to-end time, "GB/s (kernel)" by the kernel time.
  const int gbs = column("GB/s");
  ASSERT_GE(gbs, 0) << r.out;
  const bool endToEnd = t.headers[size_t(gbs)].find("end to end") != std::string::npos;
  const int ms = column(endToEnd ? "e2e ms" : "kernel ms");
  ASSERT_GE(ms, 0) << r.out;
  const double bytes = double(uint64_t(1) << 24) * 4;
  for (const auto& row : t.rows) {
    // Times are printed with 4 decimals: the bandwidth must lie in what those allow.
    const double time = std::stod(row[size_t(ms)]), shown = std::stod(row[size_t(gbs)]);
    const double hi = bytes / ((time - 0.00005) * 1e-3) / 1e9, lo = bytes / ((time + 0.00005) * 1e-3) / 1e9;
    EXPECT_GE(shown, lo - 0.05) << row[0] << " (" << t.headers[size_t(gbs)] << " over " << t.headers[size_t(ms)] << ")";
    EXPECT_LE(shown, hi + 0.05) << row[0];
    EXPECT_LE(shown, theoreticalGBs()) << row[0];
  }
}

TEST(CommandsOnGpu, SweepJsonAndCsvAgreeAndMeanWhatTheySay) {
  REQUIRE_GPU();
  const std::string dir = test::tempPath("sweep-gpu");
  const test::CommandResult r = run("sweep --axis n --kernel k7,cub --type float32 --n-min 2^16 --n-max 2^22 --reps 3 "
                                    "--format json,csv,png --out " + dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(test::readFile(dir + "/sweep-n.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const json& states = j["benchmarks"][0]["states"];
  EXPECT_EQ(states.size(), 2u * 7u) << "2 kernels x N = 2^16 .. 2^22, every power of two";
  for (const json& s : states) expectStateTellsTheTruth(s);
  const Table csv = parseCsv(test::readFile(dir + "/sweep-n.csv"));
  EXPECT_EQ(csv.rows.size(), states.size());
  EXPECT_TRUE(test::loadPng(dir + "/sweep-n.png").ok());
}

TEST(CommandsOnGpu, TraceOfTheGpuEqualsTheCpuModelAndCountsTheSeedsConflicts) {
  REQUIRE_GPU();
  const test::CommandResult r = run("trace --kernel k2 --block 256 --type int32 --n 2^20 --compare --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("identical"), std::string::npos) << r.err;
  const json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_NE(j.value("source", "").find("gpu"), std::string::npos);
  // Harris kernel 2 (strided index 2 s tid): the warp's loads of sdata[2 s tid] hit banks 2 s tid
  // mod 32: 2-way at s = 1, 4-way at 2, 8-way at 4 to 16 (fewer lanes active), then 4, 2, 1.
  // Derived from the index alone, here.
  int seen = 0;
  for (const json& step : j["steps"]) {
    if (step.value("kind", 0) != 3) continue;  // kStepTreeLevel
    const int s = step.value("param", 0);
    // Warp 0's active lanes and the banks 2 s tid mod 32 they spread over: the n-way degree.
    const int active = std::min(32, 256 / (2 * s));
    const int banks = std::min(active, std::max(1, 32 / std::min(32, 2 * s)));
    const int expected = (active + banks - 1) / banks;
    EXPECT_EQ(step.value("max_degree", -1), expected) << "s = " << s;
    ++seen;
  }
  EXPECT_EQ(seen, 8) << "log2(256) tree levels";
}

TEST(CommandsOnGpu, TuneStoresATableThatBenchThenUses) {
  REQUIRE_GPU();
  const test::CommandResult r = run("tune --type int32 --block 256 --n-min 2^16 --n-max 2^18 --reps 3");
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  const json table = json::parse(test::readFile(configHome() + "/reducelab/policies.json"), nullptr, false);
  ASSERT_TRUE(table.is_object() && table.contains(test::firstDevice().uuid)) << table.dump().substr(0, 200);
  const json& policies = table[test::firstDevice().uuid]["policies"];
  EXPECT_EQ(policies.size(), 2u) << "2^16 and 2^18 for int32, block 256";
  const std::string out = test::tempPath("bench-tuned.json");
  const test::CommandResult b =
      run("bench --kernel k13 --type int32 --block 256 --n 2^18 --reps 3 --no-cpu --format json --force --out " + out);
  ASSERT_EQ(b.exitCode, 0) << b.err;
  EXPECT_NE((b.out + b.err + test::readFile(out)).find("tuned on this device"), std::string::npos)
      << "the bench says its policy came from the table";
  for (const json& s : json::parse(test::readFile(out))["benchmarks"][0]["states"]) expectStateTellsTheTruth(s);
}

TEST(CommandsOnGpu, RecordThenReadBackGivesTheGpusRunsAndTraces) {
  REQUIRE_GPU();
  const std::string file = test::tempPath("commands.reducelab");
  const test::CommandResult r = run("record --kernel k4,k8,cub --type int64 --n 1000003 --reps 3 --force --out " + file);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  Recording rec;
  ASSERT_EQ(readRecording(file, &rec), "");
  EXPECT_TRUE(rec.fromGpu());
  EXPECT_EQ(rec.reducelabVersion.rfind(REDUCELAB_PROJECT_VERSION, 0), 0u) << rec.reducelabVersion;
  ASSERT_EQ(rec.measurements.size(), 3u);
  const test::ExactReduction exact =
      test::exactReduction(ElemType::Int64, Op::Sum, DataSpec{DataPattern::Uniform, 1, -1000, 1000}, 1000003);
  for (const Measurement& m : rec.measurements) {
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(test::checkAgainstExact(exact, ElemType::Int64, m.result, 1), "") << m.config.kernel;
    EXPECT_NEAR(m.bandwidthGBs, m.bytesRead / (m.kernel.median * 1e-3) / 1e9, 1e-9 * m.bandwidthGBs);
  }
  int gpuTraces = 0;
  for (const RecordedTrace& t : rec.traces) gpuTraces += t.fromGpu;
  EXPECT_EQ(gpuTraces, 2) << "k4 and k8 traced by the GPU, CUB has no traced twin";
}

TEST(CommandsOnGpu, LessonTablesBandwidthIsBytesOverItsTime) {
  REQUIRE_GPU();
  const std::string dir = test::tempPath("lesson-harris");
  const test::CommandResult r = run("lesson harris --headless --force --out " + dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Table t = parseCsv(test::readFile(dir + "/lesson.csv"));
  ASSERT_FALSE(t.rows.empty());
  int time = -1, gbs = -1, type = -1, n = -1;
  // The bandwidth column names its basis ("GB/s (kernel)" / "GB/s (end to end)"); the time is the
  // one of that basis ("kernel time ms" / "end to end time ms").
  std::string basis;
  for (size_t i = 0; i < t.headers.size(); ++i)
    if (t.headers[i].rfind("GB/s (", 0) == 0 && t.headers[i].back() == ')') {
      gbs = int(i);
      basis = t.headers[i].substr(6, t.headers[i].size() - 7);
    }
  for (size_t i = 0; i < t.headers.size(); ++i) {
    if (!basis.empty() && t.headers[i] == basis + " time ms") time = int(i);
    if (t.headers[i] == "type") type = int(i);
    if (t.headers[i] == "N") n = int(i);
  }
  ASSERT_TRUE(time >= 0 && gbs >= 0 && type >= 0 && n >= 0) << test::readFile(dir + "/lesson.csv").substr(0, 400);
  for (const auto& row : t.rows) {
    const std::string nText = row[size_t(n)];
    const uint64_t elements = nText.rfind("2^", 0) == 0 ? uint64_t(1) << std::stoi(nText.substr(2)) : std::stoull(nText);
    const double bytes = double(elements) * double(elemBytes(*parseElemType(row[size_t(type)])));
    const double ms = std::stod(row[size_t(time)]), shown = std::stod(row[size_t(gbs)]);
    const double lo = bytes / ((ms + 0.00005) * 1e-3) / 1e9, hi = bytes / ((ms - 0.00005) * 1e-3) / 1e9;
    EXPECT_GE(shown, lo - 0.05) << row[0];
    EXPECT_LE(shown, hi + 0.05) << row[0];
    EXPECT_LE(shown, theoreticalGBs()) << row[0];
  }
}

TEST(CommandsOnGpu, ReportQuickWritesMeasuredParts) {
  REQUIRE_GPU();
  const std::string dir = test::tempPath("report-gpu");
  const test::CommandResult r = run("report --quick --out " + dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string md = test::readFile(dir + "/report.md");
  EXPECT_NE(md.find(test::firstDevice().name), std::string::npos);
  EXPECT_EQ(md.find("need an NVIDIA GPU"), std::string::npos) << "a GPU was there: nothing should be left out";
  // Every run of the report is in its session file, in the bench's layout.
  const json j = json::parse(test::readFile(dir + "/session.json"), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  int states = 0;
  for (const json& b : j["benchmarks"])
    for (const json& s : b["states"])
      if (!s.value("is_skipped", false)) {
        expectStateTellsTheTruth(s);
        ++states;
      }
  for (const char* table : {"sweep-block.csv", "sweep-n.csv", "sweep-type.csv", "ladder.csv"})
    EXPECT_TRUE(fs::exists(dir + "/" + table)) << table;
  EXPECT_GT(states, 10);
}
