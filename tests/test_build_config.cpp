// The build compiles its CUDA code for exactly the architectures configure announced
// (cmake/CudaArchitectures.cmake writes them to reducelab-cuda-archs.txt).
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// CMake's spelling of one CMAKE_CUDA_ARCHITECTURES entry as an nvcc flag.
std::string generateCodeFlag(const std::string& entry) {
  const std::string num = entry.substr(0, entry.find('-'));
  if (entry.ends_with("-real")) return "arch=compute_" + num + ",code=[sm_" + num + "]";
  if (entry.ends_with("-virtual")) return "arch=compute_" + num + ",code=[compute_" + num + "]";
  return "arch=compute_" + num + ",code=[compute_" + num + ",sm_" + num + "]";
}

}  // namespace

TEST(BuildConfig, CudaCodeIsCompiledForTheAnnouncedArchitectures) {
  const std::string dir = REDUCELAB_BUILD_DIR;
  std::string announced = slurp(dir + "/reducelab-cuda-archs.txt");
  if (announced.empty()) GTEST_SKIP() << "this build has no CUDA code";
  while (!announced.empty() && (announced.back() == '\n' || announced.back() == ' ')) announced.pop_back();
  std::set<std::string> expected;
  std::stringstream list(announced);
  for (std::string e; std::getline(list, e, ';');)
    if (!e.empty()) expected.insert(generateCodeFlag(e));
  ASSERT_FALSE(expected.empty());

  const auto commands = nlohmann::json::parse(slurp(dir + "/compile_commands.json"));
  const std::regex flag("--generate-code=(\\S+)|-arch[= ](\\S+)|-gencode[= ](\\S+)");
  int cudaFiles = 0;
  for (const auto& c : commands) {
    const std::string file = c.value("file", "");
    if (!file.ends_with(".cu")) continue;
    ++cudaFiles;
    const std::string cmd = c.value("command", "");
    std::set<std::string> got;
    for (std::sregex_iterator it(cmd.begin(), cmd.end(), flag), end; it != end; ++it) {
      ASSERT_TRUE((*it)[1].matched) << file << ": an architecture flag CMake did not write: " << it->str();
      got.insert((*it)[1].str());
    }
    EXPECT_EQ(got, expected) << file << " is not compiled for the announced architectures " << announced;
  }
  EXPECT_GT(cudaFiles, 0) << "no .cu file in compile_commands.json";
}

namespace {
// Runs a shell command, returns its stdout and sets *status to its exit code.
std::string capture(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  *status = pclose(p);
  return out;
}
bool have(const char* tool) {
  int st = 0;
  capture(std::string("command -v ") + tool + " >/dev/null 2>&1", &st);
  return st == 0;
}
}  // namespace

TEST(BuildConfig, VersionNamesTheGitCommit) {
  int st = 0;
  const std::string out = capture(rl::test::builtFile(REDUCELAB_BINARY) + " --version", &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_EQ(out.rfind("reducelab ", 0), 0u) << out;
  const std::string src = rl::test::sourceDir();
  if (!have("git")) GTEST_SKIP() << "no git to compare the commit with";
  int gst = 0;
  std::string head = capture("git -C '" + src + "' rev-parse --short=12 HEAD 2>/dev/null", &gst);
  if (gst != 0 || head.empty()) GTEST_SKIP() << "the source is not a git checkout";
  head.pop_back();
  EXPECT_NE(out.find("(commit " + head), std::string::npos) << out << " does not name HEAD " << head;
}

TEST(BuildConfig, DesktopEntryAndMetainfoValidate) {
  const std::string dir = rl::test::sourceDir() + "/assets/desktop/";
  if (!have("desktop-file-validate") || !have("appstreamcli")) GTEST_SKIP() << "desktop-file-utils/appstream missing";
  int st = 0;
  std::string out = capture("desktop-file-validate '" + dir + "org.reducelab.ReduceLab.desktop' 2>&1", &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_EQ(out, "") << "hints or warnings: " << out;
  out = capture("appstreamcli validate --no-net '" + dir + "org.reducelab.ReduceLab.metainfo.xml' 2>&1", &st);
  EXPECT_EQ(st, 0) << out;
}
