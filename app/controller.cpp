#include "controller.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <thread>

#include "reducelab/occupancy.hpp"
#include "reducelab/recording.hpp"
#include "remote_backend.hpp"
#include "reducelab/trace.hpp"

namespace rl::app {

bool sameTrace(const RunConfig& a, const RunConfig& b) { return sameTraceConfig(a, b); }

bool sameResources(const RunConfig& a, const RunConfig& b) {
  return a.kernel == b.kernel && a.block == b.block && a.type == b.type && a.accumulate == b.accumulate &&
         a.op == b.op && a.n == b.n;
}

Controller::Controller(gui::Model& model, std::unique_ptr<RemoteClient> remote) : model_(model) {
  const size_t bytes = trace::bufferBytes(trace::kMaxBlock);  // the largest block
  glGenBuffers(2, traceBuffers_.data());
  for (GLuint b : traceBuffers_) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_DRAW);
  }
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  model_.trace.buffer = traceBuffers_[size_t(front_)];
  cpuModel_ = makeCpuModelBackend(model_.device.available ? model_.device : assumedH200(),
                                  model_.device.available ? "" : "no NVIDIA GPU");
  if (remote) {  // the GPU is the server's: its device replaces ours when its hello arrives
    model_.remote.active = true;
    model_.remote.target = remote->target();
    model_.remote.link = gui::RemoteState::Link::Connecting;
    model_.device = DeviceInfo{};
    model_.device.unavailableReason = "connecting to " + remote->target();
    model_.peaks = {};
    backend_ = makeRemoteBackend(std::move(remote));
    return;
  }
  if (!model_.device.available) {
    backend_ = makeCpuModelBackend(assumedH200(), "no NVIDIA GPU");
    return;
  }
  gpuTraces_ = true;
  for (size_t i = 0; i < 2 && gpuTraces_; ++i)
    if (std::string e = traceInterop_[i].attach(traceBuffers_[i]); !e.empty()) {
      model_.addLog(gui::LogLevel::Error, "Trace buffer interop: " + e + "; the GPU's traces come through the host");
      gpuTraces_ = false;
    }
  backend_ = makeLocalGpuBackend(model_.device.ordinal);
}

Controller::~Controller() {
  backend_.reset();   // cancels and joins: nothing writes the trace buffers after this (a remote: bye, reaped)
  cpuModel_.reset();
  recording_.reset();
  for (CudaGlBuffer& b : traceInterop_) b.detach();  // unmaps a buffer still mapped
  glDeleteBuffers(2, traceBuffers_.data());
}

bool Controller::busy() const { return backend_->busy() || cpuModel_->busy(); }

bool Controller::remoteConnecting() const {
  return model_.remote.active && model_.remote.link == gui::RemoteState::Link::Connecting;
}

void Controller::queuePitfall(const PitfallRequest& r) { backend_->queuePitfall(r); }

void Controller::queueRun(const RunConfig& c, const std::string& label) {
  if (std::string no = backend_->measuresNot(); !no.empty()) {
    model_.addLog(gui::LogLevel::Warn, "Not run: " + no);
    return;
  }
  if (std::string e = validate(c, model_.device.available ? &model_.device : nullptr); !e.empty()) {
    model_.addLog(gui::LogLevel::Error, "Not run: " + e);
    return;
  }
  backend_->queueRun(c, label, RunKind::Single);
}

void Controller::queueSweep(const SweepSpec& s) {
  if (std::string no = backend_->measuresNot(); !no.empty()) {
    model_.addLog(gui::LogLevel::Warn, "No sweep: " + no);
    return;
  }
  if (model_.sweep.running) {
    model_.addLog(gui::LogLevel::Warn, "A sweep is already running: cancel it first");
    return;
  }
  model_.sweep.running = true;
  model_.sweep.axis = std::string(name(s.axis));
  model_.sweep.done = 0;
  model_.sweep.total = 0;
  model_.sweep.current = "planning";
  model_.sweep.rows[model_.sweep.axis].clear();
  backend_->queueSweep(s);
}

void Controller::cancelSweep() { backend_->cancelSweep(); }

void Controller::cancelRuns() {
  model_.continuous = false;
  backend_->cancelRuns();
}

void Controller::remeasurePeaks() { backend_->queuePeaks(true); }

void Controller::clearResults() { model_.results.clear(); }

void Controller::apply(BackendEvents& all) {
  if (all.connected) {
    model_.remote.link = gui::RemoteState::Link::Connected;
    model_.addLog(gui::LogLevel::Info, "Remote: connected to " + *all.connected);
  }
  if (all.device) {  // a remote's hello: its GPU replaces ours
    model_.device = *all.device;
    model_.remote.host = backend_->name();
    haveTraced_ = false;  // the server's trace replaces the one drawn while connecting
    haveResources_ = false;
  }
  for (const std::string& r : all.refusals) model_.addLog(gui::LogLevel::Warn, r);
  ServiceEvents& ev = all.service;
  for (Measurement& m : ev.measurements) {
    if (m.label.rfind("lesson:", 0) == 0) {  // a lesson's run: its table row gets it too
      // The label comes back from the service or a remote server: read, never trusted.
      size_t row = SIZE_MAX;
      const char* first = m.label.data() + 7;
      const auto r = std::from_chars(first, m.label.data() + m.label.size(), row);
      if (r.ec == std::errc() && r.ptr == m.label.data() + m.label.size() && row < model_.lesson.rows.size())
        model_.lesson.rows[row].runs.push_back(m);
    }
    if (m.ok)
      model_.addLog(gui::LogLevel::Info, m.config.kernel + ": kernel time " + std::to_string(m.kernel.median) + " ms, " +
                                             std::to_string(int(m.bandwidthGBs)) + " GB/s (kernel)");
    else
      model_.addLog(gui::LogLevel::Error, m.config.kernel + " not run: " + m.error);
    model_.results.append(std::move(m));
  }
  for (auto& [axis, m] : ev.sweepRows) model_.sweep.rows[axis].push_back(std::move(m));
  for (std::string& msg : ev.messages) model_.addLog(gui::LogLevel::Info, std::move(msg));
  if (ev.sweep) {
    model_.sweep.done = ev.sweep->done;
    model_.sweep.total = ev.sweep->total;
    model_.sweep.current = ev.sweep->current;
    if (ev.sweep->finished) model_.sweep.running = false;
  }
  if (ev.peaks) {
    model_.peaks = *ev.peaks;
    model_.addLog(gui::LogLevel::Info, "Bandwidth peaks: " + ev.peaks->source);
  }
  if (ev.policies) model_.policies = std::move(*ev.policies);
  if (ev.resources && sameResources(ev.resources->config, model_.config)) {
    model_.resources = ev.resources->usage;
    model_.resourcesMeasured = ev.resources->error.empty() && ev.resources->usage.registers > 0;
    if (!model_.resourcesMeasured)  // no instantiation or a query error: the calculator's view
      model_.resources = resourceUsage(model_.config, model_.shownDevice(), nullptr);
  }
  for (TraceResult& t : all.traces) takeTrace(t);
  for (auto& c : all.checks) checkEvents_.push_back(std::move(c));
  if (ev.progress) runProgress_ = ev.progress;
  for (PitfallResult& p : ev.pitfalls) {
    const std::string what = pitfallTitle(p.kind) + " (" + p.source + ")";
    model_.addLog(p.ok ? gui::LogLevel::Info : gui::LogLevel::Error, p.ok ? what + " shown" : what + ": " + p.error);
    if (p.label.rfind("lesson-pitfall:", 0) == 0) {
      size_t k = SIZE_MAX;  // read without throwing, as the lesson rows' labels
      const auto r = std::from_chars(p.label.data() + 15, p.label.data() + p.label.size(), k);
      // (a result for a lesson closed meanwhile finds another pitfall, or none, in its slot)
      if (r.ec == std::errc() && r.ptr == p.label.data() + p.label.size() && k < model_.lesson.pitfalls.size() &&
          model_.lesson.pitfalls[k].request.kind == p.kind)
        model_.lesson.pitfalls[k].result = std::move(p);
    }
  }
  if (all.lost) {
    // Everything that arrived stays (results, sweep rows, the trace shown); nothing more comes.
    model_.remote.link = gui::RemoteState::Link::Dropped;
    model_.remote.detail = *all.lost;
    model_.addLog(gui::LogLevel::Error, "Remote: " + *all.lost + "; what arrived is kept");
    if (model_.sweep.running) {
      model_.sweep.running = false;
      model_.sweep.current = "connection lost";
    }
    if (traceFrom_ == backend_.get()) traceInFlight_ = false;
  }
}

void Controller::update() {
  for (Backend* b : {backend_.get(), cpuModel_.get(), recording_.get()})
    if (b) {
      BackendEvents ev = b->poll();
      apply(ev);
    }
  if (model_.peaks.theoreticalGBs == 0 && model_.device.available)
    model_.peaks.theoreticalGBs = model_.device.theoreticalPeakGBs();
  model_.configError = validate(model_.config, model_.device.available ? &model_.device : nullptr);
  if (!traceInFlight_ && (!haveTraced_ || !sameTrace(traced_, model_.config))) {
    userTrace_.reset();  // the configuration changed: its own trace, not the user's kernel's
    requestTrace();
  }
  if (userTrace_ && !traceInFlight_) showUserTraceNow();
  gui::TraceState& t = model_.trace;
  // Asked for by a lesson or the command line: applied to the trace of the current configuration,
  // not to the previous one the views still show while the new one is recorded.
  if (t.pendingSelection && t.valid && traceSettled()) {
    t.step = requestedStep(t.data, t.summary, model_.view, t.pendingStep);
    t.warp = std::min(t.pendingWarp, t.data.numWarps() - 1);
    t.slot = t.pendingSlot;  // -1: the views take the step's first slot
    t.pendingSelection = false;
  }
  if (!haveResources_ || !sameResources(resourcesFor_, model_.config)) requestResources();
  model_.measuring = busy();
  if (!model_.measuring) runProgress_.reset();
  const size_t pending = backend_->pendingJobs() + cpuModel_->pendingJobs();
  model_.measuringWhat = !model_.measuring ? ""
                         : runProgress_    ? runProgress_->what + " " + std::to_string(int(100 * runProgress_->fraction)) + "%"
                                           : std::to_string(pending) + " run(s) in progress";
  // Continuous runs: a new measurement whenever the queue is idle (no CPU baseline, the
  // reference reused: the per-run cost stays that of the GPU run).
  if (model_.continuous && !model_.measuring && model_.configError.empty() && backend_->measuresNot().empty() &&
      !remoteConnecting())
    backend_->queueRun(model_.config, "", RunKind::Continuous);
}

std::string Controller::showUserTrace(const std::vector<uint8_t>& bytes, const std::string& source, const RunConfig& config) {
  std::string err;
  TraceData data = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
  if (!data.valid()) return err.empty() ? "no trace recorded" : err;
  userTrace_ = UserTrace{std::move(data), source, config};
  if (!traceInFlight_) showUserTraceNow();
  return {};
}

void Controller::showUserTraceNow() {
  if (!userTrace_) return;
  UserTrace u = std::move(*userTrace_);
  userTrace_.reset();
  showHostTrace(std::move(u.data), u.source, true);
  model_.trace.config = u.config;  // the views' labels; the configuration traced_ stays the catalogue's
  model_.trace.pendingSelection = false;
  // The step that shows the view's point (from the editor: the warp view's, where it will be seen).
  const ViewId view = model_.view == ViewId::Editor || model_.view == ViewId::Source ? ViewId::WarpActivity : model_.view;
  model_.trace.step = requestedStep(model_.trace.data, model_.trace.summary, view, kTellingStep);
  model_.trace.stepChosen = true;
}

bool Controller::traceSettled() const {
  return !traceInFlight_ && haveTraced_ && sameTrace(traced_, model_.config);
}

void Controller::waitForTrace(double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while ((traceInFlight_ || remoteConnecting()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    update();  // a remote's hello, then the first trace asked of the server
  }
}

void Controller::requestResources() {
  resourcesFor_ = model_.config;
  haveResources_ = true;
  model_.resources = {};
  model_.resourcesMeasured = false;
  if (!model_.configError.empty()) return;
  // Shown at once from the calculator; replaced by the device's figures when they arrive.
  model_.resources = resourceUsage(model_.config, model_.shownDevice(), nullptr);  // no GPU: the shown one's
  if (model_.device.available) backend_->queueResources(model_.config);
}

void Controller::requestTrace() {
  traced_ = model_.config;
  haveTraced_ = true;
  gui::TraceState& t = model_.trace;
  auto refuse = [&](std::string why) {
    t.config = traced_;
    t.valid = false;
    t.error = std::move(why);
  };
  if (!model_.configError.empty()) return refuse(model_.configError);
  if (!findKernel(traced_.kernel)->traceable)
    return refuse("CUB is a library: it has no traced twin, so there is nothing to animate. Its time "
                  "and bandwidth are in the results and plots.");
  // An opened recording's traces come first (the GPU wrote them), then the backend's, then the
  // CPU model's: the first source that has this configuration answers.
  if (model_.replay.recording != recordingOf_) {
    recordingOf_ = model_.replay.recording;
    recording_ = recordingOf_ ? makeRecordingBackend(recordingOf_) : nullptr;
  }
  std::string why;
  Backend* source = firstTraceSource({recording_.get(), backend_.get()}, traced_, &why);
  if (!source) source = cpuModel_.get();
  traceFallbackWhy_ = source == cpuModel_.get() ? why : "";
  TraceTarget target;
  traceMapped_ = false;
  if (source->writesDeviceBuffers() && gpuTraces_) {
    // The views keep drawing the front buffer; the traced kernel writes the back one.
    if (std::string e = traceInterop_[size_t(1 - front_)].map(&target.deviceBuffer, &target.bytes); !e.empty())
      return refuse(e);
    traceMapped_ = true;
  }
  traceFrom_ = source;
  traceInFlight_ = true;
  traceJob_ = source->queueTrace(traced_, target);
}

// A trace held on the host (the CPU model's, a recording's, a remote server's, or this GPU's
// copied back) into the buffer the views draw. The caller has set the trace's configuration.
void Controller::showHostTrace(TraceData data, const std::string& source, bool gpuWritten) {
  gui::TraceState& t = model_.trace;
  const std::vector<uint8_t> bytes = data.toBuffer();
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, traceBuffers_[size_t(front_)]);
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes.size()), bytes.data());
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  t.buffer = traceBuffers_[size_t(front_)];
  t.error.clear();
  t.data = std::move(data);
  t.source = source;
  t.gpuWritten = gpuWritten;
  t.summary = summarize(t.data);
  t.valid = true;
  ++t.version;
  t.step = std::min(t.step, t.data.numSteps() - 1);
  t.warp = std::min(t.warp, t.data.numWarps() - 1);
}

void Controller::takeTrace(TraceResult& r) {
  if (!traceInFlight_ || r.id != traceJob_) return;  // an answer to a configuration left behind
  traceInFlight_ = false;
  const int back = 1 - front_;
  if (traceMapped_) traceInterop_[size_t(back)].unmap();
  traceMapped_ = false;
  gui::TraceState& t = model_.trace;
  t.config = r.config;
  if (!r.ok) {
    t.valid = false;
    t.error = r.error;
    return;
  }
  const std::string caption = traceFrom_ == cpuModel_.get() && !traceFallbackWhy_.empty()
                                  ? "CPU model (" + traceFallbackWhy_ + ")"
                                  : r.source;
  if (!r.writtenInPlace) return showHostTrace(std::move(r.data), caption, r.gpuWritten);
  // Written in place: the views' shaders read the GL buffer the kernel wrote; labels need a host copy.
  std::vector<uint8_t> bytes(trace::bufferBytes(unsigned(r.config.block)));
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, traceBuffers_[size_t(back)]);
  glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes.size()), bytes.data());
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  std::string err;
  TraceData data = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
  if (!data.valid()) {
    t.valid = false;
    t.error = err.empty() ? "no trace recorded" : err;
    return;
  }
  front_ = back;
  t.buffer = traceBuffers_[size_t(front_)];
  t.data = std::move(data);
  t.error.clear();
  t.source = caption + " through CUDA-GL interop";
  t.gpuWritten = true;
  t.summary = summarize(t.data);
  t.valid = true;
  ++t.version;
  t.step = std::min(t.step, t.data.numSteps() - 1);
  t.warp = std::min(t.warp, t.data.numWarps() - 1);
}

}  // namespace rl::app
