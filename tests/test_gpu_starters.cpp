// The starters on the GPU (docs/your-kernel.md, "Start from a catalogue kernel"): every starter
// passes `reducelab check`'s whole battery, every case of every type, operation and block size it
// claims, with no hazard (and no warning) from the hazard check where the Compute Sanitizer is.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "gpu_support.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/starters.hpp"
#include "test_support.hpp"

namespace uc = rl::usercode;
using nlohmann::json;

namespace {

std::vector<std::string> starterKeys() {
  std::vector<std::string> keys;
  for (const uc::Starter& s : uc::starters()) keys.push_back(s.key);
  return keys;
}

class GpuStarter : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(GpuStarter, PassesTheWholeBattery) {
  REQUIRE_GPU();
  const uc::Starter* s = uc::findStarter(GetParam());
  ASSERT_NE(s, nullptr);
  // The file as the user gets it (`reducelab starter` writes the same text).
  const std::string file = rl::test::sourceDir() + "/assets/kernels/starters/" + s->fileName;
  const uc::ContractResult contract = uc::parseContract(uc::starterSource(s->key), s->fileName);
  ASSERT_TRUE(contract.ok());
  std::string error;
  const size_t cases = uc::planBattery(contract.contract, uc::BatteryOptions{}, &error).size();
  ASSERT_TRUE(error.empty()) << error;

  static const std::string cache = "XDG_CACHE_HOME=" + rl::test::freshTempDir("uc-gpu-starters");
  const auto start = std::chrono::steady_clock::now();
  const rl::test::CommandResult r = rl::test::runReducelab("check " + file + " --format json", cache);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const json report = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << s->fileName << ": no JSON; stderr: " << r.err;
  EXPECT_EQ(r.exitCode, 0) << s->fileName << ": " << r.err;
  EXPECT_EQ(report["summary"]["total"], cases);
  EXPECT_EQ(report["summary"]["passed"], cases);
  int shown = 0;
  for (const json& k : report["cases"])
    if (k["verdict"] != "pass" && shown++ < 20) ADD_FAILURE() << s->fileName << ": " << k["text"].get<std::string>();
  EXPECT_EQ(report["diagnostics"].size(), 0u) << report["diagnostics"].dump();
  const json& hazards = report["hazard_check"];
  if (hazards["ran"].get<bool>())
    EXPECT_EQ(hazards["hazards"].size(), 0u) << s->fileName << ": " << hazards["hazards"].dump();
  std::printf("%s: %d of %zu cases passed in %.1f s; hazard check: %s\n", s->fileName.c_str(),
              report["summary"]["passed"].get<int>(), cases, seconds,
              hazards["ran"].get<bool>() ? (std::to_string(hazards["hazards"].size()) + " hazards").c_str()
                                         : hazards["why_not"].get<std::string>().c_str());
  // A starter passes, so it is timed beside CUB and our fastest (the line shows how the seeds' kernel does).
  const json& timing = report["timing"];
  EXPECT_TRUE(timing["ran"].get<bool>()) << s->fileName << ": " << timing["why_not"];
  if (timing["ran"].get<bool>()) std::printf("%s\n", timing["text"].get<std::string>().c_str());
}

INSTANTIATE_TEST_SUITE_P(EveryStarter, GpuStarter, ::testing::ValuesIn(starterKeys()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });
