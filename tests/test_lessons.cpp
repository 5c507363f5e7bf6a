// Lessons: the format's parser (errors name file:line), every shipped lesson parses, and every
// shipped lesson runs headless end to end (CPU model here; label gpu repeats it on a GPU).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reducelab/cuda_device.hpp"
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
      "  view bank step=2 warp=1\n"
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
  EXPECT_NE(parseError("step: a\nrun times=9\n").find("times=9"), std::string::npos);
  EXPECT_NE(parseError("step: a\nsweep kernels=k3\n").find("axis="), std::string::npos);
  EXPECT_NE(parseError("step:\n").find("a step needs a title"), std::string::npos);
  EXPECT_NE(parseError("# nothing\n").find("no 'step:'"), std::string::npos);
  EXPECT_NE(parseError("step: a\nset warm-l2=maybe\n").find("true or false"), std::string::npos);
}

TEST(LessonFormat, ShippedLessonsParse) {
  const std::vector<std::string> names = shippedLessons();
  for (const char* required : {"upc", "harris", "max", "beyond"})
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
  const std::string dir = rl::test::tempPath("lesson-" + GetParam());
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
  // With a GPU every row is measured; without one every row says why not.
  if (rl::queryDevice(0).available) EXPECT_EQ(csv.find("not measured"), std::string::npos) << csv;
  else EXPECT_NE(csv.find("needs an NVIDIA GPU"), std::string::npos) << csv;
  const std::string md = readFile(dir + "/lesson.md");
  for (const LessonStep& st : lesson->steps) EXPECT_NE(md.find(st.caption.substr(0, 40)), std::string::npos);
  EXPECT_NE(readFile(dir + "/lesson.tex").find("\\toprule"), std::string::npos);
  EXPECT_NE(readFile(dir + "/lesson.json").find("\"benchmarks\""), std::string::npos);
  // Again without --force: nothing is overwritten.
  auto again = runReducelab("lesson " + GetParam() + " --headless --out " + dir);
  EXPECT_EQ(again.exitCode, 1);
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
}

INSTANTIATE_TEST_SUITE_P(Lessons, ShippedLesson, ::testing::Values("upc", "harris", "max", "beyond", "tour", "multi"),
                         [](const auto& info) { return info.param; });
