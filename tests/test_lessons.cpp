// Lessons: the format's parser (errors name file:line), every shipped lesson parses, and every
// shipped lesson runs headless end to end (CPU model here; label gpu repeats it on a GPU).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reducelab/cuda_device.hpp"
#include "reducelab/formats/table_writers.hpp"
#include "reducelab/gui/lesson_view.hpp"
#include "reducelab/lesson.hpp"
#include "test_support.hpp"

using namespace rl;
using rl::test::readFile;
using rl::test::runReducelab;

namespace {

std::string parseError(const std::string& text) {
  std::string err;
  EXPECT_FALSE(parseLesson(text, "x.lesson", &err).has_value()) << text;
  return err;
}

}  // namespace

TEST(LessonFormat, ParsesStepsSettingsRunsAndViews) {
  const std::string text =
      "# comment\n"
      "title: A lesson\n"
      "reference-columns: a | b\n"
      "step: First\n"
      "  set kernel=k3 n=2^20 block=256 type=int32\n"
      "  run label=one_two times=2 type=float64\n"
      "  reference: 1 ms | 2 GB/s\n"
      "  view bank step=2 warp=1 slot=2\n"
      "  panel ladder\n"
      "  caption: line one\n"
      "  caption: line two\n"
      "step: Second\n"
      "  set kernel=k7\n"
      "  sweep axis=n kernels=k3,k10 nmax=2^24\n";
  std::string err;
  auto l = parseLesson(text, "x.lesson", &err);
  ASSERT_TRUE(l) << err;
  EXPECT_EQ(l->title, "A lesson");
  ASSERT_EQ(l->steps.size(), 2u);
  const LessonStep& a = l->steps[0];
  EXPECT_EQ(a.config.kernel, "k3");
  EXPECT_EQ(a.config.block, 256);
  ASSERT_EQ(a.runs.size(), 1u);
  EXPECT_EQ(a.runs[0].label, "one two");
  EXPECT_EQ(a.runs[0].times, 2);
  EXPECT_EQ(a.runs[0].config.type, ElemType::Float64);  // the run's override
  EXPECT_EQ(a.config.type, ElemType::Int32);            // the step keeps its own
  EXPECT_EQ(a.runs[0].reference, (std::vector<std::string>{"1 ms", "2 GB/s"}));
  EXPECT_EQ(a.view, "bank");
  EXPECT_EQ(a.viewStep, 2);
  EXPECT_EQ(a.warp, 1);
  EXPECT_EQ(a.slot, 1);  // slot=2: the step's second access
  EXPECT_EQ(a.panel, "ladder");
  EXPECT_EQ(a.caption, "line one line two");
  const LessonStep& b = l->steps[1];
  EXPECT_EQ(b.config.kernel, "k7");
  EXPECT_EQ(b.config.n, 1u << 20);  // settings carry over from the step before
  ASSERT_TRUE(b.sweep);
  EXPECT_EQ(b.sweep->axis, "n");
  EXPECT_EQ(b.sweep->kernels, (std::vector<std::string>{"k3", "k10"}));
  EXPECT_EQ(b.sweep->nMax, 1u << 24);
}

TEST(LessonFormat, ErrorsNameFileLineAndReason) {
  EXPECT_EQ(parseError("step: a\nset kernel=k99\n").rfind("x.lesson:2: unknown kernel 'k99'", 0), 0u);
  EXPECT_NE(parseError("step: a\nset block=100\n").find("x.lesson:2: block size 100"), std::string::npos);
  EXPECT_NE(parseError("step: a\nset kernel=k5 block=32\n").find("x.lesson:2:"), std::string::npos);
  EXPECT_NE(parseError("set kernel=k3\n").find("x.lesson:1: 'set' before the first 'step:'"), std::string::npos);
  EXPECT_NE(parseError("step: a\nfrobnicate\n").find("x.lesson:2: unknown directive 'frobnicate'"), std::string::npos);
  EXPECT_NE(parseError("step: a\nset n=12Q\n").find("x.lesson:2:"), std::string::npos);
  EXPECT_NE(parseError("step: a\nreference: x\n").find("must follow the 'run'"), std::string::npos);
  EXPECT_NE(parseError("reference-columns: a\nstep: a\nrun\nreference: x | y\n").find("more reference cells"), std::string::npos);
  EXPECT_NE(parseError("step: a\nview sideways\n").find("view 'sideways'"), std::string::npos);
  EXPECT_NE(parseError("step: a\nview bank slot=0\n").find("x.lesson:2: slot=0 is not a slot"), std::string::npos);
  EXPECT_NE(parseError("step: a\nview bank slot=5\n").find("slot=5 is not a slot"), std::string::npos);
  EXPECT_NE(parseError("step: a\nrun times=9\n").find("times=9"), std::string::npos);
  // show-columns: only the table's columns that are otherwise on demand.
  EXPECT_NE(parseError("show-columns: error | colour\nstep: a\n").find("x.lesson:1: show-columns: 'colour' is none of: floor,"),
            std::string::npos);
  EXPECT_NE(parseError("step: a\nsweep kernels=k3\n").find("axis="), std::string::npos);
  EXPECT_NE(parseError("step:\n").find("a step needs a title"), std::string::npos);
  EXPECT_NE(parseError("# nothing\n").find("no 'step:'"), std::string::npos);
  EXPECT_NE(parseError("step: a\nset warm-l2=maybe\n").find("true or false"), std::string::npos);
}

TEST(LessonFormat, ShippedLessonsParse) {
  const std::vector<std::string> names = shippedLessons();
  for (const char* required : {"upc", "harris", "max", "beyond", "transpose", "matmul"})
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  for (const std::string& n : names) {
    std::string err;
    auto l = loadLesson(n, &err);
    ASSERT_TRUE(l) << err;
    EXPECT_FALSE(l->steps.empty()) << n;
    for (const LessonStep& st : l->steps) EXPECT_FALSE(st.caption.empty()) << n << ": " << st.title;
  }
  std::string err;
  EXPECT_FALSE(loadLesson("no-such-lesson", &err));
  EXPECT_NE(err.find("shipped: "), std::string::npos);
}

TEST(LessonCli, BadLessonIsRejectedWithFileAndLine) {
  const std::string path = rl::test::tempPath("bad.lesson");
  std::ofstream(path) << "title: broken\nstep: one\n  set kernel=k3\n  set block=33\n";
  auto r = runReducelab("lesson " + path + " --headless --out " + rl::test::tempPath("bad-out"));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(rl::test::countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("bad.lesson:4:"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(rl::test::tempPath("bad-out")));
  auto r2 = runReducelab("lesson nosuchlesson");
  EXPECT_EQ(r2.exitCode, 2);
  EXPECT_NE(r2.err.find("no lesson 'nosuchlesson'"), std::string::npos) << r2.err;
}

class ShippedLesson : public ::testing::TestWithParam<std::string> {};

// Each shipped lesson end to end, headless: one PNG per step (not blank), the table with one row
// per run and the seed's reference cells, and lesson.md with the captions.
TEST_P(ShippedLesson, RunsHeadlessAndWritesStepsAndTable) {
  std::string err;
  auto lesson = loadLesson(GetParam(), &err);
  ASSERT_TRUE(lesson) << err;
  const std::string dir = rl::test::tempPath("shipped-lesson-" + GetParam());  // its own: other tests write lesson-NAME
  auto r = runReducelab("lesson " + GetParam() + " --headless --out " + dir + " --size 1280x720");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  size_t runs = 0;
  for (size_t i = 0; i < lesson->steps.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "/step-%02zu.png", i + 1);
    rl::test::Image img = rl::test::loadPng(dir + name);
    ASSERT_TRUE(img.ok()) << name;
    EXPECT_EQ(img.width, 1280);
    EXPECT_GT(rl::test::lumaStdDev(img), 10.0) << name;
    runs += lesson->steps[i].runs.size();
  }
  const std::string csv = readFile(dir + "/lesson.csv");
  EXPECT_EQ(size_t(std::count(csv.begin(), csv.end(), '\n')), runs + 1) << csv;  // header + a row per run
  for (const LessonStep& st : lesson->steps)
    for (const LessonRun& run : st.runs) {
      EXPECT_NE(csv.find(run.label), std::string::npos) << run.label;
      for (const std::string& ref : run.reference) EXPECT_NE(csv.find(ref), std::string::npos) << ref;
    }
  // Every seed figure shows with its check; the flagged ones are listed in lesson.md.
  for (const LessonStep& st : lesson->steps)
    for (const LessonRun& run : st.runs)
      for (const SeedFigure& f : run.seed) EXPECT_NE(csv.find(f.timeText), std::string::npos) << f.timeText;
  for (const std::string& note : lesson->notes)
    EXPECT_NE(readFile(dir + "/lesson.md").find(note), std::string::npos) << note;
  // With a GPU every row is measured; without one every row says why not (a lesson of pitfalls
  // or exercises may have no rows).
  if (rl::queryDevice(0).available) EXPECT_EQ(csv.find("not measured"), std::string::npos) << csv;
  else if (runs > 0) EXPECT_NE(csv.find("needs an NVIDIA GPU"), std::string::npos) << csv;
  const std::string md = readFile(dir + "/lesson.md");
  for (const LessonStep& st : lesson->steps) EXPECT_NE(md.find(st.caption.substr(0, 40)), std::string::npos);
  EXPECT_NE(readFile(dir + "/lesson.tex").find("\\toprule"), std::string::npos);
  EXPECT_NE(readFile(dir + "/lesson.json").find("\"benchmarks\""), std::string::npos);
  // Again without --force: nothing is overwritten.
  auto again = runReducelab("lesson " + GetParam() + " --headless --out " + dir);
  EXPECT_EQ(again.exitCode, 1);
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
}

// Every shipped lesson (a new one is tested without a line here); gtest names take no '-'.
INSTANTIATE_TEST_SUITE_P(Lessons, ShippedLesson, ::testing::ValuesIn(shippedLessons()), [](const auto& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

// ---- Seed figures checked against their GPU's peak (issue #16) ----

TEST(SeedGpus, ShippedFileParsesAndPeaksComeFromClockAndBusWidth) {
  const std::string text = readFile(rl::test::sourceDir() + "/assets/seed_gpus.txt");
  size_t lines = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("seed-gpu:", 0) == 0) {
      ++lines;
      SeedGpu g;
      EXPECT_EQ(parseSeedGpu(line.substr(9), &g), "") << line;
      EXPECT_FALSE(g.source.empty()) << line;
    }
  EXPECT_EQ(shippedSeedGpus().size(), lines);  // every line of the file made it in
  auto peak = [](const std::string& id) {
    for (const SeedGpu& g : shippedSeedGpus())
      if (g.id == id) return g.peakGBs();
    ADD_FAILURE() << "no seed GPU " << id;
    return 0.0;
  };
  // The published bandwidths, within rounding of the published clocks.
  EXPECT_NEAR(peak("gtx1060-6gb"), 192.0, 0.5);
  EXPECT_NEAR(peak("k40c"), 288.0, 0.5);
  EXPECT_NEAR(peak("gtx1080ti"), 484.3, 0.5);
  EXPECT_NEAR(peak("rtx2060super"), 448.0, 0.5);
  EXPECT_NEAR(peak("g80-8800gtx"), 86.4, 0.05);
  EXPECT_NEAR(peak("920mx-ddr3"), 14.4, 0.05);
  EXPECT_NEAR(peak("920mx-gddr5"), 40.1, 0.05);
}

TEST(SeedGpus, TimesParseWithUnits) {
  EXPECT_DOUBLE_EQ(*parseSeedTime("5.25ms"), 5.25);
  EXPECT_NEAR(*parseSeedTime("13.75us"), 0.01375, 1e-12);
  EXPECT_NEAR(*parseSeedTime("1.37517375e-05s"), 0.0137517375, 1e-12);
  EXPECT_NEAR(*parseSeedTime("15000ns"), 0.015, 1e-12);
  for (const char* bad : {"5.25", "ms", "-1ms", "0ms", "5.25 parsecs", "1e999s", "nanms"})
    EXPECT_FALSE(parseSeedTime(bad)) << bad;
}

namespace {
// Every seed figure of a shipped lesson, with whether the check flags it.
std::vector<SeedFigure> seedFigures(const std::string& name) {
  std::string err;
  auto l = loadLesson(name, &err);
  EXPECT_TRUE(l) << err;
  std::vector<SeedFigure> out;
  if (l)
    for (const LessonStep& st : l->steps)
      for (const LessonRun& r : st.runs) out.insert(out.end(), r.seed.begin(), r.seed.end());
  return out;
}
}  // namespace

TEST(SeedCheck, FlagsSeed001TimesAndPassesSeed000AndHarris) {
  std::vector<SeedFigure> max = seedFigures("max");
  ASSERT_EQ(max.size(), 5u);
  // Seed 002's 10^6 ints in 0.000015 s on a 920MX: above even its GDDR5 variant's peak.
  EXPECT_EQ(max.back().gpu.id, "920mx-gddr5");
  EXPECT_EQ(max.back().bytes(), 4e6);
  EXPECT_TRUE(max.back().abovePeak());
  max.pop_back();
  for (const SeedFigure& f : max) {
    EXPECT_EQ(f.gpu.id, "gtx1060-6gb");
    EXPECT_EQ(f.bytes(), double(1u << 21) * 4);
    EXPECT_TRUE(f.abovePeak()) << f.timeText;
    EXPECT_GT(f.floorMs(), 0.0436);       // 8 MiB at 192 GB/s: more than 43.6 us
    EXPECT_GT(f.shareOfPeak(), 3.0);      // each figure is over three times the GPU's peak
  }
  const std::vector<SeedFigure> upc = seedFigures("upc");
  EXPECT_EQ(upc.size(), 8u + 8u + 7u);  // K40c double, 1080Ti float, 2060 SUPER float (no Kernel08)
  for (const SeedFigure& f : upc) EXPECT_FALSE(f.abovePeak()) << f.gpu.name << " " << f.timeText;
  // Kernel01 on the K40c: 2^24 doubles in 5.25 ms is the seed's own 25.56 GB/s, 8.9 % of 288 GB/s.
  EXPECT_NEAR(upc.front().impliedGBs(), 25.56, 0.01);
  EXPECT_NEAR(upc.front().shareOfPeak() * 100, 8.9, 0.05);
  const std::vector<SeedFigure> harris = seedFigures("harris");
  ASSERT_EQ(harris.size(), 7u);
  for (const SeedFigure& f : harris) EXPECT_FALSE(f.abovePeak()) << f.timeText;
  EXPECT_NEAR(harris.front().impliedGBs(), 2.083, 0.001);  // Harris's own figure for kernel 1
  EXPECT_NEAR(harris.back().shareOfPeak() * 100, 72.5, 0.1);
}

TEST(SeedCheck, ALessonDeclaresItsSeedGpuAndFiguresAbovePeakAreReportedWithFileLine) {
  const std::string head =
      "seed-gpu: mx | GeForce 920MX (GDDR5) | GDDR5 | 1253 | 4 | 64 | test\n"
      "step: a\n"
      "set kernel=k3 n=1000000 type=int32\n"
      "run\n";
  // Seed 002's practicum: 10^6 ints "reduced" in 0.000015 s on a 920MX: 267 GB/s of 40 GB/s.
  const std::string unmarked = parseError(head + "seed: gpu=mx time=0.000015s\n");
  EXPECT_EQ(unmarked.rfind("x.lesson:5: seed time 0.000015 s on GeForce 920MX (GDDR5)", 0), 0u) << unmarked;
  EXPECT_NE(unmarked.find("impossible for a kernel that reads its input from memory"), std::string::npos) << unmarked;
  EXPECT_NE(unmarked.find("Mark the figure 'impossible'"), std::string::npos) << unmarked;
  // Marked: the lesson loads and the finding is a note naming the line.
  std::string err;
  auto l = parseLesson(head + "# what it measured\nseed: gpu=mx time=0.000015s impossible\n", "x.lesson", &err);
  ASSERT_TRUE(l) << err;
  ASSERT_EQ(l->notes.size(), 1u);
  EXPECT_EQ(l->notes[0].rfind("x.lesson:6: note: seed time 0.000015 s", 0), 0u) << l->notes[0];
  EXPECT_NE(l->notes[0].find("asynchronous launch timed without waiting"), std::string::npos);
  ASSERT_EQ(l->steps[0].runs[0].seed.size(), 1u);
  EXPECT_GT(l->steps[0].runs[0].seed[0].shareOfPeak(), 6.0);
  // A mark on a figure that passes is wrong too; below peak with no mark loads with no note.
  EXPECT_NE(parseError(head + "seed: gpu=mx time=1ms impossible\n").find("x.lesson:5: the figure is marked 'impossible' but"),
            std::string::npos);
  auto ok = parseLesson(head + "seed: gpu=mx time=1ms n=2^20 type=float64\n", "x.lesson", &err);
  ASSERT_TRUE(ok) << err;
  EXPECT_TRUE(ok->notes.empty());
  EXPECT_EQ(ok->steps[0].runs[0].seed[0].bytes(), double(1 << 20) * 8);  // the seed's own N and type
  // The shipped max lesson loads with one note per figure, each with its file and line.
  auto max = loadLesson("max", &err);
  ASSERT_TRUE(max) << err;
  EXPECT_EQ(max->notes.size(), 5u);
  for (const std::string& n : max->notes) EXPECT_EQ(n.rfind("assets/lessons/max.lesson:", 0), 0u) << n;
}

TEST(SeedCheck, BadSeedLinesNameFileLineAndReason) {
  const std::string run = "step: a\nset kernel=k3\nrun\n";
  EXPECT_NE(parseError(run + "seed: gpu=nosuch time=1ms\n").find("x.lesson:4: unknown seed GPU 'nosuch'"), std::string::npos);
  EXPECT_NE(parseError(run + "seed: gpu=k40c time=1\n").find("x.lesson:4: time=1 is not a time"), std::string::npos);
  EXPECT_NE(parseError(run + "seed: gpu=k40c\n").find("x.lesson:4: 'seed:' needs gpu=ID and time="), std::string::npos);
  EXPECT_NE(parseError(run + "seed: gpu=k40c time=1ms colour=red\n").find("unknown seed setting 'colour'"), std::string::npos);
  EXPECT_NE(parseError("step: a\nseed: gpu=k40c time=1ms\n").find("x.lesson:2: 'seed:' must follow the 'run'"), std::string::npos);
  EXPECT_NE(parseError("seed-gpu: a | b | GDDR5 | 1000 | 3 | 64 | src\nstep: a\n").find("x.lesson:1: transfers per clock '3'"),
            std::string::npos);
  EXPECT_NE(parseError("seed-gpu: a | b | GDDR5 | 1000 | 4 | 64\nstep: a\n").find("x.lesson:1: 'seed-gpu:' needs 7 cells"),
            std::string::npos);
  EXPECT_NE(parseError("seed-gpu: a | b | GDDR5 | fast | 4 | 64 | src\nstep: a\n").find("memory clock 'fast'"), std::string::npos);
  EXPECT_NE(parseError("seed-gpu: a | b | GDDR5 | 1 | 4 | 64 | \nstep: a\n").find("needs a source"), std::string::npos);
  EXPECT_NE(parseError("seed-gpu: a | b | GDDR5 | 1e300 | 4 | 64 | src\nstep: a\n").find("memory clock '1e300'"), std::string::npos);
  EXPECT_NE(parseError("seed-gpu: k40c | b | GDDR5 | 1 | 4 | 64 | s\nstep: a\n").find("x.lesson:1: seed GPU 'k40c' is already shipped"),
            std::string::npos);
  const std::string twice = "seed-gpu: a | b | GDDR5 | 1 | 4 | 64 | s\n";
  EXPECT_NE(parseError(twice + twice + "step: a\n").find("x.lesson:2: seed GPU 'a' is declared twice"), std::string::npos);
  EXPECT_NE(parseError("seed-method: span=kernel\nstep: a\n").find("x.lesson:1: 'seed-method:' needs label="), std::string::npos);
  EXPECT_NE(parseError("seed-method: label=x span=both\nstep: a\n").find("span=both"), std::string::npos);
  EXPECT_NE(parseError("seed-method: label=x reps=0\nstep: a\n").find("reps=0"), std::string::npos);
}

TEST(SeedCheck, SeedMethodAsksForASecondMeasurementOnlyWhenItsSettingsDiffer) {
  std::string err;
  auto l = parseLesson(
      "seed-method: label=warm_L2,_mean_of_1000 stat=mean warm-l2=true reps=1000\n"
      "step: a\nset kernel=k3 n=2^21 type=int32\n"
      "run\nseed: gpu=gtx1060-6gb time=50us\n"
      "run label=no_seed\n",
      "x.lesson", &err);
  ASSERT_TRUE(l) << err;
  const LessonRun& withSeed = l->steps[0].runs[0];
  ASSERT_TRUE(withSeed.seedMethod);
  EXPECT_EQ(withSeed.seedMethod->label, "warm L2, mean of 1000");
  EXPECT_TRUE(withSeed.seedMethod->mean);
  ASSERT_TRUE(withSeed.seedMethodConfig);
  EXPECT_EQ(withSeed.seedMethodConfig->reps, 1000);
  EXPECT_TRUE(withSeed.seedMethodConfig->warmL2);
  EXPECT_EQ(withSeed.config.reps, RunConfig{}.reps);  // ours stays as it was
  EXPECT_FALSE(l->steps[0].runs[1].seedMethodConfig);  // no seed figure, nothing to compare
  auto cleared = parseLesson(
      "seed-method: label=x reps=1000\nseed-method: none\nstep: a\nrun\nseed: gpu=k40c time=10ms\n", "x.lesson", &err);
  ASSERT_TRUE(cleared) << err;
  EXPECT_FALSE(cleared->steps[0].runs[0].seedMethod);
  auto same = parseLesson("seed-method: label=x span=e2e\nstep: a\nrun\nseed: gpu=k40c time=10ms\n", "x.lesson", &err);
  ASSERT_TRUE(same) << err;
  EXPECT_FALSE(same->steps[0].runs[0].seedMethodConfig);  // e2e is in every measurement
}

// ---- The lesson table: which time it compares by, the floor, the seed's method (issues #9, #16) ----

namespace {

// A lesson's state as the app builds it, with one made-up measurement per row (the table's
// logic is under test, not the GPU): kernel time k ms, end-to-end e ms.
gui::LessonState stateOf(const std::string& text) {
  std::string err;
  auto l = parseLesson(text, "t.lesson", &err);
  EXPECT_TRUE(l) << err;
  gui::LessonState s;
  s.active = true;
  if (!l) return s;
  s.lesson = *l;
  for (const LessonStep& st : l->steps) {
    s.firstRowOfStep.push_back(int(s.rows.size()));
    for (const LessonRun& r : st.runs) {
      gui::LessonRow row;
      row.label = r.label;
      row.config = r.config;
      row.reference = r.reference;
      s.rows.push_back(row);
    }
  }
  return s;
}

Measurement measured(const RunConfig& c, double kernelMs, double e2eMs, double kernelMeanMs = -1) {
  Measurement m;
  m.config = c;
  m.ok = true;
  m.kernel.median = kernelMs;
  m.kernel.mean = kernelMeanMs < 0 ? kernelMs : kernelMeanMs;
  m.endToEnd.median = e2eMs;
  m.endToEnd.mean = e2eMs;
  m.bytesRead = double(c.n) * double(elemBytes(c.type));
  m.result.isInt = true;
  return m;
}

std::string cellOf(const Table& t, size_t row, const std::string& header) {
  for (size_t i = 0; i < t.headers.size(); ++i)
    if (t.headers[i] == header) return t.rows.at(row).at(i);
  ADD_FAILURE() << "no column '" << header << "'";
  return {};
}

}  // namespace

TEST(LessonTable, RowsWithDifferentFinalStagesAreComparedWithTheFinalStageIncluded) {
  // Kernel01 adds its partials on the CPU, Kernel02 finishes on the GPU: a kernel-only time
  // would leave out Kernel01's CPU share and make it look faster than it is.
  gui::LessonState s = stateOf("step: a\nset kernel=k1 final=cpu n=2^24\nrun label=K01\nstep: b\nset final=gpu\nrun label=K02\n");
  s.rows[0].runs.push_back(measured(s.rows[0].config, 1.0, 3.0));
  s.rows[1].runs.push_back(measured(s.rows[1].config, 2.0, 2.5));
  Peaks peaks;
  peaks.theoreticalGBs = 4814;
  const Table t = gui::lessonTable(s, peaks, true);
  EXPECT_EQ(cellOf(t, 0, "end to end time ms"), "3.0000");
  EXPECT_EQ(cellOf(t, 1, "end to end time ms"), "2.5000");
  // Bandwidth and share of peak follow the time shown, and say which it is.
  EXPECT_EQ(cellOf(t, 0, "GB/s (end to end)"), fixed(double(1 << 24) * 4 / 3.0e-3 / 1e9, 1));
  // Same final stage everywhere: the kernel time.
  gui::LessonState same = stateOf("step: a\nset kernel=k3 final=gpu\nrun\nrun label=other kernel=k4\n");
  for (gui::LessonRow& r : same.rows) r.runs.push_back(measured(r.config, 1.5, 9.0));
  EXPECT_EQ(cellOf(gui::lessonTable(same, peaks, true), 1, "kernel time ms"), "1.5000");
  EXPECT_EQ(cellOf(gui::lessonTable(same, peaks, true), 1, "GB/s (kernel)"), fixed(double(1 << 24) * 4 / 1.5e-3 / 1e9, 1));
  // Finals that all run on the GPU (a second pass, the last block) are inside the kernel time:
  // compared by it, not end to end.
  gui::LessonState gpu = stateOf("step: a\nset kernel=k3 final=gpu\nrun\nrun label=lb kernel=k12 final=lastblock\n");
  for (gui::LessonRow& r : gpu.rows) r.runs.push_back(measured(r.config, 1.5, 9.0));
  EXPECT_EQ(cellOf(gui::lessonTable(gpu, peaks, true), 1, "kernel time ms"), "1.5000");
}

// The error columns: a float sum against the exact sum, an int32 sum against what its accumulator
// must give (the exact sum wrapped to 32 bits: a wrap is not the kernel's error), the CPU loop's
// result the same way; the columns are on demand unless the lesson shows them.
TEST(LessonTable, ErrorColumnsMeasureAgainstWhatTheAccumulatorMustGive) {
  gui::LessonState s =
      stateOf("show-columns: error | CPU loop error\nstep: a\nset kernel=k3 type=float32\nrun label=f\nrun label=i type=int32\n");
  Measurement f = measured(s.rows[0].config, 1.0, 2.0);
  f.haveReference = true, f.reference.exact = 100.25L, f.result.isInt = false, f.result.f = 100.0;
  f.haveCpu = true, f.cpu.result.isInt = false, f.cpu.result.f = 103.25;
  s.rows[0].runs.push_back(f);
  Measurement i = measured(s.rows[1].config, 1.0, 2.0);
  i.haveReference = true, i.reference.exact = 4294967296.0L + 5, i.reference.expected.isInt = true, i.reference.expected.i = 5;
  i.result.isInt = true, i.result.i = 5;  // wrapped, as int32 arithmetic must
  s.rows[1].runs.push_back(i);
  const Table t = gui::lessonTable(s, Peaks{}, true);
  EXPECT_EQ(cellOf(t, 0, "error"), "0.25");
  EXPECT_EQ(cellOf(t, 0, "CPU loop error"), "3");
  EXPECT_EQ(cellOf(t, 1, "error"), "0");
  EXPECT_EQ(cellOf(t, 1, "CPU loop error"), "-");  // no CPU loop ran
  const size_t col = size_t(std::find(t.headers.begin(), t.headers.end(), "error") - t.headers.begin());
  ASSERT_LT(col, t.headers.size());
  EXPECT_FALSE(t.onDemand[col]);  // shown: the lesson asks for it
  EXPECT_EQ(t.headers[col - 1], "result");  // beside the result it is the error of
}

// The Live tab while a lesson is open tells the lesson so far: the runs of steps up to the current
// one (a recording holds every step's: step 1 once showed the ending), and which are the current
// step's (the headline's), on the lesson table's basis.
TEST(LessonTable, TheLiveTabShowsTheLessonSoFarOnTheTablesBasis) {
  gui::LessonState s = stateOf("step: a\nset kernel=k1 final=cpu\nrun label=K01\nstep: b\nset final=gpu\nrun label=K02\nrun label=K02b\nstep: c\nrun label=K03 kernel=k3\n");
  ASSERT_EQ(s.rows.size(), 4u);
  for (gui::LessonRow& r : s.rows) r.runs.push_back(measured(r.config, 1.0, 2.0));
  size_t current = 0;
  s.step = 0;
  std::vector<Measurement> soFar = gui::lessonRunsSoFar(s, &current);
  ASSERT_EQ(soFar.size(), 1u);
  EXPECT_EQ(current, 1u);
  EXPECT_EQ(soFar[0].config.kernel, "k1");
  s.step = 1;
  soFar = gui::lessonRunsSoFar(s, &current);
  EXPECT_EQ(soFar.size(), 3u);
  EXPECT_EQ(current, 2u);
  s.step = 2;
  soFar = gui::lessonRunsSoFar(s, &current);
  EXPECT_EQ(soFar.size(), 4u);
  EXPECT_EQ(current, 1u);
  EXPECT_EQ(soFar.back().config.kernel, "k3");
  // K01 ends on the CPU, K02 on the GPU: end to end, as the table's headers say.
  EXPECT_EQ(gui::lessonBasis(s), TimeBasis::EndToEnd);
  const Table t = gui::lessonTable(s, Peaks{}, true);
  EXPECT_NE(std::find(t.headers.begin(), t.headers.end(), bandwidthLabel(gui::lessonBasis(s))), t.headers.end());
}

// Tables fit: what each run is comes next to its name (the type column fell off the screen at the
// far end of 21 columns), the columns a step needs are shown and the rest are on demand, and every
// figure's unit and source is said (a tooltip on screen, a column list in the exports: "seed GB/s"
// 77.1 beside the seed's own 71.14 had no explanation).
TEST(LessonTable, ColumnsSayTheirUnitAndSourceAndTheRestAreOnDemand) {
  gui::LessonState s = stateOf("step: a\nset kernel=k3 n=2^24\nrun label=K01\nseed: gpu=k40c time=1.0ms\n");
  s.rows[0].runs.push_back(measured(s.rows[0].config, 1.0, 2.0));
  Peaks peaks;
  peaks.theoreticalGBs = 4814;
  const Table t = gui::lessonTable(s, peaks, true);
  ASSERT_EQ(t.notes.size(), t.headers.size());
  ASSERT_EQ(t.onDemand.size(), t.headers.size());
  auto col = [&](const std::string& h) { return size_t(std::find(t.headers.begin(), t.headers.end(), h) - t.headers.begin()); };
  EXPECT_LE(col("type"), 2u);
  EXPECT_LE(col("kernel"), 2u);
  for (const char* h : {"kernel time ms", "GB/s (kernel)", "seed GB/s", "seed check", "floor at peak"}) {
    ASSERT_LT(col(h), t.headers.size()) << h;
    EXPECT_FALSE(t.notes[col(h)].empty()) << h << " says nothing of its unit or source";
  }
  EXPECT_NE(t.notes[col("seed GB/s")].find("10^9"), std::string::npos);
  EXPECT_TRUE(t.onDemand[col("seed GPU peak GB/s")]);
  EXPECT_FALSE(t.onDemand[col("GB/s (kernel)")]);
  EXPECT_FALSE(t.onDemand[col("type")]);
  const std::string md = markdownTable(t);
  EXPECT_NE(md.find("Columns:"), std::string::npos);
  EXPECT_NE(md.find("- seed GB/s: bytes read"), std::string::npos) << md;
}

TEST(LessonTable, SeedColumnsShowTheCheckTheFloorAndTheSeedsMethodBesideOurs) {
  gui::LessonState s = stateOf(
      "seed-method: label=warm_L2,_mean_of_1000 span=kernel stat=mean warm-l2=true reps=1000\n"
      "step: a\nset kernel=k3 op=max type=int32 n=2^21 block=1024\n"
      "run label=sequential\nseed: gpu=gtx1060-6gb time=13.75us impossible\n"
      "run label=slow\nseed: gpu=gtx1060-6gb time=100us\n");
  ASSERT_EQ(s.rows.size(), 2u);
  const RunConfig like = *s.lesson.steps[0].runs[0].seedMethodConfig;
  s.rows[0].runs.push_back(measured(s.rows[0].config, 0.0232, 0.03));
  s.rows[0].runs.push_back(measured(like, 0.0050, 0.01, 0.0061));  // the seed's way: its mean is shown
  Peaks peaks;
  peaks.theoreticalGBs = 4814;
  const Table t = gui::lessonTable(s, peaks, true);
  EXPECT_EQ(cellOf(t, 0, "kernel time ms"), "0.0232");  // ours is not mixed up with the seed's way
  EXPECT_EQ(cellOf(t, 0, "like the seed: warm L2, mean of 1000 ms"), "0.0061");
  EXPECT_EQ(cellOf(t, 0, "floor at peak"), "1.74 us");  // 8 MiB at 4814 GB/s
  EXPECT_EQ(cellOf(t, 0, "seed time"), "13.75 us");
  EXPECT_EQ(cellOf(t, 0, "seed floor at peak"), "43.65 us");
  EXPECT_EQ(cellOf(t, 0, "seed % of its peak"), "317.4 %");
  EXPECT_EQ(cellOf(t, 0, "seed check"), "IMPOSSIBLE");
  EXPECT_EQ(cellOf(t, 0, "seed GPU"), "GeForce GTX 1060 6GB");
  EXPECT_EQ(cellOf(t, 0, "seed GPU peak GB/s"), "192.2");
  EXPECT_EQ(cellOf(t, 0, "seed MB read"), "8.39");
  EXPECT_EQ(cellOf(t, 0, "seed GB/s"), "610.1");
  EXPECT_EQ(cellOf(t, 1, "seed check"), "ok");
  EXPECT_EQ(cellOf(t, 1, "like the seed: warm L2, mean of 1000 ms"), "-");  // not measured yet
  // Without a GPU the measured cells say so and the seed's check is still there.
  gui::LessonState cpu = stateOf("step: a\nset kernel=k3 n=2^21 type=int32\nrun\nseed: gpu=gtx1060-6gb time=13.75us impossible\n");
  const Table c = gui::lessonTable(cpu, Peaks{}, false);
  EXPECT_EQ(cellOf(c, 0, "result"), "not measured: needs an NVIDIA GPU");
  EXPECT_EQ(cellOf(c, 0, "floor at peak"), "-");
  EXPECT_EQ(cellOf(c, 0, "seed check"), "IMPOSSIBLE");
}

// A lesson step's `panel ladder` shows the ladder of what the lesson measured so far when no kernel
// sweep was run (on the H200, Harris's last step showed "run the ladder" after k1..k7 were measured);
// a sweep, once run, is what the tab shows; transposes and products form no ladder.
TEST(LessonTable, TheLadderTabShowsTheLessonsRunsWhenNoLadderWasSwept) {
  gui::Model model;
  bool fromLesson = true;
  EXPECT_TRUE(gui::ladderRowsShown(model, &fromLesson).empty());
  EXPECT_FALSE(fromLesson);
  model.lesson = stateOf("step: a\nset kernel=k1\nrun label=K1\nstep: b\nrun label=K2 kernel=k2\nrun label=T kernel=tr-tile\nstep: c\nrun label=K3 kernel=k3\n");
  model.lesson.active = true;
  for (gui::LessonRow& r : model.lesson.rows) r.runs.push_back(measured(r.config, 1.0, 2.0));
  model.lesson.step = 1;
  std::vector<Measurement> shown = gui::ladderRowsShown(model, &fromLesson);
  EXPECT_TRUE(fromLesson);
  ASSERT_EQ(shown.size(), 2u) << "k1 and k2 so far; the transpose is no rung";
  EXPECT_EQ(shown[0].config.kernel, "k1");
  EXPECT_EQ(shown[1].config.kernel, "k2");
  model.sweep.rows["kernel"] = {measured(shown[0].config, 3.0, 4.0)};
  shown = gui::ladderRowsShown(model, &fromLesson);
  EXPECT_FALSE(fromLesson);
  EXPECT_EQ(shown.size(), 1u);
}
