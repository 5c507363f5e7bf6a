// Headless rendering through EGL (Mesa here, NVIDIA on a GPU machine): the PNG has the asked
// size, is not blank, and shows the interop strip where the layout says it is.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

using namespace rl::test;

namespace {

struct Rendered {
  Image image;
  nlohmann::json layout;
};

Rendered render(const std::string& name, const std::string& extra) {
  const std::string png = tempPath(name + ".png"), layout = tempPath(name + ".json");
  auto r = runReducelab("--headless --frames 3 --screenshot " + png + " --dump-layout " + layout +
                        " " + extra);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  Rendered out;
  out.image = loadPng(png);
  std::ifstream in(layout);
  if (in) out.layout = nlohmann::json::parse(in, nullptr, false);
  return out;
}

}  // namespace

TEST(HeadlessRender, ThreeFramesGiveANonBlankPngOfTheRequestedSize) {
  Rendered r = render("ui", "--size 1280x720");
  ASSERT_TRUE(r.image.ok());
  EXPECT_EQ(r.image.width, 1280);
  EXPECT_EQ(r.image.height, 720);
  EXPECT_GT(lumaStdDev(r.image), 10.0);
  EXPECT_GE(distinctColours(r.image), 16);
}

TEST(HeadlessRender, DefaultSizeIs1600x900AndAllPanelsAreLaidOut) {
  Rendered r = render("ui-default", "");
  ASSERT_TRUE(r.image.ok());
  EXPECT_EQ(r.image.width, 1600);
  EXPECT_EQ(r.image.height, 900);
  for (const char* panel : {"Kernel", "Parameters", "Views", "Results", "Bandwidth",
                            "status", "interop-strip"}) {
    ASSERT_TRUE(r.layout["panels"].contains(panel)) << panel;
    EXPECT_GT(r.layout["panels"][panel][2].get<float>(), 20.0f) << panel;
  }
}

// The strip is a ramp from dark violet (left) to yellow (right) with white marker runs.
void expectInteropStrip(const Rendered& r) {
  ASSERT_TRUE(r.image.ok());
  auto rect = r.layout["panels"]["interop-strip"];
  const int x0 = int(rect[0].get<float>()) + 2, y = int(rect[1].get<float>() + rect[3].get<float>() / 2);
  const int x1 = int(rect[0].get<float>() + rect[2].get<float>()) - 3;
  ASSERT_LT(x0, x1);
  int white = 0, yellowish = 0, violet = 0;
  for (int x = x0; x <= x1; ++x) {
    const uint8_t* p = r.image.at(x, y);
    if (p[0] > 240 && p[1] > 240 && p[2] > 240) ++white;
  }
  for (int x = x0; x < x0 + 6; ++x) {
    const uint8_t* p = r.image.at(x, y);
    if (p[2] > p[1] && p[1] < 60) ++violet;  // dark violet: blue over green, little green
  }
  for (int x = x1 - 6; x <= x1; ++x) {
    const uint8_t* p = r.image.at(x, y);
    if (p[0] > 180 && p[1] > 180 && p[2] < 120) ++yellowish;
  }
  EXPECT_GE(white, 3) << "marker runs missing";
  EXPECT_GE(violet, 3) << "left end of the ramp is not dark violet";
  EXPECT_GE(yellowish, 3) << "right end of the ramp is not yellow";
}

TEST(HeadlessRender, InteropStripShowsTheBufferContents) {
  Rendered r = render("strip", "");
  expectInteropStrip(r);
  EXPECT_NE(r.layout["interop_writer"].get<std::string>(), "failed");
}

// UI scale 2.6-3.0 froze frames for 13-40 s (a label loop stepped backwards once the warp grid
// had no height); the scale is saved, so the next plain start froze too.
TEST(HeadlessRender, LargeUiScaleFramesFinishQuickly) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = runReducelab("--headless --frames 3 --ui-scale 2.8 --size 1280x720", "timeout 60 ");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_LT(s, 12.0);
  const std::string settings = tempPath("scale-settings.json");
  { std::ofstream(settings) << "{\"ui_scale\": 3.0}"; }
  const auto t1 = std::chrono::steady_clock::now();
  r = runReducelab("--headless --frames 3 --size 1600x900 --settings " + settings, "timeout 60 ");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count(), 12.0);
}

// The first headless frame showed no tab bars: --frames 1 must show what --frames 2 shows.
TEST(HeadlessRender, FirstFrameIsComplete) {
  const std::string a = tempPath("frame1.png"), b = tempPath("frame2.png");
  ASSERT_EQ(runReducelab("--headless --frames 1 --screenshot " + a).exitCode, 0);
  ASSERT_EQ(runReducelab("--headless --frames 2 --screenshot " + b).exitCode, 0);
  const Image x = loadPng(a), y = loadPng(b);
  ASSERT_TRUE(x.ok() && y.ok());
  ASSERT_EQ(x.width, y.width);
  long differ = 0;
  for (int yy = 0; yy < x.height; ++yy)
    for (int xx = 0; xx < x.width; ++xx)
      if (std::memcmp(x.at(xx, yy), y.at(xx, yy), 3) != 0) ++differ;
  EXPECT_LT(differ, long(x.width) * x.height / 200) << differ << " pixels differ";
}
