#pragma once
// The GUI application: one frame loop for the window and for --headless.
#include <string>
#include <vector>

#include "reducelab/usercode/worker.hpp"
#include "controller.hpp"
#include "file_dialog.hpp"
#include "gl_context.hpp"
#include "input_queue.hpp"
#include "interop.hpp"
#include "run_options.hpp"
#include "settings.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/views.hpp"

struct ImGuiIO;
#include "reducelab/gui/layout_check.hpp"
#include "reducelab/gui/model.hpp"
#include "reducelab/gui/plots.hpp"
#include "reducelab/gui/ui.hpp"

struct ImGuiContext;

namespace rl::app {

struct GuiOptions {
  bool headless = false;
  int frames = 0;  // 0: until the window closes (headless: 3)
  std::string screenshot;
  std::string dumpLayout;  // JSON file with the named panel rectangles of the last frame
  int width = 1600, height = 900;
  float uiScale = 1.0f;
  bool stats = false;
  // The GUI's starting state.
  RunOptionText run;
  bool runAtStart = false;   // measure the starting configuration (a kernel list: each of them)
  std::string view{viewInfo(kDefaultView).name};  // a view's name (reducelab/views.hpp)
  int step = -2;             // kTellingStep: the step that shows the view's point; -1: the last
  int warp = 0;
  std::string theme = "dark";
  bool runOptionsGiven = false;  // the command line chose the configuration (settings don't)
  std::string lesson;            // open this lesson (name or .lesson file)
  std::string lessonOut;         // headless: render every lesson step here and write its table
  bool presentation = false;
  bool themeGiven = false;       // --theme was given: it also sets the presentation theme
  std::string settingsPath;      // "" = the default in a window, none headless
  bool force = false;            // lesson export may overwrite files
  std::string sweepAtStart;      // block, n, type, kernel: start this sweep (frames go on meanwhile)
  std::string sweepNMax;
  std::string openFile;          // a recording (.reducelab) or session JSON to open
  std::string remoteHost, remoteCommand;  // drive a remote GPU (docs/remote.md)
  std::string kernelFile;        // --kernel-file: your own kernel, opened in the editor (and watched)
  std::string editorAutosave;    // the editor's autosave file ("": the default in a window, none headless)
  std::string checkWorker;       // the worker program of Check ("": this program's check-worker; tests)
  std::vector<std::string> checkWorkerArgs = {"check-worker"};
  // Developer options (measuring the GUI itself; never used in normal runs).
  int devFillResults = 0;   // fill the results store with N synthetic records (frame cost at scale)
};

class Application final : public gui::UiActions {
 public:
  Application(GlContext& ctx, GuiOptions options);
  ~Application() override;
  int run();  // exit code (app_frame_loop.cpp)

  void requestQuit() override { quit_ = true; }
  void requestScreenshot() override { screenshotRequested_ = true; }
  void requestRun() override { controller_->queueRun(model_.config); }
  void requestClearResults() override { controller_->clearResults(); }
  void requestRestoreResults() override { model_.results.restoreCleared(); }
  void requestSweep(const std::string& axis, const std::vector<std::string>& kernels, uint64_t nMax) override;
  void requestCancelSweep() override { controller_->cancelSweep(); }
  void requestCancelRuns() override { controller_->cancelRuns(); }
  void requestExportFigure(const gui::Figure& figure, const gui::FigureWriter& format) override;  // app_exports.cpp
  void requestExportTable(const Table& table, const std::string& stem) override;
  void requestExportView(const gui::Rect& region, const std::string& stem, const gui::FigureWriter& format) override {
    pendingViews_.push_back({region, stem, &format});  // written after the frame is drawn (app_exports.cpp)
  }
  void requestReport() override { reportRequested_ = true; }
  void requestSaveSession() override;  // app_sessions.cpp
  void requestLessonStep(int step) override;  // app_lessons.cpp
  void requestOpenLesson(const std::string& name) override;
  void requestOpenShippedRecording() override { openRecording(""); }  // app_sessions.cpp
  void requestCloseLesson() override;
  void requestTogglePresentation() override;  // app_window.cpp
  void requestFileChoice(gui::FileChoice choice) override;  // app_dialogs.cpp
  void requestPathChosen(gui::FileChoice choice, const std::string& path) override;
  void requestEditor(gui::EditorRequest r) override;  // app_editor.cpp
  void requestEditCopy(const std::string& starterKey) override;

  // app_sessions.cpp. Opens a recording or session JSON: "" or the error (logged; what was shown stays).
  std::string openRecording(const std::string& path);
  // Writes the session (runs, sweeps, lesson, traces) as a recording; "" or the error (logged).
  std::string saveSession(const std::string& path, bool overwrite);
  // The file chooser's program (tests put a fake zenity first on PATH, or name another one).
  void setFileDialogProgram(const std::string& program) { dialogProgram_ = program; }

  // For layout tests: the model, one frame drawn at a display size of the caller's choice (0 x 0:
  // the context's), and the text runs of the last frame (when recording is on).
  gui::Model& model() { return model_; }
  void setDisplaySize(int width, int height) { displayW_ = width, displayH_ = height; }
  void setRecordText(bool on) { recordText_ = on; }
  double drawFrame();  // milliseconds (app_frame_loop.cpp, as saveScreenshot)
  const std::vector<gui::TextRun>& textRuns() const { return textRuns_; }
  std::string saveScreenshot(const std::string& path);  // the last frame drawn, as PNG ("" or why not)

 private:
  // Member functions by file (docs/architecture.md, "The application, by feature").
  // application.cpp: the wiring.
  void activate();  // this Application's GL and ImGui contexts made current (a process may hold two: the tests)
  void initInterop();
  void saveSettingsAtExit();
  // app_frame_loop.cpp: the frame loop.
  void renderFrame();
  void nearestFontSampling(::ImGuiIO& io);
  bool animating() const;
  void keepStepByMeaning(uint64_t versionBefore, const trace::StepHeader& before, int stepsBefore, int stepBefore);
  void waitForIdle();
  void printStats() const;
  std::string writeLayoutDump(const std::string& path) const;  // "" or why not
  // app_input.cpp: the key queue's events into ImGui, once a frame.
  void pumpKeyEvents();
  // app_window.cpp: the window's place (presentation mode: requestTogglePresentation).
  void restoreWindowGeometry(int x, int y, int w, int h);
  void rememberWindowGeometry();
  // app_lessons.cpp: the lesson flow.
  void openLesson(const Lesson& lesson, const std::string& source);
  void enterLessonStep(int step);
  int exportLesson();
  // app_sessions.cpp: recordings and sessions.
  void replayStep();
  Recording sessionRecording() const;
  // The device the shown runs were measured on: an opened recording's, else this machine's.
  const DeviceInfo& measuredDevice() const;
  // app_dialogs.cpp: the file chooser.
  bool pollFileDialog();
  // app_editor.cpp: your own kernel.
  struct EditorJobs;
  void initEditor();
  void updateEditor();  // once a frame
  bool editorBusy() const;
  bool watchKernelFile();  // true when the kernel file changed on disk (polled twice a second)
  int editorArchitecture() const;
  void startEditorCompile();
  void showEditorTrace(bool bringViewsToFront);
  void ensureEditorWorker();
  usercode::WorkerOptions editorWorkerOptions();  // the check's and Run's worker process (--check-worker, Stop)
  void startEditorRun();
  void startEditorCheck();
  void saveEditorAutosave();
  void closeEditorAutosave();
  void saveKernel(const std::string& path);
  void openKernelFile(const std::string& path);
  void showNewDocument(const std::string& notice);
  void loadRecordedKernel(const Recording& rec);
  void loadExercise(const std::string& name);  // a lesson step's `exercise`  // a copy or another file in the editor: its results cleared
  // app_exports.cpp: exports.
  void processExports();
  void saveRequestedScreenshot();
  std::string freePath(const std::string& stem, const std::string& ext) const;

  ::ImGuiContext* imgui_ = nullptr;
  unsigned nearestFontTexture_ = 0;
  GlContext& ctx_;
  GuiOptions opt_;
  gui::Model model_;
  gui::Ui ui_;
  CudaGlBuffer interop_;
  std::unique_ptr<Controller> controller_;
  struct EditorJobsDeleter {  // EditorJobs is complete in app_editor.cpp only
    void operator()(EditorJobs* jobs) const;
  };
  std::unique_ptr<EditorJobs, EditorJobsDeleter> editor_;
  std::vector<double> frameMs_;
  bool quit_ = false;
  bool screenshotRequested_ = false;
  bool reportRequested_ = false;
  // Figure exports render offscreen, so they run between frames.
  struct PendingFigure {
    std::unique_ptr<gui::Figure> figure;
    const gui::FigureWriter* format;
  };
  std::vector<PendingFigure> pendingFigures_;
  struct PendingView {
    gui::Rect region;
    std::string stem;
    const gui::FigureWriter* format;
  };
  std::vector<PendingView> pendingViews_;
  void noteSaved(const std::string& key, const std::string& path, const std::string& error);
  FileDialog fileDialog_;
  gui::FileChoice dialogPurpose_ = gui::FileChoice::OpenRecording;
  std::string dialogProgram_ = "zenity";
  int startupError_ = 0;
  Settings settings_;
  std::string settingsPath_;
  float savedScale_ = 1.0f;
  gui::Theme savedTheme_ = gui::Theme::Dark;
  gui::UiSettings savedPanels_;
  int displayW_ = 0, displayH_ = 0;
  bool recordText_ = false;
  std::vector<gui::TextRun> textRuns_;
  KeyEventQueue keyQueue_;
  int settleFrames_ = 3;  // frames still to draw after an event before waiting (ImGui settles hover, tabs)
  bool wasAnimating_ = false;  // animating() before the last frame: its end leaves settle frames too
  int windowedX_ = -1, windowedY_ = -1, windowedW_ = 0, windowedH_ = 0;  // the window before presentation
};

// Parses "1600x900". Returns false for anything else (including zero or above 16384).
using ::rl::parseSize;  // reducelab/types.hpp (core, fuzzed)

// Checks the starting-state options; "" or a usage error.
std::string checkGuiOptions(GuiOptions& options, RunConfig* config, std::vector<std::string>* runKernels);

int runGui(const GuiOptions& options);

}  // namespace rl::app
