#pragma once
// What the GUI draws: records handed to it by the app. The GUI never launches CUDA; it asks for
// work through UiActions and draws whatever records come back.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reducelab/config.hpp"
#include "reducelab/table.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/device_info.hpp"
#include "reducelab/gui/gl.hpp"
#include "reducelab/record.hpp"
#include "reducelab/recording.hpp"
#include "reducelab/results_store.hpp"
#include "reducelab/trace.hpp"
#include "reducelab/views.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/kernel_document.hpp"

namespace rl::gui {

struct MultiPanelState;  // multi_view.hpp

enum class Theme { Dark, Light };

struct UiSettings {
  float uiScale = 1.0f;  // user setting, multiplied by the monitor's content scale
  Theme theme = Theme::Dark;
  bool showLeft = true, showRight = true, showBottom = true;
  bool scaleLimited = false;  // the window is too small for uiScale: a smaller scale is in effect
};

enum class LogLevel { Info, Warn, Error };
struct LogEntry {
  LogLevel level;
  std::string text;
};

// The CUDA-GL interop smoke buffer: written by a CUDA kernel (GPU) or the CPU (CPU model).
struct InteropStrip {
  GLuint buffer = 0;
  int count = 0;
  std::string writer;  // "CUDA kernel" or "CPU model"
  bool ok = false;
  std::string error;
};

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
};

// The view in the centre of the window: one of the table in reducelab/views.hpp.
using CentreView = ViewId;

// The trace the views animate. `buffer` is the GL buffer the traced kernel (or the CPU model)
// wrote; `data` is a host copy of the same bytes for labels and tooltips.
struct TraceState {
  bool valid = false;
  std::string error;
  std::string source;       // "GPU (NVIDIA H200), CUDA-GL interop" or "CPU model"
  bool gpuWritten = false;  // the GPU's traced kernel wrote it (live or recorded)
  RunConfig config;         // what was traced
  TraceData data;
  TraceSummary summary;
  GLuint buffer = 0;
  uint64_t version = 0;     // bumps when new data arrives
  // Animation.
  int step = 0;
  bool playing = false;
  float stepsPerSecond = 1.5f;
  float timer = 0;
  int warp = 0;             // selected warp (bank and coalescing views)
  int slot = -1;            // selected access slot, -1: the first that applies
  // Set by lessons and the command line: applied when the next trace arrives.
  bool pendingSelection = false;
  // The step was chosen with the trace (the user's kernel's, on its view's point): the frame that
  // brought it keeps it instead of mapping the old step's meaning onto it.
  bool stepChosen = false;
  int pendingStep = -2, pendingWarp = 0;  // -2 kTellingStep, -1 the last
  int pendingSlot = -1;  // the slot a lesson step asks for (-1: the first that applies), set with the trace
};

// One row of a lesson's table: a `run` of the lesson and what it measured.
struct LessonRow {
  std::string label;
  RunConfig config;
  int times = 1;
  std::vector<std::string> reference;
  std::vector<Measurement> runs;
  bool queued = false;
};

// A pitfall demonstration of a lesson step (seed 002) and what came back.
struct LessonPitfall {
  PitfallRequest request;
  std::optional<PitfallResult> result;
  bool queued = false;
};

struct LessonState {
  bool active = false;
  Lesson lesson;
  std::string source;              // the lesson's text (a saved session carries it)
  int step = 0;
  int appliedStep = -1;            // the step whose settings are in effect
  std::vector<LessonRow> rows;     // every run of the lesson, in file order
  std::vector<int> firstRowOfStep; // index into rows
  std::vector<bool> sweepQueued;
  std::vector<LessonPitfall> pitfalls;  // every `pitfall` line, in file order
  std::vector<int> firstPitfallOfStep;  // index into pitfalls
  int tableScrolledToStep = -1;         // the step whose rows the lesson table last scrolled to
};

// Sweeps run in the background; their rows stream in as they are measured.
struct SweepState {
  bool running = false;
  std::string axis;        // "block", "n", "type", "kernel" of the running sweep
  int done = 0, total = 0;
  std::string current;     // what is being measured now
  std::map<std::string, std::vector<Measurement>> rows;  // by axis: the latest sweep of each
};

// A recording (or a saved session) opened in the GUI: its runs are replayed into the results,
// its traces replace the CPU model for the configurations it holds.
struct ReplayState {
  std::shared_ptr<const Recording> recording;  // null: nothing opened
  std::string path;
  std::string banner;           // "Recorded on NVIDIA H200, driver 13.0, 2026-11-21 09:30 UTC"
  size_t replayed = 0;          // runs handed to the results so far (the live plot replays them)
  bool active() const { return recording != nullptr; }
  bool replaying() const { return recording && replayed < recording->measurements.size(); }
};

// What a file chooser is for, and the in-app path field used where no desktop chooser runs.
enum class FileChoice { OpenRecording, SaveSession, ExportFolder, OpenKernel, SaveKernelAs };
struct PathPrompt {
  bool open = false;
  FileChoice purpose = FileChoice::OpenRecording;
  std::string text;             // the path typed so far
  std::string why;              // why the desktop's chooser is not used ("zenity is not installed")
};

// A remote GPU (docs/remote.md): where it is and how the connection stands.
struct RemoteState {
  bool active = false;       // the app was started with --remote / --remote-command
  std::string target;        // the host (or the command)
  enum class Link { Connecting, Connected, Dropped } link = Link::Connecting;
  std::string host;          // the server's own host name (from its hello)
  std::string detail;        // why the connection ended
};

// The student's own kernel (docs/your-kernel.md, "The editor"): the document the editor edits,
// and what the app's compiles and checks of it brought back. The GUI edits the text and asks for
// the rest (EditorRequest); the app compiles, checks, saves, watches the file and autosaves.
struct EditorStarter {
  std::string key;    // a catalogue kernel: "k3"
  std::string title;  // "k3: sequential addressing"
};
struct EditorState {
  usercode::KernelDocument doc;
  // Who the editing field's state belongs to, unique in the process (a test holds windows one after
  // another; a new one's state may reuse a freed one's address).
  const uint64_t fieldOwner = nextFieldOwner();
  static uint64_t nextFieldOwner() {
    static std::atomic<uint64_t> next{1};
    return next++;
  }
  std::vector<EditorStarter> starters;  // what "Edit a copy" offers
  std::string notice;                   // one line over the editor: restored, reloaded, saved
  bool noticeIsError = false;
  bool conflict = false;                // the file changed on disk while the editor has changes of its own
  // The latest compile (of every type x operation the kernel claims).
  enum class Build { None, Compiling, Ok, Errors, Environment } build = Build::None;
  uint64_t builtVersion = 0;            // doc.version() the build and its diagnostics are of
  std::vector<usercode::Diagnostic> diagnostics;
  std::string buildSummary;             // "12 builds for sm_90: 16 registers, no spills" or why there is none
  std::vector<std::string> resources;   // per build: registers, shared memory, spills, occupancy per claimed block
  // The latest check (the battery, in the worker).
  bool checking = false;
  bool running = false;                 // Run: the kernel measured as a row of Results (bench --kernel-file's)
  uint64_t checkedVersion = 0;
  int casesDone = 0, casesTotal = 0;
  std::vector<usercode::CaseResult> cases;
  std::string checkSummary;             // "72 of 72 passed" or why it did not run
  int checkExit = -1;                   // reducelab check's exit code for it (-1: none yet)
  std::string hazards;                  // the hazard check's lines
  std::string tracedCase;               // the check traced a block of the kernel: which case ("" none)
  bool traceInViews = false;            // and the views show it (until the configuration changes)
  std::optional<usercode::TimingCheck> timing;  // beside CUB (a kernel that passed), once done
  // The lesson step's goals (`require:`) the running or last check is judged by, and the verdicts.
  std::vector<Requirement> goals;
  std::vector<usercode::GoalResult> goalResults;
  // Asked by the GUI of the editor widget for the next frame.
  int caretLine = 0;                    // > 0: put the caret on this line (a message was clicked)
  int caretOffset = -1;                 // >= 0: put the caret here (after an undo)
  bool showChecks = false;              // bring the checks' tab to the front once
  bool checksInFront = false;           // the checks' tab was the one shown last frame
};

enum class EditorRequest {
  Compile,       // compile now (the app also compiles a moment after typing stops)
  Check,         // run the battery on the GPU (in the worker)
  CancelCheck,
  Save,          // to the document's file; one not saved yet asks where (SaveKernelAs)
  ReloadFromDisk,
  KeepMine,
  ShowTrace,     // the views show the check's traced block again, warp view in front
  Run,           // measure it at the Parameters' type, operation, N and block: a row in Results
};

struct Model {
  // This window's model, unique in the process (caches keyed by it: a later window's model may sit at
  // a freed one's address, and its results' generation starts at 0 again).
  const uint64_t instance = EditorState::nextFieldOwner();
  DeviceInfo device;
  RemoteState remote;
  std::string glRenderer, glVersion;
  UiSettings ui;
  InteropStrip interop;
  std::vector<LogEntry> log;
  std::map<std::string, Rect> layout;  // named panel rectangles of the last frame (--dump-layout)

  RunConfig config;                 // what the parameter panel shows (the next run / trace)
  // The parameters each family had when the panel left it, by family name: picking one of its
  // kernels again brings them back (selectKernel).
  std::map<std::string, FamilyParams> parkedParams;
  std::string configError;          // validation of `config` ("" when it can run)
  CentreView view = CentreView::WarpActivity;
  // The views' tab bar: the tab it showed last frame, and whether it has drawn yet (a view picked
  // from outside, command line or lesson, is forced once). Per window, never a process-wide static:
  // a window opened after another must not take the other's tab for its own.
  CentreView viewTabShown = CentreView::WarpActivity;
  bool viewTabsDrawn = false;
  // The Source view's own state (per window, like the tab bar's).
  struct SourceViewState {
    std::string shownKernel;
    int fileIndex = 0;
    bool follow = true, compare = false;
    int lastStep = -1;
  } sourceView;
  TraceState trace;

  Peaks peaks;
  PolicyTable policies;             // the device's tuned launch policies (k13), empty: none stored
  ResultsStore results;             // the results table (latest last), append-only
  bool measuring = false;
  std::string measuringWhat;
  bool showTraceHooks = false;      // kernel source: show the `tr.` lines
  bool continuous = false;          // re-measure the configuration whenever the queue is idle
  SweepState sweep;
  // Occupancy of `config` (from the device, or the calculator with assumed registers).
  ResourceUsage resources;
  bool resourcesMeasured = false;   // false: registers are an assumption (CPU model)
  std::string exportDir = "reducelab-export";
  bool exportWhite = true;          // PNG exports on white (print) or in the screen's theme
  LessonState lesson;
  std::string focusPanel;           // a tab to bring to front once (lessons): live, ladder, n, ...
  bool presentation = false;        // large fonts, light theme, keyboard navigation
  // What presentation mode shows, filling the screen under the lesson bar: the trace views, the
  // bandwidth plots, or the results (the lesson's table). A lesson step's `panel` line chooses it.
  enum class Presenting { Views, Plots, Results };
  Presenting presenting = Presenting::Views;
  bool showMultiGpu = false;        // the multi-GPU animation window
  ReplayState replay;
  PathPrompt pathPrompt;
  bool fileDialogOpen = false;      // the desktop's chooser is open (its result comes in a later frame)
  EditorState editor;

  // The last file an export wrote, shown beside the buttons that asked for it (not only in the
  // Log): `key` is the figure's or the view's file stem, `at` ImGui's time when it was written.
  struct SavedNotice {
    std::string key, text;
    bool error = false;
    double at = -1;
  };
  SavedNotice saved;
  Rect viewRect;  // where the trace view was drawn this frame (screen coordinates), for its export
  // What the panels' own fields hold between frames: per window, not process-wide statics (a
  // window opened beside another took its sweep lists, its N being typed and its what-if).
  struct PanelFields {
    char blockKernels[64] = "k3,k7,k10";
    char nKernels[64] = "k3,k7,k10,cub";
    char typeKernels[64] = "k7,k10,cub";
    int nMaxChoice = 2;  // 2^24, 2^26, 2^28, 2^30, largest
    bool whatIf = false;
    int whatIfRegisters = 32, whatIfSmemKiB = 0;
    char nText[32] = "";
    uint64_t nShown = 0;  // the N whose text nText holds (0: refill it)
    std::string nError;
    char exportDir[256] = "";
    std::string exportDirShown;
    int treeColumns = 0;          // 0: the default, 16 (shared-memory trees) or 32 (a warp's lanes)
    uint64_t treeTraceVersion = 0;
  };
  PanelFields fields;
  std::shared_ptr<MultiPanelState> multiPanel;  // the multi-GPU panel's (multi_view.hpp), made on first use

  bool cpuModel() const { return !device.available; }
  // The GPU the figures of this screen are about: this machine's, else the open recording's, else
  // the H200 the CPU model assumes (the occupancy calculator, the N sweep's L2 shade).
  DeviceInfo shownDevice() const;
  void addLog(LogLevel level, std::string text);
};

struct Figure;        // plots.hpp
struct FigureWriter;  // plot.hpp

// Requests from the GUI to the app (which owns CUDA, files and the window).
class UiActions {
 public:
  virtual ~UiActions() = default;
  virtual void requestQuit() = 0;
  virtual void requestScreenshot() = 0;
  virtual void requestRun() = 0;  // measure model.config and append to the results
  virtual void requestClearResults() = 0;
  virtual void requestRestoreResults() = 0;  // the rows the last Clear removed
  virtual void requestSweep(const std::string& axis, const std::vector<std::string>& kernels, uint64_t nMax) = 0;
  virtual void requestCancelSweep() = 0;
  virtual void requestCancelRuns() {}  // the running measurement and the queued ones (and continuous runs)
  // Exports into model.exportDir (never over an existing file); the result goes to the log.
  virtual void requestExportFigure(const Figure& figure, const FigureWriter& format) = 0;
  virtual void requestExportTable(const Table& table, const std::string& stem) = 0;
  // The pixels of `region` (screen coordinates) after this frame is drawn, as `format`'s picture.
  virtual void requestExportView(const Rect& region, const std::string& stem, const FigureWriter& format) = 0;
  virtual void requestReport() = 0;
  virtual void requestSaveSession() = 0;
  virtual void requestLessonStep(int step) = 0;  // go to this lesson step (clamped)
  virtual void requestOpenLesson(const std::string& name) = 0;
  // The recording shipped in the binary (a route to GPU figures from a machine without a GPU).
  virtual void requestOpenShippedRecording() = 0;
  virtual void requestTogglePresentation() = 0;
  virtual void requestCloseLesson() {}  // leave the lesson: its bar and table go, the configuration stays
  // A file chooser (the desktop's, else the in-app path field) for opening a recording, saving
  // the session or choosing the export folder; and what to do with a chosen path.
  virtual void requestFileChoice(FileChoice) {}
  virtual void requestPathChosen(FileChoice, const std::string&) {}
  // The editor of the student's own kernel: compile, check, save... (EditorRequest); and a copy of
  // a catalogue kernel's starter (EditorState::starters) put in the editor.
  virtual void requestEditor(EditorRequest) {}
  virtual void requestEditCopy(const std::string& starterKey) { (void)starterKey; }
};

}  // namespace rl::gui
