// Layout matrix: every key view x block size x UI scale x window size x presentation mode,
// drawn on the CPU model in this process (one EGL context, one Application). In each frame no
// text of a key view may be cut by its clip rectangle or overlap other text, and every frame must
// finish in bounded time (a label loop once froze frames for 13-40 s at UI scale 2.6-3.0).
//
// CI runs a deterministic sample; the whole matrix:
//   REDUCELAB_LAYOUT_MATRIX=full build-ci/tests/reducelab_tests --gtest_filter='LayoutMatrix.*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "application.hpp"
#include "gl_context.hpp"

namespace {

struct LayoutCase {
  std::string view;
  int block;
  float scale;
  int width, height;
  bool presentation;
  std::string name() const {
    std::ostringstream o;
    o << view << " block " << block << " scale " << scale << " " << width << "x" << height
      << (presentation ? " presentation" : "");
    return o.str();
  }
};

std::vector<LayoutCase> fullMatrix() {
  std::vector<LayoutCase> out;
  const char* views[] = {"warp", "bank", "tree", "coalescing", "all", "source", "plot-live", "plot-ladder",
                         "plot-block", "plot-n", "plot-types", "occupancy", "lesson"};
  const int sizes[][2] = {{1280, 720}, {1600, 900}, {1920, 1080}, {3840, 2160}};
  // Scale outermost: a scale change rebuilds the fonts.
  for (bool presentation : {false, true})
    for (float scale : {1.0f, 1.5f, 2.0f, 3.0f})
      for (const auto& size : sizes)
        for (int block : {32, 256, 1024})
          for (const char* view : views) out.push_back({view, block, scale, size[0], size[1], presentation});
  return out;
}

// CI: every case whose index falls on a fixed stride (deterministic, covers every view, block,
// scale, size and mode over the sample), unless REDUCELAB_LAYOUT_MATRIX=full.
std::vector<LayoutCase> casesToRun() {
  std::vector<LayoutCase> all = fullMatrix();
  const char* env = std::getenv("REDUCELAB_LAYOUT_MATRIX");
  if (env && std::string(env) == "full") return all;
  std::vector<LayoutCase> sample;
  for (size_t i = 0; i < all.size(); i += 23) sample.push_back(all[i]);
  return sample;
}

const std::map<std::string, rl::gui::CentreView> kViews = {
    {"warp", rl::gui::CentreView::WarpActivity}, {"bank", rl::gui::CentreView::BankConflicts},
    {"tree", rl::gui::CentreView::ReductionTree}, {"coalescing", rl::gui::CentreView::Coalescing},
    {"all", rl::gui::CentreView::All},           {"source", rl::gui::CentreView::Source}};

void setUp(rl::app::Application& app, const LayoutCase& c) {
  rl::gui::Model& m = app.model();
  if (m.presentation != c.presentation) app.requestTogglePresentation();
  m.ui.uiScale = c.scale;
  m.ui.showLeft = !c.presentation;
  m.ui.showRight = true;
  m.ui.showBottom = !c.presentation || c.view == "occupancy" || c.view == "lesson";
  const bool lesson = c.view == "lesson";
  if (lesson && !m.lesson.active) app.requestOpenLesson("upc");
  if (!lesson && m.lesson.active) app.requestCloseLesson();
  m.config.block = c.block;
  if (kViews.count(c.view)) m.view = kViews.at(c.view);
  if (c.view.rfind("plot-", 0) == 0) m.focusPanel = c.view.substr(5);
  if (c.view == "occupancy") m.focusPanel = "occupancy";
  if (lesson) m.view = rl::gui::CentreView::BankConflicts;  // the lesson's key view: its first step's
  app.setDisplaySize(c.width, c.height);
}

}  // namespace

TEST(LayoutMatrix, NoKeyViewTextIsCutOrOverlappedAndFramesFinish) {
  std::string error;
  auto ctx = rl::app::createHeadlessContext(3840, 2160, &error);
  if (!ctx) GTEST_SKIP() << "no headless GL context: " << error;
  rl::app::GuiOptions options;
  options.headless = true;
  options.width = 3840;
  options.height = 2160;
  rl::app::Application app(*ctx, options);
  app.setRecordText(true);
  const std::vector<LayoutCase> cases = casesToRun();
  constexpr double kFrameLimitMs = 3000;  // llvmpipe at 3840x2160 with a font rebuild stays far below
  int failures = 0;
  double slowest = 0;
  for (const LayoutCase& c : cases) {
    setUp(app, c);
    double worst = 0;
    for (int frame = 0; frame < 3; ++frame) {  // scale and tab changes take effect over two frames
      worst = std::max(worst, app.drawFrame());
      if (frame == 0 && c.view.rfind("plot-", 0) == 0) app.model().focusPanel.clear();
    }
    slowest = std::max(slowest, worst);
    EXPECT_LT(worst, kFrameLimitMs) << c.name();
    std::vector<std::string> problems;
    for (const rl::gui::LayoutIssue& issue : rl::gui::findLayoutIssues(app.textRuns()))
      if (rl::gui::isKeyWindow(issue.window)) problems.push_back(issue.describe());
    if (!problems.empty()) {
      ++failures;
      std::string list;
      for (size_t i = 0; i < problems.size() && i < 6; ++i) list += "\n    " + problems[i];
      ADD_FAILURE() << c.name() << ": " << problems.size() << " text problem(s)" << list;
    }
  }
  std::printf("layout matrix: %zu cases, %d with text problems, slowest frame %.0f ms\n", cases.size(), failures,
              slowest);
}
