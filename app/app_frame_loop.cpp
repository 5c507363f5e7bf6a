// The frame loop: one frame drawn (the window's or headless), the loop that waits for input
// when nothing moves, the screenshot of a frame, frame statistics and the layout dump at exit.
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "app_input.hpp"
#include "application.hpp"
#include "offscreen_target.hpp"
#include "png_writer.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/gui/gl_view.hpp"

namespace rl::app {

void Application::waitForIdle() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  // (The editor's compile too: a lesson's exercise is shown compiled, with its messages.)
  auto compiling = [&] { return model_.editor.build == gui::EditorState::Build::Compiling; };
  do {
    renderFrame();
    if (controller_->busy() || !controller_->traceSettled() || compiling())
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while ((controller_->busy() || model_.sweep.running || model_.replay.replaying() || !controller_->traceSettled() ||
            compiling()) &&
           std::chrono::steady_clock::now() < deadline);
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
  updateEditor();
  if (!selectionAsked) keepStepByMeaning(versionBefore, before, stepsBefore, stepBefore);
  model_.trace.stepChosen = false;
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
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  processExports();  // as the run loop does after each frame (exports read the frame just drawn)
  return ms;
}

// A new trace (block size, kernel, type changed) keeps the step the user was looking at by what
// it is - "result" stays "result", "s = 64" stays "s = 64" - or goes to the nearest step of the
// same kind, not to whatever step now has the old index.
void Application::keepStepByMeaning(uint64_t versionBefore, const trace::StepHeader& before, int stepsBefore,
                                    int stepBefore) {
  gui::TraceState& t = model_.trace;
  if (t.stepChosen) return;
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

int settleFramesAfter(int settle, bool inputSeen, bool animatingBefore, bool animatingNow) {
  if (inputSeen) return 3 - 1;                               // this frame, then 2 more
  if (animatingBefore && !animatingNow) return std::max(settle, 3);  // checked before the frame: 3 to draw
  return settle - 1;
}

// Frames are drawn back to back only while something moves; otherwise the loop waits for input.
bool Application::animating() const {
  return model_.trace.playing || model_.measuring || model_.sweep.running || controller_->busy() || model_.replay.replaying() ||
         !pendingFigures_.empty() || !pendingViews_.empty() || reportRequested_ || screenshotRequested_ || !keyQueue_.empty() ||
         editorBusy();
}

std::string Application::saveScreenshot(const std::string& path) {
  int fbw = 0, fbh = 0;
  ctx_.framebufferSize(&fbw, &fbh);
  glBindFramebuffer(GL_FRAMEBUFFER, ctx_.framebuffer());
  if (!ctx_.headless()) glReadBuffer(GL_BACK);
  return screenshotFormat().write(path, fbw, fbh, readFramebufferRgba(fbw, fbh));
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

// --dump-layout: the named panel rectangles of the last frame and what the tests read of the state.
std::string Application::writeLayoutDump(const std::string& path) const {
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
  return writeTextAtomic(path, j.dump(2));
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
    const bool anim = animating();
    if (wasAnimating_ && !anim) settleFrames_ = settleFramesAfter(settleFrames_, false, true, false);
    wasAnimating_ = anim;
    if (!ctx_.headless() && frames == 0 && !anim && settleFrames_ <= 0 && !g_inputSeen) {
      ctx_.waitEvents(0.5);
      if (pollFileDialog()) g_inputSeen = true;  // the chooser answered while the loop waited
      if (watchKernelFile()) g_inputSeen = true; // your kernel's file was saved in another editor
      if (!g_inputSeen && !animating()) {  // nothing happened: nothing to draw
        --n;
        continue;
      }
    } else {
      ctx_.pollEvents();
    }
    settleFrames_ = settleFramesAfter(settleFrames_, g_inputSeen, false, false);
    g_inputSeen = false;
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
    if (screenshotRequested_) saveRequestedScreenshot();
    processExports();
    ctx_.swapBuffers();
  }
  if (!opt_.dumpLayout.empty())
    if (std::string e = writeLayoutDump(opt_.dumpLayout); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
  if (opt_.stats) printStats();
  if (opt_.stats && !opt_.sweepAtStart.empty())
    std::printf("sweep over %s: %d of %d runs measured while the frames above were drawn%s\n",
                opt_.sweepAtStart.c_str(), model_.sweep.done, model_.sweep.total,
                model_.sweep.running ? " (still running)" : " (finished)");
  if (!settingsPath_.empty()) saveSettingsAtExit();  // remember the look and the configuration
  return 0;
}

}  // namespace rl::app
