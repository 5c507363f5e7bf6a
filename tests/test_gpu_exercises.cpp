// The exercises on the GPU: every reference solution passes `reducelab check` with no hazard, and
// every exercise does not (a case fails, or the hazard check finds its race).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "gpu_support.hpp"
#include "reducelab/lesson.hpp"
#include "test_support.hpp"

using nlohmann::json;

namespace {

std::vector<std::string> shippedExercises() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(rl::test::sourceDir() + "/assets/lessons/exercises"))
    if (e.path().extension() == ".cu") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

json check(const std::string& file, rl::test::CommandResult* r, const std::string& goals = "") {
  static const std::string cache = "XDG_CACHE_HOME=" + rl::test::freshTempDir("uc-gpu-exercises");
  *r = rl::test::runReducelab("check " + file + " --format json --timeout 5 " + (goals.empty() ? "--no-timing" : goals), cache);
  return json::parse(r->out, nullptr, false);
}

// The step of the shipped lesson whose exercise is NAME: its goals as --require arguments.
std::string goalsOf(const std::string& name) {
  std::string error, args;
  const auto lesson = rl::loadLesson("exercises", &error);
  if (!lesson) return "";
  for (const rl::LessonStep& st : lesson->steps)
    if (st.exercise == name)
      for (const rl::Requirement& r : st.requirements) args += " --require '" + r.text() + "'";
  return args;
}

}  // namespace

TEST(GpuExercises, SolutionsPassAndExercisesDoNot) {
  REQUIRE_GPU();
  for (const std::string& name : shippedExercises()) {
    rl::test::CommandResult r;
    const json solution = check(rl::test::sourceDir() + "/tests/data/usercode/solutions/" + name + ".cu", &r);
    ASSERT_FALSE(solution.is_discarded()) << name << ": " << r.err;
    EXPECT_EQ(r.exitCode, 0) << name << " (solution): " << r.err;
    EXPECT_EQ(solution["summary"]["passed"], solution["summary"]["total"]) << name;
    if (solution["hazard_check"]["ran"].get<bool>())
      EXPECT_EQ(solution["hazard_check"]["hazards"].size(), 0u) << name << ": " << solution["hazard_check"]["hazards"].dump();
    const json exercise = check(rl::test::sourceDir() + "/assets/lessons/exercises/" + name + ".cu", &r);
    ASSERT_FALSE(exercise.is_discarded()) << name << ": " << r.err;
    const bool caseFailed = exercise["summary"]["passed"] != exercise["summary"]["total"] || r.exitCode == 4;  // 4: as printed, it does not compile
    const bool hazardFound = exercise["hazard_check"]["ran"].get<bool>() && !exercise["hazard_check"]["hazards"].empty();
    EXPECT_TRUE(caseFailed || hazardFound) << name << ": the check finds nothing wrong with the exercise";
    std::printf("%s: solution %d of %d; exercise %d of %d, %zu hazards\n", name.c_str(),
                solution["summary"]["passed"].get<int>(), solution["summary"]["total"].get<int>(),
                exercise["summary"]["passed"].get<int>(), exercise["summary"]["total"].get<int>(),
                exercise["hazard_check"]["hazards"].size());
  }
}

// ReduceLab judges each step's goals: every reference solution meets its step's, every exercise
// misses one (exit 3); k2's step asks for no bank conflict, which k3's starter (sequential
// addressing) meets and k2's does not.
TEST(GpuExercises, TheStepsGoalsAreMetBySolutionsAndMissedByExercises) {
  REQUIRE_GPU();
  for (const std::string& name : shippedExercises()) {
    const std::string goals = goalsOf(name);
    ASSERT_FALSE(goals.empty()) << name;
    rl::test::CommandResult r;
    const json solution = check(rl::test::sourceDir() + "/tests/data/usercode/solutions/" + name + ".cu", &r, goals);
    ASSERT_FALSE(solution.is_discarded()) << name << ": " << r.err;
    EXPECT_EQ(r.exitCode, 0) << name << " (solution): " << solution["goals"].dump();
    for (const json& g : solution["goals"]) EXPECT_TRUE(g["met"].get<bool>()) << name << ": " << g.dump();
    const json exercise = check(rl::test::sourceDir() + "/assets/lessons/exercises/" + name + ".cu", &r, goals);
    EXPECT_TRUE(r.exitCode == 3 || r.exitCode == 4) << name << " (exercise, exit " << r.exitCode << "): " << exercise["goals"].dump();
  }
  const std::string starters = rl::test::sourceDir() + "/assets/kernels/starters/";
  rl::test::CommandResult r;
  const json k2 = check(starters + "k2.cu", &r, "--type int32 --op sum --block 256 --require 'no bank conflict'");
  EXPECT_EQ(r.exitCode, 3) << k2["goals"].dump();
  ASSERT_EQ(k2["goals"].size(), 1u);
  EXPECT_FALSE(k2["goals"][0]["met"].get<bool>()) << k2["goals"].dump();
  EXPECT_GT(k2["hazard_check"]["bank_conflicts"].get<int>(), 0) << k2["hazard_check"].dump();
  const json k3 = check(starters + "k3.cu", &r, "--type int32 --op sum --block 256 --require 'no bank conflict'");
  EXPECT_EQ(r.exitCode, 0) << k3["goals"].dump();
  EXPECT_EQ(k3["hazard_check"]["bank_conflicts"].get<int>(), 0) << k3["hazard_check"].dump();
}
