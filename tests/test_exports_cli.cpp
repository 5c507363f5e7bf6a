// Exports from the command line without a GPU: sweep refuses with a clear message and writes
// nothing; report writes the CPU-model parts (occupancy figure as PNG and SVG, trace tables in
// CSV/Markdown/LaTeX, device and session JSON) and refuses to overwrite without --force.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <cstdlib>
#include <sstream>

#include "reducelab/cuda_device.hpp"
#include "reducelab/formats/table_writers.hpp"
#include "reducelab/usercode/nvrtc.hpp"
#include "test_support.hpp"

using rl::test::readFile;
using rl::test::runReducelab;
namespace fs = std::filesystem;

// REDUCELAB_HIDE_GPU=1 hides any GPU, so this runs (and means the same) on GPU machines too;
// CommandsOnGpu.* of the GPU suite runs the sweep itself.
TEST(ExportsCli, SweepWithoutGpuSaysSoAndWritesNothing) {
  const std::string dir = rl::test::tempPath("sweep-nogpu");
  auto r = runReducelab("sweep --axis n --kernel k3,k7 --out " + dir, "REDUCELAB_HIDE_GPU=1");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(rl::test::countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("needs an NVIDIA GPU"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir));
}

TEST(ExportsCli, SweepRejectsBadArguments) {
  EXPECT_EQ(runReducelab("sweep --axis sideways --out x").exitCode, 2);
  EXPECT_EQ(runReducelab("sweep --axis n --kernel k99 --out x").exitCode, 2);
  EXPECT_EQ(runReducelab("sweep --axis n --format gif --out x").exitCode, 2);
  EXPECT_EQ(runReducelab("sweep --axis n").exitCode, 2);  // --out missing
}

TEST(ExportsCli, ReportWritesTheCpuModelParts) {
  const std::string dir = rl::test::tempPath("report");
  auto r = runReducelab("report --cpu-model --out " + dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* f : {"report.md", "device.json", "session.json", "occupancy.png", "occupancy.svg", "trace-k1.csv",
                        "trace-k2.md", "trace-k3.tex", "trace-k8.csv"})
    EXPECT_TRUE(fs::exists(dir + "/" + f)) << f;
  rl::test::Image png = rl::test::loadPng(dir + "/occupancy.png");
  ASSERT_TRUE(png.ok());
  EXPECT_EQ(png.width, 1920);  // 960 x 540 at 2x
  EXPECT_EQ(png.height, 1080);
  EXPECT_GT(rl::test::lumaStdDev(png), 5.0);
  const std::string md = readFile(dir + "/report.md");
  EXPECT_NE(md.find("![Theoretical occupancy against block size](occupancy.png)"), std::string::npos);
  EXPECT_NE(md.find("need an NVIDIA GPU"), std::string::npos);
  // The trace table's CSV reads back with the same cells as its Markdown.
  const rl::Table t = rl::parseCsv(readFile(dir + "/trace-k2.csv"));
  ASSERT_FALSE(t.rows.empty());
  EXPECT_EQ(t.headers.front(), "step");
  EXPECT_NE(readFile(dir + "/trace-k2.md").find("| " + t.rows[1][1] + " |"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::accept(readFile(dir + "/session.json")));
  // No overwrite without --force; with it, fine.
  auto again = runReducelab("report --cpu-model --out " + dir);
  EXPECT_EQ(again.exitCode, 1);
  EXPECT_NE(again.err.find("--force"), std::string::npos) << again.err;
  EXPECT_EQ(runReducelab("report --cpu-model --force --out " + dir).exitCode, 0);
  // A folder that cannot be made.
  auto bad = runReducelab("report --cpu-model --out /nonexistent-parent/report");
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("does not exist"), std::string::npos) << bad.err;
}

// report --kernel-file where nothing is measured: the kernel is compiled all the same and the
// report says what the compiler said (a compile error also on stderr as file:line:, exit 3); a
// file that is not there or annotations that cannot be used stop it before anything is written.
TEST(ExportsCli, ReportWithYourKernelSaysWhatTheCompilerSaid) {
  const std::string data = rl::test::sourceDir() + "/tests/data/usercode/";
  const std::string dir = rl::test::tempPath("report-yours");
  fs::remove_all(dir);
  auto r = runReducelab("report --cpu-model --out " + dir + " --kernel-file " + data + "harris3.cu");
  const std::string md = readFile(dir + "/report.md");
  ASSERT_NE(md.find("## Your kernel"), std::string::npos) << md;
  if (!rl::usercode::nvrtc().error.empty()) {
    EXPECT_NE(md.find("It was not compiled either"), std::string::npos) << md;
    return;
  }
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(md.find("Compiled for sm_90 (int32 sum"), std::string::npos) << md;
  EXPECT_NE(md.find("reduce3: "), std::string::npos) << md;
  EXPECT_NE(md.find(" registers"), std::string::npos) << md;
  auto e = runReducelab("report --cpu-model --force --out " + dir + " --kernel-file " + data + "compile_error.cu");
  EXPECT_EQ(e.exitCode, 3) << e.err;
  EXPECT_NE(e.err.find("compile_error.cu:7:39: error:"), std::string::npos) << e.err;
  EXPECT_NE(readFile(dir + "/report.md").find("it does not compile"), std::string::npos);
  const std::string fresh = rl::test::tempPath("report-yours-none");
  fs::remove_all(fresh);
  EXPECT_EQ(runReducelab("report --cpu-model --out " + fresh + " --kernel-file " + data + "nothere.cu").exitCode, 2);
  EXPECT_FALSE(fs::exists(fresh + "/report.md"));
}

TEST(Settings, CorruptFileIsReportedOnceAndReplaced) {
  const std::string path = rl::test::tempPath("settings.json");
  std::ofstream(path) << "{ this is not json";
  auto r = runReducelab("--headless --frames 2 --settings " + path);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(rl::test::countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("corrupt"), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(readFile(path));  // replaced by valid settings
  EXPECT_EQ(j.value("theme", ""), "dark");
  bool keptAside = false;  // ... and the unparsable one kept beside it
  for (const auto& e : fs::directory_iterator(fs::path(path).parent_path()))
    keptAside = keptAside || (e.path().filename().string().rfind("settings.json.corrupt-", 0) == 0 &&
                              readFile(e.path().string()) == "{ this is not json");
  EXPECT_TRUE(keptAside);
  auto r2 = runReducelab("--headless --frames 2 --settings " + path);
  EXPECT_TRUE(r2.err.empty()) << r2.err;  // reported once: the next start is quiet
}

TEST(Settings, RememberTheLastConfiguration) {
  const std::string path = rl::test::tempPath("settings-remember.json");
  fs::remove(path);
  ASSERT_EQ(runReducelab("--headless --frames 2 --settings " + path + " --kernel k8 --block 128 --theme light").exitCode, 0);
  const nlohmann::json j = nlohmann::json::parse(readFile(path));
  EXPECT_EQ(j["last_config"]["kernel"], "k8");
  EXPECT_EQ(j["last_config"]["block"], 128);
  const std::string layout = rl::test::tempPath("remember.json");
  ASSERT_EQ(runReducelab("--headless --frames 2 --settings " + path + " --dump-layout " + layout).exitCode, 0);
  EXPECT_EQ(nlohmann::json::parse(readFile(layout))["trace"]["kernel"], "k8");
}

TEST(Presentation, BothThemesRenderWithTheLessonBar) {
  for (const char* theme : {"light", "dark"}) {
    const std::string png = rl::test::tempPath(std::string("pres-") + theme + ".png");
    const std::string layout = rl::test::tempPath(std::string("pres-") + theme + ".json");
    auto r = runReducelab(std::string("lesson upc --headless --frames 3 --presentation --theme ") + theme +
                          " --screenshot " + png + " --dump-layout " + layout);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(readFile(layout));
    EXPECT_TRUE(j["presentation"].get<bool>());
    EXPECT_TRUE(j["lesson_active"].get<bool>());
    EXPECT_TRUE(j["panels"].contains("lesson"));
    EXPECT_FALSE(j["panels"].contains("Parameters"));  // side panels hidden for the projector
    rl::test::Image img = rl::test::loadPng(png);
    ASSERT_TRUE(img.ok());
    // Light theme: mostly bright; dark: mostly dark.
    double mean = 0;
    for (size_t i = 0; i < img.rgba.size(); i += 4) mean += img.rgba[i + 1];
    mean /= double(img.rgba.size() / 4);
    if (std::string(theme) == "light") EXPECT_GT(mean, 150); else EXPECT_LT(mean, 110);
  }
}

// The trace views render from the CPU model for the kernels the seeds teach with.
TEST(TraceViews, RenderFromTheCpuModel) {
  for (const char* k : {"k1", "k2", "k3", "k8"})
    for (const char* v : {"warp", "bank", "tree", "coalescing"}) {
      const std::string png = rl::test::tempPath(std::string("view-") + k + "-" + v + ".png");
      const std::string layout = rl::test::tempPath(std::string("view-") + k + "-" + v + ".json");
      auto r = runReducelab(std::string("--headless --frames 3 --block 256 --kernel ") + k + " --view " + v +
                            " --screenshot " + png + " --dump-layout " + layout);
      ASSERT_EQ(r.exitCode, 0) << r.err;
      const nlohmann::json j = nlohmann::json::parse(readFile(layout));
      EXPECT_TRUE(j["trace"]["valid"].get<bool>()) << k << " " << v << ": " << j["trace"]["error"];
      EXPECT_EQ(j["trace"]["kernel"], k);
      rl::test::Image img = rl::test::loadPng(png);
      ASSERT_TRUE(img.ok());
      EXPECT_GT(rl::test::lumaStdDev(img), 10.0);
      EXPECT_GE(rl::test::distinctColours(img), 16);
    }
}

// A sweep measured on the H200 (docs/data) re-drawn here without a GPU: the same figure and tables.
TEST(ExportsCli, SweepFromSavedH200Data) {
  const std::string src = rl::test::sourceDir();
  const std::string dir = rl::test::tempPath("redraw-n");
  auto r = runReducelab("sweep --axis n --from " + src + "/docs/data/h200-sweep-n.json --out " + dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  REQUIRE_PDFTOTEXT();
  const std::string text = rl::test::pdfText(dir + "/sweep-n.pdf");
  for (const char* s : {"k3 sequential", "k7 grid-stride", "k10 16-byte loads", "cub CUB DeviceReduce", "N (elements)",
                        "GB/s", "theoretical peak 4814 GB/s", "input fits in L2 (60 MiB)", "2^30"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  EXPECT_EQ(std::system(("python3 -c \"import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])\" " + dir +
                         "/sweep-n.svg").c_str()),
            0);
  rl::test::Image png = rl::test::loadPng(dir + "/sweep-n.png");
  ASSERT_TRUE(png.ok());
  EXPECT_GT(rl::test::lumaStdDev(png), 5.0);
  const rl::Table t = rl::parseCsv(readFile(dir + "/sweep-n.csv"));
  EXPECT_EQ(t.rows.size(), 104u);  // 26 sizes (2^10..2^35) x 4 kernels
  EXPECT_EQ(t.rows.back()[2], "34359738368");  // N as a number (the table shows 2^35)
}

// The saved file decides the axis: a type sweep re-drawn without --axis is the type figure, and
// an --axis that contradicts the file is refused before anything is written.
TEST(ExportsCli, SweepFromTakesTheAxisOfTheFile) {
  const std::string src = rl::test::sourceDir();
  const std::string file = src + "/docs/data/h200-sweep-type.json";
  const std::string dir = rl::test::tempPath("redraw-type");
  auto r = runReducelab("sweep --from " + file + " --format pdf,csv --out " + dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/sweep-block.pdf"));
  EXPECT_FALSE(fs::exists(dir + "/sweep-type.svg"));  // only the formats asked for
  REQUIRE_PDFTOTEXT();
  const std::string text = rl::test::pdfText(dir + "/sweep-type.pdf");
  for (const char* s : {"int64", "float64", "G elements/s"}) EXPECT_NE(text.find(s), std::string::npos) << s;

  const std::string wrong = rl::test::tempPath("redraw-wrong-axis");
  r = runReducelab("sweep --axis n --from " + file + " --out " + wrong);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("does not match"), std::string::npos) << r.err;
  EXPECT_EQ(rl::test::countLines(r.err), 1) << r.err;
  EXPECT_FALSE(fs::exists(wrong));
}
