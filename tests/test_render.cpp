// Headless rendering through EGL (Mesa here, NVIDIA on a GPU machine): the PNG has the asked
// size, is not blank, and shows the interop strip where the layout says it is.
#include <gtest/gtest.h>

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
