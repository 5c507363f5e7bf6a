#include "controller.hpp"

#include <chrono>
#include <thread>

#include "reducelab/occupancy.hpp"
#include "reducelab/trace.hpp"

namespace rl::app {

bool sameTrace(const RunConfig& a, const RunConfig& b) {
  return a.kernel == b.kernel && a.op == b.op && a.type == b.type && a.accumulate == b.accumulate &&
         a.n == b.n && a.block == b.block && a.data == b.data && a.seed == b.seed &&
         a.rangeLo == b.rangeLo && a.rangeHi == b.rangeHi && a.tracedBlock == b.tracedBlock;
}

bool sameResources(const RunConfig& a, const RunConfig& b) {
  return a.kernel == b.kernel && a.block == b.block && a.type == b.type && a.accumulate == b.accumulate &&
         a.op == b.op && a.n == b.n;
}

Controller::Controller(gui::Model& model) : model_(model) {
  const size_t bytes = trace::bufferBytes(trace::kMaxBlock);  // the largest block
  glGenBuffers(2, traceBuffers_.data());
  for (GLuint b : traceBuffers_) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_DRAW);
  }
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  model_.trace.buffer = traceBuffers_[size_t(front_)];
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
  service_.reset();  // cancels and joins: nothing writes the trace buffers after this
  for (CudaGlBuffer& b : traceInterop_) b.detach();  // unmaps a buffer still mapped
  glDeleteBuffers(2, traceBuffers_.data());
}

bool Controller::busy() const { return service_ && service_->busy(); }

void Controller::queueRun(const RunConfig& c, const std::string& label) {
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
  if (!service_) {
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
  service_->queueSweep(s);
}

void Controller::cancelSweep() {
  if (service_) service_->cancelSweep();
}

void Controller::remeasurePeaks() {
  if (service_) service_->queuePeaks(true);
}

void Controller::clearResults() { model_.results.clear(); }

void Controller::apply(ServiceEvents& ev) {
  for (Measurement& m : ev.measurements) {
    if (m.label.rfind("lesson:", 0) == 0) {  // a lesson's run: its table row gets it too
      const size_t row = std::stoul(m.label.substr(7));
      if (row < model_.lesson.rows.size()) model_.lesson.rows[row].runs.push_back(m);
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
}

void Controller::update() {
  if (service_) {
    ServiceEvents ev = service_->poll();
    apply(ev);
  }
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
    t.pendingSelection = false;
  }
  if (!haveResources_ || !sameResources(resourcesFor_, model_.config)) requestResources();
  model_.measuring = busy();
  model_.measuringWhat = model_.measuring ? std::to_string(service_->pendingJobs()) + " run(s) in progress" : "";
  // Continuous runs: a new measurement whenever the queue is idle (no CPU baseline, the
  // reference reused: the per-run cost stays that of the GPU run).
  if (model_.continuous && !model_.measuring && model_.configError.empty() && service_)
    service_->queueRun(model_.config, "", RunKind::Continuous);
}

bool Controller::traceSettled() const {
  return !traceInFlight_ && haveTraced_ && sameTrace(traced_, model_.config);
}

void Controller::waitForTrace(double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (traceInFlight_ && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (service_) {
      ServiceEvents ev = service_->poll();
      apply(ev);
    }
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
  const std::vector<uint8_t> bytes = data.toBuffer();
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, traceBuffers_[size_t(front_)]);
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes.size()), bytes.data());
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  t.config = traced_;
  t.error.clear();
  t.data = std::move(data);
  t.source = model_.device.available ? "CPU model (the trace buffer could not be shared with CUDA)"
                                     : "CPU model (no NVIDIA GPU)";
  t.summary = summarize(t.data);
  t.valid = true;
  ++t.version;
  t.step = std::min(t.step, t.data.numSteps() - 1);
  t.warp = std::min(t.warp, t.data.numWarps() - 1);
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
  t.summary = summarize(t.data);
  t.valid = true;
  ++t.version;
  t.step = std::min(t.step, t.data.numSteps() - 1);
  t.warp = std::min(t.warp, t.data.numWarps() - 1);
}

}  // namespace rl::app
