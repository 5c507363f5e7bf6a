// The editor of your own kernel in the application (headless, no GPU): --kernel-file opens and
// compiles the file (NVRTC needs no GPU), an error shows at its line, a save in another editor is
// reloaded and compiled again, Check runs the battery through a worker (the fake one here),
// Save writes only where asked, and the autosave brings the text back in a new window.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <imgui.h>

#include "application.hpp"
#include "gl_context.hpp"
#include "headless_window.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/recording.hpp"
#include "reducelab/trace.hpp"
#include "reducelab/usercode/nvrtc.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
namespace gui = rl::gui;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void writeFile(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string harris3() { return readFile(rl::test::sourceDir() + "/tests/data/usercode/harris3.cu"); }

// Harris 3 claiming int32 sum only, at these block sizes: a short battery.
std::string harris3Int32Sum(const std::string& blocks) {
  std::string text = harris3();
  for (const char* key : {"// @reducelab ops:", "// @reducelab types:"}) {
    const size_t a = text.find(key);
    if (a == std::string::npos) return "harris3.cu has no '" + std::string(key) + "' line";
    text.erase(a, text.find('\n', a) + 1 - a);
  }
  return "// @reducelab blocks: " + blocks + "\n// @reducelab types: int32\n" + text;
}

struct EditorApp : rl::test::HeadlessWindow {
  using HeadlessWindow::HeadlessWindow;
  gui::EditorState& editor() { return app->model().editor; }
};

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("rl-editor-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& n) const { return (path / n).string(); }
};

bool nvrtcMissing(std::string* why) {
  *why = rl::usercode::nvrtc().error;
  return !why->empty();
}

// Harris 3 (int32 sum, block 128) in DIR/NAME, in the editor, with the stand-in worker answering
// in `mode` (tests/usercode_fake_worker.cpp).
rl::app::GuiOptions harris3WithFakeWorker(const TempDir& dir, const std::string& name, const std::string& mode) {
  rl::app::GuiOptions o;
  o.kernelFile = dir.file(name);
  writeFile(o.kernelFile, harris3Int32Sum("128"));
  o.checkWorker = rl::test::builtFile(USERCODE_FAKE_WORKER);
  o.checkWorkerArgs = {mode};
  return o;
}

}  // namespace

TEST(EditorGui, KernelFileCompilesShowsErrorsAtTheirLineAndFollowsTheFileOnDisk) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  const std::string file = dir.file("mine.cu");
  writeFile(file, harris3());
  rl::app::GuiOptions o;
  o.kernelFile = file;
  EditorApp h(o);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  EXPECT_EQ(h.app->model().view, rl::ViewId::Editor);
  EXPECT_EQ(e.doc.path(), file);
  ASSERT_TRUE(h.until([&] { return e.build != gui::EditorState::Build::Compiling && e.builtVersion == e.doc.version(); }));
  ASSERT_EQ(e.build, gui::EditorState::Build::Ok) << e.buildSummary;
  EXPECT_NE(e.buildSummary.find("Compiled for sm_"), std::string::npos) << e.buildSummary;
  EXPECT_NE(e.buildSummary.find("registers"), std::string::npos) << e.buildSummary;
  // Registers and occupancy per build and claimed block (harris3: 4 types x 3 operations, blocks 128, 256, 512).
  ASSERT_EQ(e.resources.size(), 13u);
  EXPECT_NE(e.resources.front().find("Occupancy on"), std::string::npos) << e.resources.front();
  EXPECT_NE(e.resources.back().find("block 512: "), std::string::npos) << e.resources.back();

  // Typed in the editor: an undeclared name on line 10. Compiled a moment after typing stops.
  std::string text = e.doc.text();
  const size_t line10 = [&] {
    size_t p = 0;
    for (int l = 1; l < 10; ++l) p = text.find('\n', p) + 1;
    return p;
  }();
  text.insert(line10, "  undeclared_name = 1;\n");
  e.doc.edit(text, int(line10), 100.0);
  ASSERT_TRUE(h.until([&] { return e.builtVersion == e.doc.version() && e.build != gui::EditorState::Build::Compiling; }));
  ASSERT_EQ(e.build, gui::EditorState::Build::Errors) << e.buildSummary;
  bool atLine = false;
  for (const auto& d : e.diagnostics) atLine |= d.line == 10 && d.message.find("undeclared_name") != std::string::npos;
  EXPECT_TRUE(atLine) << (e.diagnostics.empty() ? "no diagnostics" : e.diagnostics.front().text());
  EXPECT_TRUE(e.doc.modified());
  EXPECT_EQ(readFile(file), harris3());  // nothing is written until Save

  // Saved in another editor while the editor has changes: a conflict, nothing replaced.
  writeFile(file, harris3() + "// from another editor\n");
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(5));
  ASSERT_TRUE(h.until([&] { return e.conflict; }, 5));
  EXPECT_NE(e.doc.text().find("undeclared_name"), std::string::npos);
  // Reload: the file's text, compiled again; the editor's text one undo away.
  h.app->requestEditor(gui::EditorRequest::ReloadFromDisk);
  EXPECT_FALSE(e.conflict);
  EXPECT_NE(e.doc.text().find("from another editor"), std::string::npos);
  ASSERT_TRUE(h.until([&] { return e.builtVersion == e.doc.version() && e.build != gui::EditorState::Build::Compiling; }));
  EXPECT_EQ(e.build, gui::EditorState::Build::Ok) << e.buildSummary;
  // Unmodified now: the next save elsewhere comes straight in.
  writeFile(file, harris3() + "// saved again\n");
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(10));
  ASSERT_TRUE(h.until([&] { return e.doc.text().find("saved again") != std::string::npos; }, 5));
  EXPECT_NE(e.notice.find("changed on disk: reloaded"), std::string::npos) << e.notice;
}

TEST(EditorGui, CheckRunsTheBatteryInTheWorkerAndReportsEachCase) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  EditorApp h(harris3WithFakeWorker(dir, "mine.cu", "ok"));  // answers every run with N: the sum of N ones passes, the rest fails
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  h.app->requestEditor(gui::EditorRequest::Check);
  EXPECT_TRUE(e.checking);
  ASSERT_TRUE(h.until([&] { return !e.checking; }, 120)) << e.casesDone << " of " << e.casesTotal;
  ASSERT_GT(e.cases.size(), 0u) << e.checkSummary;
  EXPECT_EQ(int(e.cases.size()), e.casesTotal);
  int passed = 0, failed = 0;
  for (const auto& c : e.cases) (c.verdict == rl::usercode::Verdict::Pass ? passed : failed)++;
  EXPECT_GT(passed, 0);  // the ones
  EXPECT_GT(failed, 0);  // everything else: a fake answer is caught
  EXPECT_EQ(e.checkExit, 3);
  EXPECT_FALSE(e.checkSummary.empty());
}

// A kernel that passes every case is timed; the Check tab shows the timing (here the fake worker's
// repetitions, and why the CPU model measures no CUB beside it). REDUCELAB_EDITOR_SHOTS=DIR: a
// screenshot to look at.
TEST(EditorGui, APassingKernelIsTimedAndTheCheckTabShowsIt) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  EditorApp h(harris3WithFakeWorker(dir, "mine.cu", "exact"));  // answers the exact reference: every case passes
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  h.app->requestEditor(gui::EditorRequest::Check);
  ASSERT_TRUE(h.until([&] { return !e.checking; }, 180)) << e.casesDone << " of " << e.casesTotal;
  EXPECT_EQ(e.checkExit, 0) << e.checkSummary;
  ASSERT_TRUE(e.timing.has_value());
  const std::string timing = e.timing->text();
  EXPECT_TRUE(e.timing->ran) << timing;
  EXPECT_NE(timing.find("your kernel"), std::string::npos) << timing;
  EXPECT_NE(timing.find("GB/s"), std::string::npos) << timing;
  // No GPU here: one line says why CUB and our kernels are not beside it.
  EXPECT_NE(timing.find("CUB and our kernels"), std::string::npos) << timing;
  EXPECT_NE(timing.find("not measured: the CPU model runs no kernel on this machine's GPU"), std::string::npos) << timing;
  h.app->model().ui.showBottom = false;  // the Views panel the whole height: the Checks tab tall enough to see
  h.until([] { return false; }, 0.2);
  if (const char* shots = std::getenv("REDUCELAB_EDITOR_SHOTS")) h.app->saveScreenshot(std::string(shots) + "/editor-timing.png");
}

// Two windows at once: the first keeps the shared autosave, the second autosaves beside it and
// never writes over it; the second's file goes when it closes with nothing unsaved, and stays
// (its text in it) when it closes with unsaved typing.
TEST(EditorGui, TwoWindowsNeverWriteOverEachOthersAutosave) {
  TempDir dir;
  const std::string autosave = dir.file("state/editor-autosave.json");
  rl::app::GuiOptions o;
  o.editorAutosave = autosave;
  auto others = [&] {
    std::vector<std::string> names;
    for (const auto& f : fs::directory_iterator(dir.file("state")))
      if (f.path().filename().string().rfind("editor-autosave-", 0) == 0) names.push_back(f.path().string());
    return names;
  };
  {
    EditorApp first(o);
    if (!first.app) GTEST_SKIP() << "no headless GL: " << first.error;
    first.app->requestEditCopy("k3");
    first.editor().doc.edit(first.editor().doc.text() + "// first window\n", 0, 1.0);
    {
      EditorApp second(o);
      ASSERT_TRUE(second.app);
      EXPECT_TRUE(second.editor().doc.empty());  // nothing restored: the first window's text is the first's
      second.app->requestEditCopy("k4");
      second.editor().doc.edit(second.editor().doc.text() + "// second window\n", 0, 1.0);
    }  // the second closes first, its typing unsaved: its own file keeps it
    const std::vector<std::string> kept = others();
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_NE(readFile(kept[0]).find("// second window"), std::string::npos);
    fs::remove(kept[0]);
    {
      EditorApp third(o);  // opened and closed with nothing unsaved: no file left behind
      ASSERT_TRUE(third.app);
    }
    EXPECT_TRUE(others().empty());
  }
  EXPECT_NE(readFile(autosave).find("// first window"), std::string::npos);
  EXPECT_EQ(readFile(autosave).find("// second window"), std::string::npos);
  EditorApp again(o);  // the first window gone: the next one owns the autosave and restores it
  ASSERT_TRUE(again.app);
  EXPECT_NE(again.editor().doc.text().find("// first window"), std::string::npos);
}

TEST(EditorGui, ACopyIsSavedOnlyWhereAskedAndTheAutosaveBringsItBack) {
  TempDir dir;
  const std::string autosave = dir.file("state/editor-autosave.json");
  rl::app::GuiOptions o;
  o.editorAutosave = autosave;
  {
    EditorApp h(o);
    if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
    gui::EditorState& e = h.editor();
    ASSERT_FALSE(e.starters.empty());
    EXPECT_TRUE(e.doc.empty());
    h.app->requestEditCopy("k3");
    ASSERT_FALSE(e.doc.empty());
    EXPECT_EQ(e.doc.suggestedName(), "k3.cu");
    EXPECT_FALSE(e.doc.hasFile());
    // Save of a copy never saved asks where (the chooser; here the in-app path field, no zenity).
    h.app->setFileDialogProgram("/nonexistent/zenity");
    h.app->requestEditor(gui::EditorRequest::Save);
    h.app->drawFrame();
    EXPECT_TRUE(h.app->model().pathPrompt.open);
    EXPECT_EQ(h.app->model().pathPrompt.purpose, gui::FileChoice::SaveKernelAs);
    // A typed path that exists is not replaced.
    const std::string taken = dir.file("taken.cu");
    writeFile(taken, "keep me");
    h.app->requestPathChosen(gui::FileChoice::SaveKernelAs, taken);
    EXPECT_EQ(readFile(taken), "keep me");
    EXPECT_FALSE(e.doc.hasFile());
    EXPECT_TRUE(e.noticeIsError);
    // Typing, then the app ends without saving (as after a crash, the autosave is what is left).
    e.doc.edit(e.doc.text() + "// my change\n", 0, 1.0);
  }
  ASSERT_TRUE(fs::exists(autosave));
  EditorApp again(o);
  ASSERT_TRUE(again.app);
  gui::EditorState& e = again.editor();
  EXPECT_NE(e.doc.text().find("// my change"), std::string::npos);
  EXPECT_EQ(e.doc.suggestedName(), "k3.cu");
  EXPECT_NE(e.notice.find("Restored"), std::string::npos) << e.notice;
  // Saved where asked: the file holds the text, and the document is bound to it.
  const std::string mine = dir.file("my_k3.cu");
  again.app->requestPathChosen(gui::FileChoice::SaveKernelAs, mine);
  EXPECT_EQ(readFile(mine), e.doc.text());
  EXPECT_FALSE(e.doc.modified());
  EXPECT_EQ(e.doc.path(), mine);
}

TEST(EditorGui, AKernelFileThatCannotBeOpenedIsRefusedBeforeTheWindowOpens) {
  rl::app::GuiOptions o;
  o.kernelFile = "/nonexistent/mine.cu";
  const std::string e = rl::app::checkGuiOptions(o, nullptr, nullptr);
  EXPECT_NE(e.find("--kernel-file"), std::string::npos) << e;
  o.kernelFile = fs::temp_directory_path().string();  // a folder
  EXPECT_NE(rl::app::checkGuiOptions(o, nullptr, nullptr).find("--kernel-file"), std::string::npos);
}

// The real worker (this build's `reducelab check-worker`) where there is no GPU (the CPU suite
// hides it): Check ends with one sentence saying so, exit code 1 as `reducelab check`, no case run,
// and the editor's text and file untouched.
TEST(EditorGui, CheckWithoutAGpuSaysSoAndLeavesTheTextAlone) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  const std::string file = dir.file("mine.cu");
  writeFile(file, harris3());
  rl::app::GuiOptions o;
  o.kernelFile = file;
  o.checkWorker = rl::test::builtFile(REDUCELAB_BINARY);
  EditorApp h(o);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  if (h.app->model().device.available) GTEST_SKIP() << "a GPU answers here: tests/test_gpu_usercode.cpp checks on it";
  gui::EditorState& e = h.editor();
  e.doc.edit(e.doc.text() + "// unsaved\n", 0, 1.0);
  h.app->requestEditor(gui::EditorRequest::Check);
  ASSERT_TRUE(h.until([&] { return !e.checking; }, 120));
  EXPECT_EQ(e.checkExit, 1) << e.checkSummary;
  EXPECT_NE(e.checkSummary.find("GPU"), std::string::npos) << e.checkSummary;
  EXPECT_TRUE(e.cases.empty());
  EXPECT_NE(e.doc.text().find("// unsaved"), std::string::npos);
  EXPECT_EQ(readFile(file), harris3());
}

// A window opened after another keeps the view it was asked for: the views' tab bar kept its last
// tab in a process-wide static, and a second window showing the same view was switched to the first
// tab (the Xvfb-free way this showed: the long-file test failed after another editor test).
TEST(EditorGui, AWindowOpenedAfterAnotherKeepsItsOwnView) {
  TempDir dir;
  const std::string file = dir.file("k.cu");
  writeFile(file, "//\n");
  rl::app::GuiOptions o;
  o.kernelFile = file;
  for (int window = 0; window < 2; ++window) {
    EditorApp h(o);
    if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
    for (int i = 0; i < 3; ++i) h.app->drawFrame();
    EXPECT_EQ(h.app->model().view, rl::ViewId::Editor) << "window " << window;
  }
}

// The file saved elsewhere, much longer, while the caret is in the editor (the field active): the
// field takes the new text without writing past its buffers (ASan watches this in CI).
TEST(EditorGui, AMuchLongerFileReloadedWhileTheFieldIsActive) {
  TempDir dir;
  const std::string file = dir.file("k.cu");
  writeFile(file, "//\n");
  rl::app::GuiOptions o;
  o.kernelFile = file;
  EditorApp h(o);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  e.caretLine = 1;  // as a click on a message: the field gets the keyboard
  for (int i = 0; i < 5; ++i) h.app->drawFrame();
  EXPECT_TRUE(ImGui::GetIO().WantTextInput);
  std::string longer;
  for (int i = 0; i < 3000; ++i) longer += "// line " + std::to_string(i) + " of a kernel that grew a lot\n";
  writeFile(file, longer);
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(5));
  ASSERT_TRUE(h.until([&] { return e.doc.text() == longer; }, 5));
  for (int i = 0; i < 5; ++i) h.app->drawFrame();
  EXPECT_EQ(e.doc.text(), longer);
  EXPECT_FALSE(e.doc.modified());
}

// --kernel-file names another file than the one whose unsaved text the autosave holds: that text
// is kept aside under its own name, not written over by this session's autosave.
TEST(EditorGui, AnAutosaveOfAnotherFileIsKeptAside) {
  TempDir dir;
  const std::string autosave = dir.file("state/editor-autosave.json");
  {
    rl::usercode::KernelDocument d;
    d.startUnsaved("precious unsaved text", "k3.cu");
    ASSERT_EQ(rl::usercode::writeAutosave(autosave, d), "");
  }
  const std::string file = dir.file("other.cu");
  writeFile(file, "other");
  rl::app::GuiOptions o;
  o.kernelFile = file;
  o.editorAutosave = autosave;
  {
    EditorApp h(o);
    if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
    EXPECT_EQ(h.editor().doc.text(), "other");
    h.editor().doc.edit("other, edited", 5, 1.0);
  }
  int aside = 0;
  for (const auto& entry : fs::directory_iterator(dir.path / "state")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("editor-autosave-", 0) == 0) {
      ++aside;
      EXPECT_NE(readFile(entry.path().string()).find("precious unsaved text"), std::string::npos);
    }
  }
  EXPECT_EQ(aside, 1);
  EXPECT_NE(readFile(autosave).find("other, edited"), std::string::npos);
}

// Saved elsewhere while a check runs: that check (of the old text) is stopped and the new text is
// checked; the cases shown are the new text's.
TEST(EditorGui, AFileChangedDuringACheckIsCheckedAgain) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  const std::string file = dir.file("mine.cu");
  const std::string text = harris3Int32Sum("128, 256");
  writeFile(file, text);
  rl::app::GuiOptions o;
  o.kernelFile = file;
  o.checkWorker = rl::test::builtFile(USERCODE_FAKE_WORKER);
  o.checkWorkerArgs = {"ok"};
  EditorApp h(o);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  h.app->requestEditor(gui::EditorRequest::Check);
  ASSERT_TRUE(e.checking);
  writeFile(file, text + "// changed while the check ran\n");
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(5));
  ASSERT_TRUE(h.until([&] { return e.doc.text().find("changed while") != std::string::npos; }, 10));
  ASSERT_TRUE(h.until([&] { return !e.checking && e.checkedVersion == e.doc.version() && e.checkExit >= 0; }, 120))
      << e.checkSummary;
  EXPECT_EQ(int(e.cases.size()), e.casesTotal);
  EXPECT_EQ(e.checkExit, 3);  // the stand-in's answers: ones pass, the rest fail
}

// The Source view offers "Edit a copy" of a kernel with a starter (and says why k9 has none).
TEST(EditorGui, TheSourceViewOffersACopyOfTheKernel) {
  rl::app::GuiOptions o;
  EditorApp h(o);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  auto shown = [&](const std::string& kernel) {
    h.app->model().config.kernel = kernel;
    h.app->model().view = rl::ViewId::Source;
    h.app->setRecordText(true);
    std::string all;
    for (int i = 0; i < 3; ++i) h.app->drawFrame();
    for (const auto& run : h.app->textRuns()) all += run.text + "\n";
    return all;
  };
  const std::string k3 = shown("k3");
  // (The text runs read back from the glyphs may split "k3.cu" at the dot: the file's stem is matched.)
  EXPECT_NE(k3.find("Edit a copy (k3"), std::string::npos) << k3.substr(0, 3000);
  EXPECT_NE(shown("k5").find("Edit a copy (k5s"), std::string::npos);  // the __syncwarp form
  const std::string k9 = shown("k9");
  EXPECT_NE(k9.find("Edit a copy"), std::string::npos);
  EXPECT_EQ(k9.find("Edit a copy ("), std::string::npos);  // no starter: the button is there, disabled
}

// The check's traced block reaches the views: after Check the warp, bank and coalescing views draw
// the user's kernel (here the fake worker's trace), the Checks tab says which case, "Show in the
// views" brings the warp view to the front; another configuration puts the catalogue kernel's
// trace back, and the editor says the views no longer show it.
TEST(EditorGui, TheChecksTracedBlockIsDrawnByTheViews) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  EditorApp h(harris3WithFakeWorker(dir, "mine.cu", "traced"));
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  gui::Model& m = h.app->model();
  h.app->requestEditor(gui::EditorRequest::Check);
  ASSERT_TRUE(h.until([&] { return !e.checking; }, 180)) << e.casesDone << " of " << e.casesTotal;
  EXPECT_EQ(e.checkExit, 0) << e.checkSummary << "\n" << e.hazards;
  ASSERT_FALSE(e.tracedCase.empty()) << e.hazards;
  EXPECT_NE(e.tracedCase.find("block 128"), std::string::npos) << e.tracedCase;
  ASSERT_TRUE(h.until([&] { return e.traceInViews; }, 10));
  EXPECT_EQ(m.trace.config.kernel, "yours");
  EXPECT_EQ(m.trace.config.block, 128);
  EXPECT_EQ(int(m.trace.data.header.blockSize), 128);
  EXPECT_NE(m.trace.source.find("GPU (fake worker (tests)): your kernel mine.cu, int32 sum, block 128"), std::string::npos)
      << m.trace.source;
  EXPECT_EQ(m.view, rl::ViewId::Editor) << "the check does not take the user away from the editor";
  h.app->requestEditor(gui::EditorRequest::ShowTrace);
  h.until([] { return false; }, 0.2);
  EXPECT_EQ(m.view, rl::ViewId::WarpActivity);
  EXPECT_EQ(m.trace.config.kernel, "yours");
  // On the step that shows the warp view's point (the first with waiting lanes), not the last.
  EXPECT_EQ(m.trace.step, rl::requestedStep(m.trace.data, m.trace.summary, rl::ViewId::WarpActivity, rl::kTellingStep));
  EXPECT_LT(m.trace.step, m.trace.data.numSteps() - 1);
  if (const char* shots = std::getenv("REDUCELAB_EDITOR_SHOTS")) h.app->saveScreenshot(std::string(shots) + "/editor-trace-in-views.png");
  // Another configuration: its own trace again.
  m.config.block = m.config.block == 256 ? 512 : 256;
  ASSERT_TRUE(h.until([&] { return m.trace.valid && m.trace.config.kernel != "yours"; }, 30)) << m.trace.source;
  h.until([] { return false; }, 0.1);
  EXPECT_FALSE(e.traceInViews);
}

// A kernel that gives a wrong result: the first wrong case is traced as it ran (its N and data; the
// first launch's last block, where a partial block's bugs show) and the views open on it.
TEST(EditorGui, TheViewsOpenOnTheFirstWrongCase) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  EditorApp h(harris3WithFakeWorker(dir, "wrong.cu", "traced-wrong"));  // the sum of N ones: right for ones only
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  gui::Model& m = h.app->model();
  h.app->requestEditor(gui::EditorRequest::Check);
  ASSERT_TRUE(h.until([&] { return !e.checking; }, 180)) << e.casesDone << " of " << e.casesTotal;
  EXPECT_EQ(e.checkExit, 3) << e.checkSummary;
  const auto wrong = std::find_if(e.cases.begin(), e.cases.end(), [](const rl::usercode::CaseResult& c) {
    return c.verdict == rl::usercode::Verdict::Fail;
  });
  ASSERT_NE(wrong, e.cases.end());
  ASSERT_TRUE(h.until([&] { return e.traceInViews; }, 10)) << e.tracedCase;
  EXPECT_EQ(m.view, rl::ViewId::WarpActivity) << "the views open on the failure";
  EXPECT_NE(e.tracedCase.find("first wrong case"), std::string::npos) << e.tracedCase;
  EXPECT_NE(m.trace.source.find("the first wrong case"), std::string::npos) << m.trace.source;
  EXPECT_EQ(m.trace.config.n, wrong->c.n);
  EXPECT_EQ(m.trace.config.type, wrong->c.type);
  EXPECT_EQ(m.trace.config.block, wrong->c.block);
  const uint64_t grid = (wrong->c.n + uint64_t(wrong->c.block) - 1) / uint64_t(wrong->c.block);
  EXPECT_EQ(uint64_t(m.trace.data.header.tracedBlock), grid - 1) << "the first launch's last block";
  // On the warp view's point, not on the step the hazard check's trace was showing (on the H200
  // the frame that brought it mapped the old step onto it: the last phase).
  EXPECT_EQ(m.trace.step, rl::requestedStep(m.trace.data, m.trace.summary, rl::ViewId::WarpActivity, rl::kTellingStep));
}

// Run as a row: the kernel measured at the Parameters' configuration, timed like bench
// --kernel-file's row (here by the fake worker: the input streamed at 2 TB/s), into Results.
TEST(EditorGui, RunAsARowPutsTheKernelInResults) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  EditorApp h(harris3WithFakeWorker(dir, "mine.cu", "exact"));
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  gui::Model& m = h.app->model();
  m.config.type = rl::ElemType::Int32, m.config.op = rl::Op::Sum, m.config.block = 128, m.config.n = uint64_t(1) << 20;
  m.config.reps = 10;
  const size_t before = m.results.size();
  h.app->requestEditor(gui::EditorRequest::Run);
  EXPECT_TRUE(e.running);
  ASSERT_TRUE(h.until([&] { return !e.running; }, 120)) << e.notice;
  ASSERT_EQ(m.results.size(), before + 1) << e.notice;
  const rl::Measurement& r = m.results.rows().back();
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.kernel, "yours");
  EXPECT_EQ(r.config.n, uint64_t(1) << 20);
  EXPECT_EQ(r.kernelMs.size(), 10u);
  // The fake worker's repetition k takes n*4/2e9 ms + k ns: the median of 10 is that of k = 4.5.
  EXPECT_NEAR(r.kernel.median, double(1 << 20) * 4 / 2e9 + 4.5e-6, 1e-9);
  EXPECT_NEAR(r.bandwidthGBs, r.bytesRead / (r.kernel.median * 1e-3) / 1e9, 1e-6 * r.bandwidthGBs);
  EXPECT_NE(e.notice.find("a row in Results"), std::string::npos) << e.notice;
  EXPECT_FALSE(e.noticeIsError) << e.notice;
  h.until([] { return false; }, 0.2);
  if (const char* shots = std::getenv("REDUCELAB_EDITOR_SHOTS")) h.app->saveScreenshot(std::string(shots) + "/editor-run-row.png");
  // A block the kernel does not claim: one clear line, no row.
  m.config.block = 1024;
  h.app->requestEditor(gui::EditorRequest::Run);
  ASSERT_TRUE(h.until([&] { return !e.running; }, 120)) << e.notice;
  EXPECT_EQ(m.results.size(), before + 1);
  EXPECT_TRUE(e.noticeIsError);
  EXPECT_NE(e.notice.find("Not run"), std::string::npos) << e.notice;
}

// A recording made with `record --kernel-file` opened in the window: the kernel comes into the
// editor as an unsaved copy under its file's name (the recording's views stay in front), what the
// compiler said when it was recorded is in the Log, and "Show in the views" draws the trace the
// GPU recorded of it. Unsaved work in the editor is never replaced.
TEST(EditorGui, ARecordingsKernelOpensInTheEditorWithItsRecordedTrace) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  rl::Recording r;
  r.device = rl::assumedH200();
  r.device.available = true;
  r.createdUtc = "2026-11-26T07:00:00Z";
  r.userKernel = rl::UserKernelRecord{"mine.cu", harris3Int32Sum("128"), "mine.cu:9:3: warning: a warning kept from the GPU\n", "sm_90"};
  rl::RunConfig c;
  c.kernel = std::string(rl::kUserKernelKey);
  c.type = rl::ElemType::Int32;
  c.block = 128;
  c.n = 4096;
  std::string err;
  rl::RunConfig k3 = c;
  k3.kernel = "k3";
  rl::TraceData t = rl::modelTrace(k3, 32, 9, &err);  // what the fake worker also answers: k3's schedule
  ASSERT_TRUE(t.valid()) << err;
  t.header.flags |= rl::trace::kTraceInstrumented;
  r.traces.push_back(rl::RecordedTrace{c, true, t.toBuffer()});
  const std::string file = dir.file("class.reducelab");
  ASSERT_EQ(rl::writeRecording(file, r), "");

  rl::app::GuiOptions o;
  o.openFile = file;
  EditorApp h(o);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  gui::Model& m = h.app->model();
  h.until([] { return false; }, 0.3);
  EXPECT_EQ(e.doc.text(), r.userKernel->source);
  EXPECT_FALSE(e.doc.hasFile());
  EXPECT_EQ(e.doc.suggestedName(), "mine.cu");
  EXPECT_NE(m.view, rl::ViewId::Editor);
  bool logged = false;
  for (const gui::LogEntry& l : m.log) logged = logged || l.text.find("a warning kept from the GPU") != std::string::npos;
  EXPECT_TRUE(logged);
  EXPECT_NE(m.config.kernel, "yours");  // the Parameters panel keeps a kernel of the catalogue
  h.app->requestEditor(gui::EditorRequest::ShowTrace);
  ASSERT_TRUE(h.until([&] { return e.traceInViews; }, 10));
  EXPECT_EQ(m.view, rl::ViewId::WarpActivity);
  EXPECT_EQ(m.trace.config.kernel, "yours");
  EXPECT_EQ(int(m.trace.data.header.blockSize), 128);
  EXPECT_NE(m.trace.source.find("recorded 2026-11-26: your kernel mine.cu, int32 sum, N=2^12, block 128"), std::string::npos)
      << m.trace.source;

  // Unsaved text of the user's own: kept, and the Log says why the recording's kernel is not shown.
  e.doc.startUnsaved("// my own work\n", "other.cu");
  e.doc.edit("// my own work, changed\n", 0, 0);
  ASSERT_TRUE(e.doc.unsavedWork());
  const std::string mine = e.doc.text();
  ASSERT_EQ(h.app->openRecording(file), "");
  EXPECT_EQ(e.doc.text(), mine);
  logged = false;
  for (const gui::LogEntry& l : m.log) logged = logged || l.text.find("it was not put in the editor") != std::string::npos;
  EXPECT_TRUE(logged);
}

// With --remote, Check and Run as a row go to the remote GPU: the server compiles the editor's
// text, runs the battery in its own worker (here the fake one, set in the server's environment;
// this window's own worker is one that cannot start, so nothing runs here), and the cases, the
// failure's trace and the row arrive as they would from this machine's worker.
TEST(EditorGui, OnARemoteGpuCheckAndRunGoToTheServer) {
  std::string why;
  if (nvrtcMissing(&why)) GTEST_SKIP() << "NVRTC: " << why;
  TempDir dir;
  rl::app::GuiOptions o = harris3WithFakeWorker(dir, "wrong.cu", "traced-wrong");
  o.checkWorker = "/nonexistent/worker";  // proves the work is the server's
  o.remoteCommand = rl::test::builtFile(REMOTE_TEST_SERVER);
  struct ServerWorker {  // the server inherits it: its worker is the fake one
    ServerWorker() { ::setenv("REDUCELAB_KERNEL_WORKER", (rl::test::builtFile(USERCODE_FAKE_WORKER) + " traced-wrong").c_str(), 1); }
    ~ServerWorker() { ::unsetenv("REDUCELAB_KERNEL_WORKER"); }
  } serverWorker;
  EditorApp h(o);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::EditorState& e = h.editor();
  gui::Model& m = h.app->model();
  ASSERT_TRUE(h.until([&] { return m.remote.link == gui::RemoteState::Link::Connected; }, 30));
  h.app->requestEditor(gui::EditorRequest::Check);
  EXPECT_TRUE(e.checking);
  ASSERT_TRUE(h.until([&] { return !e.checking; }, 180)) << e.casesDone << " of " << e.casesTotal;
  EXPECT_EQ(e.checkExit, 3) << e.checkSummary;
  ASSERT_GT(e.cases.size(), 0u) << e.checkSummary;
  EXPECT_EQ(int(e.cases.size()), e.casesTotal);
  EXPECT_NE(e.checkSummary.find("cases passed"), std::string::npos) << e.checkSummary;
  ASSERT_TRUE(h.until([&] { return e.traceInViews; }, 10)) << e.tracedCase;
  EXPECT_NE(m.trace.source.find("the first wrong case"), std::string::npos) << m.trace.source;
  EXPECT_NE(m.trace.source.find("fake worker (tests)"), std::string::npos) << m.trace.source;  // the server's worker
  h.until([] { return false; }, 0.2);
  if (const char* shots = std::getenv("REDUCELAB_EDITOR_SHOTS")) h.app->saveScreenshot(std::string(shots) + "/editor-remote-check.png");

  m.config.type = rl::ElemType::Int32, m.config.op = rl::Op::Sum, m.config.block = 128, m.config.n = uint64_t(1) << 16;
  m.config.reps = 5;
  const size_t before = m.results.size();
  h.app->requestEditor(gui::EditorRequest::Run);
  EXPECT_NE(e.notice.find("the row arrives in Results"), std::string::npos) << e.notice;
  ASSERT_TRUE(h.until([&] { return m.results.size() > before; }, 60)) << e.notice;
  const rl::Measurement& r = m.results.rows().back();
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.kernel, "yours");
  EXPECT_EQ(r.kernelName, "your kernel (wrong.cu)");
  EXPECT_EQ(r.kernelMs.size(), 5u);
}
