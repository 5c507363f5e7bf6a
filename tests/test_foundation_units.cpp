// Unit tests of the foundation's small pieces.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "application.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/device_info.hpp"
#include "reducelab/gui/shader.hpp"
#include "reducelab/interop_pattern.hpp"
#include "test_support.hpp"

TEST(ParseSize, AcceptsWidthByHeight) {
  int w = 0, h = 0;
  EXPECT_TRUE(rl::app::parseSize("1600x900", &w, &h));
  EXPECT_EQ(w, 1600);
  EXPECT_EQ(h, 900);
}

TEST(ParseSize, RejectsNonsense) {
  int w = 7, h = 7;
  for (const char* bad : {"0x0", "", "x", "1600", "1600x", "x900", "-5x10", "1600x900x2",
                          "100000x100", "63x64", "abcxdef", " 1600x900"})
    EXPECT_FALSE(rl::app::parseSize(bad, &w, &h)) << bad;
  EXPECT_EQ(w, 7);
}

TEST(AtomicFile, WritesAndReplaces) {
  const std::string p = rl::test::tempPath("atomic.txt");
  ASSERT_EQ(rl::writeTextAtomic(p, "one"), "");
  ASSERT_EQ(rl::writeTextAtomic(p, "two"), "");
  std::ifstream in(p);
  std::string s;
  in >> s;
  EXPECT_EQ(s, "two");
}

TEST(AtomicFile, FailedWriteLeavesNoFileBehind) {
  const std::string p = rl::test::tempPath("never.txt");
  std::string err = rl::writeFileAtomic(p, [](const std::string& tmp) {
    std::ofstream(tmp) << "partial";
    return std::string("simulated failure");
  });
  EXPECT_NE(err.find("simulated failure"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(p));
  for (auto& e : std::filesystem::directory_iterator(std::filesystem::path(p).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".never.txt.tmp"), std::string::npos);
}

TEST(AtomicFile, MissingFolderIsAClearError) {
  std::string err = rl::writeTextAtomic("/nonexistent-folder/x.txt", "x");
  EXPECT_NE(err.find("folder does not exist"), std::string::npos) << err;
}

TEST(DeviceInfo, TheoreticalPeakFormula) {
  rl::DeviceInfo d;
  d.memClockKHz = 3201000;  // H200: 3201 MHz, 6016-bit bus
  d.busWidthBits = 6016;
  EXPECT_NEAR(d.theoreticalPeakGBs(), 4814.3, 0.1);
  EXPECT_EQ(rl::cudaVersionString(13000), "13.0");
  EXPECT_EQ(rl::cudaVersionString(12080), "12.8");
}

TEST(Shaders, IncludesAreExpanded) {
  std::string src = rl::gui::shaderSource("strip.frag");
  ASSERT_FALSE(src.empty());
  EXPECT_NE(src.find("vec3 rampColor"), std::string::npos);
  EXPECT_EQ(src.find("#include"), std::string::npos);
  EXPECT_TRUE(rl::gui::shaderSource("no-such-shader.frag").empty());
}

TEST(InteropPattern, RampWithMarkers) {
  EXPECT_EQ(rl::interopPattern(0, 4096), -1.0f);
  EXPECT_EQ(rl::interopPattern(512, 4096), -1.0f);
  EXPECT_FLOAT_EQ(rl::interopPattern(4095, 4096), 1.0f);
  EXPECT_FLOAT_EQ(rl::interopPattern(100, 4096), 100.0f / 4095.0f);
}

// Test files go to a folder no earlier process left: a stale reducelab-tests-PID folder of a dead
// process with a reused id made two shipped-lesson tests fail in CI ("lesson.md exists").
TEST(TestSupport, TempFoldersAreNewAndEmptyEvenWhenAStaleOneHasTheirName) {
  namespace fs = std::filesystem;
  const std::string prefix = "reducelab-support-" + std::to_string(::getpid());
  const fs::path stale = fs::temp_directory_path() / prefix;
  fs::create_directories(stale);
  std::ofstream(stale / "lesson.md") << "left by a dead process";
  const std::string a = rl::test::freshTempDir(prefix), b = rl::test::freshTempDir(prefix);
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_NE(a, b);
  EXPECT_NE(fs::path(a), stale);
  EXPECT_TRUE(fs::is_empty(a));
  EXPECT_EQ(fs::path(rl::test::tempPath("x")).parent_path().filename().string().rfind(
                "reducelab-tests-" + std::to_string(::getpid()) + "-", 0),
            0u);
  fs::remove_all(stale);
  fs::remove_all(a);
  fs::remove_all(b);
}
