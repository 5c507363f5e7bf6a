// The plot widget: its layout (ranges, ticks, bars), the exported figures (cairo: the PDF holds every
// text with DejaVu embedded, the PNG shows the bars, the SVG is well-formed) and drawPlot on an ImGui
// context without any GL (vertices only).
#include <gtest/gtest.h>
#include <imgui.h>
#include <sys/wait.h>

#include <cfloat>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <string>

#include "../gui/src/plot_layout.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/gui/plot.hpp"
#include "reducelab/gui/plots.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/results_store.hpp"
#include "reducelab/run_tables.hpp"
#include "test_support.hpp"

using namespace rl::gui;

namespace {

// A figure drawn by the writer registered under this name (figureFormats()).
std::string renderFigure(const PlotSpec& spec, std::string_view format, const FigureOptions& o = {},
                         std::string* error = nullptr) {
  const FigureWriter* w = figureFormats().find(format);
  EXPECT_NE(w, nullptr) << "no figure writer named " << format;
  return w ? w->render(spec, o, error) : std::string();
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Parses the document with Python's minidom: exit 0 only for well-formed XML.
bool isWellFormedXml(const std::string& text, const std::string& name) {
  const std::string path = rl::test::tempPath(name);
  std::ofstream(path) << text;
  const std::string cmd =
      "python3 -c \"import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])\" '" + path + "'";
  const int status = std::system(cmd.c_str());
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

float approxMeasure(const std::string& s, float px) { return 0.55f * px * float(s.size()); }

PlotSpec bandwidthSpec() {
  PlotSpec spec;
  spec.title = "Bandwidth vs N";
  spec.subtitle = "H200, float32, block 512";
  spec.x.label = "N (elements)";
  spec.x.scale = AxisScale::Log2;
  spec.y.label = "GB/s";
  spec.y.includeZero = true;
  spec.y2.label = "time (ms)";
  Series a;
  a.name = "k7 grid-stride";
  for (int k = 10; k <= 28; k += 2) {
    a.x.push_back(std::ldexp(1.0, k));
    a.y.push_back(4000.0 * k / 28.0);
    a.yLow.push_back(a.y.back() * 0.95);
    a.yHigh.push_back(a.y.back() * 1.03);
    a.pointLabels.push_back(k == 28 ? "x2.33" : "");
  }
  Series b = a;
  b.name = "a<b & \"c\"";
  b.kind = SeriesKind::Scatter;
  for (double& y : b.y) y *= 0.7;
  b.yLow.clear();
  b.yHigh.clear();
  Series t;
  t.name = "time";
  t.secondaryY = true;
  t.dashed = true;
  t.x = a.x;
  for (double x : a.x) t.y.push_back(x * 4 / 4.0e9 * 1e3);
  spec.series = {a, b, t};
  spec.references.push_back({4814, "theoretical peak 4814 GB/s"});
  spec.shades.push_back({0, 50.0 * 1024 * 1024 / 4, "fits in L2"});
  return spec;
}

PlotSpec barSpec() {
  PlotSpec spec;
  spec.title = "Kernels";
  spec.x.label = "kernel";
  spec.x.categories = {"k1", "k2", "k3", "cub"};
  spec.y.label = "GB/s";
  for (int s = 0; s < 2; ++s) {
    Series bars;
    bars.name = s == 0 ? "int32" : "float32";
    bars.kind = SeriesKind::Bars;
    bars.x = {0, 1, 2, 3};
    bars.y = {800.0 + s * 10, 1500, 3000, 4500};
    bars.yLow = {780, 1450, 2900, 4400};
    bars.yHigh = {820, 1550, 3100, 4600};
    bars.pointLabels = {"x1.00", "x1.9", "x3.8", "x5.6"};
    spec.series.push_back(bars);
  }
  return spec;
}

}  // namespace

TEST(Figure, SvgIsWellFormedWithItsSizeAndDarkThemeToo) {
  FigureOptions o;
  o.width = 800;
  o.height = 450;
  const std::string svg = renderFigure(bandwidthSpec(), "svg", o);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("width=\"800\""), std::string::npos);
  EXPECT_NE(svg.find("height=\"450\""), std::string::npos);
  EXPECT_TRUE(isWellFormedXml(svg, "plot-white.svg"));
  o.whiteBackground = false;
  EXPECT_TRUE(isWellFormedXml(renderFigure(bandwidthSpec(), "svg", o), "plot-dark.svg"));
}

TEST(Figure, PdfHasEveryTextOfTheFigureAndEmbedsDejaVu) {
  const std::string pdf = renderFigure(bandwidthSpec(), "pdf");
  ASSERT_EQ(pdf.rfind("%PDF-", 0), 0u);
  const std::string path = rl::test::tempPath("plot.pdf");
  std::ofstream(path, std::ios::binary) << pdf;
  REQUIRE_PDFTOTEXT();
  const std::string text = rl::test::pdfText(path);
  for (const char* t : {"Bandwidth vs N", "H200, float32, block 512", "N (elements)", "GB/s", "time (ms)",
                        "k7 grid-stride", "a<b & \"c\"", "theoretical peak 4814 GB/s", "fits in L2", "x2.33"})
    EXPECT_NE(text.find(t), std::string::npos) << "missing from the PDF: " << t << "\n" << text;
  const PlotLayout L = computePlotLayout(bandwidthSpec(), 960, 540, 14, approxMeasure);
  for (const PlotTick& t : L.x.ticks) EXPECT_NE(text.find(t.label.text.substr(0, 2)), std::string::npos);
  const std::string fonts = rl::test::pdfFonts(path);
  EXPECT_NE(fonts.find("DejaVuSans"), std::string::npos) << fonts;
  EXPECT_EQ(fonts.find(" no  "), std::string::npos) << "a font is not embedded:\n" << fonts;
}

TEST(Figure, PngIsTwiceTheLayoutSizeAndShowsBarsInTheirColours) {
  const PlotSpec spec = barSpec();
  const std::string png = renderFigure(spec, "png");
  const std::string path = rl::test::tempPath("plot-bars.png");
  std::ofstream(path, std::ios::binary) << png;
  const rl::test::Image img = rl::test::loadPng(path);
  ASSERT_TRUE(img.ok());
  EXPECT_EQ(img.width, 1920);
  EXPECT_EQ(img.height, 1080);
  // The middle of the first bar of each series is that series' colour.
  const PlotLayout L = computePlotLayout(spec, 960, 540, 14, approxMeasure);
  for (size_t s = 0; s < 2; ++s) {
    const PlotRect& bar = L.series[s].points[3].bar;
    const uint8_t* px = img.at(int((bar.x0 + bar.x1)), int((bar.y0 + bar.y1)));
    const uint32_t c = L.series[s].color;
    EXPECT_NEAR(px[0], int(c & 0xFF), 40) << s;
    EXPECT_NEAR(px[1], int((c >> 8) & 0xFF), 40) << s;
    EXPECT_NEAR(px[2], int((c >> 16) & 0xFF), 40) << s;
  }
}

TEST(Figure, EmptySpecShowsItsMessage) {
  PlotSpec spec;
  spec.emptyMessage = "press Run <F5> & wait";
  spec.series.emplace_back().name = "nothing yet";
  const std::string path = rl::test::tempPath("plot-empty.pdf");
  std::ofstream(path, std::ios::binary) << renderFigure(spec, "pdf");
  REQUIRE_PDFTOTEXT();
  EXPECT_NE(rl::test::pdfText(path).find("press Run <F5> & wait"), std::string::npos);
  EXPECT_TRUE(isWellFormedXml(renderFigure(PlotSpec{}, "svg"), "plot-default.svg"));
}

TEST(Figure, InvalidUtf8AndControlCharactersStillRender) {
  PlotSpec spec = barSpec();
  spec.series[0].name = std::string("bad \xff\xfe bytes \x01 and \xc3\xa9");
  spec.title = "caf\xc3\xa9 \xe2\x86\x92 GB/s";
  std::string error;
  EXPECT_TRUE(isWellFormedXml(renderFigure(spec, "svg", {}, &error), "plot-utf8.svg")) << error;
  const std::string path = rl::test::tempPath("plot-utf8.pdf");
  std::ofstream(path, std::ios::binary) << renderFigure(spec, "pdf", {}, &error);
  EXPECT_EQ(error, "");
  REQUIRE_PDFTOTEXT();
  EXPECT_NE(rl::test::pdfText(path).find("caf\xc3\xa9 \xe2\x86\x92 GB/s"), std::string::npos);
}

TEST(PlotLayout, Log2AxisTicksAreLabelledPowersOfTwo) {
  const PlotSpec spec = bandwidthSpec();
  const PlotLayout L = computePlotLayout(spec, 960, 540, 14, approxMeasure);
  ASSERT_GE(L.x.ticks.size(), 3u);
  EXPECT_LE(L.x.ticks.size(), 10u);
  const std::regex power("2\\^(-?[0-9]+)");
  for (const PlotTick& t : L.x.ticks) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(t.label.text, m, power)) << t.label.text;
    EXPECT_EQ(t.value, std::ldexp(1.0, std::stoi(m[1].str())));
  }
  // A wide range is thinned to at most ~10 labels.
  PlotSpec wide = spec;
  wide.series.resize(1);
  wide.series[0].x = {1, std::ldexp(1.0, 40)};
  wide.series[0].y = {1, 2};
  wide.series[0].yLow.clear();
  wide.series[0].yHigh.clear();
  wide.series[0].pointLabels.clear();
  const PlotLayout W = computePlotLayout(wide, 960, 540, 14, approxMeasure);
  EXPECT_LE(W.x.ticks.size(), 10u);
  EXPECT_GE(W.x.ticks.size(), 3u);
}

TEST(PlotLayout, BarsAreGroupedInsideTheirCategorySlot) {
  const PlotSpec spec = barSpec();
  // Grouped: the two bars of a category sit side by side within 0.8 of its slot.
  const PlotLayout L = computePlotLayout(spec, 960, 540, 14, approxMeasure);
  EXPECT_DOUBLE_EQ(L.x.lo, -0.5);
  EXPECT_DOUBLE_EQ(L.x.hi, 3.5);
  EXPECT_DOUBLE_EQ(L.y.lo, 0.0);  // bars start at zero
  const float slot = L.x.map(1) - L.x.map(0);
  for (int i = 0; i < 4; ++i) {
    const PlotRect& a = L.series[0].points[size_t(i)].bar;
    const PlotRect& b = L.series[1].points[size_t(i)].bar;
    EXPECT_LE(a.x1, b.x0);
    EXPECT_LE(b.x1 - a.x0, 0.8f * slot + 0.01f);
    EXPECT_GE(a.x0, L.x.map(i) - 0.4f * slot - 0.01f);
    EXPECT_NEAR(a.y1, L.y.map(0), 0.01f);
  }
}

TEST(PlotLayout, LinearTicksAreNiceAndRangesFollowTheSpec) {
  PlotSpec spec;
  Series s;
  s.x = {0, 1, 2, 3, 4, 5, 6, 7};
  s.y = {120, 900, 1800, 2600, 3300, 4000, 4500, 4700};
  spec.series = {s};
  spec.y.includeZero = true;
  PlotLayout L = computePlotLayout(spec, 960, 540, 14, approxMeasure);
  EXPECT_DOUBLE_EQ(L.y.lo, 0.0);
  EXPECT_GE(L.y.hi, 4700.0);
  EXPECT_LE(L.y.hi, 4700.0 * 1.06);
  EXPECT_GE(L.y.ticks.size(), 4u);
  EXPECT_LE(L.y.ticks.size(), 8u);
  const double step = L.y.ticks[1].value - L.y.ticks[0].value;
  const double mant = step / std::pow(10.0, std::floor(std::log10(step)));
  EXPECT_TRUE(std::fabs(mant - 1) < 1e-9 || std::fabs(mant - 2) < 1e-9 || std::fabs(mant - 5) < 1e-9) << step;
  for (const PlotTick& t : L.y.ticks) {
    EXPECT_GE(t.pos, L.plot.y0 - 0.01f);
    EXPECT_LE(t.pos, L.plot.y1 + 0.01f);
  }
  // y grows upwards; the data area leaves room for the tick labels.
  EXPECT_GT(L.y.map(0), L.y.map(4000));
  EXPECT_GT(L.plot.x0, 0);
  EXPECT_LT(L.plot.y1, 540);

  // Explicit limits win over the data; NaN means automatic.
  spec.y.min = 1000;
  spec.y.max = 2000;
  spec.x.min = kNaN;
  L = computePlotLayout(spec, 960, 540, 14, approxMeasure);
  EXPECT_DOUBLE_EQ(L.y.lo, 1000);
  EXPECT_DOUBLE_EQ(L.y.hi, 2000);
  EXPECT_LT(L.x.lo, 0);
  EXPECT_GT(L.x.hi, 7);
  EXPECT_EQ(L.y.ticks.front().label.text, "1000");
}

TEST(PlotLayout, Log10TicksArePowersOfTenAndLegendListsNamedSeries) {
  PlotSpec spec;
  spec.x.scale = AxisScale::Log10;
  Series a;
  a.name = "a";
  a.x = {10, 100, 1000, 1e4, 1e5};
  a.y = {1, 2, 3, 4, 5};
  Series unnamed = a;
  unnamed.name.clear();
  spec.series = {a, unnamed};
  const PlotLayout L = computePlotLayout(spec, 960, 540, 14, approxMeasure);
  ASSERT_GE(L.x.ticks.size(), 3u);
  for (const PlotTick& t : L.x.ticks) {
    const double k = std::log10(t.value);
    EXPECT_NEAR(k, std::round(k), 1e-9) << t.value;
  }
  EXPECT_EQ(L.x.ticks.front().label.text, "10");
  EXPECT_TRUE(L.legend.visible);
  ASSERT_EQ(L.legend.entries.size(), 1u);
  EXPECT_EQ(L.legend.entries[0].series, 0);
  EXPECT_NE(L.series[0].color, L.series[1].color);  // palette colours differ
  EXPECT_NE(paletteColor(0), paletteColor(1));
  EXPECT_EQ(paletteColor(0), paletteColor(kPaletteColors));  // the palette cycles
}

TEST(PlotLayout, NonPositiveAndNanValuesOnLogAxesAreSkipped) {
  PlotSpec spec;
  spec.x.scale = AxisScale::Log2;
  spec.y.scale = AxisScale::Log10;
  Series s;
  s.name = "mixed";
  s.x = {-4, 0, 1, 2, kNaN, 8, 16, std::numeric_limits<double>::infinity()};
  s.y = {1, 1, 10, -5, 100, kNaN, 1000, 10};
  s.yLow = {0, 0, -1, 0, 50, 0, 900, 0};
  s.yHigh = {2, 2, 20, 0, 150, 0, 1100, 0};
  spec.series = {s};
  spec.references.push_back({-1, "never"});
  spec.shades.push_back({0, 4, "from zero"});
  const PlotLayout L = computePlotLayout(spec, 640, 360, 13, approxMeasure);
  const std::vector<PlotPoint>& p = L.series[0].points;
  ASSERT_EQ(p.size(), 8u);
  const bool expected[] = {false, false, true, false, false, false, true, false};
  for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(p[i].valid, expected[i]) << i;
  EXPECT_FALSE(p[2].band);  // yLow <= 0 cannot be placed on a log axis
  EXPECT_TRUE(p[6].band);
  EXPECT_GT(L.x.lo, 0);
  EXPECT_GT(L.y.lo, 0);
  EXPECT_FALSE(L.references[0].visible);
  EXPECT_TRUE(L.shades[0].visible);  // x0 = 0 on a log axis: from the left edge
  EXPECT_FLOAT_EQ(L.shades[0].px0, L.plot.x0);
  EXPECT_TRUE(isWellFormedXml(renderFigure(spec, "svg"), "plot-log-nan.svg"));
}

// The N sweep's shape: the free corner for the legend is top left, where the shade labels are.
// The labels move to the legend's right (inside their shade) instead of being covered.
TEST(PlotLayout, ShadeLabelsAreNotHiddenByTheLegend) {
  PlotSpec spec;
  spec.x.scale = AxisScale::Log2;
  spec.y.includeZero = true;
  const std::pair<const char*, double> kernels[] = {
      {"k3 sequential", 780}, {"k7 grid-stride", 3800}, {"k10 16-byte loads", 4520}, {"cub CUB DeviceReduce", 4520}};
  for (const auto& [name, plateau] : kernels) {  // each rises from ~0 to its plateau around 2^22
    Series s;
    s.name = name;
    for (int k = 10; k <= 35; ++k) {
      s.x.push_back(std::ldexp(1.0, k));
      s.y.push_back(plateau / (1.0 + std::exp(-(k - 22.0))));
    }
    spec.series.push_back(s);
  }
  spec.references.push_back({4814, "theoretical peak 4814 GB/s"});
  spec.shades.push_back({std::ldexp(1.0, 10), std::ldexp(1.0, 23), "input fits in L2 (60 MiB)"});
  spec.shades.push_back({std::ldexp(1.0, 10), std::ldexp(1.0, 23.8), "launch latency dominates (time < 4 x 3.7 us)"});
  const PlotLayout L = computePlotLayout(spec, 1920, 1080, 30, approxMeasure);  // the PNG export: 15 px x 2
  ASSERT_TRUE(L.legend.visible);
  EXPECT_LT(L.legend.box.x0, L.plot.x0 + 0.5f * L.plot.width());  // left
  EXPECT_LT(L.legend.box.y0, L.plot.y0 + 0.5f * L.plot.height());  // top
  for (const PlotShadeLayout& S : L.shades) {
    ASSERT_FALSE(S.label.empty());
    const float w = approxMeasure(S.label.text, S.label.px);
    const float x0 = S.label.x - 0.5f * w, x1 = S.label.x + 0.5f * w;
    const PlotRect& b = L.legend.box;
    const bool hidden = x0 < b.x1 && b.x0 < x1 && S.label.y < b.y1 && b.y0 < S.label.y + S.label.px;
    EXPECT_FALSE(hidden) << S.label.text;
    EXPECT_GE(x0, S.px0);
    EXPECT_LE(x1, S.px1) << S.label.text;
    const float centred = 0.5f * (S.px0 + S.px1);  // where it would be without the legend
    EXPECT_LT(centred - 0.5f * w, b.x1) << "the case no longer exercises the move";
  }
}

// drawPlot needs only an ImGui context and a built font atlas; no GL.
class PlotWidget : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = ImGui::GetCurrentContext();
    ctx_ = ImGui::CreateContext();
    ImGui::SetCurrentContext(ctx_);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1024, 768);
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override {
    ImGui::DestroyContext(ctx_);
    ImGui::SetCurrentContext(previous_);
  }
  // One frame with the plot in a full-screen window; returns what drawPlot returned.
  PlotHit frame(const PlotSpec* spec, ImVec2 size = ImVec2(800, 500)) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("plots", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    origin_ = ImGui::GetCursorScreenPos();
    fontPx_ = ImGui::GetFontSize();
    PlotHit hit;
    if (spec) hit = drawPlot("plot", *spec, size);
    ImGui::End();
    ImGui::Render();
    return hit;
  }
  float measure(const std::string& s, float px) const {
    return ImGui::GetFont()->CalcTextSizeA(px, FLT_MAX, 0.0f, s.c_str()).x;
  }

  ImGuiContext* previous_ = nullptr;
  ImGuiContext* ctx_ = nullptr;
  ImVec2 origin_;
  float fontPx_ = 13;
};

TEST_F(PlotWidget, DrawsVerticesWithoutAGlContext) {
  frame(nullptr);
  const int windowOnly = ImGui::GetDrawData()->TotalVtxCount;
  const PlotSpec spec = bandwidthSpec();
  frame(&spec);
  ASSERT_NE(ImGui::GetDrawData(), nullptr);
  EXPECT_GT(ImGui::GetDrawData()->TotalVtxCount, 0);
  EXPECT_GT(ImGui::GetDrawData()->TotalVtxCount, windowOnly + 1000);
  const PlotSpec bars = barSpec();
  frame(&bars);
  EXPECT_GT(ImGui::GetDrawData()->TotalVtxCount, windowOnly);
  const PlotSpec empty;
  frame(&empty);
  EXPECT_GT(ImGui::GetDrawData()->TotalVtxCount, windowOnly);
  frame(&spec, ImVec2(0, 0));  // 0: the available region
  frame(&spec, ImVec2(3, 2));  // tiny: still no crash
}

TEST_F(PlotWidget, HoveringAPointReportsItAndClickingClicksIt) {
  const PlotSpec spec = barSpec();
  const ImVec2 size(800, 500);
  frame(&spec, size);
  const PlotLayout L = computePlotLayout(spec, size.x, size.y, fontPx_, [this](const std::string& s, float px) {
    return measure(s, px);
  });
  const PlotPoint& p = L.series[1].points[2];
  ASSERT_TRUE(p.valid);
  ImGuiIO& io = ImGui::GetIO();
  // Inside the bar, a little below its top.
  io.MousePos = ImVec2(origin_.x + p.px, origin_.y + p.py + 10);
  frame(&spec, size);
  PlotHit hit = frame(&spec, size);
  EXPECT_TRUE(hit.hovered);
  EXPECT_FALSE(hit.clicked);
  EXPECT_EQ(hit.series, 1);
  EXPECT_EQ(hit.point, 2);
  io.MouseDown[0] = true;
  frame(&spec, size);
  io.MouseDown[0] = false;
  hit = frame(&spec, size);
  EXPECT_TRUE(hit.clicked);
  EXPECT_EQ(hit.series, 1);
  EXPECT_EQ(hit.point, 2);
  // Far from every point: nothing.
  io.MousePos = ImVec2(origin_.x + L.plot.x0 + 2, origin_.y + L.plot.y0 + 2);
  frame(&spec, size);
  EXPECT_FALSE(frame(&spec, size).hovered);
}

TEST_F(PlotWidget, NanAndNegativeValuesOnLogAxesDoNotCrash) {
  PlotSpec spec;
  spec.x.scale = AxisScale::Log2;
  spec.y.scale = AxisScale::Log10;
  spec.x.min = -5;  // not placeable on a log axis: ignored
  for (SeriesKind kind : {SeriesKind::Line, SeriesKind::Scatter, SeriesKind::Bars}) {
    Series s;
    s.kind = kind;
    s.name = "bad";
    s.x = {-1, 0, kNaN, 4, 8, 16};
    s.y = {5, kNaN, 3, -2, 0, 7};
    s.yLow = {kNaN, 1, 1, 1, 1, -3};
    s.yHigh = {1, 1, 1, 1, 1, 9};
    s.pointLabels = {"a", "b"};
    spec.series.push_back(s);
  }
  ImGui::GetIO().MousePos = ImVec2(400, 300);
  for (int i = 0; i < 3; ++i) frame(&spec);
  EXPECT_GT(ImGui::GetDrawData()->TotalVtxCount, 0);
  EXPECT_TRUE(isWellFormedXml(renderFigure(spec, "svg"), "plot-widget-log.svg"));
}

// Exported figures of the saved H200 sweeps (docs/data): the legend hides no data, occupancy
// curves that coincide are one line, the type figure keeps one axis and no line joins its
// categories. Each of these was wrong before (issue: figures that fit a page).
namespace {
std::vector<rl::Measurement> savedSweep(const std::string& axis) {
  const std::string src = rl::test::sourceDir();
  std::string error;
  auto rows = rl::measurementsFromJson(
      nlohmann::json::parse(rl::test::readFile(src + "/docs/data/h200-sweep-" + axis + ".json")), &error);
  EXPECT_FALSE(rows.empty()) << error;
  return rows;
}
}  // namespace

TEST(FigureLayout, LegendsOfTheSavedSweepsHideNoData) {
  const rl::DeviceInfo h200 = rl::assumedH200();
  for (const char* axis : {"n", "block", "type", "kernel"}) {
    const std::vector<rl::Measurement> rows = savedSweep(axis == std::string("kernel") ? "type" : axis);
    const Figure f = figureForSweep(axis, rows, rl::Peaks{4814, 4521, 4256, "test"}, h200);
    for (const auto& [w, h] : {std::pair{960.0f, 540.0f}, std::pair{1920.0f, 1080.0f}}) {
      const PlotLayout L = computePlotLayout(f.spec, w, h, 14 * w / 960, approxMeasure);
      ASSERT_TRUE(L.legend.visible) << axis;
      EXPECT_EQ(L.legend.covered, 0) << axis << " at " << w;
      for (const PlotSeriesLayout& S : L.series)
        for (const PlotPoint& p : S.points) {
          if (!p.valid) continue;
          EXPECT_FALSE(L.legend.box.contains(p.px, p.py)) << axis << ": a point under the legend";
          if (S.barWidth > 0) {
            const PlotRect& b = L.legend.box;
            EXPECT_FALSE(p.bar.x0 < b.x1 && b.x0 < p.bar.x1 && p.bar.y0 < b.y1 && b.y0 < p.bar.y1) << axis;
          }
        }
    }
  }
}

TEST(FigureLayout, CoincidingOccupancyCurvesAreOneLineNamedForEveryKernel) {
  const Figure f = blockSweepFigure(savedSweep("block"), rl::Peaks{});
  int occupancy = 0;
  for (const Series& s : f.spec.series)
    if (s.secondaryY) {
      ++occupancy;
      for (const Series& t : f.spec.series)  // no two right-axis series draw the same curve
        if (&t != &s && t.secondaryY) EXPECT_FALSE(t.x == s.x && t.y == s.y) << s.name << " = " << t.name;
    }
  EXPECT_GE(occupancy, 1);
  bool named = false;
  for (const Series& s : f.spec.series) named |= s.name == "occupancy (k3, k7, k10)";
  EXPECT_TRUE(named) << "k3, k7 and k10 have the same theoretical occupancy at every block size";
}

TEST(FigureLayout, OccupancyFigureDrawsItsTwoSeriesInTwoColours) {
  const Figure f = occupancyFigure(rl::assumedH200(), "k7", 32, 0, 4);
  ASSERT_EQ(f.spec.series.size(), 2u);
  const PlotLayout L = computePlotLayout(f.spec, 960, 540, 14, approxMeasure);
  EXPECT_NE(L.series[0].color, L.series[1].color);
  EXPECT_NE(f.spec.series[0].secondaryY, f.spec.series[1].secondaryY);
}

TEST(FigureLayout, TypeSweepHasOneAxisAndNoLinesAcrossCategories) {
  const Figure f = typeSweepFigure(savedSweep("type"), rl::Peaks{4814, 4521, 4256, "test"});
  for (const Series& s : f.spec.series) {
    EXPECT_FALSE(s.secondaryY) << s.name << ": a second scale under the peak lines misleads";
    EXPECT_NE(s.kind, SeriesKind::Line) << s.name << ": a line joins unrelated categories";
    EXPECT_EQ(s.pointLabels.size(), s.y.size()) << s.name << ": elements/s is written on every bar";
  }
}

namespace rl::gui {
namespace {

struct TextBox {
  std::string text;
  float x0, y0, x1, y1;
};

// Every text a plot layout places (title, axes, ticks, reference and shade labels, legend, the
// empty-plot message, point labels), as rectangles.
std::vector<TextBox> allTexts(const PlotLayout& L) {
  std::vector<TextBox> out;
  auto add = [&](const PlotText& t) {
    if (t.empty()) return;
    const float w = approxMeasure(t.text, t.px);
    const float x0 = t.align == TextAlign::Left ? t.x : t.align == TextAlign::Center ? t.x - 0.5f * w : t.x - w;
    out.push_back({t.text, x0, t.y, x0 + w, t.y + t.px});
  };
  for (const PlotText* t : {&L.title, &L.subtitle, &L.xLabel, &L.emptyMessage}) add(*t);
  for (const AxisLayout* a : {&L.x, &L.y, &L.y2})
    for (const PlotTick& t : a->ticks) add(t.label);
  for (const PlotReferenceLayout& r : L.references) add(r.label);
  for (const PlotShadeLayout& s : L.shades) add(s.label);
  for (const PlotLegendEntry& e : L.legend.entries) add(e.text);
  for (const PlotSeriesLayout& s : L.series)
    for (const PlotPoint& p : s.points) add(p.label);
  return out;
}

// The live plot before any run, on a GPU whose measured read peak is close to the theoretical
// one (H200: 4814 and ~4500 GB/s): the two peak labels, the ticks and the "no runs yet" message
// must not be drawn over each other at any panel size (they were on the H200 at 1600x900).
TEST(PlotLayout, NoTextOverlapsAnotherInAnEmptyPlotWithClosePeakLines) {
  const std::pair<double, double> peaks[] = {{4814, 4530}, {4814, 4790}, {4814, 4813}, {2039, 1870}, {900, 880}};
  for (const auto& [theoretical, read] : peaks)
    for (const auto& [w, h] : {std::pair{320.f, 180.f}, {480.f, 200.f}, {640.f, 360.f}, {960.f, 540.f}, {1600.f, 420.f}})
      for (float font : {13.f, 20.f, 30.f}) {
        PlotSpec spec;
        spec.title = "Measured bandwidth";
        spec.subtitle = "sum, float32, N = 2^24, block 512, cold L2";
        spec.x.label = "run";
        spec.y.label = "GB/s";
        spec.y.includeZero = true;
        spec.emptyMessage = "No runs yet: press Run (F5)";
        char a[64], b[64];
        std::snprintf(a, sizeof a, "theoretical peak %.0f GB/s", theoretical);
        std::snprintf(b, sizeof b, "measured read %.0f GB/s", read);
        spec.references.push_back({theoretical, a});
        spec.references.push_back({read, b});
        const PlotLayout L = computePlotLayout(spec, w, h, font, approxMeasure);
        const std::vector<TextBox> t = allTexts(L);
        for (size_t i = 0; i < t.size(); ++i)
          for (size_t j = i + 1; j < t.size(); ++j) {
            const bool overlap = t[i].x0 < t[j].x1 - 0.5f && t[j].x0 < t[i].x1 - 0.5f && t[i].y0 < t[j].y1 - 0.5f &&
                                 t[j].y0 < t[i].y1 - 0.5f;
            EXPECT_FALSE(overlap) << "'" << t[i].text << "' over '" << t[j].text << "' at " << w << "x" << h
                                  << " font " << font << " peaks " << theoretical << "/" << read;
          }
      }
}

// A reference label never reaches past the plot's left edge: on a narrow plot the short form, or
// none (the GPU machine's layout matrix found "eoretical peak 3352 GB/s" cut in a 358-px panel).
TEST(PlotLayout, ReferenceLabelsStayInsideTheirPlotAtEveryWidth) {
  for (float w : {120.f, 180.f, 240.f, 320.f, 480.f, 960.f})
    for (float font : {13.f, 20.f, 30.f}) {
      PlotSpec spec;
      spec.title = "Types";
      spec.y.label = "GB/s";
      spec.y.includeZero = true;
      spec.x.label = "type";
      spec.emptyMessage = "No runs";
      spec.references.push_back({3352, "theoretical peak 3352 GB/s", 0, true, "peak 3352"});
      spec.references.push_back({3142, "measured read 3142 GB/s", 0, true, "read 3142"});
      const PlotLayout L = computePlotLayout(spec, w, 300.f, font, approxMeasure);
      for (const PlotReferenceLayout& r : L.references) {
        if (r.label.text.empty()) continue;
        const float width = approxMeasure(r.label.text, r.label.px);
        EXPECT_GE(r.label.x - width, L.plot.x0 - 0.5f) << "'" << r.label.text << "' at width " << w << " font " << font;
      }
    }
}

}  // namespace
}  // namespace rl::gui

namespace {
rl::Measurement timedRow(const std::string& kernel, rl::FinalStage final, double kernelMs, double e2eMs) {
  rl::Measurement m;
  m.ok = true;
  m.config.kernel = kernel;
  m.config.n = uint64_t(1) << 24;
  m.geometry.final = final;
  m.kernelMs = {kernelMs};
  m.endToEndMs = {e2eMs};
  m.kernel = rl::Stats::of(m.kernelMs);
  m.endToEnd = rl::Stats::of(m.endToEndMs);
  m.bytesRead = 1e9;
  m.bandwidthGBs = m.bytesRead / (kernelMs * 1e-3) / 1e9;
  m.endToEndGBs = m.bytesRead / (e2eMs * 1e-3) / 1e9;
  return m;
}
}  // namespace

// One basis per screen: with a CPU-final row beside a GPU-final one, the headline, the live plot,
// the ladder's bars and the table all give the end-to-end figure and name it; the same rows
// without the CPU final give the kernel figure everywhere (the headline once said 3082 GB/s,
// kernel, and the table 1891.9, end to end, for one run).
TEST(FigureLayout, HeadlinePlotsAndTableShowOneNamedBasis) {
  rl::Peaks peaks;
  peaks.theoreticalGBs = 4814;
  for (const bool withCpuFinal : {true, false}) {
    SCOPED_TRACE(withCpuFinal ? "a CPU final among GPU finals" : "GPU finals only");
    std::vector<rl::Measurement> rows = {timedRow("k7", withCpuFinal ? rl::FinalStage::Cpu : rl::FinalStage::LastBlock, 1.0, 4.0),
                                         timedRow("cub", rl::FinalStage::Gpu, 0.5, 2.0)};
    rl::ResultsStore store;
    for (const rl::Measurement& m : rows) store.append(m);
    const rl::TimeBasis basis = store.basis();
    EXPECT_EQ(basis, withCpuFinal ? rl::TimeBasis::EndToEnd : rl::TimeBasis::Kernel);
    const double cubGBs = withCpuFinal ? 1e9 / 2.0e-3 / 1e9 : 1e9 / 0.5e-3 / 1e9;
    const std::string name = withCpuFinal ? "end to end" : "kernel";
    const std::optional<Headline> head = liveHeadline(store, peaks, basis);
    ASSERT_TRUE(head);
    char value[32];
    std::snprintf(value, sizeof value, "%.0f GB/s", cubGBs);
    EXPECT_EQ(head->value, value);
    EXPECT_EQ(head->detail.rfind(name + " time", 0), 0u) << head->detail;
    const Figure live = liveBandwidthFigure(store, peaks, basis);
    EXPECT_EQ(live.spec.y.label, "GB/s (" + name + ")");
    ASSERT_EQ(live.spec.series.size(), 2u);
    EXPECT_DOUBLE_EQ(live.spec.series[1].y.at(0), cubGBs);
    const Figure ladder = ladderFigure(rows, peaks);
    EXPECT_EQ(ladder.spec.y.label, "GB/s (" + name + ")");
    EXPECT_DOUBLE_EQ(ladder.spec.series.at(0).y.at(1), cubGBs);
    const rl::Table t = rl::benchTable(rows, peaks);
    const auto col = std::find(t.headers.begin(), t.headers.end(), "GB/s (" + name + ")");
    ASSERT_NE(col, t.headers.end());
    EXPECT_EQ(t.rows[1][size_t(col - t.headers.begin())], rl::fixed(cubGBs, 1));
  }
}

// Series identity: the first 35 series of a figure differ in colour or marker, the colours are
// told apart by the common colour-vision deficiencies (no two within a small distance after a
// deuteranopia or protanopia simulation), and a figure's kernels never share a style (k3, k12 and
// CUB were all green: a colour per catalogue entry, repeating every ten).
TEST(FigureLayout, SeriesStylesAreDistinctAndColourBlindSafe) {
  std::set<std::pair<uint32_t, Marker>> styles;
  for (int i = 0; i < kPaletteColors * kPaletteMarkers; ++i) styles.insert({paletteColor(i), paletteMarker(i)});
  EXPECT_EQ(styles.size(), size_t(kPaletteColors * kPaletteMarkers));
  // Brettel/Vienot-style simulation in linear RGB (Machado et al. 2009, severity 1.0 matrices).
  auto linear = [](uint32_t c, int shift) {
    const double v = double((c >> shift) & 0xFF) / 255.0;
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  const double deutan[3][3] = {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}};
  const double protan[3][3] = {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}};
  for (const auto* sim : {deutan, protan})
    for (int a = 0; a < kPaletteColors; ++a)
      for (int b = a + 1; b < kPaletteColors; ++b) {
        double d2 = 0;
        for (int row = 0; row < 3; ++row) {
          double va = 0, vb = 0;
          for (int k = 0; k < 3; ++k) {
            va += sim[row][k] * linear(paletteColor(a), 8 * k);
            vb += sim[row][k] * linear(paletteColor(b), 8 * k);
          }
          d2 += (std::cbrt(std::max(va, 0.0)) - std::cbrt(std::max(vb, 0.0))) *
                (std::cbrt(std::max(va, 0.0)) - std::cbrt(std::max(vb, 0.0)));
        }
        EXPECT_GT(std::sqrt(d2), 0.15) << "colours " << a << " and " << b << " look alike to a colour-blind reader";
      }
  std::vector<rl::Measurement> rows;
  for (const char* k : {"k3", "k12", "cub", "k7", "k10", "k13", "k14", "k8"})
    for (int e : {20, 22}) {
      rl::Measurement m = timedRow(k, rl::FinalStage::Gpu, 0.1, 0.2);
      m.config.n = uint64_t(1) << e;
      rows.push_back(m);
    }
  const Figure f = nSweepFigure(rows, rl::Peaks{}, rl::DeviceInfo{});
  ASSERT_EQ(f.spec.series.size(), 8u);
  std::set<std::pair<uint32_t, Marker>> seen;
  std::set<uint32_t> colours;
  for (const Series& s : f.spec.series) {
    seen.insert({s.color, s.marker});
    colours.insert(s.color);
  }
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(colours.size(), size_t(kPaletteColors));  // 8 series: every colour once, one again with another marker
}

// Everything that differs is part of a series' identity: UPC's Kernel07 and Kernel08 (k7, final on
// the CPU, then on the GPU) are two lines named by their final stage; what they share is said once.
TEST(FigureLayout, LiveSeriesAreKeyedByEverythingThatDiffers) {
  std::vector<rl::Measurement> rows = {timedRow("k7", rl::FinalStage::Cpu, 1, 2), timedRow("k7", rl::FinalStage::Gpu, 1, 2),
                                       timedRow("k7", rl::FinalStage::Cpu, 1, 2), timedRow("k7", rl::FinalStage::Gpu, 1, 2)};
  rows[0].config.final = rows[2].config.final = rl::FinalStage::Cpu;
  rows[1].config.final = rows[3].config.final = rl::FinalStage::Gpu;
  rows[0].config.type = rows[1].config.type = rl::ElemType::Float64;
  for (rl::Measurement& m : rows) m.config.block = 512;
  const Figure f = liveBandwidthFigure(rows, rl::Peaks{}, rl::TimeBasis::EndToEnd);
  ASSERT_EQ(f.spec.series.size(), 4u);
  EXPECT_EQ(f.spec.series[0].name, "k7 float64 final cpu");
  EXPECT_EQ(f.spec.series[1].name, "k7 float64 final gpu");
  EXPECT_EQ(f.spec.series[3].name, "k7 float32 final gpu");
  EXPECT_NE(f.spec.subtitle.find("N=2^24"), std::string::npos) << f.spec.subtitle;
  EXPECT_NE(f.spec.subtitle.find("cold L2"), std::string::npos) << f.spec.subtitle;
  EXPECT_EQ(f.spec.subtitle.find("final"), std::string::npos) << f.spec.subtitle;
}

// A compute-bound family is drawn in GFLOP/s against the FP peak of its type, not in GB/s against
// the memory's 4814 GB/s (where a matrix product sat near zero); beside reductions it gets the
// right axis.
TEST(FigureLayout, MatrixProductsArePlottedInGflopsAgainstTheFpPeak) {
  rl::Measurement mm = timedRow("mm-tiled", rl::FinalStage::Gpu, 1, 1);
  mm.gflops = 20000;
  mm.peakGflops = 60000;
  rl::Peaks peaks;
  peaks.theoreticalGBs = 4814;
  const Figure alone = liveBandwidthFigure({mm, mm}, peaks, rl::TimeBasis::Kernel);
  EXPECT_EQ(alone.spec.y.label, "GFLOP/s");
  ASSERT_EQ(alone.spec.series.size(), 1u);
  EXPECT_FALSE(alone.spec.series[0].secondaryY);
  EXPECT_DOUBLE_EQ(alone.spec.series[0].y.at(0), 20000);
  ASSERT_EQ(alone.spec.references.size(), 1u);
  EXPECT_EQ(alone.spec.references[0].label, "FP32 peak 60000 GFLOP/s");
  const Figure mixed = liveBandwidthFigure({timedRow("k7", rl::FinalStage::Gpu, 1, 2), mm}, peaks, rl::TimeBasis::Kernel);
  EXPECT_EQ(mixed.spec.y.label, "GB/s (kernel)");
  EXPECT_EQ(mixed.spec.y2.label, "GFLOP/s (products)");
  ASSERT_EQ(mixed.spec.series.size(), 2u);
  EXPECT_TRUE(mixed.spec.series[1].secondaryY);
  EXPECT_NEAR(mixed.spec.y2.max, 63000, 1e-6);
}

// The legend never covers a line: a line that crosses the corner the legend would take counts as
// data there, even with no point inside it; and it is never wider than the plot.
TEST(FigureLayout, LegendKeepsOffLinesBetweenPointsAndFitsThePlot) {
  PlotSpec spec;
  spec.x.min = 0;
  spec.x.max = 10;
  spec.y.min = 0;
  spec.y.max = 10;
  Series diagonal;  // two points outside the x range: the line crosses the top corners, no point there
  diagonal.name = "k7 grid-stride";
  diagonal.x = {-5, 15};
  diagonal.y = {9.3, 9.3};
  spec.series.push_back(diagonal);
  const auto measure = [](const std::string& s, float px) { return approxMeasure(s, px); };
  const PlotLayout L = computePlotLayout(spec, 420, 300, 12, measure);
  ASSERT_TRUE(L.legend.visible);
  const PlotPoint& a = L.series[0].points[0];
  const PlotPoint& b = L.series[0].points[1];
  // Sample the segment: no sample inside the legend box.
  for (int i = 0; i <= 100; ++i) {
    const float x = a.px + (b.px - a.px) * float(i) / 100, y = a.py + (b.py - a.py) * float(i) / 100;
    EXPECT_FALSE(L.legend.box.contains(x, y)) << "the legend covers the line at sample " << i;
  }
  spec.series[0].name = "a series whose name is long enough to be wider than a small plot by itself";
  const PlotLayout W = computePlotLayout(spec, 420, 300, 12, measure);
  EXPECT_LE(W.legend.box.x1, 420.0f);
  for (const PlotLegendEntry& e : W.legend.entries) EXPECT_LE(approxMeasure(e.text.text, e.text.px) + e.text.x, 420.0f);
}

// A peak's label is not written over the data that runs along its line (CUB's plateau at the
// measured read peak hid "measured read 4521 GB/s"), nor through another reference line.
TEST(PlotLayout, ReferenceLabelsKeepOffTheDataAlongTheirLine) {
  PlotSpec spec;
  spec.y.includeZero = true;
  Series plateau;
  plateau.name = "cub";
  for (int k = 0; k < 40; ++k) {
    plateau.x.push_back(k);
    plateau.y.push_back(k < 10 ? 400.0 * k : 4521.0 + (k % 2 ? 8 : -8));
  }
  spec.series.push_back(plateau);
  spec.references.push_back({4814, "theoretical peak 4814 GB/s"});
  spec.references.push_back({4521, "measured read 4521 GB/s"});
  const PlotLayout L = computePlotLayout(spec, 1200, 700, 15, approxMeasure);
  for (const PlotReferenceLayout& R : L.references) {
    ASSERT_FALSE(R.label.empty());
    const float w = approxMeasure(R.label.text, R.label.px);
    const PlotRect box{R.label.x - w, R.label.y, R.label.x, R.label.y + R.label.px};
    for (const PlotPoint& p : L.series[0].points)
      EXPECT_FALSE(p.valid && p.px >= box.x0 - L.markerRadius && p.px <= box.x1 + L.markerRadius &&
                   p.py >= box.y0 - L.markerRadius && p.py <= box.y1 + L.markerRadius)
          << R.label.text << " is written over a point";
    for (const PlotReferenceLayout& other : L.references)
      EXPECT_FALSE(other.py > box.y0 && other.py < box.y1) << R.label.text << " is written through a line";
  }
}

// A narrow plot whose every corner has data (the N sweep in the right panel at 1600x900): the
// legend goes under the plot, not over the curves, and the shade labels stay whole inside the plot
// (a shade at the left edge cut "latency" to "atency").
TEST(PlotLayout, ANarrowPlotPutsItsLegendUnderneathAndKeepsShadeLabelsWhole) {
  const rl::Peaks peaks{4814, 4521, 4256, "test"};
  std::vector<rl::Measurement> rows;
  const std::pair<const char*, double> kernels[] = {{"k3", 780}, {"k7", 3800}, {"k10", 4520}, {"cub", 4520}};
  for (const auto& [k, plateau] : kernels)
    for (int e = 10; e <= 35; ++e) {
      rl::Measurement m = timedRow(k, rl::FinalStage::Gpu, 1, 1);
      m.config.n = uint64_t(1) << e;
      m.bandwidthGBs = plateau / (1.0 + std::exp(-(e - 22.0)));
      m.bytesRead = m.bandwidthGBs * 1e6;  // 1 ms
      m.kernel = rl::Stats::of({1.0});
      rows.push_back(m);
    }
  rl::DeviceInfo d;
  d.l2Bytes = 60 << 20;
  const Figure f = nSweepFigure(rows, peaks, d);
  ASSERT_FALSE(f.spec.shades.empty());
  const PlotLayout L = computePlotLayout(f.spec, 430, 620, 14, approxMeasure);
  ASSERT_TRUE(L.legend.visible);
  EXPECT_GE(L.legend.box.y0, L.plot.y1) << "the legend is over the data";
  EXPECT_LE(L.legend.box.y1, 620.0f);
  for (const PlotShadeLayout& S : L.shades) {
    if (S.label.empty()) continue;
    const float w = approxMeasure(S.label.text, S.label.px);
    EXPECT_GE(S.label.x - 0.5f * w, L.plot.x0 - 0.5f) << S.label.text;
    EXPECT_LE(S.label.x + 0.5f * w, L.plot.x1 + 0.5f) << S.label.text;
  }
}

// No peak known (no GPU and no recording: a run of the user's kernel through a stand-in worker
// showed "0.0% of theoretical"): the headline says no share of a peak it does not know.
TEST(FigureLayout, TheHeadlineClaimsNoShareOfAnUnknownPeak) {
  rl::Measurement m;
  m.ok = true;
  m.config.kernel = "yours";
  m.bytesRead = 4e6;
  m.kernelMs = {0.002};
  m.kernel = rl::Stats::of(m.kernelMs);
  m.bandwidthGBs = 2000;
  const auto unknown = liveHeadline({m}, rl::Peaks{}, rl::TimeBasis::Kernel);
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown->detail.find("theoretical"), std::string::npos) << unknown->detail;
  EXPECT_NE(unknown->detail.find("0.0020 ms median"), std::string::npos) << unknown->detail;
  rl::Peaks p;
  p.theoreticalGBs = 4000;
  EXPECT_NE(liveHeadline({m}, p, rl::TimeBasis::Kernel)->detail.find("50.0% of theoretical"), std::string::npos);
}
