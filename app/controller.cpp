#include "controller.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <thread>

#include "reducelab/occupancy.hpp"
#include "reducelab/trace.hpp"

namespace rl::app {

bool sameTrace(const RunConfig& a, const RunConfig& b) { return sameTraceConfig(a, b); }

bool sameResources(const RunConfig& a, const RunConfig& b) {
  return a.kernel == b.kernel && a.block == b.block && a.type == b.type && a.accumulate == b.accumulate &&
         a.op == b.op && a.n == b.n;
}

Controller::Controller(gui::Model& model, std::unique_ptr<RemoteClient> remote)
    : model_(model), remote_(std::move(remote)) {
  const size_t bytes = trace::bufferBytes(trace::kMaxBlock);  // the largest block
  glGenBuffers(2, traceBuffers_.data());
  for (GLuint b : traceBuffers_) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_DRAW);
  }
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  model_.trace.buffer = traceBuffers_[size_t(front_)];
  if (remote_) {  // the GPU is the server's: its device replaces ours when its hello arrives
    model_.remote.active = true;
    model_.remote.target = remote_->target();
    model_.remote.link = gui::RemoteState::Link::Connecting;
    model_.device = DeviceInfo{};
    model_.device.unavailableReason = "connecting to " + remote_->target();
    model_.peaks = {};
    return;
  }
  if (!model_.device.available) return;
  gpuTraces_ = true;
  for (size_t i = 0; i < 2 && gpuTraces_; ++i)
    if (std::string e = traceInterop_[i].attach(traceBuffers_[i]); !e.empty()) {
      model_.addLog(gui::LogLevel::Error, "Trace buffer interop: " + e + "; using the CPU model");
      gpuTraces_ = false;
    }
  const int ordinal = model_.device.ordinal;
  service_ = std::make_unique<MeasurementService>(
      [ordinal](std::string* err) { return Engine::create(ordinal, err); });
}

Controller::~Controller() {
  cpuModelService_.reset();
  service_.reset();  // cancels and joins: nothing writes the trace buffers after this
  remote_.reset();   // bye; the server cancels what runs and exits (or is ended), and is reaped
  for (CudaGlBuffer& b : traceInterop_) b.detach();  // unmaps a buffer still mapped
  glDeleteBuffers(2, traceBuffers_.data());
}

bool Controller::busy() const {
  if (remote_) return remote_->pendingRuns() > 0 || remote_->sweepRunning() || (cpuModelService_ && cpuModelService_->busy());
  return (service_ && service_->busy()) || (cpuModelService_ && cpuModelService_->busy());
}

bool Controller::remoteConnecting() const {
  return remote_ && model_.remote.link == gui::RemoteState::Link::Connecting;
}

void Controller::queuePitfall(const PitfallRequest& r) {
  if (service_) return service_->queuePitfall(r);
  if (!cpuModelService_) {
    const std::string why = model_.device.unavailableReason.empty() ? "no NVIDIA GPU" : model_.device.unavailableReason;
    cpuModelService_ = std::make_unique<MeasurementService>([why](std::string* err) {
      *err = why;
      return std::unique_ptr<Engine>();
    });
  }
  cpuModelService_->queuePitfall(r);
}

void Controller::queueRun(const RunConfig& c, const std::string& label) {
  if (remote_) {
    if (remote_->dropped()) {
      model_.addLog(gui::LogLevel::Warn, "Not run: the connection to " + remote_->target() + " was lost");
      return;
    }
    // Before the hello only the device-independent rules are known; the server checks again.
    if (std::string e = validate(c, model_.device.available ? &model_.device : nullptr); !e.empty()) {
      model_.addLog(gui::LogLevel::Error, "Not run: " + e);
      return;
    }
    remote_->queueRun(c, label, RunKind::Single);
    return;
  }
  if (!service_) {
    model_.addLog(gui::LogLevel::Warn, "Measurements need an NVIDIA GPU; this machine runs the CPU model only");
    return;
  }
  if (std::string e = validate(c, &model_.device); !e.empty()) {
    model_.addLog(gui::LogLevel::Error, "Not run: " + e);
    return;
  }
  service_->queueRun(c, label, RunKind::Single);
}

void Controller::queueSweep(const SweepSpec& s) {
  if (remote_ && remote_->dropped()) {
    model_.addLog(gui::LogLevel::Warn, "No sweep: the connection to " + remote_->target() + " was lost");
    return;
  }
  if (!service_ && !remote_) {
    model_.addLog(gui::LogLevel::Warn, "Sweeps measure kernels and need an NVIDIA GPU");
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
  if (remote_) remote_->queueSweep(s);
  else service_->queueSweep(s);
}

void Controller::cancelSweep() {
  if (service_) service_->cancelSweep();
  if (remote_) remote_->cancelSweep();
}

void Controller::cancelRuns() {
  model_.continuous = false;
  if (service_) service_->cancelRuns();
}

void Controller::remeasurePeaks() {
  if (service_) service_->queuePeaks(true);
  if (remote_) remote_->queuePeaks(true);
}

void Controller::clearResults() { model_.results.clear(); }

void Controller::apply(ServiceEvents& ev) {
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
      model_.addLog(gui::LogLevel::Info, m.config.kernel + ": " + std::to_string(m.kernel.median) + " ms, " +
                                             std::to_string(int(m.bandwidthGBs)) + " GB/s");
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
      model_.resources = resourceUsage(model_.config, model_.device, nullptr);
  }
  for (TraceDone& t : ev.traces) takeTrace(t);
  if (ev.progress) runProgress_ = ev.progress;
  for (PitfallResult& p : ev.pitfalls) {
    const std::string what = "Pitfall " + std::string(name(p.kind)) + " (" + p.source + ")";
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
}

void Controller::pollRemote() {
  RemoteEvents ev = remote_->poll();
  gui::RemoteState& r = model_.remote;
  if (ev.hello) {
    const remote::Hello& h = *ev.hello;
    r.link = gui::RemoteState::Link::Connected;
    r.host = h.host;
    model_.device = h.device;
    model_.peaks = h.peaks;
    model_.addLog(gui::LogLevel::Info, "Remote: connected to " + h.host + " (" +
                                           (h.device.available ? h.device.name : "no GPU there: " + h.device.unavailableReason) +
                                           "; ReduceLab " + h.version + ", commit " + h.commit + ")");
    haveTraced_ = false;  // the server's trace replaces the one drawn while connecting
    haveResources_ = false;
  }
  apply(ev.service);
  for (remote::TraceReply& t : ev.traces) takeRemoteTrace(t);
  if (ev.dropped) {
    // Everything that arrived stays (results, sweep rows, the trace shown); nothing more comes.
    r.link = gui::RemoteState::Link::Dropped;
    r.detail = *ev.dropped;
    model_.addLog(gui::LogLevel::Error, "Remote: " + *ev.dropped + "; what arrived is kept");
    if (model_.sweep.running) {
      model_.sweep.running = false;
      model_.sweep.current = "connection lost";
    }
    traceInFlight_ = false;
  }
}

void Controller::update() {
  for (MeasurementService* s : {service_.get(), cpuModelService_.get()})
    if (s) {
      ServiceEvents ev = s->poll();
      apply(ev);
    }
  if (remote_) pollRemote();
  if (model_.peaks.theoreticalGBs == 0 && model_.device.available)
    model_.peaks.theoreticalGBs = model_.device.theoreticalPeakGBs();
  model_.configError = validate(model_.config, model_.device.available ? &model_.device : nullptr);
  if (!traceInFlight_ && (!haveTraced_ || !sameTrace(traced_, model_.config))) requestTrace();
  gui::TraceState& t = model_.trace;
  // Asked for by a lesson or the command line: applied to the trace of the current configuration,
  // not to the previous one the views still show while the new one is recorded.
  if (t.pendingSelection && t.valid && traceSettled()) {
    t.step = t.pendingStep < 0 ? t.data.numSteps() - 1 : std::min(t.pendingStep, t.data.numSteps() - 1);
    t.warp = std::min(t.pendingWarp, t.data.numWarps() - 1);
    t.slot = t.pendingSlot;  // -1: the views take the step's first slot
    t.pendingSelection = false;
  }
  if (!haveResources_ || !sameResources(resourcesFor_, model_.config)) requestResources();
  model_.measuring = busy();
  if (!model_.measuring) runProgress_.reset();
  const size_t pending = (remote_ ? remote_->pendingRuns() + (remote_->sweepRunning() ? 1 : 0)
                                  : service_ ? service_->pendingJobs() : 0) +
                         (cpuModelService_ ? cpuModelService_->pendingJobs() : 0);
  model_.measuringWhat = !model_.measuring ? ""
                         : runProgress_    ? runProgress_->what + " " + std::to_string(int(100 * runProgress_->fraction)) + "%"
                                           : std::to_string(pending) + " run(s) in progress";
  // Continuous runs: a new measurement whenever the queue is idle (no CPU baseline, the
  // reference reused: the per-run cost stays that of the GPU run).
  if (model_.continuous && !model_.measuring && model_.configError.empty() && service_)
    service_->queueRun(model_.config, "", RunKind::Continuous);
  if (model_.continuous && !model_.measuring && model_.configError.empty() && remote_ && remote_->connected())
    remote_->queueRun(model_.config, "", RunKind::Continuous);
}

bool Controller::traceSettled() const {
  return !traceInFlight_ && haveTraced_ && sameTrace(traced_, model_.config);
}

void Controller::waitForTrace(double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while ((traceInFlight_ || remoteConnecting()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (service_) {
      ServiceEvents ev = service_->poll();
      apply(ev);
    }
    if (remote_) update();  // the hello, then the first trace asked of the server
  }
}

void Controller::requestResources() {
  resourcesFor_ = model_.config;
  haveResources_ = true;
  model_.resources = {};
  model_.resourcesMeasured = false;
  if (!model_.configError.empty()) return;
  // Shown at once from the calculator; replaced by the device's figures when they arrive.
  model_.resources = resourceUsage(model_.config, model_.device, nullptr);
  if (service_) service_->queueResources(model_.config);
  if (remote_ && remote_->connected() && model_.device.available) remote_->queueResources(model_.config);
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
  // An opened recording's trace of this configuration comes first: the GPU wrote it.
  if (const Recording* rec = model_.replay.recording.get())
    if (const RecordedTrace* r = rec->findTrace(traced_)) {
      std::string err;
      TraceData data = TraceData::fromBuffer(r->bytes.data(), r->bytes.size(), &err);
      if (!data.valid()) return refuse(err);  // checked when the file was read: not expected
      const std::string date = rec->createdUtc.substr(0, 10);
      t.config = traced_;
      return showHostTrace(std::move(data),
                           r->fromGpu ? "GPU (" + rec->device.name + "), recorded " + date + ": written by the traced kernel"
                                      : "CPU model, recorded " + date,
                           r->fromGpu);
    }
  if (remote_ && remote_->connected()) {
    traceJob_ = remote_->queueTrace(traced_);
    traceInFlight_ = true;
    return;
  }
  if (gpuTraces_) {
    // The views keep drawing the front buffer; the traced kernel writes the back one.
    const int back = 1 - front_;
    void* dev = nullptr;
    size_t size = 0;
    if (std::string e = traceInterop_[size_t(back)].map(&dev, &size); !e.empty()) return refuse(e);
    traceJob_ = service_->queueTrace(traced_, dev, size);
    traceInFlight_ = true;
    return;
  }
  std::string err;
  const DeviceInfo d = model_.device.available ? model_.device : assumedH200();
  TraceData data = modelTrace(traced_, assumedGeometry(traced_, d).grid(), d.ccMajor, &err);
  if (!data.valid()) return refuse(err.empty() ? "no trace recorded" : err);
  t.config = traced_;
  showHostTrace(std::move(data),
                model_.replay.active()     ? "CPU model: this configuration is not in the recording"
                : remote_                  ? (remote_->dropped() ? "CPU model (the connection to " + remote_->target() + " was lost)"
                                                                 : "CPU model (while connecting to " + remote_->target() + ")")
                : model_.device.available ? "CPU model (the trace buffer could not be shared with CUDA)"
                                          : "CPU model (no NVIDIA GPU)",
                false);
}

// A trace held on the host (the CPU model's, a recording's, or a remote server's) into the
// buffer the views draw. The caller has set the trace's configuration.
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

void Controller::takeRemoteTrace(remote::TraceReply& reply) {
  if (!traceInFlight_ || reply.id != traceJob_) return;  // an answer to a configuration left behind
  traceInFlight_ = false;
  gui::TraceState& t = model_.trace;
  t.config = reply.config;
  if (!reply.ok) {
    t.valid = false;
    t.error = reply.error;
    return;
  }
  const std::string where = model_.remote.host.empty() ? remote_->target() : model_.remote.host;
  showHostTrace(std::move(reply.data),
                reply.source == "cpu-model" ? "CPU model on " + where + " (no NVIDIA GPU there)"
                                            : "GPU (" + model_.device.name + ") on " + where +
                                                  ", written by the traced kernel and sent through the remote pipe",
                reply.source != "cpu-model");
}

void Controller::takeTrace(TraceDone& done) {
  if (!traceInFlight_ || done.id != traceJob_) return;
  traceInFlight_ = false;
  const int back = 1 - front_;
  traceInterop_[size_t(back)].unmap();
  gui::TraceState& t = model_.trace;
  if (!done.run.ok) {
    t.config = done.config;
    t.valid = false;
    t.error = done.run.error;
    return;
  }
  // The views' shaders read the GL buffer the kernel wrote; labels need a host copy.
  std::vector<uint8_t> bytes(trace::bufferBytes(unsigned(done.config.block)));
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, traceBuffers_[size_t(back)]);
  glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes.size()), bytes.data());
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  std::string err;
  TraceData data = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
  t.config = done.config;
  if (!data.valid()) {
    t.valid = false;
    t.error = err.empty() ? "no trace recorded" : err;
    return;
  }
  front_ = back;
  t.buffer = traceBuffers_[size_t(front_)];
  t.data = std::move(data);
  t.error.clear();
  t.source = "GPU (" + model_.device.name + "), written by the traced kernel through CUDA-GL interop";
  t.gpuWritten = true;
  t.summary = summarize(t.data);
  t.valid = true;
  ++t.version;
  t.step = std::min(t.step, t.data.numSteps() - 1);
  t.warp = std::min(t.warp, t.data.numWarps() - 1);
}

}  // namespace rl::app
