// The exercises on the GPU: every reference solution passes `reducelab check` with no hazard, and
// every exercise does not (a case fails, or the hazard check finds its race).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "gpu_support.hpp"
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

json check(const std::string& file, rl::test::CommandResult* r) {
  static const std::string cache = "XDG_CACHE_HOME=" + rl::test::freshTempDir("uc-gpu-exercises");
  *r = rl::test::runReducelab("check " + file + " --format json --timeout 5 --no-timing", cache);
  return json::parse(r->out, nullptr, false);
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
    const bool caseFailed = exercise["summary"]["passed"] != exercise["summary"]["total"];
    const bool hazardFound = exercise["hazard_check"]["ran"].get<bool>() && !exercise["hazard_check"]["hazards"].empty();
    EXPECT_TRUE(caseFailed || hazardFound) << name << ": the check finds nothing wrong with the exercise";
    std::printf("%s: solution %d of %d; exercise %d of %d, %zu hazards\n", name.c_str(),
                solution["summary"]["passed"].get<int>(), solution["summary"]["total"].get<int>(),
                exercise["summary"]["passed"].get<int>(), exercise["summary"]["total"].get<int>(),
                exercise["hazard_check"]["hazards"].size());
  }
}
