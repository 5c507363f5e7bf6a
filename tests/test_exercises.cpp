// The exercises (docs/lessons.md, `exercise` and `goal:`; assets/lessons/exercises/ and the
// `exercises` lesson): the lesson lines, each exercise and its reference solution compile with
// NVRTC (no GPU needed), and the window puts a step's exercise in the editor without ever
// replacing the student's unsaved work. tests/test_gpu_exercises.cpp checks them on the GPU.
#include <gtest/gtest.h>

#include <map>

#include <chrono>
#include <thread>
#include <filesystem>
#include <fstream>

#include "application.hpp"
#include "gl_context.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/nvrtc.hpp"
#include "test_support.hpp"

namespace uc = rl::usercode;

namespace {

std::vector<std::string> shippedExercises() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(rl::test::sourceDir() + "/assets/lessons/exercises"))
    if (e.path().extension() == ".cu") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Every claimed type x operation builds without an error; "" or the first error.
std::string compileAll(const std::string& source, const std::string& file) {
  const uc::ContractResult c = uc::parseContract(source, file);
  if (!c.ok()) return c.diagnostics.front().text();
  for (const uc::CompileResult& b : uc::compileClaims(source, file, 90, c.contract.types, c.contract.ops, "", false))
    if (!b.ok()) return b.diagnostics.empty() ? b.environmentError : b.diagnostics.front().text();
  return {};
}

}  // namespace

TEST(Exercises, LessonLinesNameAnExerciseAndAGoal) {
  std::string error;
  auto lesson = rl::parseLesson("title: t\nstep: one\nexercise missing-barrier\ngoal: no hazard.\ncaption: Look.\n"
                                "step: two\nexercise k2\ngoal: no conflict\n",
                                "t.lesson", &error);
  ASSERT_TRUE(lesson) << error;
  EXPECT_EQ(lesson->steps[0].exercise, "missing-barrier");
  EXPECT_EQ(lesson->steps[0].goal, "no hazard.");
  EXPECT_EQ(lesson->steps[0].caption, "Look. Goal: no hazard.");  // the bar and the exports show the goal
  EXPECT_EQ(lesson->steps[1].exercise, "k2");                      // a starter
  EXPECT_EQ(rl::exerciseFileName("k2"), "k2.cu");
  EXPECT_EQ(rl::exerciseFileName("missing-barrier"), "missing-barrier.cu");
  // Refused with the line and the names there are; k9 has no starter, k5 is k5s's key only.
  for (const char* bad : {"no-such-exercise", "k9", "k5", ""}) {
    EXPECT_FALSE(rl::parseLesson(std::string("title: t\nstep: one\nexercise ") + bad + "\n", "t.lesson", &error)) << bad;
    EXPECT_NE(error.find("t.lesson:3:"), std::string::npos) << error;
  }
  EXPECT_NE(error.find("missing-barrier"), std::string::npos) << error;
  EXPECT_FALSE(rl::parseLesson("title: t\nstep: one\nexercise k2\nexercise k3\n", "t.lesson", &error));
  EXPECT_FALSE(rl::parseLesson("title: t\nexercise k2\n", "t.lesson", &error));  // before any step
}

// `require:` lines: the goals ReduceLab judges, read back as written; nonsense refused with its line.
TEST(Exercises, RequireLinesAreGoalsReduceLabJudges) {
  std::string error;
  auto lesson = rl::parseLesson("title: t\nstep: one\nexercise k2\nrequire: pass\nrequire: No bank conflicts.\n"
                                "require: no hazard\nrequire: 90% of CUB at 2^24\nrequire: 100% of cub at 65536\n",
                                "t.lesson", &error);
  ASSERT_TRUE(lesson) << error;
  const auto& req = lesson->steps[0].requirements;
  ASSERT_EQ(req.size(), 5u);
  EXPECT_EQ(req[0].kind, rl::Requirement::Kind::Pass);
  EXPECT_EQ(req[1].kind, rl::Requirement::Kind::NoBankConflict);
  EXPECT_EQ(req[2].kind, rl::Requirement::Kind::NoHazard);
  EXPECT_EQ(req[3].kind, rl::Requirement::Kind::SpeedOfCub);
  EXPECT_EQ(req[3].percent, 90);
  EXPECT_EQ(req[3].n, uint64_t(1) << 24);
  EXPECT_EQ(req[3].text(), "90% of cub at 2^24");
  EXPECT_EQ(req[4].n, 65536u);
  for (const char* bad : {"fast", "0% of cub at 2^24", "90% of cub at lots", "abc% of cub at 2^20", "90 % of cub at 2^20", ""}) {
    EXPECT_FALSE(rl::parseLesson(std::string("title: t\nstep: one\nrequire: ") + bad + "\n", "t.lesson", &error)) << bad;
    EXPECT_NE(error.find("t.lesson:3:"), std::string::npos) << bad << ": " << error;
  }
  // The shipped lesson's steps each say what ReduceLab checks.
  const auto shipped = rl::loadLesson("exercises", &error);
  ASSERT_TRUE(shipped) << error;
  for (const rl::LessonStep& st : shipped->steps)
    if (!st.exercise.empty()) EXPECT_FALSE(st.requirements.empty()) << st.title;
}

// The goals judged from a check's report: each met or not, with what shows it.
TEST(Exercises, GoalsAreJudgedFromTheReport) {
  uc::CheckReport r;
  r.status = uc::CheckStatus::Ran;
  r.summary.passed = 10;
  r.hazards.ran = true;
  r.hazards.banksKnown = true;
  r.hazards.wavefronts = 40, r.hazards.idealWavefronts = 32, r.hazards.bankConflicts = 8;
  r.timing.ran = true;
  r.timing.c.n = uint64_t(1) << 16;
  r.timing.yours.ms = rl::Stats::of({0.010});
  uc::TimedRow cub;
  cub.key = "cub", cub.ms = rl::Stats::of({0.009});
  r.timing.others = {cub};
  std::string e;
  auto req = [&](const char* t) { return *rl::parseRequirement(t, &e); };
  auto goals = uc::judgeGoals({req("pass"), req("no hazard"), req("no bank conflict"), req("90% of cub at 2^16"),
                               req("100% of cub at 2^16"), req("90% of cub at 2^24")}, r);
  ASSERT_EQ(goals.size(), 6u);
  EXPECT_TRUE(goals[0].met) << goals[0].why;
  EXPECT_TRUE(goals[1].met) << goals[1].why;
  EXPECT_FALSE(goals[2].met);
  EXPECT_NE(goals[2].why.find("40 wavefronts, 32 without conflicts"), std::string::npos) << goals[2].why;
  EXPECT_TRUE(goals[3].met) << goals[3].why;  // 90 % of CUB's speed: 0.009 / 0.010
  EXPECT_FALSE(goals[4].met);
  EXPECT_NE(goals[4].why.find("90 % of CUB's speed"), std::string::npos) << goals[4].why;
  EXPECT_FALSE(goals[5].met);  // timed at another N
  EXPECT_NE(goals[5].why.find("timed at N=2^16"), std::string::npos) << goals[5].why;
  EXPECT_EQ(uc::timingSizeFor({req("pass"), req("90% of cub at 2^20")}, 7), uint64_t(1) << 20);
  EXPECT_EQ(uc::timingSizeFor({req("pass")}, 7), 7u);
  // A failed case, a hazard, no trace, no timing: not met, and said why.
  r.summary.failed = 1;
  r.hazards.hazards.resize(1);
  r.hazards.banksKnown = false;
  r.hazards.why = "no Compute Sanitizer";
  r.timing.ran = false;
  r.timing.why = "the kernel failed a case: the time of a wrong result says nothing";
  goals = uc::judgeGoals({req("pass"), req("no hazard"), req("no bank conflict"), req("90% of cub at 2^16")}, r);
  for (const auto& g : goals) EXPECT_FALSE(g.met) << g.requirement.text();
  EXPECT_EQ(goals[0].why, "10 of 11 cases passed");
  EXPECT_NE(goals[3].why.find("not timed: the kernel failed a case"), std::string::npos) << goals[3].why;
  r.status = uc::CheckStatus::Environment;
  r.error = "no GPU";
  EXPECT_EQ(uc::judgeGoals({req("pass")}, r)[0].why, "the check did not run its cases: no GPU");
}

TEST(Exercises, EveryExerciseIsInTheLessonAndHasASolutionThatDiffers) {
  std::string error;
  auto lesson = rl::loadLesson("exercises", &error);
  ASSERT_TRUE(lesson) << error;
  std::vector<std::string> used;
  for (const rl::LessonStep& st : lesson->steps) {
    EXPECT_FALSE(st.exercise.empty()) << st.title;
    EXPECT_FALSE(st.goal.empty()) << st.title;
    used.push_back(st.exercise);
  }
  for (const std::string& name : shippedExercises()) {
    EXPECT_NE(std::find(used.begin(), used.end(), name), used.end()) << name << " is in no step of the lesson";
    const std::string exercise = rl::test::readFile(rl::test::sourceDir() + "/assets/lessons/exercises/" + name + ".cu");
    EXPECT_EQ(rl::exerciseSource(name), exercise);  // embedded as it is on disk
    const std::string solution = rl::test::readFile(rl::test::sourceDir() + "/tests/data/usercode/solutions/" + name + ".cu");
    ASSERT_FALSE(solution.empty()) << name << " has no solution";
    EXPECT_NE(solution, exercise) << name;
  }
}

TEST(Exercises, ExercisesAndSolutionsCompile) {
  if (!uc::nvrtc().loaded) GTEST_SKIP() << "NVRTC: " << uc::nvrtc().error;
  // Exercises whose first mistake is the compiler's, as the seed printed them, and what it says.
  const std::map<std::string, std::string> compileErrors = {
      {"seed001-total-unroll", "identifier \"desenrrollado_reduce_32\" is undefined"}};
  for (const std::string& name : shippedExercises()) {
    const std::string got = compileAll(rl::exerciseSource(name), name + ".cu");
    if (const auto it = compileErrors.find(name); it != compileErrors.end())
      EXPECT_NE(got.find(it->second), std::string::npos) << name << ": " << got;
    else
      EXPECT_EQ(got, "") << name;
    const std::string solution = rl::test::readFile(rl::test::sourceDir() + "/tests/data/usercode/solutions/" + name + ".cu");
    EXPECT_EQ(compileAll(solution, "solutions/" + name + ".cu"), "") << name;
  }
}

TEST(Exercises, TheWindowPutsAStepsExerciseInTheEditorButNeverOverUnsavedWork) {
  std::string error;
  auto ctx = rl::app::createHeadlessContext(1280, 720, &error);
  if (!ctx) GTEST_SKIP() << "no headless GL: " << error;
  rl::app::GuiOptions o;
  o.headless = true, o.width = 1280, o.height = 720;
  o.lesson = "exercises";
  rl::app::Application app(*ctx, o);
  rl::gui::Model& m = app.model();
  ASSERT_TRUE(m.lesson.active);
  EXPECT_EQ(m.view, rl::ViewId::Editor);
  EXPECT_EQ(m.editor.doc.text(), rl::exerciseSource("seed001-intervals"));
  EXPECT_EQ(m.editor.doc.suggestedName(), "seed001-intervals.cu");
  app.requestLessonStep(1);  // a pristine copy is replaced by the next step's
  EXPECT_EQ(m.editor.doc.text(), rl::exerciseSource("seed001-sequential"));
  m.editor.doc.edit(m.editor.doc.text() + "// my fix\n", 0, 1.0);
  app.requestLessonStep(2);  // edited: kept, and the step says why its exercise is not there
  EXPECT_NE(m.editor.doc.text().find("// my fix"), std::string::npos);
  EXPECT_TRUE(m.editor.noticeIsError);
  EXPECT_NE(m.editor.notice.find("seed001-partial-unroll.cu"), std::string::npos) << m.editor.notice;
}

// After a Check in an exercise step, the Checks tab says which of the step's goals are met (the
// stand-in worker answers every case right but cannot trace: "pass" is met, "no hazard" is not).
TEST(Exercises, TheChecksTabJudgesTheStepsGoals) {
  std::string why;
  if (!uc::nvrtc().loaded) GTEST_SKIP() << "NVRTC: " << uc::nvrtc().error;
  // The projector's size, in presentation mode (REDUCELAB_EDITOR_SHOTS: a screenshot to look at).
  auto ctx = rl::app::createHeadlessContext(1280, 720, &why);
  if (!ctx) GTEST_SKIP() << "no headless GL: " << why;
  rl::app::GuiOptions o;
  o.headless = true, o.width = 1280, o.height = 720;
  o.presentation = true;
  o.lesson = "exercises";
  o.editorAutosave = rl::test::tempPath("goals-autosave.json");
  o.checkWorker = rl::test::builtFile(USERCODE_FAKE_WORKER);
  o.checkWorkerArgs = {"exact"};
  rl::app::Application app(*ctx, o);
  rl::gui::Model& m = app.model();
  auto checkAndWait = [&] {
    app.requestEditor(rl::gui::EditorRequest::Check);
    for (int i = 0; i < 6000 && m.editor.checking; ++i) {
      app.drawFrame();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_FALSE(m.editor.checking);
  };
  app.requestLessonStep(4);  // seed 002's maximum: require pass
  checkAndWait();
  ASSERT_EQ(m.editor.goalResults.size(), 1u) << m.editor.checkSummary;
  EXPECT_TRUE(m.editor.goalResults[0].met) << m.editor.goalResults[0].why;
  EXPECT_EQ(m.editor.checkExit, 0);
  app.requestLessonStep(7);  // the missing barrier: require pass, no hazard
  checkAndWait();
  ASSERT_EQ(m.editor.goalResults.size(), 2u);
  EXPECT_TRUE(m.editor.goalResults[0].met);
  EXPECT_FALSE(m.editor.goalResults[1].met);
  EXPECT_NE(m.editor.goalResults[1].why.find("the fake worker does not trace"), std::string::npos) << m.editor.goalResults[1].why;
  EXPECT_EQ(m.editor.checkExit, 3);  // a goal not met is not done
  for (int i = 0; i < 5; ++i) app.drawFrame();
  if (const char* shots = std::getenv("REDUCELAB_EDITOR_SHOTS")) app.saveScreenshot(std::string(shots) + "/exercise-goals.png");
}
