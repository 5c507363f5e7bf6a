#include "application.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <GLFW/glfw3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <map>
#include <sstream>
#include <regex>
#include <thread>

#include "figure_export.hpp"
#include "offscreen_target.hpp"
#include "png_writer.hpp"
#include "reducelab/gui/lesson_view.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/gui/gl_view.hpp"
#include "reducelab/recording.hpp"
#include "reducelab/version.hpp"

namespace rl::app {

Table traceTable(const TraceData& t, const TraceSummary& sum);  // cmd_trace.cpp

constexpr int kInteropCount = 4096;

// Headless frames use GLFW's key codes too, so scripted key presses mean the same as real ones.
void mapHeadlessKeys(ImGuiIO& io) {
  const int map[][2] = {
      {ImGuiKey_Tab, GLFW_KEY_TAB},         {ImGuiKey_LeftArrow, GLFW_KEY_LEFT},
      {ImGuiKey_RightArrow, GLFW_KEY_RIGHT}, {ImGuiKey_UpArrow, GLFW_KEY_UP},
      {ImGuiKey_DownArrow, GLFW_KEY_DOWN},   {ImGuiKey_PageUp, GLFW_KEY_PAGE_UP},
      {ImGuiKey_PageDown, GLFW_KEY_PAGE_DOWN}, {ImGuiKey_Home, GLFW_KEY_HOME},
      {ImGuiKey_End, GLFW_KEY_END},         {ImGuiKey_Insert, GLFW_KEY_INSERT},
      {ImGuiKey_Delete, GLFW_KEY_DELETE},   {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE},
      {ImGuiKey_Space, GLFW_KEY_SPACE},     {ImGuiKey_Enter, GLFW_KEY_ENTER},
      {ImGuiKey_Escape, GLFW_KEY_ESCAPE},   {ImGuiKey_KeyPadEnter, GLFW_KEY_KP_ENTER},
      {ImGuiKey_A, GLFW_KEY_A},             {ImGuiKey_C, GLFW_KEY_C},
      {ImGuiKey_V, GLFW_KEY_V},             {ImGuiKey_X, GLFW_KEY_X},
      {ImGuiKey_Y, GLFW_KEY_Y},             {ImGuiKey_Z, GLFW_KEY_Z}};
  for (const auto& m : map) io.KeyMap[m[0]] = m[1];
}

// Space belongs to the shortcut table (play / pause): were it also ImGui's navigation
// "activate", a tap after clicking Play would toggle twice. ImGui requires the key mapped, so it
// gets the last key slot, which no key ever sets (Enter still activates).
void releaseSpaceFromNavigation(ImGuiIO& io) { io.KeyMap[ImGuiKey_Space] = IM_ARRAYSIZE(io.KeysDown) - 1; }

static_assert(kKeyPress == GLFW_PRESS && isModifierKey(GLFW_KEY_LEFT_SHIFT) && isModifierKey(GLFW_KEY_RIGHT_SUPER) &&
              !isModifierKey(GLFW_KEY_LEFT_SHIFT - 1) && !isModifierKey(GLFW_KEY_RIGHT_SUPER + 1));

// GLFW callbacks: keys go through the queue; the rest straight to ImGui's backend.
KeyEventQueue* g_keyQueue = nullptr;
bool g_inputSeen = false;  // any input since the loop last looked: the idle loop draws again
void onKey(GLFWwindow*, int key, int scancode, int action, int mods) {
  g_inputSeen = true;
  if (action == GLFW_REPEAT || !g_keyQueue) return;  // ImGui repeats held keys itself
  g_keyQueue->push({key, scancode, action, mods});
}
void onChar(GLFWwindow* w, unsigned c) { g_inputSeen = true, ImGui_ImplGlfw_CharCallback(w, c); }
void onMouseButton(GLFWwindow* w, int b, int a, int m) { g_inputSeen = true, ImGui_ImplGlfw_MouseButtonCallback(w, b, a, m); }
void onScroll(GLFWwindow* w, double x, double y) { g_inputSeen = true, ImGui_ImplGlfw_ScrollCallback(w, x, y); }
void onFocus(GLFWwindow* w, int f) { g_inputSeen = true, ImGui_ImplGlfw_WindowFocusCallback(w, f); }
void onCursorEnter(GLFWwindow* w, int e) { g_inputSeen = true, ImGui_ImplGlfw_CursorEnterCallback(w, e); }
void onCursorPos(GLFWwindow*, double, double) { g_inputSeen = true; }  // ImGui reads the position itself
void onWindowChange(GLFWwindow*, int, int) { g_inputSeen = true; }
void onRefresh(GLFWwindow*) { g_inputSeen = true; }
// Files dropped onto the window: opened by the frame loop (the last one, if several).
std::vector<std::string> g_dropped;
void onDrop(GLFWwindow*, int count, const char** paths) {
  g_inputSeen = true;
  for (int i = 0; i < count; ++i)
    if (paths[i]) g_dropped.emplace_back(paths[i]);
}

void installInputCallbacks(GLFWwindow* w, KeyEventQueue* queue) {
  g_keyQueue = queue;
  glfwSetKeyCallback(w, onKey);
  glfwSetCharCallback(w, onChar);
  glfwSetMouseButtonCallback(w, onMouseButton);
  glfwSetScrollCallback(w, onScroll);
  glfwSetWindowFocusCallback(w, onFocus);
  glfwSetCursorEnterCallback(w, onCursorEnter);
  glfwSetCursorPosCallback(w, onCursorPos);
  glfwSetFramebufferSizeCallback(w, onWindowChange);
  glfwSetWindowPosCallback(w, onWindowChange);
  glfwSetWindowRefreshCallback(w, onRefresh);
  glfwSetDropCallback(w, onDrop);
}

// The work area of the monitor that holds most of the rectangle (the primary one if none).
void workAreaFor(int x, int y, int w, int h, int* ax, int* ay, int* aw, int* ah) {
  int count = 0;
  GLFWmonitor** monitors = glfwGetMonitors(&count);
  GLFWmonitor* best = glfwGetPrimaryMonitor();
  long bestArea = -1;
  for (int i = 0; i < count; ++i) {
    int mx, my, mw, mh;
    glfwGetMonitorWorkarea(monitors[i], &mx, &my, &mw, &mh);
    const long ix = std::max(0, std::min(x + w, mx + mw) - std::max(x, mx));
    const long iy = std::max(0, std::min(y + h, my + mh) - std::max(y, my));
    if (ix * iy > bestArea) bestArea = ix * iy, best = monitors[i];
  }
  *ax = 0, *ay = 0, *aw = w, *ah = h;
  if (best) glfwGetMonitorWorkarea(best, ax, ay, aw, ah);
  if (*aw <= 0 || *ah <= 0) *aw = w, *ah = h;
}

Application::Application(GlContext& ctx, GuiOptions options) : ctx_(ctx), opt_(std::move(options)) {
  IMGUI_CHECKVERSION();
  imgui_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(imgui_);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // our own settings file, not imgui.ini
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  if (ctx_.window()) {
    ImGui_ImplGlfw_InitForOpenGL(ctx_.window(), false);
    installInputCallbacks(ctx_.window(), &keyQueue_);
  } else {
    io.BackendPlatformName = "reducelab-headless";
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    mapHeadlessKeys(io);
  }
  releaseSpaceFromNavigation(io);
  ImGui_ImplOpenGL3_Init("#version 430 core");
  model_.ui.uiScale = opt_.uiScale;
  std::string fontError;
  if (!ui_.init(ctx_.contentScale(), &fontError)) model_.addLog(gui::LogLevel::Warn, fontError);

  model_.device = queryDevice(0);
  model_.glRenderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  model_.glVersion = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  model_.addLog(gui::LogLevel::Info, "GL: " + model_.glRenderer + ", " + model_.glVersion + " (" +
                                         ctx_.description() + ")");
  if (model_.device.available)
    model_.addLog(gui::LogLevel::Info,
                  "GPU: " + model_.device.name + ", compute capability " +
                      model_.device.ccString());
  else
    model_.addLog(gui::LogLevel::Warn, "No usable NVIDIA GPU (" +
                                           model_.device.unavailableReason +
                                           "): CPU model mode");
  initInterop();
  std::vector<std::string> runKernels;
  checkGuiOptions(opt_, &model_.config, &runKernels);
  model_.ui.theme = opt_.theme == "light" ? gui::Theme::Light : gui::Theme::Dark;
  const std::map<std::string, gui::CentreView> views = {{"warp", gui::CentreView::WarpActivity},
                                                         {"bank", gui::CentreView::BankConflicts},
                                                         {"tree", gui::CentreView::ReductionTree},
                                                         {"coalescing", gui::CentreView::Coalescing},
                                                         {"all", gui::CentreView::All},
                                                         {"source", gui::CentreView::Source}};
  model_.view = views.at(opt_.view);
  if (opt_.theme == "light") model_.ui.theme = gui::Theme::Light;
  // Settings: in a window by default, headless only when a file is named (reproducible images).
  settingsPath_ = !opt_.settingsPath.empty() ? opt_.settingsPath : (ctx_.headless() ? "" : defaultSettingsPath());
  if (!settingsPath_.empty()) {
    std::string warning;
    settings_ = loadSettings(settingsPath_, &warning);
    if (!warning.empty()) {  // once, in the log and on the terminal
      model_.addLog(gui::LogLevel::Warn, warning);
      std::fprintf(stderr, "reducelab: warning: %s\n", warning.c_str());
    }
    model_.ui.showLeft = settings_.showLeft;
    model_.ui.showRight = settings_.showRight;
    model_.ui.showBottom = settings_.showBottom;
    model_.exportDir = settings_.exportDir;
    if (opt_.uiScale == 1.0f) model_.ui.uiScale = settings_.uiScale;
    if (opt_.theme == "dark") model_.ui.theme = settings_.theme == "light" ? gui::Theme::Light : gui::Theme::Dark;
    if (!opt_.runOptionsGiven && settings_.haveLastConfig && opt_.lesson.empty()) model_.config = settings_.lastConfig;
    // The window where it was, within the monitor (unless --size asked for another size).
    if (settings_.haveWindow && opt_.width == 1600 && opt_.height == 900)
      restoreWindowGeometry(settings_.windowX, settings_.windowY, settings_.windowW, settings_.windowH);
  }
  std::unique_ptr<RemoteClient> remote;
  if (!opt_.remoteHost.empty() || !opt_.remoteCommand.empty()) {
    std::string err;
    remote = RemoteClient::start(opt_.remoteHost, opt_.remoteCommand, &err);
    if (!remote) {  // said once; the app goes on with the CPU model
      model_.addLog(gui::LogLevel::Error, "Remote: " + err);
      std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
      model_.remote.active = true;
      model_.remote.target = opt_.remoteHost.empty() ? opt_.remoteCommand : opt_.remoteHost;
      model_.remote.link = gui::RemoteState::Link::Dropped;
      model_.remote.detail = err;
    }
  }
  controller_ = std::make_unique<Controller>(model_, std::move(remote));
  controller_->update();  // asks for the first trace
  controller_->waitForTrace(30.0);  // start-up only: the frame loop never waits
  if (model_.trace.valid) {
    const int lastStep = model_.trace.data.numSteps() - 1, lastWarp = model_.trace.data.numWarps() - 1;
    model_.trace.step = opt_.step < 0 ? lastStep : std::min(opt_.step, lastStep);
    model_.trace.warp = std::min(opt_.warp, lastWarp);
    // Clamped, not refused (the trace's length is known only now): say so, once.
    auto warnClamped = [&](const std::string& w) {
      model_.addLog(gui::LogLevel::Warn, w);
      std::fprintf(stderr, "reducelab: warning: %s\n", w.c_str());
    };
    if (opt_.step > lastStep)
      warnClamped("--step " + std::to_string(opt_.step) + " is past the trace's last step; showing step " +
                  std::to_string(lastStep));
    if (opt_.warp > lastWarp)
      warnClamped("--warp " + std::to_string(opt_.warp) + " is past the traced block's last warp; showing warp " +
                  std::to_string(lastWarp));
  }
  if (opt_.runAtStart && model_.cpuModel()) {
    const std::string w = "--run: nothing was measured, measurements need an NVIDIA GPU (this is the CPU model)";
    model_.addLog(gui::LogLevel::Warn, w);
    std::fprintf(stderr, "reducelab: warning: %s\n", w.c_str());
  } else if (opt_.runAtStart)
    for (const std::string& k : runKernels) {
      RunConfig c = model_.config;
      c.kernel = k;
      controller_->queueRun(c);
    }
  if (!opt_.lesson.empty()) requestOpenLesson(opt_.lesson);
  if (!opt_.openFile.empty())
    if (std::string e = openRecording(opt_.openFile); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      startupError_ = 1;  // headless: the exit code says so; a window stays open with the message
    }
  if (!opt_.sweepAtStart.empty()) {
    std::string err;
    const uint64_t nMax = opt_.sweepNMax.empty() ? 0 : parseCount(opt_.sweepNMax, &err).value_or(0);
    requestSweep(opt_.sweepAtStart, runKernels, nMax);
    model_.focusPanel = opt_.sweepAtStart == "kernel" ? "ladder" : opt_.sweepAtStart == "type" ? "types" : opt_.sweepAtStart;
  }
  if (opt_.devFillResults > 0) {  // developer option: the results table at scale
    for (Measurement& m : syntheticResults(size_t(opt_.devFillResults))) model_.results.append(std::move(m));
    model_.focusPanel = "results";
  }
  if (opt_.themeGiven) settings_.presentationTheme = opt_.theme;
  if (opt_.presentation) requestTogglePresentation();
}

void Application::openLesson(const Lesson& lesson, const std::string& source) {
  gui::LessonState& l = model_.lesson;
  l = gui::LessonState{};
  l.active = true;
  l.lesson = lesson;
  l.source = source;
  for (const LessonStep& st : lesson.steps) {
    l.firstRowOfStep.push_back(int(l.rows.size()));
    for (const LessonRun& r : st.runs) l.rows.push_back({r.label, r.config, r.times, r.reference, {}, false});
    l.firstPitfallOfStep.push_back(int(l.pitfalls.size()));
    for (const PitfallRequest& p : st.pitfalls) l.pitfalls.push_back({p, std::nullopt, false});
  }
  l.sweepQueued.assign(lesson.steps.size(), false);
  model_.addLog(gui::LogLevel::Info, "Lesson: " + lesson.title + " (" + std::to_string(lesson.steps.size()) + " steps)");
  enterLessonStep(0);
}

void Application::enterLessonStep(int step) {
  gui::LessonState& l = model_.lesson;
  if (!l.active || l.lesson.steps.empty()) return;
  // Next on the last step (Back on the first) must not re-apply it: the user's changes stay.
  if (step < 0 || step >= int(l.lesson.steps.size()) || step == l.appliedStep) return;
  l.step = step;
  const LessonStep& st = l.lesson.steps[size_t(step)];
  model_.config = st.config;
  static const std::map<std::string, gui::CentreView> views = {
      {"warp", gui::CentreView::WarpActivity}, {"bank", gui::CentreView::BankConflicts},
      {"tree", gui::CentreView::ReductionTree}, {"coalescing", gui::CentreView::Coalescing},
      {"all", gui::CentreView::All}, {"source", gui::CentreView::Source}};
  model_.view = views.count(st.view) ? views.at(st.view) : gui::CentreView::WarpActivity;
  model_.trace.pendingSelection = true;
  model_.trace.pendingStep = st.viewStep;
  model_.trace.pendingWarp = st.warp;
  model_.trace.pendingSlot = st.slot;  // with the step's trace, as the step and the warp
  model_.trace.playing = false;
  if (!st.panel.empty()) model_.focusPanel = st.panel;
  // Measure what the step asks for, once (going back does not measure again).
  for (int r = l.firstRowOfStep[size_t(step)], i = 0; i < int(st.runs.size()); ++r, ++i) {
    gui::LessonRow& row = l.rows[size_t(r)];
    if (row.queued || !model_.device.available) continue;
    row.queued = true;
    for (int t = 0; t < row.times; ++t) controller_->queueRun(row.config, "lesson:" + std::to_string(r));
    // Measured again the way the seed measured (warm L2, its repetitions) when that differs.
    if (const auto& like = st.runs[size_t(i)].seedMethodConfig) controller_->queueRun(*like, "lesson:" + std::to_string(r));
  }
  // Seed 002's pitfalls: on the GPU, or in the CPU model without one (once each, like runs).
  for (int k = l.firstPitfallOfStep[size_t(step)], i = 0; i < int(st.pitfalls.size()); ++k, ++i) {
    gui::LessonPitfall& p = l.pitfalls[size_t(k)];
    if (p.queued) continue;
    p.queued = true;
    PitfallRequest r = p.request;
    r.label = "lesson-pitfall:" + std::to_string(k);
    controller_->queuePitfall(r);
  }
  if (st.sweep && !l.sweepQueued[size_t(step)] && model_.device.available) {
    l.sweepQueued[size_t(step)] = true;
    requestSweep(st.sweep->axis, st.sweep->kernels, st.sweep->nMax);
  }
  l.appliedStep = step;
}

void Application::requestLessonStep(int step) { enterLessonStep(step); }

void Application::requestCloseLesson() {
  if (!model_.lesson.active) return;
  model_.addLog(gui::LogLevel::Info, "Lesson closed: " + model_.lesson.lesson.title);
  model_.lesson = gui::LessonState{};
}

void Application::restoreWindowGeometry(int x, int y, int w, int h) {
  GLFWwindow* win = ctx_.window();
  if (!win) return;
  int ax, ay, aw, ah;
  workAreaFor(x, y, w, h, &ax, &ay, &aw, &ah);
  // Decorations take room too: keep the title bar on screen.
  int left = 0, top = 0, right = 0, bottom = 0;
  glfwGetWindowFrameSize(win, &left, &top, &right, &bottom);
  w = std::clamp(w, 64, std::max(64, aw - left - right));
  h = std::clamp(h, 64, std::max(64, ah - top - bottom));
  x = std::clamp(x, ax + left, std::max(ax + left, ax + aw - right - w));
  y = std::clamp(y, ay + top, std::max(ay + top, ay + ah - bottom - h));
  glfwSetWindowSize(win, w, h);
  glfwSetWindowPos(win, x, y);
}

void Application::rememberWindowGeometry() {
  GLFWwindow* win = ctx_.window();
  if (!win) return;
  if (model_.presentation && windowedW_ > 0) {  // full screen now: the window it came from
    settings_.windowX = windowedX_, settings_.windowY = windowedY_;
    settings_.windowW = windowedW_, settings_.windowH = windowedH_;
  } else {
    glfwGetWindowPos(win, &settings_.windowX, &settings_.windowY);
    glfwGetWindowSize(win, &settings_.windowW, &settings_.windowH);
  }
  settings_.haveWindow = settings_.windowW > 0 && settings_.windowH > 0;
}

void Application::requestOpenLesson(const std::string& name) {
  std::string err;
  const std::optional<std::string> text = lessonText(name, &err);
  std::optional<Lesson> l;
  if (text) l = loadLesson(name, &err);
  if (l) openLesson(*l, *text);
  else model_.addLog(gui::LogLevel::Error, err);
}

std::string Application::openRecording(const std::string& path) {
  auto rec = std::make_shared<Recording>();
  std::string err = readRecording(path, rec.get());
  std::optional<Lesson> lesson;
  if (err.empty() && !rec->lessonName.empty()) {
    lesson = parseLesson(rec->lessonText, rec->lessonName + ".lesson", &err);
    if (!lesson) err = path + ": its lesson: " + err;
  }
  if (!err.empty()) {  // nothing changes: what was shown stays
    model_.addLog(gui::LogLevel::Error, "Not opened: " + err);
    return err;
  }
  controller_->cancelSweep();
  model_.results.clear();
  model_.sweep.rows = rec->sweeps;
  if (rec->peaks.theoreticalGBs > 0 || !rec->device.available) model_.peaks = rec->peaks;
  model_.replay.recording = rec;
  model_.replay.path = path;
  model_.replay.banner = rec->banner();
  model_.replay.replayed = 0;
  if (lesson) {
    openLesson(*lesson, rec->lessonText);
    // Its runs come from the recording: none is measured again, here or on a GPU.
    for (gui::LessonRow& row : model_.lesson.rows) row.queued = true;
    model_.lesson.sweepQueued.assign(model_.lesson.sweepQueued.size(), true);
  } else {
    if (model_.lesson.active) requestCloseLesson();
    if (!rec->traces.empty()) model_.config = rec->traces.front().config;
    else if (!rec->measurements.empty()) model_.config = rec->measurements.front().config;
  }
  if (!rec->sweeps.empty()) model_.focusPanel = rec->sweeps.begin()->first == "kernel" ? "ladder" : rec->sweeps.begin()->first == "type" ? "types" : rec->sweeps.begin()->first;
  else if (!rec->measurements.empty() && !lesson) model_.focusPanel = "live";
  controller_->retrace();
  size_t sweepRows = 0;
  for (const auto& [axis, rows] : rec->sweeps) sweepRows += rows.size();
  model_.addLog(gui::LogLevel::Info, "Opened " + path + ": " + model_.replay.banner + "; " +
                                         std::to_string(rec->measurements.size()) + " runs, " + std::to_string(sweepRows) +
                                         " sweep points, " + std::to_string(rec->traces.size()) + " traces");
  return {};
}

// One recorded run a frame into the results (and its lesson row): the live plot replays them.
void Application::replayStep() {
  gui::ReplayState& r = model_.replay;
  if (!r.replaying()) return;
  const Measurement& m = r.recording->measurements[r.replayed++];
  if (m.label.rfind("lesson:", 0) == 0 && model_.lesson.active) {
    const size_t row = std::stoul(m.label.substr(7));  // checked by the reader
    if (row < model_.lesson.rows.size()) model_.lesson.rows[row].runs.push_back(m);
  }
  model_.results.append(Measurement(m));
}

const DeviceInfo& Application::measuredDevice() const {
  return model_.replay.active() ? model_.replay.recording->device : model_.device;
}

Recording Application::sessionRecording() const {
  Recording r;
  const Recording* opened = model_.replay.recording.get();
  r.device = opened ? opened->device : model_.device;
  r.peaks = model_.peaks;
  r.createdUtc = opened ? opened->createdUtc : utcNow();
  r.host = opened ? opened->host : "";
  if (!opened) {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) r.host = host;
  }
  r.reducelabVersion = std::string(versionString()) + " (commit " + gitCommit() + ")";
  r.argv = {"reducelab (GUI session)"};
  if (model_.lesson.active && !model_.lesson.source.empty()) {
    r.lessonName = model_.lesson.lesson.name;
    r.lessonText = model_.lesson.source;
  }
  r.measurements.assign(model_.results.begin(), model_.results.end());
  if (r.lessonName.empty())  // lesson rows need their lesson: without it they are plain runs
    for (Measurement& m : r.measurements)
      if (m.label.rfind("lesson:", 0) == 0) m.label.clear();
  for (const auto& [axis, rows] : model_.sweep.rows)
    if (!rows.empty()) r.sweeps[axis] = rows;
  if (opened) r.traces = opened->traces;
  const gui::TraceState& t = model_.trace;
  if (t.valid && !r.findTrace(t.config) && t.data.numSteps() > 0)
    r.traces.push_back({t.config, t.gpuWritten && r.device.available, t.data.toBuffer()});
  return r;
}

std::string Application::saveSession(const std::string& path, bool overwrite) {
  std::string e = checkOutputTarget(path, overwrite);
  if (e.empty()) e = writeRecording(path, sessionRecording());
  model_.addLog(e.empty() ? gui::LogLevel::Info : gui::LogLevel::Error, e.empty() ? "Saved " + path : e);
  return e;
}

void Application::requestFileChoice(gui::FileChoice choice) {
  if (fileDialog_.running()) return;
  const FileDialogKind kind = choice == gui::FileChoice::OpenRecording ? FileDialogKind::Open
                              : choice == gui::FileChoice::SaveSession ? FileDialogKind::Save
                                                                       : FileDialogKind::Folder;
  const char* title = choice == gui::FileChoice::OpenRecording ? "Open a ReduceLab recording or session"
                      : choice == gui::FileChoice::SaveSession ? "Save the ReduceLab session"
                                                               : "ReduceLab export folder";
  namespace fs = std::filesystem;
  const std::string start = choice == gui::FileChoice::SaveSession ? (fs::path(model_.exportDir) / "session.reducelab").string()
                            : choice == gui::FileChoice::ExportFolder ? model_.exportDir + "/"
                                                                      : "";
  const std::string why = fileDialog_.start(kind, title, start, dialogProgram_);
  if (why.empty()) {
    dialogPurpose_ = choice;
    model_.fileDialogOpen = true;
    return;
  }
  model_.pathPrompt = {true, choice, choice == gui::FileChoice::ExportFolder ? model_.exportDir : "", why};
}

// Once a frame: the desktop's chooser answered? Its choice is used as if typed; a failure opens
// the in-app path field. True when something came back.
bool Application::pollFileDialog() {
  const std::optional<FileDialogResult> r = fileDialog_.poll();
  if (!r) return false;
  model_.fileDialogOpen = false;
  if (r->status == FileDialogResult::Chosen) {
    if (dialogPurpose_ == gui::FileChoice::SaveSession) saveSession(r->path, true);  // the chooser asked before replacing
    else requestPathChosen(dialogPurpose_, r->path);
  } else if (r->status == FileDialogResult::Failed) {
    model_.addLog(gui::LogLevel::Warn, r->error + ": type the path instead");
    model_.pathPrompt = {true, dialogPurpose_, dialogPurpose_ == gui::FileChoice::ExportFolder ? model_.exportDir : "", r->error};
  }
  return true;
}

void Application::requestPathChosen(gui::FileChoice choice, const std::string& path) {
  if (path.empty()) return;
  switch (choice) {
    case gui::FileChoice::OpenRecording:
      openRecording(path);
      break;
    case gui::FileChoice::SaveSession: {  // typed: an existing file is not replaced
      const std::string target = std::filesystem::path(path).has_extension() ? path : path + ".reducelab";
      saveSession(target, false);
      break;
    }
    case gui::FileChoice::ExportFolder:
      model_.exportDir = path;
      model_.addLog(gui::LogLevel::Info, "Export folder: " + path);
      break;
  }
}

void Application::requestTogglePresentation() {
  model_.presentation = !model_.presentation;
  if (model_.presentation) {
    savedScale_ = model_.ui.uiScale;
    savedTheme_ = model_.ui.theme;
    savedPanels_ = model_.ui;
    model_.ui.uiScale = settings_.presentationScale;
    model_.ui.theme = settings_.presentationTheme == "dark" ? gui::Theme::Dark : gui::Theme::Light;
    model_.ui.showLeft = false;  // the views and the plots, large; F2 / F4 bring the rest back
    model_.ui.showBottom = false;
  } else {
    settings_.presentationScale = model_.ui.uiScale;  // remembered for next time
    settings_.presentationTheme = model_.ui.theme == gui::Theme::Dark ? "dark" : "light";
    model_.ui.uiScale = savedScale_;
    model_.ui.theme = savedTheme_;
    model_.ui.showLeft = savedPanels_.showLeft;
    model_.ui.showRight = savedPanels_.showRight;
    model_.ui.showBottom = savedPanels_.showBottom;
  }
  if (GLFWwindow* w = ctx_.window()) {
    if (model_.presentation) {
      glfwGetWindowPos(w, &windowedX_, &windowedY_);
      glfwGetWindowSize(w, &windowedW_, &windowedH_);
      GLFWmonitor* monitor = glfwGetPrimaryMonitor();
      const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
      if (mode) glfwSetWindowMonitor(w, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
      // Back where it was before full screen, within the monitor's work area.
      const int ww = windowedW_ > 0 ? windowedW_ : opt_.width, wh = windowedH_ > 0 ? windowedH_ : opt_.height;
      int ax, ay, aw, ah;
      workAreaFor(windowedX_, windowedY_, ww, wh, &ax, &ay, &aw, &ah);
      glfwSetWindowMonitor(w, nullptr, windowedW_ > 0 ? windowedX_ : ax, windowedW_ > 0 ? windowedY_ : ay, ww, wh, 0);
      restoreWindowGeometry(windowedW_ > 0 ? windowedX_ : ax, windowedW_ > 0 ? windowedY_ : ay, ww, wh);
    }
  }
  model_.addLog(gui::LogLevel::Info, model_.presentation ? "Presentation mode (F11 or Esc to leave)" : "Presentation mode off");
}

void Application::waitForIdle() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  do {
    renderFrame();
    if (controller_->busy() || !controller_->traceSettled()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while ((controller_->busy() || model_.sweep.running || model_.replay.replaying() || !controller_->traceSettled()) &&
           std::chrono::steady_clock::now() < deadline);
}

int Application::exportLesson() {
  namespace fs = std::filesystem;
  const std::string& dir = opt_.lessonOut;
  if (std::string e = prepareFolder(dir); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  gui::LessonState& l = model_.lesson;
  std::vector<std::string> names = {"lesson.md", "lesson.csv", "lesson.md", "lesson.tex", "lesson.json"};
  const std::vector<std::string> pitfallFiles = gui::lessonPitfallFiles(l);
  names.insert(names.end(), pitfallFiles.begin(), pitfallFiles.end());
  for (size_t i = 0; i < l.lesson.steps.size(); ++i) {
    char n[32];
    std::snprintf(n, sizeof n, "step-%02zu.png", i + 1);
    names.push_back(n);
  }
  if (std::string e = checkOverwrite(dir, names, opt_.force); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  std::ostringstream md;
  md << "# " << l.lesson.title << "\n\n" << l.lesson.description << "\n\n";
  for (size_t i = 0; i < l.lesson.steps.size(); ++i) {
    enterLessonStep(int(i));
    waitForIdle();
    for (int f = 0; f < 3; ++f) renderFrame();
    char n[32];
    std::snprintf(n, sizeof n, "step-%02zu.png", i + 1);
    if (std::string e = saveScreenshot((fs::path(dir) / n).string()); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
    std::printf("wrote %s\n", (fs::path(dir) / n).string().c_str());
    const LessonStep& st = l.lesson.steps[i];
    md << "## " << i + 1 << ". " << st.title << "\n\n" << st.caption << "\n\n![step " << i + 1 << "](" << n << ")\n\n";
    for (int k = l.firstPitfallOfStep[i]; k < l.firstPitfallOfStep[i] + int(st.pitfalls.size()); ++k) {
      const gui::LessonPitfall& p = l.pitfalls[size_t(k)];
      md << gui::pitfallMarkdown(p);
      if (!p.result || !p.result->ok) continue;
      const std::string path = (fs::path(dir) / pitfallFiles[size_t(k)]).string();
      if (std::string e = writeTextAtomic(path, render(pitfallTable(*p.result), TableFormat::Csv)); !e.empty()) {
        std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
        return 1;
      }
      std::printf("wrote %s\n", path.c_str());
      std::fputs(render(pitfallTable(*p.result), TableFormat::Text).c_str(), stdout);
      for (const std::string& f : pitfallFindings(*p.result)) std::printf("  %s\n", f.c_str());
    }
  }
  const Table t = gui::lessonTable(l, model_.peaks, measuredDevice().available);
  md << "## Table\n\n" << render(t, TableFormat::Markdown) << "\n";
  if (!l.lesson.notes.empty()) {  // seed figures above their GPU's peak (docs/lessons.md)
    md << "Seed figures that fail the check against their GPU's peak:\n\n";
    for (const std::string& note : l.lesson.notes) md << "- " << note << "\n";
    md << "\n";
  }
  if (model_.replay.active())
    md << model_.replay.banner << " (" << model_.replay.path << ").\n";
  else if (!model_.device.available)
    md << "Measurements need an NVIDIA GPU; this run used the CPU model (" << model_.device.unavailableReason << ").\n";
  std::vector<Measurement> all;
  for (const gui::LessonRow& r : l.rows) all.insert(all.end(), r.runs.begin(), r.runs.end());
  SessionInfo info{measuredDevice(), model_.peaks, {"reducelab", "lesson", l.lesson.name}, "lesson-" + l.lesson.name};
  for (auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"lesson.csv", render(t, TableFormat::Csv)}, {"lesson.tex", render(t, TableFormat::Latex)},
           {"lesson.json", sessionJson(info, all).dump(2) + "\n"}, {"lesson.md", md.str()}}) {
    const std::string path = (fs::path(dir) / name).string();
    if (std::string e = writeTextAtomic(path, text); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
    std::printf("wrote %s\n", path.c_str());
  }
  std::fputs(render(t, TableFormat::Text).c_str(), stdout);
  return 0;
}

void Application::requestSweep(const std::string& axis, const std::vector<std::string>& kernels, uint64_t nMax) {
  SweepSpec s;
  s.axis = parseSweepAxis(axis).value_or(SweepAxis::Block);
  s.base = model_.config;
  s.kernels = kernels;
  s.nMax = nMax;
  controller_->queueSweep(s);
}

std::string Application::freePath(const std::string& stem, const std::string& ext) const {
  namespace fs = std::filesystem;
  for (int i = 1;; ++i) {
    const std::string name = stem + (i == 1 ? "" : "-" + std::to_string(i)) + ext;
    const fs::path p = fs::path(model_.exportDir) / name;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(p, ec))) return p.string();  // a dangling link is taken too
  }
}

void Application::requestExportFigure(const gui::Figure& figure, bool png, bool svg) {
  pendingFigures_.push_back({std::make_unique<gui::Figure>(figure), png, svg});
}

void Application::requestExportTable(const Table& table, const std::string& stem) {
  if (std::string e = prepareFolder(model_.exportDir); !e.empty()) {
    model_.addLog(gui::LogLevel::Error, e);
    return;
  }
  for (auto [ext, fmt] : {std::pair{".csv", TableFormat::Csv}, std::pair{".md", TableFormat::Markdown},
                          std::pair{".tex", TableFormat::Latex}}) {
    const std::string path = freePath(stem, ext);
    const std::string e = writeTextAtomic(path, render(table, fmt));
    model_.addLog(e.empty() ? gui::LogLevel::Info : gui::LogLevel::Error, e.empty() ? "Saved " + path : e);
  }
}

void Application::requestSaveSession() {
  if (std::string e = prepareFolder(model_.exportDir); !e.empty()) {
    model_.addLog(gui::LogLevel::Error, e);
    return;
  }
  saveSession(freePath("session", ".reducelab"), false);
}

void Application::processExports() {
  for (PendingFigure& p : pendingFigures_) {
    if (std::string e = prepareFolder(model_.exportDir); !e.empty()) {
      model_.addLog(gui::LogLevel::Error, e);
      continue;
    }
    for (const auto& [on, format] : {std::pair{p.svg, gui::FigureFormat::Svg}, std::pair{p.png, gui::FigureFormat::Png}}) {
      if (!on) continue;
      const std::string path = freePath(p.figure->fileStem, "." + std::string(gui::figureFormatName(format)));
      gui::FigureOptions o;
      o.whiteBackground = model_.exportWhite;
      std::string e;
      const std::string bytes = gui::renderFigure(p.figure->spec, format, o, &e);
      if (e.empty()) e = writeTextAtomic(path, bytes);
      model_.addLog(e.empty() ? gui::LogLevel::Info : gui::LogLevel::Error, e.empty() ? "Saved " + path : e);
    }
  }
  pendingFigures_.clear();
  if (reportRequested_) {
    reportRequested_ = false;
    char stamp[32];
    std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "report-%Y%m%d-%H%M%S", std::localtime(&now));
    if (std::string e = prepareFolder(model_.exportDir); !e.empty()) {
      model_.addLog(gui::LogLevel::Error, e);
      return;
    }
    const std::string dir = (std::filesystem::path(model_.exportDir) / stamp).string();
    std::vector<ReportSection> sections;
    std::vector<Measurement> all = model_.results;
    if (!model_.results.empty()) {
      const RunTables tables = runTables(model_.results.rows(), model_.peaks);  // matrix runs: their own columns
      ReportSection runs{"Runs", "Every run of this session, in order.", {gui::liveBandwidthFigure(model_.results, model_.peaks)}, {}};
      if (!tables.reductions.rows.empty()) runs.tables.push_back({"runs", tables.reductions});
      if (!tables.matrix.rows.empty()) runs.tables.push_back({"runs-matrix", tables.matrix});
      sections.push_back(runs);
    }
    for (const auto& [axis, rows] : model_.sweep.rows) {
      if (rows.empty()) continue;
      all.insert(all.end(), rows.begin(), rows.end());
      const bool matrix = std::all_of(rows.begin(), rows.end(), isMatrixRun);  // tile and size sweeps, as `reducelab sweep`
      sections.push_back({"Sweep over " + axis, "", {gui::figureForSweep(axis, rows, model_.peaks, measuredDevice())},
                          {{"sweep-" + axis, matrix ? matrixTable(rows) : sweepTable(rows, model_.peaks)}}});
    }
    const DeviceInfo d = model_.device.available ? model_.device : assumedH200();
    const OccupancyCurveInputs curve = occupancyCurveInputs(model_.resources, model_.config.block);
    sections.push_back({"Occupancy", "", {gui::occupancyFigure(d, model_.config.kernel, curve.registers,
                                                                curve.sharedFixedBytes, curve.sharedPerThreadBytes)}, {}});
    if (model_.trace.valid) {
      Table t = traceTable(model_.trace.data, model_.trace.summary);
      t.caption = "Trace of " + model_.trace.config.kernel + ", block " + std::to_string(model_.trace.config.block);
      sections.push_back({"Trace", "From the " + model_.trace.source + ".", {}, {{"trace", t}}});
    }
    ExportResult r = writeReport(dir, "ReduceLab report", measuredDevice(), model_.peaks, sections, all, false);
    model_.addLog(r.error.empty() ? gui::LogLevel::Info : gui::LogLevel::Error,
                  r.error.empty() ? "Report written to " + dir + " (" + std::to_string(r.written.size()) + " files)" : r.error);
  }
}

std::string checkGuiOptions(GuiOptions& o, RunConfig* config, std::vector<std::string>* runKernels) {
  RunConfig c;
  if (std::string e = toRunConfig(o.run, &c); !e.empty()) return e;
  std::string err;
  std::vector<const KernelInfo*> ks = parseKernelList(o.run.kernel, &err);
  if (ks.empty()) return err;
  c.kernel = std::string(ks.front()->key);
  applyMatrixShape(c);  // a matrix kernel: block and N from --tile and the sides
  if (runKernels) {
    runKernels->clear();
    for (const KernelInfo* k : ks) runKernels->push_back(std::string(k->key));
  }
  if (o.view != "warp" && o.view != "bank" && o.view != "tree" && o.view != "coalescing" && o.view != "all" &&
      o.view != "source")
    return "--view '" + o.view + "' is not one of: warp, bank, tree, coalescing, all, source";
  if (o.theme != "dark" && o.theme != "light") return "--theme '" + o.theme + "' is not one of: dark, light";
  if (!o.sweepAtStart.empty() && (!parseSweepAxis(o.sweepAtStart) || o.sweepAtStart == "tile" || o.sweepAtStart == "size"))
    return "--sweep '" + o.sweepAtStart + "' is not one of: block, n, type, kernel (the matrix kernels' tile and size "
           "sweeps: reducelab sweep --axis tile|size)";
  if (!o.sweepNMax.empty() && !parseCount(o.sweepNMax, nullptr)) return "--sweep-n-max '" + o.sweepNMax + "' is not a count";
  if (config) *config = c;
  return {};
}

Application::~Application() {
  ImGuiContext* const previous = ImGui::GetCurrentContext();
  activate();
  controller_.reset();
  interop_.detach();
  if (model_.interop.buffer) glDeleteBuffers(1, &model_.interop.buffer);
  ImGui_ImplOpenGL3_Shutdown();
  if (ctx_.window()) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext(imgui_);
  // Another Application's context stays the current one (a test keeps one beside another).
  if (previous != imgui_) ImGui::SetCurrentContext(previous);
}

void Application::activate() {
  ctx_.makeCurrent();
  ImGui::SetCurrentContext(imgui_);
}

void Application::initInterop() {
  gui::InteropStrip& s = model_.interop;
  s.buffer = createFloatBuffer(kInteropCount);
  s.count = kInteropCount;
  s.error = fillInteropBuffer(s.buffer, s.count, model_.device.available, interop_, &s.writer);
  s.ok = s.error.empty();
  if (s.ok)
    model_.addLog(gui::LogLevel::Info, "Interop buffer written by the " + s.writer);
  else
    model_.addLog(gui::LogLevel::Error, "Interop buffer: " + s.error);
}

// The font atlas is rasterized at the size it is drawn (fonts are rebuilt on every scale change), so
// glyphs and the white pixel of solid fills land on texel centres: nearest sampling draws the same
// pixels as the backend's bilinear filter at a fraction of its cost in a software rasterizer
// (llvmpipe spends most of a frame sampling that texture).
void Application::nearestFontSampling(ImGuiIO& io) {
  const auto id = static_cast<GLuint>(reinterpret_cast<intptr_t>(io.Fonts->TexID));
  if (id == 0 || id == nearestFontTexture_) return;
  GLint previous = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous);
  glBindTexture(GL_TEXTURE_2D, id);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, GLuint(previous));
  nearestFontTexture_ = id;
}

void Application::renderFrame() {
  ui_.applyPendingSettings(model_);
  if (ui_.fontsDirty()) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    nearestFontTexture_ = 0;  // the new texture may reuse the old name (NVIDIA does)
    ui_.fontsRebuilt();
  }
  int fbw = 0, fbh = 0;
  ctx_.framebufferSize(&fbw, &fbh);
  if (displayW_ > 0 && displayH_ > 0) fbw = std::min(fbw, displayW_), fbh = std::min(fbh, displayH_);
  ImGuiIO& io = ImGui::GetIO();
  if (ctx_.window()) {
    pumpKeyEvents();
    ImGui_ImplGlfw_NewFrame();
  } else {
    io.DisplaySize = ImVec2(float(fbw), float(fbh));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = 1.0f / 60.0f;  // fixed: headless frames are reproducible
  }
  ImGui_ImplOpenGL3_NewFrame();
  nearestFontSampling(io);
  if (displayW_ > 0 && displayH_ > 0) io.DisplaySize = ImVec2(float(displayW_), float(displayH_));
  ImGui::NewFrame();
  const gui::TraceState& t = model_.trace;
  const uint64_t versionBefore = t.version;
  const bool selectionAsked = t.pendingSelection;  // a lesson or the command line chose the step
  const int stepsBefore = t.valid ? t.data.numSteps() : 0, stepBefore = t.step;
  const trace::StepHeader before = stepsBefore > 0 ? t.data.steps[size_t(std::clamp(stepBefore, 0, stepsBefore - 1))]
                                                   : trace::StepHeader{};
  pollFileDialog();
  if (!g_dropped.empty()) {  // a drop opens the last file dropped
    const std::string path = g_dropped.back();
    g_dropped.clear();
    openRecording(path);
  }
  replayStep();
  controller_->update();
  if (!selectionAsked) keepStepByMeaning(versionBefore, before, stepsBefore, stepBefore);
  ui_.draw(model_, *this);
  ImGui::Render();
  if (recordText_ || !opt_.dumpLayout.empty()) textRuns_ = gui::collectTextRuns();
  drawImGuiFrame(ctx_.framebuffer(), fbw, fbh);
  gui::endGlPassFrame();
}

double Application::drawFrame() {
  activate();
  const auto t0 = std::chrono::steady_clock::now();
  renderFrame();
  glFinish();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// One key transition per key per frame (see input_queue.hpp), through ImGui's own callback so
// its modifier state stays right.
void Application::pumpKeyEvents() {
  GLFWwindow* w = ctx_.window();
  for (const KeyEvent& e : keyQueue_.takeFrame()) ImGui_ImplGlfw_KeyCallback(w, e.key, e.scancode, e.action, e.mods);
}

// A new trace (block size, kernel, type changed) keeps the step the user was looking at by what
// it is - "result" stays "result", "s = 64" stays "s = 64" - or goes to the nearest step of the
// same kind, not to whatever step now has the old index.
void Application::keepStepByMeaning(uint64_t versionBefore, const trace::StepHeader& before, int stepsBefore,
                                    int stepBefore) {
  gui::TraceState& t = model_.trace;
  if (t.version == versionBefore || !t.valid || stepsBefore == 0) return;
  const int steps = t.data.numSteps();
  int best = -1;
  double bestDistance = 1e300;
  for (int i = 0; i < steps; ++i) {
    const trace::StepHeader& h = t.data.steps[size_t(i)];
    if (h.kind != before.kind) continue;
    // Same kind: the same parameter, else the nearest one (strides compare by ratio).
    const double a = std::max(1.0, double(h.param)), b = std::max(1.0, double(before.param));
    const double d = std::fabs(std::log2(a) - std::log2(b));
    if (d < bestDistance) bestDistance = d, best = i;
  }
  if (best < 0)  // no step of that kind: the same place in the sequence
    best = stepsBefore <= 1 ? 0 : int(std::lround(double(stepBefore) * double(steps - 1) / double(stepsBefore - 1)));
  t.step = std::clamp(best, 0, steps - 1);
}

// Frames are drawn back to back only while something moves; otherwise the loop waits for input.
bool Application::animating() const {
  return model_.trace.playing || model_.measuring || model_.sweep.running || controller_->busy() || model_.replay.replaying() ||
         !pendingFigures_.empty() || reportRequested_ || screenshotRequested_ || !keyQueue_.empty();
}

std::string Application::saveScreenshot(const std::string& path) {
  int fbw = 0, fbh = 0;
  ctx_.framebufferSize(&fbw, &fbh);
  glBindFramebuffer(GL_FRAMEBUFFER, ctx_.framebuffer());
  if (!ctx_.headless()) glReadBuffer(GL_BACK);
  return writePngAtomic(path, fbw, fbh, readFramebufferRgba(fbw, fbh));
}

void Application::printStats() const {
  // The first frames build the font atlas and compile shaders: start-up, not steady state.
  const size_t skip = frameMs_.size() > 20 ? 10 : 0;
  if (frameMs_.size() <= skip) return;
  std::vector<double> v(frameMs_.begin() + long(skip), frameMs_.end());
  std::sort(v.begin(), v.end());
  const double median = v[v.size() / 2];
  const double p99 = v[std::min(v.size() - 1, size_t(double(v.size()) * 0.99))];
  std::printf("frames: %zu (after %zu start-up frames)  frame time median %.2f ms  p99 %.2f ms  max %.2f ms  (%s)\n",
              v.size(), skip, median, p99, v.back(), ctx_.description().c_str());
}

int Application::run() {
  activate();
  if (ctx_.headless() && !opt_.lessonOut.empty()) return exportLesson();
  const int frames = opt_.frames > 0 ? opt_.frames : (ctx_.headless() ? 3 : 0);
  // Headless: measurements asked for at start finish before the frames are counted (except a
  // sweep: frames are rendered while it runs, to show the GUI stays responsive).
  if (ctx_.headless() && opt_.sweepAtStart.empty()) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    if (startupError_) return startupError_;
    while ((controller_->busy() || model_.replay.replaying()) && std::chrono::steady_clock::now() < deadline) {
      renderFrame();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  // ImGui lays out windows and tab bars on their first frame and draws them from the second:
  // one frame before the counted ones, so that --frames 1 shows the whole window.
  if (ctx_.headless()) renderFrame();
  for (int n = 0; !quit_ && !ctx_.shouldClose() && (frames == 0 || n < frames); ++n) {
    // Idle in a window: wait for input instead of drawing the same frame again (a core busy all
    // lecture otherwise). A few frames after each event let hover and tab changes settle; the
    // timeout picks up what finishes without an event (a measurement, a sweep row).
    // (Events raised inside a frame - the resize of entering full screen - count too.)
    if (!ctx_.headless() && frames == 0 && !animating() && settleFrames_ <= 0 && !g_inputSeen) {
      ctx_.waitEvents(0.5);
      if (pollFileDialog()) g_inputSeen = true;  // the chooser answered while the loop waited
      if (!g_inputSeen && !animating()) {  // nothing happened: nothing to draw
        --n;
        continue;
      }
    } else {
      ctx_.pollEvents();
    }
    if (g_inputSeen) settleFrames_ = 3, g_inputSeen = false;
    --settleFrames_;
    const auto t0 = std::chrono::steady_clock::now();
    renderFrame();
    if (opt_.stats) glFinish();
    frameMs_.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (ctx_.headless() && !opt_.sweepAtStart.empty())  // pace like a 60 Hz display while the sweep runs
      std::this_thread::sleep_until(t0 + std::chrono::microseconds(16667));
    // The last frame: the count is reached, or the window is closing (Ctrl+Q, close button),
    // so --screenshot is written however the session ends.
    const bool last = (frames > 0 && n == frames - 1) || quit_ || ctx_.shouldClose();
    if (last && !opt_.screenshot.empty()) {
      if (std::string e = saveScreenshot(opt_.screenshot); !e.empty()) {
        std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
        return 1;
      }
    }
    if (screenshotRequested_) {
      screenshotRequested_ = false;
      // In the export folder like every export, under a name no earlier file has (two in one
      // second get -2, -3...).
      char stem[64];
      std::time_t now = std::time(nullptr);
      std::strftime(stem, sizeof stem, "reducelab-%Y%m%d-%H%M%S", std::localtime(&now));
      std::string e = prepareFolder(model_.exportDir), name;
      if (e.empty()) e = saveScreenshot(name = freePath(stem, ".png"));
      model_.addLog(e.empty() ? gui::LogLevel::Info : gui::LogLevel::Error,
                    e.empty() ? "Screenshot saved: " + name : e);
    }
    processExports();
    ctx_.swapBuffers();
  }
  if (!opt_.dumpLayout.empty()) {
    nlohmann::json j;
    for (const auto& [name, r] : model_.layout) j["panels"][name] = {r.x, r.y, r.w, r.h};
    // Every piece of text of the last frame with the rectangle that clips it, and what is wrong.
    j["text"] = nlohmann::json::array();
    for (const gui::TextRun& r : textRuns_)
      j["text"].push_back({{"window", r.window}, {"text", r.text}, {"rect", {r.rect.x, r.rect.y, r.rect.w, r.rect.h}},
                           {"clip", {r.clip.x, r.clip.y, r.clip.w, r.clip.h}}, {"cut", r.cutX || r.cutY},
                           {"key_view", gui::isKeyWindow(r.window)}});
    j["layout_issues"] = nlohmann::json::array();
    for (const gui::LayoutIssue& i : gui::findLayoutIssues(textRuns_)) j["layout_issues"].push_back(i.describe());
    j["interop_writer"] = model_.interop.ok ? model_.interop.writer : "failed";
    j["cpu_model"] = model_.cpuModel();
    if (model_.remote.active) {
      const char* link = model_.remote.link == gui::RemoteState::Link::Connected ? "connected"
                         : model_.remote.link == gui::RemoteState::Link::Connecting ? "connecting" : "dropped";
      j["remote"] = {{"target", model_.remote.target}, {"host", model_.remote.host}, {"link", link},
                     {"detail", model_.remote.detail}, {"device", model_.device.name}};
    }
    nlohmann::json sweepRows = nlohmann::json::object();
    for (const auto& [axis, rows] : model_.sweep.rows) sweepRows[axis] = rows.size();
    j["sweep"] = {{"running", model_.sweep.running}, {"done", model_.sweep.done}, {"total", model_.sweep.total},
                  {"rows", sweepRows}};
    j["results"] = model_.results.size();
    j["trace"] = {{"valid", model_.trace.valid}, {"source", model_.trace.source}, {"kernel", model_.trace.config.kernel},
                  {"steps", model_.trace.data.numSteps()}, {"step", model_.trace.step}, {"error", model_.trace.error}};
    j["view"] = int(model_.view);
    j["presentation"] = model_.presentation;
    j["lesson_active"] = model_.lesson.active;
    if (std::string e = writeTextAtomic(opt_.dumpLayout, j.dump(2)); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
  }
  if (opt_.stats) printStats();
  if (opt_.stats && !opt_.sweepAtStart.empty())
    std::printf("sweep over %s: %d of %d runs measured while the frames above were drawn%s\n",
                opt_.sweepAtStart.c_str(), model_.sweep.done, model_.sweep.total,
                model_.sweep.running ? " (still running)" : " (finished)");
  if (!settingsPath_.empty()) {  // remember the look and the configuration
    rememberWindowGeometry();
    if (model_.presentation) requestTogglePresentation();
    settings_.uiScale = model_.ui.uiScale;
    settings_.theme = model_.ui.theme == gui::Theme::Light ? "light" : "dark";
    settings_.showLeft = model_.ui.showLeft;
    settings_.showRight = model_.ui.showRight;
    settings_.showBottom = model_.ui.showBottom;
    settings_.exportDir = model_.exportDir;
    settings_.lastConfig = model_.config;
    settings_.haveLastConfig = model_.configError.empty();
    if (std::string e = saveSettings(settingsPath_, settings_); !e.empty())
      std::fprintf(stderr, "reducelab: warning: %s\n", e.c_str());
  }
  return 0;
}

int runGui(const GuiOptions& options) {
  {
    GuiOptions copy = options;
    if (std::string e = checkGuiOptions(copy, nullptr, nullptr); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s (see reducelab --help)\n", e.c_str());
      return 2;
    }
  }
  if (!options.lesson.empty()) {  // a lesson with an error is rejected before any window opens
    std::string err;
    const std::optional<Lesson> lesson = loadLesson(options.lesson, &err);
    if (!lesson) {
      std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
      return 2;
    }
    for (const std::string& note : lesson->notes) std::fprintf(stderr, "reducelab: %s\n", note.c_str());
  }
  if (!options.openFile.empty()) {  // a mistyped name is a usage error, before any window opens
    std::error_code ec;
    if (!std::filesystem::exists(options.openFile, ec)) {
      std::fprintf(stderr, "reducelab: error: no file '%s' to open (a .reducelab recording or a session JSON)\n",
                   options.openFile.c_str());
      return 2;
    }
  }
  if (!options.lessonOut.empty() && !options.headless) {
    std::fprintf(stderr, "reducelab: error: --out renders the lesson offscreen: add --headless\n");
    return 2;
  }
  if (!options.screenshot.empty())
    if (std::string e = checkWritable(options.screenshot); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: cannot write --screenshot %s: %s\n",
                   options.screenshot.c_str(), e.c_str());
      return 1;
    }
  std::string error;
  std::unique_ptr<GlContext> ctx =
      options.headless ? createHeadlessContext(options.width, options.height, &error)
                       : createWindowContext(options.width, options.height, &error);
  if (!ctx) {
    std::fprintf(stderr, "reducelab: error: %s\n", error.c_str());
    return 1;
  }
  Application app(*ctx, options);
  return app.run();
}

}  // namespace rl::app
