// The exercises (docs/lessons.md, `exercise` and `goal:`; assets/lessons/exercises/ and the
// `exercises` lesson): the lesson lines, each exercise and its reference solution compile with
// NVRTC (no GPU needed), and the window puts a step's exercise in the editor without ever
// replacing the student's unsaved work. tests/test_gpu_exercises.cpp checks them on the GPU.
#include <gtest/gtest.h>

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
  for (const std::string& name : shippedExercises()) {
    EXPECT_EQ(compileAll(rl::exerciseSource(name), name + ".cu"), "") << name;
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
  EXPECT_EQ(m.editor.doc.text(), rl::exerciseSource("max-reads-twice"));
  EXPECT_EQ(m.editor.doc.suggestedName(), "max-reads-twice.cu");
  app.requestLessonStep(1);  // a pristine copy is replaced by the next step's
  EXPECT_EQ(m.editor.doc.text(), rl::exerciseSource("k4-any-n"));
  m.editor.doc.edit(m.editor.doc.text() + "// my fix\n", 0, 1.0);
  app.requestLessonStep(2);  // edited: kept, and the step says why its exercise is not there
  EXPECT_NE(m.editor.doc.text().find("// my fix"), std::string::npos);
  EXPECT_TRUE(m.editor.noticeIsError);
  EXPECT_NE(m.editor.notice.find("missing-barrier.cu"), std::string::npos) << m.editor.notice;
}
