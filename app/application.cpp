// The application's wiring: construction (ImGui, settings, the remote link, the controller, the
// starting state from the command line), teardown, and the GUI's entry point. Each feature's
// member functions live in their own file (docs/architecture.md, "The application, by feature").
#include "application.hpp"

#include "reducelab/gui/shader.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app_input.hpp"
#include "png_writer.hpp"
#include "reducelab/cuda_device.hpp"

namespace rl::app {

constexpr int kInteropCount = 4096;

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
  ImGui_ImplOpenGL3_Init(gui::kGlslVersion);
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
  const ViewInfo* view = findView(opt_.view);  // checked by checkGuiOptions (runGui refuses before)
  model_.view = view ? view->id : kDefaultView;
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
  initEditor();  // after the view is chosen (--kernel-file shows the editor), before a lesson (its exercises)
  controller_->update();  // asks for the first trace
  controller_->waitForTrace(30.0);  // start-up only: the frame loop never waits
  if (model_.trace.valid) {
    const int lastStep = model_.trace.data.numSteps() - 1, lastWarp = model_.trace.data.numWarps() - 1;
    model_.trace.step = requestedStep(model_.trace.data, model_.trace.summary, model_.view, opt_.step);
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

void Application::requestSweep(const std::string& axis, const std::vector<std::string>& kernels, uint64_t nMax) {
  SweepSpec s;
  s.axis = parseSweepAxis(axis).value_or(SweepAxis::Block);
  s.base = model_.config;
  s.kernels = kernels;
  s.nMax = nMax;
  controller_->queueSweep(s);
}

std::string checkGuiOptions(GuiOptions& o, RunConfig* config, std::vector<std::string>* runKernels) {
  RunConfig c;
  if (std::string e = toRunConfig(o.run, &c); !e.empty()) return e;
  std::string err;
  std::vector<const KernelInfo*> ks = parseKernelList(o.run.kernel, &err);
  if (ks.empty()) return err;
  c.kernel = std::string(ks.front()->key);
  applyParameters(c, parameterValues(o.run));  // its family's (a matrix: block and N from --tile and the sides)
  if (runKernels) {
    runKernels->clear();
    for (const KernelInfo* k : ks) runKernels->push_back(std::string(k->key));
  }
  if (!findView(o.view)) return "--view '" + o.view + "' is not one of: " + viewNames();
  if (o.theme != "dark" && o.theme != "light") return "--theme '" + o.theme + "' is not one of: dark, light";
  if (!o.sweepAtStart.empty() && (!parseSweepAxis(o.sweepAtStart) || o.sweepAtStart == "tile" || o.sweepAtStart == "size"))
    return "--sweep '" + o.sweepAtStart + "' is not one of: block, n, type, kernel (the matrix kernels' tile and size "
           "sweeps: reducelab sweep --axis tile|size)";
  if (!o.sweepNMax.empty() && !parseCount(o.sweepNMax, nullptr)) return "--sweep-n-max '" + o.sweepNMax + "' is not a count";
  if (!o.kernelFile.empty()) {
    usercode::KernelDocument probe;
    if (std::string e = probe.open(o.kernelFile); !e.empty()) return "--kernel-file: " + e;
  }
  if (config) *config = c;
  return {};
}

Application::~Application() {
  ImGuiContext* const previous = ImGui::GetCurrentContext();
  activate();
  saveEditorAutosave();  // the editor's text outlives the window
  closeEditorAutosave();
  editor_.reset();       // stops a check in flight and its worker
  controller_.reset();
  interop_.detach();
  if (model_.interop.buffer) glDeleteBuffers(1, &model_.interop.buffer);
  gui::releaseWindowGlObjects();  // this window's programs and vertex array, in its GL context
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

void Application::saveSettingsAtExit() {
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
