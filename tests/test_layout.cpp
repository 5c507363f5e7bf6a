// Layout matrix: every key view x block size x UI scale x window size x presentation mode,
// drawn on the CPU model in this process (one EGL context, one Application). In each frame no
// text of a key view may be cut by its clip rectangle or overlap other text, and every frame must
// finish in bounded time (a label loop once froze frames for 13-40 s at UI scale 2.6-3.0).
//
// CI runs a deterministic sample; the whole matrix:
//   REDUCELAB_LAYOUT_MATRIX=full build-ci/tests/reducelab_tests --gtest_filter='LayoutMatrix.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <cstdio>

#include <cstdlib>
#include <sstream>
#include <nlohmann/json.hpp>

#include "application.hpp"
#include "gl_context.hpp"
#include "input_queue.hpp"
#include "imgui.h"
#include "reducelab/gui/layout_check.hpp"
#include "reducelab/gui/ui.hpp"
#include "reducelab/lesson.hpp"
#include "test_support.hpp"

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
                         "plot-block", "plot-n", "plot-types", "occupancy", "lesson", "editor"};
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
  if (env && std::string(env) == "full") {
    // REDUCELAB_LAYOUT_VIEW=NAME: only that view's cases (to look at one view's problems).
    if (const char* v = std::getenv("REDUCELAB_LAYOUT_VIEW")) {
      std::vector<LayoutCase> mine;
      for (const LayoutCase& c : all)
        if (c.view == v) mine.push_back(c);
      all = mine;
    }
    // REDUCELAB_LAYOUT_SHARD=i/n: the cases i, i + n, i + 2n... (n processes share the full matrix).
    unsigned shard = 0, shards = 1;
    if (const char* s = std::getenv("REDUCELAB_LAYOUT_SHARD"); s && std::sscanf(s, "%u/%u", &shard, &shards) == 2 &&
                                                              shards > 0 && shard < shards) {
      std::vector<LayoutCase> mine;
      for (size_t i = shard; i < all.size(); i += shards) mine.push_back(all[i]);
      return mine;
    }
    return all;
  }
  std::vector<LayoutCase> sample;
  for (size_t i = 0; i < all.size(); i += 23) sample.push_back(all[i]);
  return sample;
}

const std::map<std::string, rl::gui::CentreView> kViews = {
    {"warp", rl::gui::CentreView::WarpActivity}, {"bank", rl::gui::CentreView::BankConflicts},
    {"tree", rl::gui::CentreView::ReductionTree}, {"coalescing", rl::gui::CentreView::Coalescing},
    {"all", rl::gui::CentreView::All},           {"source", rl::gui::CentreView::Source},
    {"editor", rl::gui::CentreView::Editor}};

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
  if (c.view == "editor" && m.editor.doc.empty()) app.requestEditCopy("k3");  // a kernel in the editor, not its empty page
  if (c.view.rfind("plot-", 0) == 0) m.focusPanel = c.view.substr(5);
  if (c.view == "occupancy") m.focusPanel = "occupancy";
  if (lesson) m.view = rl::gui::CentreView::BankConflicts;  // the lesson's key view: its first step's
  // Presenting shows one panel: the one this case is about.
  using P = rl::gui::Model::Presenting;
  m.presenting = c.view.rfind("plot-", 0) == 0 ? P::Plots : c.view == "occupancy" ? P::Results : P::Views;
  app.setDisplaySize(c.width, c.height);
}

// One GL context and one Application for the process (the views keep their GL programs), ended
// before the process exits: static destructors run after the GL driver's own (a crash at exit
// with NVIDIA's EGL).
std::unique_ptr<rl::app::GlContext> ctx;
std::unique_ptr<rl::app::Application> app;
struct SharedAppTeardown : ::testing::Environment {
  void TearDown() override {
    app.reset();
    ctx.reset();
  }
};
[[maybe_unused]] ::testing::Environment* const kTeardown = ::testing::AddGlobalTestEnvironment(new SharedAppTeardown);

rl::app::Application* sharedApp(std::string* error) {
  static std::string failure;
  if (!app && failure.empty()) {
    ctx = rl::app::createHeadlessContext(3840, 2160, &failure);
    if (ctx) {
      rl::app::GuiOptions options;
      options.headless = true;
      options.width = 3840;
      options.height = 2160;
      app = std::make_unique<rl::app::Application>(*ctx, options);
    }
  }
  *error = failure;
  return app.get();
}

}  // namespace

TEST(LayoutMatrix, NoKeyViewTextIsCutOrOverlappedAndFramesFinish) {
  std::string error;
  rl::app::Application* shared = sharedApp(&error);
  if (!shared) GTEST_SKIP() << "no headless GL context: " << error;
  rl::app::Application& app = *shared;
  app.setRecordText(true);
  const std::vector<LayoutCase> cases = casesToRun();
  // The defect froze frames for 13-40 s; llvmpipe at 3840x2160 with a font rebuild takes ~1 s (5 s
  // on a loaded 2-core machine).
  constexpr double kFrameLimitMs = 10000;
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
      if (failures == 1) {  // where the panels were, once: enough to tell a layout from a driver problem
        const ImVec2 d = ImGui::GetIO().DisplaySize;
        list += "\n    display " + std::to_string(int(d.x)) + "x" + std::to_string(int(d.y)) + ", applied scale " +
                std::to_string(rl::gui::uiScale());
        for (const auto& [name, r] : app.model().layout)
          list += "\n    panel " + name + " at " + std::to_string(int(r.x)) + "," + std::to_string(int(r.y)) + " " +
                  std::to_string(int(r.w)) + "x" + std::to_string(int(r.h));
      }
      // REDUCELAB_LAYOUT_SHOTS=DIR: a screenshot of each failing case, to look at.
      if (const char* dir = std::getenv("REDUCELAB_LAYOUT_SHOTS")) {
        std::string file = c.name();
        for (char& ch : file)
          if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '-';
        app.saveScreenshot(std::string(dir) + "/" + file + ".png");
      }
      ADD_FAILURE() << c.name() << ": " << problems.size() << " text problem(s)" << list;
    }
  }
  std::printf("layout matrix: %zu cases, %d with text problems, slowest frame %.0f ms\n", cases.size(), failures,
              slowest);
}

// The Parameters panel's message for a configuration it cannot run (here seed 004's half transpose
// on a matrix that is not whole tiles: a long sentence) wraps inside the panel: cut once.
TEST(LayoutMatrix, AConfigurationsErrorWrapsInTheParametersPanel) {
  std::string error;
  rl::app::Application* shared = sharedApp(&error);
  if (!shared) GTEST_SKIP() << "no headless GL context: " << error;
  rl::app::Application& app = *shared;
  app.setRecordText(true);
  if (app.model().lesson.active) app.requestCloseLesson();
  if (app.model().presentation) app.requestTogglePresentation();
  app.model().ui.uiScale = 1.0f;
  app.model().ui.showLeft = true;
  rl::RunConfig& c = app.model().config;
  c.kernel = "tr-coarse";
  rl::test::setParam(c, "rows", 1000);
  rl::test::setParam(c, "cols", 1000);
  rl::normalizeConfig(c);
  ASSERT_NE(rl::validate(c, nullptr), "");
  app.setDisplaySize(1600, 900);
  for (int frame = 0; frame < 3; ++frame) app.drawFrame();
  // Every word of it is drawn there (a cut line keeps only the glyphs inside the panel).
  std::string drawn;
  for (const rl::gui::TextRun& r : app.textRuns())
    if (r.window.find("Parameters") != std::string::npos) drawn += r.text + " ";
  EXPECT_NE(drawn.find("(coarse-grained) moves"), std::string::npos) << drawn;
  EXPECT_NE(drawn.find("not 1000 x 1000"), std::string::npos) << "the end of the message is not drawn: " << drawn;
  for (const rl::gui::LayoutIssue& issue : rl::gui::findLayoutIssues(app.textRuns()))
    EXPECT_FALSE(issue.kind.rfind("cut", 0) == 0 && issue.window.find("Parameters") != std::string::npos)
        << issue.describe();
}

// docs/lessons.md lists `view source` (the source view exists): the parser takes it.
TEST(LessonFormat, ViewSourceIsAcceptedAsTheDocumentSays) {
  const std::string text = "title: t\nstep: one\nset kernel=k2 block=256\nview source\ncaption: the code\n";
  std::string error;
  auto lesson = rl::parseLesson(text, "doc.lesson", &error);
  ASSERT_TRUE(lesson.has_value()) << error;
  EXPECT_EQ(lesson->steps.at(0).view, "source");
}

// Quick taps: a key pressed and released between two frames must still be one press, and six
// taps six presses (ImGui 1.86 only sees the key state at each frame).
TEST(KeyEventQueue, EveryTapReachesAFrameAsOnePressAndOneRelease) {
  rl::app::KeyEventQueue q;
  for (int i = 0; i < 6; ++i) {
    q.push({32, 0, 1, 0});
    q.push({32, 0, 0, 0});
  }
  int presses = 0, frames = 0;
  while (!q.empty()) {
    const auto events = q.takeFrame();
    ASSERT_EQ(events.size(), 1u);  // one transition of the key per frame
    presses += events[0].action == 1;
    ++frames;
  }
  EXPECT_EQ(presses, 6);
  EXPECT_EQ(frames, 12);
}

// Ctrl held with '=': both go down in the same frame, so the shortcut sees the modifier.
TEST(KeyEventQueue, ModifierAndKeyGoDownTogether) {
  rl::app::KeyEventQueue q;
  q.push({341, 0, 1, 2});
  q.push({61, 0, 1, 2});
  q.push({61, 0, 0, 2});
  q.push({341, 0, 0, 0});
  auto first = q.takeFrame();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].key, 341);
  EXPECT_EQ(first[1].key, 61);
}

// Every press must reach ImGui with the modifiers held when it happened, whatever order the
// releases come in (xdotool's Ctrl+Q releases Ctrl before Q: one frame took Q's press and Ctrl's
// release together and the quit was lost). Every ordering of every chord of up to two modifiers,
// with the modifiers pressed in an earlier frame or the same one, replayed frame by frame.
TEST(KeyEventQueue, EveryPressSeesTheModifiersHeldWhenItHappened) {
  using rl::app::KeyEvent;
  const int ctrl = 341, shift = 340, q = 81, space = 32;
  std::vector<std::vector<KeyEvent>> cases;
  const std::vector<std::vector<int>> chords = {{ctrl, q}, {shift, ctrl, q}, {ctrl, space, q}};
  for (const auto& chord : chords) {
    std::vector<KeyEvent> releases;
    for (int k : chord) releases.push_back({k, 0, 0, 0});
    std::sort(releases.begin(), releases.end(), [](const KeyEvent& a, const KeyEvent& b) { return a.key < b.key; });
    do {
      std::vector<KeyEvent> c;
      for (int k : chord) c.push_back({k, 0, 1, 0});
      c.insert(c.end(), releases.begin(), releases.end());
      cases.push_back(c);
    } while (std::next_permutation(releases.begin(), releases.end(),
                                   [](const KeyEvent& a, const KeyEvent& b) { return a.key < b.key; }));
  }
  for (const auto& events : cases) {
    for (size_t before = 0; before <= 1; ++before) {  // the first event alone in an earlier frame, or not
      rl::app::KeyEventQueue queue;
      std::set<int> heldWhenPushed, downInImGui;
      std::map<int, std::set<int>> modifiersAtPress;
      auto push = [&](const KeyEvent& e) {
        if (e.action == 1 && !rl::app::isModifierKey(e.key)) {
          std::set<int> mods;
          for (int k : heldWhenPushed)
            if (rl::app::isModifierKey(k)) mods.insert(k);
          modifiersAtPress[e.key] = mods;
        }
        if (e.action == 1) heldWhenPushed.insert(e.key);
        else heldWhenPushed.erase(e.key);
        queue.push(e);
      };
      size_t i = 0;
      std::string order;
      for (const KeyEvent& e : events) order += (e.action ? "+" : "-") + std::to_string(e.key) + " ";
      if (before) {
        push(events[i++]);
        for (const KeyEvent& e : queue.takeFrame()) e.action ? (void)downInImGui.insert(e.key) : (void)downInImGui.erase(e.key);
      }
      for (; i < events.size(); ++i) push(events[i]);
      int frames = 0;
      while (!queue.empty() && ++frames < 20) {
        std::vector<int> pressed;
        for (const KeyEvent& e : queue.takeFrame()) {
          if (e.action) downInImGui.insert(e.key), pressed.push_back(e.key);
          else downInImGui.erase(e.key);
        }
        for (int k : pressed) {  // what the shortcut sees at the end of this frame
          if (rl::app::isModifierKey(k)) continue;
          EXPECT_TRUE(downInImGui.count(k)) << order << ": the press of " << k << " was never down";
          std::set<int> mods;
          for (int m : downInImGui)
            if (rl::app::isModifierKey(m)) mods.insert(m);
          EXPECT_EQ(mods, modifiersAtPress[k]) << order << (before ? "(first event one frame early)" : "")
                                               << ": the press of " << k << " saw other modifiers";
        }
      }
      EXPECT_TRUE(downInImGui.empty()) << order << ": every key ends up";
    }
  }
}

// A new block size keeps the step by what it is: "result" stays the block result, not whatever
// step now has the old index ("s = 512" at block 1024 -> 256 had become another step).
TEST(GuiState, BlockChangeKeepsTheStepByMeaning) {
  std::string error;
  rl::app::Application* app = sharedApp(&error);
  if (!app) GTEST_SKIP() << error;
  rl::gui::Model& m = app->model();
  if (m.lesson.active) app->requestCloseLesson();
  app->setDisplaySize(1600, 900);
  m.config.kernel = "k3";
  m.config.block = 1024;
  app->drawFrame();
  ASSERT_TRUE(m.trace.valid);
  m.trace.step = m.trace.data.numSteps() - 1;  // the block's result
  const auto kind = m.trace.data.steps.back().kind;
  m.config.block = 256;
  app->drawFrame();
  app->drawFrame();
  ASSERT_EQ(m.trace.config.block, 256);
  EXPECT_EQ(m.trace.data.steps[size_t(m.trace.step)].kind, kind);
  // A tree level keeps its stride where the new block has it.
  m.config.block = 1024;
  app->drawFrame();
  int s64 = -1;
  for (int i = 0; i < m.trace.data.numSteps(); ++i)
    if (m.trace.data.steps[size_t(i)].param == 64 && m.trace.data.steps[size_t(i)].kind == rl::trace::kStepTreeLevel) s64 = i;
  ASSERT_GE(s64, 0);
  m.trace.step = s64;
  m.config.block = 256;
  app->drawFrame();
  EXPECT_EQ(m.trace.data.steps[size_t(m.trace.step)].kind, rl::trace::kStepTreeLevel);
  EXPECT_EQ(m.trace.data.steps[size_t(m.trace.step)].param, 64u);
}

// Next on a lesson's last step must not re-apply it (the user's block size was lost), and a
// lesson can be closed.
TEST(GuiState, NextOnTheLastLessonStepKeepsTheUsersChangesAndCloseLeaves) {
  std::string error;
  rl::app::Application* app = sharedApp(&error);
  if (!app) GTEST_SKIP() << error;
  rl::gui::Model& m = app->model();
  app->requestOpenLesson("upc");
  ASSERT_TRUE(m.lesson.active);
  const int last = int(m.lesson.lesson.steps.size()) - 1;
  app->requestLessonStep(last);
  app->drawFrame();
  m.config.block = 128;  // the user tries another block size
  app->requestLessonStep(last + 1);  // N on the last step
  EXPECT_EQ(m.lesson.step, last);
  EXPECT_EQ(m.config.block, 128);
  app->requestLessonStep(last);  // the step in effect: nothing to do
  EXPECT_EQ(m.config.block, 128);
  app->requestCloseLesson();
  EXPECT_FALSE(m.lesson.active);
  EXPECT_EQ(m.config.block, 128);  // closing keeps the configuration
  app->drawFrame();
}

namespace {

// An ImGui context of its own for a checker test (800x600, no ini file), the previous one current
// again when it goes; and where DejaVu Sans is.
struct ScratchImGui {
  ImGuiContext* previous = ImGui::GetCurrentContext();
  ImGuiContext* context = ImGui::CreateContext();
  ScratchImGui() {
    ImGui::SetCurrentContext(context);
    ImGui::GetIO().DisplaySize = ImVec2(800, 600);
    ImGui::GetIO().IniFilename = nullptr;
  }
  ~ScratchImGui() {
    ImGui::DestroyContext(context);
    ImGui::SetCurrentContext(previous);
  }
};
std::string dejaVuSans() {
  const char* dir = std::getenv("REDUCELAB_FONT_DIR");
  return std::string(dir ? dir : "/usr/share/fonts/truetype/dejavu") + "/DejaVuSans.ttf";
}

}  // namespace

// The layout checker knows glyphs by their place in the font atlas. A rebuild at another scale
// keeps the atlas object, the glyph count and, with NVIDIA's GL (which hands a deleted texture's
// name to the next one), the texture ID: the checker kept the old places and reported every text
// of a scale-changed frame as cut (the full matrix on the H200: 40-60 of 78 cases per shard).
TEST(LayoutChecker, GlyphsAreKnownAfterAFontRebuildThatKeepsTheTextureId) {
  ScratchImGui scratch;
  ImGuiIO& io = ImGui::GetIO();
  for (float px : {13.0f, 26.0f, 19.0f}) {
    io.Fonts->Clear();
    const std::string font = dejaVuSans();
    if (!io.Fonts->AddFontFromFileTTF(font.c_str(), px)) GTEST_SKIP() << "no " << font;
    unsigned char* pixels;
    int w, h;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(intptr_t(1)));  // the same name every time
    for (int frame = 0; frame < 2; ++frame) {  // a window's first frame is hidden
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(10, 10));
      ImGui::SetNextWindowSize(ImVec2(400, 200));
      ImGui::Begin("Bandwidth");
      ImGui::TextUnformatted("Measured bandwidth");
      ImGui::End();
      ImGui::Render();
    }
    bool found = false;
    for (const rl::gui::TextRun& r : rl::gui::collectTextRuns())
      if (r.window == "Bandwidth" && r.text.find("Measured bandwidth") != std::string::npos) {
        found = true;
        EXPECT_FALSE(r.cutX || r.cutY) << "font " << px << " px";
      }
    std::string seen;
    for (const rl::gui::TextRun& r : rl::gui::collectTextRuns()) seen += " [" + r.window + ": " + r.text + "]";
    EXPECT_TRUE(found) << "font " << px << " px: the text was not recognised:" << seen;
    EXPECT_TRUE(rl::gui::findLayoutIssues(rl::gui::collectTextRuns()).empty()) << "font " << px << " px";
  }
}

// Presentation mode with the shipped H200 recording open, at the three projector sizes: the panel
// presented fills the screen under the lesson bar (the plot once fell to ~60 px and the warp
// digits vanished), its text is whole, and nothing is drawn below 18 px (the caption no longer
// shrinks). The same recording in the normal layout has no cut text either.
TEST(LayoutMatrix, PresentationWithARecordingFillsTheScreenWithWholeReadableText) {
  std::string error;
  rl::app::Application* shared = sharedApp(&error);
  if (!shared) GTEST_SKIP() << "no headless GL context: " << error;
  rl::app::Application& app = *shared;
  app.setRecordText(true);
  ASSERT_EQ(app.openRecording(""), "");  // the shipped one, from the binary
  for (int i = 0; i < 2000 && app.model().replay.replaying(); ++i) app.drawFrame();
  using P = rl::gui::Model::Presenting;
  const int sizes[][2] = {{1280, 720}, {1600, 900}, {1920, 1080}};
  for (const bool presentation : {true, false})
    for (const auto& size : sizes)
      for (const int step : {0, 6})
        for (const P presenting : {P::Views, P::Plots, P::Results}) {
          if (!presentation && presenting != P::Views) continue;  // the normal layout shows all at once
          rl::gui::Model& m = app.model();
          if (m.presentation != presentation) app.requestTogglePresentation();
          m.ui.uiScale = presentation ? 1.5f : 1.0f;
          app.requestLessonStep(step);
          m.presenting = presenting;
          app.setDisplaySize(size[0], size[1]);
          for (int f = 0; f < 3; ++f) app.drawFrame();
          const std::string name = std::to_string(size[0]) + "x" + std::to_string(size[1]) + " step " +
                                   std::to_string(step + 1) + (presentation ? " presenting " + std::to_string(int(presenting)) : " normal");
          std::vector<std::string> problems;
          for (const rl::gui::LayoutIssue& issue : rl::gui::findLayoutIssues(app.textRuns()))
            if (rl::gui::isKeyWindow(issue.window)) problems.push_back(issue.describe());
          EXPECT_TRUE(problems.empty()) << name << ": " << (problems.empty() ? "" : problems.front());
          // REDUCELAB_PRESENT_SHOTS=DIR: every case's screenshot (the set in docs/images/presentation).
          const char* all = std::getenv("REDUCELAB_PRESENT_SHOTS");
          if (const char* dir = all ? all : std::getenv("REDUCELAB_LAYOUT_SHOTS"); dir && (all || !problems.empty())) {
            std::string file = name;
            for (char& ch : file)
              if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '-';
            app.saveScreenshot(std::string(dir) + "/" + file + ".png");
          }
          if (!presentation) continue;
          const char* panel = presenting == P::Plots ? "Bandwidth" : presenting == P::Results ? "Results" : "Views";
          ASSERT_TRUE(m.layout.count(panel)) << name;
          const rl::gui::Rect& r = m.layout.at(panel);
          EXPECT_EQ(int(r.w), size[0]) << name << ": the presented panel is not full width";
          EXPECT_GE(r.h, 0.45f * float(size[1])) << name << ": the presented panel is " << r.h << " px high";
          EXPECT_EQ(m.layout.count("Kernel") + m.layout.count("status"), 0u) << name << ": other panels share the screen";
          EXPECT_GE(ImGui::GetIO().Fonts->Fonts[0]->FontSize, 18.0f) << name;
        }
  if (app.model().presentation) app.requestTogglePresentation();
}

// The Results panel with runs in it, as a live GPU leaves it (the layout matrix draws recordings and
// the CPU model, whose Results panel is empty): on the H200 the basis sentence beside "Export table"
// was cut at 1280x720, 1600x900 and 1920x1080, and a row scrolled under the table's frozen header
// counted as overlapping it. Synthetic rows (--dev-fill-results) stand for the runs.
TEST(LayoutMatrix, ResultsPanelWithRunsHasNoCutOrOverlappingText) {
  for (const char* size : {"1280x720", "1600x900", "1920x1080"})
    for (int rows : {4, 40})
      for (const char* mode : {"", " --presentation"}) {
        const std::string what = std::string(size) + ", " + std::to_string(rows) + " rows" + mode;
        const std::string dump = rl::test::tempPath("results-layout.json");
        const auto r = rl::test::runReducelab("--headless --frames 3 --size " + std::string(size) +
                                              " --dev-fill-results " + std::to_string(rows) + mode + " --dump-layout " + dump);
        ASSERT_EQ(r.exitCode, 0) << what << ": " << r.err;
        const nlohmann::json j = nlohmann::json::parse(rl::test::readFile(dump), nullptr, false);
        ASSERT_TRUE(j.is_object()) << what;
        EXPECT_TRUE(j["layout_issues"].empty()) << what << ": " << j["layout_issues"].dump(1);
        std::string results;
        for (const auto& t : j["text"])
          if (t["window"].get<std::string>().find("Results") != std::string::npos) results += t["text"].get<std::string>() + "\n";
        if (!*mode) EXPECT_NE(results.find(std::to_string(rows) + " runs, by kernel time"), std::string::npos) << what << "\n" << results;
      }
}

// The checker itself, on frames built to hold each case: text cut by a pixel or more, text over
// other text, and the two that are not (a descender trimmed by a fraction of a pixel; a table row
// scrolled under its frozen header, which the clip hides).
TEST(LayoutChecker, FindsCutAndOverlappingTextAndNotWhatTheClipHides) {
  ScratchImGui scratch;
  ImGuiIO& io = ImGui::GetIO();
  const std::string font = dejaVuSans();
  if (!io.Fonts->AddFontFromFileTTF(font.c_str(), 16.0f)) GTEST_SKIP() << "no " << font;
  unsigned char* pixels;
  int w, h;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(intptr_t(1)));
  auto frame = [&](const std::function<void()>& draw, const char* window = "Results") {
    for (int f = 0; f < 3; ++f) {  // a window's first frame is hidden; a table settles its widths
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(10, 10));
      ImGui::SetNextWindowSize(ImVec2(400, 300));
      ImGui::Begin(window, nullptr, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
      draw();
      ImGui::End();
      ImGui::Render();
    }
    std::string kinds;
    for (const rl::gui::LayoutIssue& i : rl::gui::findLayoutIssues(rl::gui::collectTextRuns())) kinds += i.describe() + "\n";
    return kinds;
  };
  // Cut: a label of a key view in a child 8 px high (a key view's text may not pass under an edge).
  EXPECT_NE(frame([] {
              ImGui::BeginChild("low", ImVec2(200, 8), false, ImGuiWindowFlags_NoScrollbar);
              ImGui::TextUnformatted("Measured bandwidth");
              ImGui::EndChild();
            }, "Bandwidth").find("cut"),
            std::string::npos);
  // Overlap: two texts at one place.
  EXPECT_NE(frame([] {
              ImGui::TextUnformatted("kernel time");
              ImGui::SetCursorPos(ImVec2(ImGui::GetCursorPos().x + 20, ImGui::GetCursorPos().y - ImGui::GetTextLineHeight()));
              ImGui::TextUnformatted("end to end");
            }).find("overlap"),
            std::string::npos);
  // Neither: a small button with descenders, text beside it, and a table scrolled by part of a
  // row under its frozen header.
  const std::string clean = frame([] {
    ImGui::SmallButton("Export table, quip");
    ImGui::SameLine();
    ImGui::TextDisabled("4 runs, by kernel time");
    if (ImGui::BeginTable("t", 2, ImGuiTableFlags_ScrollY | ImGuiTableFlags_Borders, ImVec2(300, 80))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableSetupColumn("kernel");
      ImGui::TableSetupColumn("GB/s");
      ImGui::TableHeadersRow();
      for (int i = 0; i < 12; ++i) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("k%d", i + 1);
        ImGui::TableNextColumn();
        ImGui::Text("%d.5", 100 * i);
      }
      ImGui::SetScrollY(ImGui::GetTextLineHeightWithSpacing() * 2.5f);
      ImGui::EndTable();
    }
  });
  EXPECT_EQ(clean, "");
}

// A row with a longer name than those before it (the user's kernel, "your kernel (FILE)") widens
// its column within a few frames (a screenshot taken in the very frame the row arrived on the H200
// showed "your kerne": ImGui sizes a column from the previous frame's content).
TEST(GuiState, AResultsColumnWidensForALongerCell) {
  std::string error;
  rl::app::Application* app = sharedApp(&error);
  if (!app) GTEST_SKIP() << error;
  rl::gui::Model& m = app->model();
  if (m.lesson.active) app->requestCloseLesson();
  // The window as a user first sees it, whatever an earlier test of this shared window left
  // (presenting, the bottom panel hidden, another tab in front: the GPU machine's shards).
  if (m.presentation) app->requestTogglePresentation();
  m.ui.uiScale = 1.0f;  // the layout matrix leaves its last scale (up to 2)
  m.ui.showBottom = true;
  m.focusPanel = "results";
  app->setDisplaySize(1600, 900);
  m.results.clear();
  std::vector<rl::Measurement> rows = rl::syntheticResults(2);
  rows[0].config.kernel = "k3";  // "sequential": shorter than the next row's name
  m.results.append(rows[0]);
  for (int i = 0; i < 4; ++i) app->drawFrame();
  rows[1].config.kernel = "yours";  // named by its kernelName (no catalogue entry)
  rows[1].kernelName = "your kernel (a-rather-long-file-name-for-a-kernel.cu)";
  m.results.append(rows[1]);
  app->setRecordText(true);
  for (int i = 0; i < 4; ++i) app->drawFrame();
  app->setRecordText(false);
  bool found = false;
  for (const rl::gui::TextRun& r : app->textRuns())
    if (r.text.rfind("your kernel (", 0) == 0) {  // the run's text has spaces where glyphs stand apart
      found = true;
      EXPECT_FALSE(r.cutX) << r.text;
    }
  std::string results;
  for (const rl::gui::TextRun& r : app->textRuns())
    if (r.window.find("Results") != std::string::npos) results += r.window + ": " + r.text + "\n";
  EXPECT_TRUE(found) << "the row's name is not on the screen:\n" << results;
  m.results.clear();
}
