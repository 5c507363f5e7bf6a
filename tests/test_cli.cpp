// Bad input on the command line: one line on stderr, exit 2 (usage) or 1 (environment), no crash.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"

using rl::test::countLines;
using rl::test::runReducelab;

namespace {

void expectOneLineError(const rl::test::CommandResult& r, int code, const std::string& mention) {
  EXPECT_EQ(r.exitCode, code) << r.err;
  EXPECT_EQ(countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
}

}  // namespace

TEST(Cli, UnknownFlagIsUsageError) {
  expectOneLineError(runReducelab("--no-such-flag"), 2, "no-such-flag");
}

TEST(Cli, FramesZeroIsUsageError) {
  expectOneLineError(runReducelab("--headless --frames 0"), 2, "frames");
}

TEST(Cli, FramesNotANumberIsUsageError) {
  expectOneLineError(runReducelab("--headless --frames abc"), 2, "frames");
}

TEST(Cli, SizeZeroIsUsageError) {
  expectOneLineError(runReducelab("--headless --size 0x0"), 2, "--size");
  expectOneLineError(runReducelab("--headless --size 800"), 2, "--size");
}

TEST(Cli, UnwritableScreenshotIsEnvironmentError) {
  auto r = runReducelab("--headless --frames 1 --screenshot /nonexistent-dir/ui.png");
  expectOneLineError(r, 1, "/nonexistent-dir");
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-dir/ui.png"));
}

TEST(Cli, NoDisplayWithoutHeadlessIsEnvironmentError) {
  auto r = runReducelab("--frames 1", "env -u DISPLAY -u WAYLAND_DISPLAY");
  expectOneLineError(r, 1, "--headless");
}

TEST(Cli, EglUnavailableIsEnvironmentError) {
  // glvnd finds no EGL vendor library in an empty folder: no display can be opened.
  auto r = runReducelab("--headless --frames 1",
                        "env __EGL_VENDOR_LIBRARY_DIRS=/nonexistent __EGL_VENDOR_LIBRARY_FILENAMES=");
  expectOneLineError(r, 1, "EGL");
}

TEST(Cli, InfoWithoutGpuExitsZero) {
  auto r = runReducelab("info");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("CUDA runtime"), std::string::npos);
  EXPECT_NE(r.out.find("GL renderer"), std::string::npos);
  EXPECT_NE(r.out.find("CUDA-GL interop"), std::string::npos);
}

TEST(Cli, VersionAndHelp) {
  EXPECT_EQ(runReducelab("--version").exitCode, 0);
  auto r = runReducelab("--help");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("--headless"), std::string::npos);
}
