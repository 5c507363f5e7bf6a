#pragma once
// Helpers shared by the test suites: running the reducelab binary, reading PNGs.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reducelab/family.hpp"

namespace rl::test {

// A family parameter of c's kernel by key ("rows", "tile"): set (ignored where its family has
// none; the kernel set first), and read (0 where it has none).
inline void setParam(RunConfig& c, std::string_view key, uint64_t value) {
  if (const FamilyParameter* p = ownParameter(c, key)) p->set(c, value);
}
inline uint64_t param(const RunConfig& c, std::string_view key) {
  const FamilyParameter* p = ownParameter(c, key);
  return p ? p->get(c) : 0;
}

struct CommandResult {
  int exitCode = -1;  // -1: did not exit normally (signal, crash)
  std::string out, err;
};

// Runs `reducelab <args>` (args already shell-quoted) with optional environment prefix.
CommandResult runReducelab(const std::string& args, const std::string& envPrefix = "");
// Runs any program the same way (`program` and `args` already shell-quoted).
CommandResult runProgram(const std::string& program, const std::string& args, const std::string& envPrefix = "");

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
  bool ok() const { return width > 0; }
  const uint8_t* at(int x, int y) const { return &rgba[(size_t(y) * width + x) * 4]; }
};
Image loadPng(const std::string& path);

// Standard deviation of luminance, and the number of distinct colours (quantised to 5 bits).
double lumaStdDev(const Image& img);
int distinctColours(const Image& img);

std::string readFile(const std::string& path);  // whole file; empty if unreadable
std::string commandOutput(const std::string& shellCommand);  // its stdout (and what it redirects)
bool haveTool(const std::string& tool);          // on PATH
std::string pdfText(const std::string& path);   // the text poppler's pdftotext reads from a PDF
std::string pdfFonts(const std::string& path);  // pdffonts' table of the PDF's fonts
std::string tempPath(const std::string& name);  // in a per-process temp folder
// A new, empty folder under the temp directory, PREFIX-XXXXXX (mkdtemp); "" if none can be made.
std::string freshTempDir(const std::string& prefix);
int countLines(const std::string& text);
// The source tree: $REDUCELAB_SOURCE_DIR (the GPU machine runs a copy of it elsewhere), else the
// one the tests were built from.
std::string sourceDir();
// A file the build made (the app, a test helper, a PTX file), named by the path the build gave it:
// that path, or, where the build was copied to another machine ($REDUCELAB_TEST_BUILT, set by
// scripts/gpu-run.sh), the file of the same name there. The one way tests find built files.
std::string builtFile(const std::string& pathAtBuild);

}  // namespace rl::test

// Where the PDF's text is checked: skipped (not passed) on a machine without poppler-utils, as the
// GPU machine is; setup.sh installs it everywhere else.
#define REQUIRE_PDFTOTEXT() \
  do {                                                                                       \
    if (!rl::test::haveTool("pdftotext")) GTEST_SKIP() << "poppler-utils (pdftotext) missing"; \
  } while (0)
