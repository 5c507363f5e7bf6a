#include "test_support.hpp"

#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace rl::test {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string freshTempDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) return "";
  return pattern;
}

// A folder no earlier process left behind: named by the process id alone, a stale folder of a
// dead process with the same id made lessons refuse to overwrite its files (CI failed so).
std::string tempPath(const std::string& name) {
  static const std::string dir = [] {
    const std::string d = freshTempDir("reducelab-tests-" + std::to_string(getpid()));
    if (d.empty()) std::abort();  // no temp folder: nothing a test writes could be checked
    return d;
  }();
  return dir + "/" + name;
}

CommandResult runReducelab(const std::string& args, const std::string& envPrefix) {
  // Under ASan, a headless child's exit-time leak check once crashed in LeakSanitizer's own tracer
  // ("Tracer caught signal 11", llvmpipe's threads still winding down): the child's exit code was
  // the tool's, not ReduceLab's. Headless children skip the leak check; the same GUI code is
  // leak-checked in this process by the in-process headless tests (test_layout, test_editor_gui...).
  std::string env = envPrefix;
  const char* asan = std::getenv("ASAN_OPTIONS");
  if (asan && *asan && args.find("--headless") != std::string::npos)
    env = "ASAN_OPTIONS='" + std::string(asan) + ":detect_leaks=0' " + env;
  return runProgram(builtFile(REDUCELAB_BINARY), args, env);
}

CommandResult runProgram(const std::string& program, const std::string& args, const std::string& envPrefix) {
  static int counter = 0;
  const std::string base = tempPath("cmd" + std::to_string(counter++));
  const std::string cmd = envPrefix + " " + program + " " + args + " >" + base +
                          ".out 2>" + base + ".err";
  int status = std::system(cmd.c_str());
  CommandResult r;
  if (status != -1 && WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  r.out = readFile(base + ".out");
  r.err = readFile(base + ".err");
  return r;
}

Image loadPng(const std::string& path) {
  Image img;
  int n = 0;
  unsigned char* data = stbi_load(path.c_str(), &img.width, &img.height, &n, 4);
  if (!data) {
    img.width = img.height = 0;
    return img;
  }
  img.rgba.assign(data, data + size_t(img.width) * img.height * 4);
  stbi_image_free(data);
  return img;
}

double lumaStdDev(const Image& img) {
  double sum = 0, sum2 = 0;
  const size_t n = size_t(img.width) * img.height;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = &img.rgba[i * 4];
    double l = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
    sum += l;
    sum2 += l * l;
  }
  double mean = sum / double(n);
  return std::sqrt(std::max(0.0, sum2 / double(n) - mean * mean));
}

int distinctColours(const Image& img) {
  std::set<uint32_t> colours;
  const size_t n = size_t(img.width) * img.height;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = &img.rgba[i * 4];
    colours.insert((uint32_t(p[0] >> 3) << 10) | (uint32_t(p[1] >> 3) << 5) | uint32_t(p[2] >> 3));
  }
  return int(colours.size());
}

int countLines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  if (!text.empty() && text.back() != '\n') ++lines;
  return lines;
}

std::string commandOutput(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  return out;
}
bool haveTool(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

std::string pdfText(const std::string& path) { return commandOutput("pdftotext -raw '" + path + "' - 2>&1"); }
std::string pdfFonts(const std::string& path) { return commandOutput("pdffonts '" + path + "' 2>&1"); }

std::string sourceDir() {
  const char* env = std::getenv("REDUCELAB_SOURCE_DIR");
  return env && *env ? env : REDUCELAB_SOURCE_DIR;
}

std::string builtFile(const std::string& pathAtBuild) {
  const char* copied = std::getenv("REDUCELAB_TEST_BUILT");
  if (!copied || !*copied) return pathAtBuild;
  return (std::filesystem::path(copied) / std::filesystem::path(pathAtBuild).filename()).string();
}

}  // namespace rl::test
