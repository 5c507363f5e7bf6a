// The views table (reducelab/views.hpp): every view round-trips through the command line
// (--view and its help), the lesson parser and the lesson flow, and the window's tab bar (chosen
// from outside, and clicked); and no code outside the table spells a view's name or label.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cctype>
#include <cfloat>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "application.hpp"
#include "gl_context.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/views.hpp"
#include "test_support.hpp"

namespace {

// What the views are, as the user reads them (docs/lessons.md, README): the expected side.
struct ExpectedView {
  const char* name;
  const char* label;
};
const ExpectedView kExpected[] = {{"warp", "Warp activity"},   {"bank", "Bank conflicts"}, {"tree", "Reduction tree"},
                                  {"coalescing", "Coalescing"}, {"all", "All four"},        {"source", "Source"},
                                  {"editor", "Editor"}};
constexpr int kExpectedCount = int(std::size(kExpected));

std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(Views, TheTableHoldsTheViewsInTabOrder) {
  ASSERT_EQ(int(rl::kViews.size()), kExpectedCount);
  for (int i = 0; i < kExpectedCount; ++i) {
    EXPECT_EQ(rl::kViews[size_t(i)].name, kExpected[i].name);
    EXPECT_STREQ(rl::kViews[size_t(i)].label, kExpected[i].label);
    const rl::ViewInfo* v = rl::findView(kExpected[i].name);
    ASSERT_NE(v, nullptr) << kExpected[i].name;
    EXPECT_EQ(&rl::viewInfo(v->id), v);
  }
  EXPECT_EQ(rl::findView("Warp"), nullptr);  // as typed: no case folding, no prefixes
  EXPECT_EQ(rl::findView("war"), nullptr);
  EXPECT_EQ(rl::findView(""), nullptr);
  EXPECT_EQ(rl::viewNames(), "warp, bank, tree, coalescing, all, source, editor");
  EXPECT_EQ(rl::viewInfo(rl::kDefaultView).name, "warp");
}

// The real command line: each --view starts the window on its view (the dump names the view by
// its place in the tab bar); a wrong one is refused with the list, which --help shows too.
TEST(Views, EveryViewRoundTripsThroughTheCommandLine) {
  for (int i = 0; i < kExpectedCount; ++i) {
    const std::string layout = rl::test::tempPath(std::string("cli-view-") + kExpected[i].name + ".json");
    auto r = rl::test::runReducelab(std::string("--headless --frames 1 --size 640x360 --view ") + kExpected[i].name +
                                    " --dump-layout " + layout);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(readFile(layout))["view"].get<int>(), i) << kExpected[i].name;
  }
  auto bad = rl::test::runReducelab("--headless --frames 1 --view banks");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("--view 'banks' is not one of: warp, bank, tree, coalescing, all, source"), std::string::npos)
      << bad.err;
  auto help = rl::test::runReducelab("--help");
  EXPECT_NE(help.out.find("Trace view shown: warp, bank, tree, coalescing, all, source"), std::string::npos) << help.out;
}

TEST(Views, EveryViewRoundTripsThroughTheLessonParser) {
  for (const ExpectedView& e : kExpected) {
    std::string err;
    auto l = rl::parseLesson(std::string("step: One\n  view ") + e.name + " step=1\n", "x.lesson", &err);
    ASSERT_TRUE(l) << e.name << ": " << err;
    EXPECT_EQ(l->steps.at(0).view, e.name);
  }
  std::string err;
  EXPECT_FALSE(rl::parseLesson("step: One\n  view coalesce\n", "x.lesson", &err));
  EXPECT_NE(err.find("view 'coalesce' is not one of: warp, bank, tree, coalescing, all, source"), std::string::npos) << err;
  auto noView = rl::parseLesson("step: One\n", "x.lesson", &err);
  ASSERT_TRUE(noView) << err;
  EXPECT_EQ(noView->steps.at(0).view, "warp");  // a step without `view` shows the warps
}

// The window's tab bar of the views ("views" in the Views panel), found by its tabs' labels.
ImGuiTabBar* viewsTabBar() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  for (int n = 0; n < g.TabBars.GetMapSize(); ++n)
    if (ImGuiTabBar* bar = g.TabBars.TryGetMapData(n))
      for (const ImGuiTabItem& tab : bar->Tabs)
        if (std::string(bar->GetTabName(&tab)) == kExpected[0].label) return bar;
  return nullptr;
}

std::string selectedTab(ImGuiTabBar* bar) {
  for (const ImGuiTabItem& tab : bar->Tabs)
    if (tab.ID == bar->SelectedTabId) return bar->GetTabName(&tab);
  return "(none)";
}

struct HeadlessApp {
  std::unique_ptr<rl::app::GlContext> ctx;
  std::unique_ptr<rl::app::Application> app;
  std::string error;
  HeadlessApp() {
    ctx = rl::app::createHeadlessContext(1280, 720, &error);
    if (!ctx) return;
    rl::app::GuiOptions o;
    o.headless = true;
    o.width = 1280, o.height = 720;
    app = std::make_unique<rl::app::Application>(*ctx, o);
  }
  ~HeadlessApp() {
    app.reset();
    ctx.reset();
  }
};

// Chosen from outside (the command line, a lesson), a view is the selected tab and stays; a tab
// clicked with the mouse chooses its view.
TEST(Views, EveryViewRoundTripsThroughTheWindowsTabBar) {
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  rl::app::Application& app = *h.app;
  for (int i = 0; i < kExpectedCount; ++i) {
    app.model().view = rl::ViewId(i);
    for (int f = 0; f < 3; ++f) app.drawFrame();
    ImGuiTabBar* bar = viewsTabBar();
    ASSERT_NE(bar, nullptr) << "no tab bar with a '" << kExpected[0].label << "' tab";
    EXPECT_EQ(selectedTab(bar), kExpected[i].label);
    EXPECT_EQ(int(app.model().view), i) << "the tab bar changed the view chosen from outside";
  }
  for (int i = kExpectedCount - 1; i >= 0; --i) {
    const int other = i == 0 ? 1 : 0;
    app.model().view = rl::ViewId(other);
    for (int f = 0; f < 3; ++f) app.drawFrame();
    ImGuiTabBar* bar = viewsTabBar();
    ASSERT_NE(bar, nullptr);
    const ImGuiTabItem* target = nullptr;
    for (const ImGuiTabItem& tab : bar->Tabs)
      if (std::string(bar->GetTabName(&tab)) == kExpected[i].label) target = &tab;
    ASSERT_NE(target, nullptr) << "no tab '" << kExpected[i].label << "'";
    const ImVec2 at(bar->BarRect.Min.x + target->Offset - bar->ScrollingAnim + target->Width * 0.5f,
                    (bar->BarRect.Min.y + bar->BarRect.Max.y) * 0.5f);
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = at;
    app.drawFrame();  // hover
    io.MouseDown[0] = true;
    app.drawFrame();
    io.MouseDown[0] = false;
    app.drawFrame();
    app.drawFrame();
    EXPECT_EQ(int(app.model().view), i) << "clicked '" << kExpected[i].label << "'";
    EXPECT_EQ(selectedTab(viewsTabBar()), kExpected[i].label);
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  }
}

// A lesson's `view` lines, stepped through in the window: each step shows its view.
TEST(Views, EveryViewRoundTripsThroughALessonInTheWindow) {
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  rl::app::Application& app = *h.app;
  std::string text = "title: Every view\n";
  for (int i = kExpectedCount - 1; i >= 0; --i)  // the last view first: the step decides, not the order
    text += std::string("step: ") + kExpected[i].label + "\n  view " + kExpected[i].name + "\n  caption: c\n";
  const std::string path = rl::test::tempPath("every-view.lesson");
  std::ofstream(path) << text;
  app.requestOpenLesson(path);
  ASSERT_TRUE(app.model().lesson.active) << "the lesson did not open";
  for (int s = 0; s < kExpectedCount; ++s) {
    app.requestLessonStep(s);
    for (int f = 0; f < 3; ++f) app.drawFrame();
    const int want = kExpectedCount - 1 - s;
    EXPECT_EQ(int(app.model().view), want) << "step " << s;
    ImGuiTabBar* bar = viewsTabBar();
    ASSERT_NE(bar, nullptr);
    EXPECT_EQ(selectedTab(bar), kExpected[want].label) << "step " << s;
  }
}

// ---- No view spelled outside the table ----

struct Literal {
  int line;
  std::string text;      // the literal's characters (escapes left as written)
  std::string lineCode;  // the code of its line, comments and literals blanked
};

// The string literals of C++ source, with the code of the line each is on.
std::vector<Literal> stringLiterals(const std::string& src) {
  std::vector<Literal> out;
  std::vector<std::string> code(1);  // per line: code only
  std::vector<std::pair<int, std::string>> lits;
  int line = 0;
  for (size_t i = 0; i < src.size();) {
    const char c = src[i];
    if (c == '\n') {
      ++line, code.emplace_back(), ++i;
    } else if (src.compare(i, 2, "//") == 0) {
      while (i < src.size() && src[i] != '\n') ++i;
    } else if (src.compare(i, 2, "/*") == 0) {
      const size_t end = src.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? src.size() : end + 2;
      for (; i < stop; ++i)
        if (src[i] == '\n') ++line, code.emplace_back();
    } else if (c == 'R' && src.compare(i, 2, "R\"") == 0 && (i == 0 || !std::isalnum(uint8_t(src[i - 1])))) {
      const size_t open = src.find('(', i + 2);
      const std::string close = ")" + src.substr(i + 2, open - i - 2) + "\"";
      const size_t end = src.find(close, open);
      const size_t stop = end == std::string::npos ? src.size() : end;
      lits.push_back({line, src.substr(open + 1, stop - open - 1)});
      for (i = open; i < stop + close.size() && i < src.size(); ++i)
        if (src[i] == '\n') ++line, code.emplace_back();
    } else if (c == '"' || (c == '\'' && (i == 0 || !std::isalnum(uint8_t(src[i - 1]))))) {  // not 1'000
      std::string text;
      ++i;
      for (; i < src.size() && src[i] != c && src[i] != '\n'; ++i) {
        if (src[i] == '\\' && i + 1 < src.size()) text += src[i++];
        text += src[i];
      }
      ++i;
      if (c == '"') lits.push_back({line, text});
      code.back() += c == '"' ? "\"\"" : "''";
    } else {
      code.back() += c, ++i;
    }
  }
  for (auto& [l, t] : lits) out.push_back({l + 1, t, code[size_t(l)]});
  return out;
}

// Names that other code uses for other things: "warp" (a step's kind, the bank view's warp
// slider), "tree" (the tree AllReduce), "all" (every kernel, every format), "source" and "Source"
// (JSON keys, the kernel panel's source tab). Spelled beside a view (`view`, CentreView, ViewId on
// the line) they still count.
const std::set<std::string> kSharedWords = {"warp", "tree", "all", "source", "Source"};

bool mentionsViews(std::string code) {
  for (char& ch : code) ch = char(std::tolower(uint8_t(ch)));
  for (size_t at; (at = code.find("string_view")) != std::string::npos;) code.erase(at, 11);  // std::string_view is no view
  return code.find("view") != std::string::npos;
}

// Why this literal spells a view ("" if it does not).
std::string viewSpelling(const Literal& lit, const std::vector<std::string>& words) {
  for (const std::string& w : words)
    if (lit.text == w) {
      if (!kSharedWords.count(w)) return "the view '" + w + "'";
      if (mentionsViews(lit.lineCode)) return "the view '" + w + "' beside a view";
    }
  // A list of names ("warp, bank, tree" in a help text).
  int named = 0;
  std::string token;
  for (size_t i = 0; i <= lit.text.size(); ++i) {
    const char ch = i < lit.text.size() ? lit.text[i] : ' ';
    if (std::isalnum(uint8_t(ch))) {
      token += ch;
      continue;
    }
    for (const std::string& w : words) named += token == w;
    token.clear();
  }
  return named >= 3 ? "a list of views" : "";
}

std::vector<std::string> tableWords() {
  std::vector<std::string> words;
  for (const rl::ViewInfo& v : rl::kViews) words.push_back(std::string(v.name)), words.push_back(v.label);
  return words;
}

// The check itself, on lines as they were before the table (each is found) and on lines that
// only share a word with a view (none is).
TEST(Views, TheSpellingCheckFindsViewNamesAndOnlyThem) {
  const std::vector<std::string> words = tableWords();
  auto found = [&](const std::string& src) {
    std::vector<std::string> why;
    for (const Literal& l : stringLiterals(src))
      if (std::string w = viewSpelling(l, words); !w.empty()) why.push_back(w);
    return why;
  };
  for (const char* before : {
           "  std::string view = \"warp\"; // warp, bank, tree, coalescing\n",
           "      {\"tree\", gui::CentreView::ReductionTree}, {\"coalescing\", gui::CentreView::Coalescing},\n",
           "      {\"all\", gui::CentreView::All}, {\"source\", gui::CentreView::Source}};\n",
           "  if (o.view != \"source\")\n",
           "      if (which != \"warp\" && which != \"bank\"\n",
           "    for (const Tab& tab : {Tab{\"Warp activity\", CentreView::WarpActivity}}) {\n",
           "                           Tab{\"All four\", CentreView::All}, Tab{\"Source\", CentreView::Source}}) {\n",
           "  cli.add_option(\"--view\", gui.view, \"Trace view shown: warp, bank, tree, coalescing, all, source\");\n",
           "  const char* n = R\"(Coalescing)\";\n"})
    EXPECT_FALSE(found(before).empty()) << before;
  for (const char* other : {
           "    refs.push_back({{\"what\", f.what}, {\"value\", f.value}, {\"source\", f.source}});\n",
           "  const char* algos[] = {\"ring\", \"tree\"};\n",
           "std::string_view name(Algorithm a) { return a == Algorithm::Ring ? \"ring\" : \"tree\"; }\n",
           "  if (ImGui::SliderInt(labelled ? \"warp\" : \"##warp\", &warp, 0, n)) t.warp = warp;\n",
           "  if (current && ImGui::BeginTabItem(\"Source\")) {\n",
           "    else if (item == \"all\") f = ExportFormats{};  // every view of it\n",
           "  std::string view = name;  // \"warp\" in a comment\n",
           "  /* \"bank\" */ int a = 0;\n",
           "  const char c = '\"'; f(\"warp\");\n"})
    EXPECT_TRUE(found(other).empty()) << other << ": " << found(other).front();
}

TEST(Views, NoCodeOutsideTheTableSpellsAView) {
  namespace fs = std::filesystem;
  const std::vector<std::string> words = tableWords();
  const fs::path root = rl::test::sourceDir();
  const fs::path table = root / "kernels/include/reducelab/views.hpp";
  int files = 0;
  std::vector<std::string> found;
  for (const char* dir : {"app", "gui", "kernels"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".cu" && ext != ".cuh")) continue;
      if (fs::equivalent(e.path(), table)) continue;
      ++files;
      for (const Literal& l : stringLiterals(readFile(e.path().string())))
        if (std::string why = viewSpelling(l, words); !why.empty())
          found.push_back(fs::relative(e.path(), root).string() + ":" + std::to_string(l.line) + ": \"" + l.text +
                          "\" (" + why + ")");
    }
  EXPECT_GT(files, 100) << "the sources were not found under " << root;
  for (const std::string& f : found) ADD_FAILURE() << f << ": use reducelab/views.hpp";
}

}  // namespace
