#include "controller.hpp"

#include "reducelab/occupancy.hpp"
#include "reducelab/trace.hpp"

namespace rl::app {

bool sameTrace(const RunConfig& a, const RunConfig& b) {
  return a.kernel == b.kernel && a.op == b.op && a.type == b.type && a.accumulate == b.accumulate &&
         a.n == b.n && a.block == b.block && a.data == b.data && a.seed == b.seed &&
         a.rangeLo == b.rangeLo && a.rangeHi == b.rangeHi && a.tracedBlock == b.tracedBlock;
}

Controller::Controller(gui::Model& model) : model_(model) {
  // One buffer for the largest block, registered once with CUDA when a GPU exists.
  const size_t bytes = trace::bufferBytes(trace::kMaxBlock);
  glGenBuffers(1, &traceBuffer_);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, traceBuffer_);
  glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_DRAW);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  model_.trace.buffer = traceBuffer_;
  if (model_.device.available) {
    std::string err;
    traceEngine_ = Engine::create(model_.device.ordinal, &err);
    if (traceEngine_) {
      if (std::string e = traceInterop_.attach(traceBuffer_); !e.empty()) {
        model_.addLog(gui::LogLevel::Error, "Trace buffer interop: " + e + "; using the CPU model");
        traceEngine_.reset();
      }
    }
    worker_ = std::thread([this] { workerLoop(); });
  }
}

Controller::~Controller() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    cancel_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
  traceInterop_.detach();
  if (traceBuffer_) glDeleteBuffers(1, &traceBuffer_);
}

bool Controller::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !jobs_.empty() || running_ > 0;
}

void Controller::queueRun(const RunConfig& c) {
  if (!model_.device.available) {
    model_.addLog(gui::LogLevel::Warn, "Measurements need an NVIDIA GPU; this machine runs the CPU model only");
    return;
  }
  if (std::string e = validate(c, &model_.device); !e.empty()) {
    model_.addLog(gui::LogLevel::Error, "Not run: " + e);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(c);
  }
  wake_.notify_one();
}

void Controller::clearResults() { model_.results.clear(); }

void Controller::workerLoop() {
  std::string err;
  std::unique_ptr<Engine> engine = Engine::create(model_.device.ordinal, &err);
  if (engine) {
    Peaks p = engine->peaks(false);
    std::lock_guard<std::mutex> lock(mutex_);
    workerPeaks_ = p;
    peaksReady_ = true;
  }
  for (;;) {
    RunConfig job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      job = jobs_.front();
      jobs_.pop_front();
      ++running_;
    }
    Measurement m;
    if (engine) {
      MeasureOptions o;
      o.cancel = [this] { return cancel_.load(); };
      m = engine->measure(job, o);
    } else {
      m.config = job;
      m.error = err;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    finished_.push_back(std::move(m));
    --running_;
  }
}

void Controller::update() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Measurement& m : finished_) {
      if (m.ok)
        model_.addLog(gui::LogLevel::Info,
                      m.config.kernel + ": " + std::to_string(m.kernel.median) + " ms, " +
                          std::to_string(int(m.bandwidthGBs)) + " GB/s");
      else
        model_.addLog(gui::LogLevel::Error, m.config.kernel + " not run: " + m.error);
      model_.results.push_back(std::move(m));
    }
    finished_.clear();
    if (peaksReady_) {
      model_.peaks = workerPeaks_;
      peaksReady_ = false;
    }
    model_.measuring = !jobs_.empty() || running_ > 0;
    model_.measuringWhat = model_.measuring ? std::to_string(jobs_.size() + size_t(running_)) + " run(s) in progress" : "";
  }
  if (model_.peaks.theoreticalGBs == 0 && model_.device.available)
    model_.peaks.theoreticalGBs = model_.device.theoreticalPeakGBs();
  model_.configError = validate(model_.config, model_.device.available ? &model_.device : nullptr);
  if (!haveTraced_ || !sameTrace(traced_, model_.config)) retrace();
}

void Controller::retrace() {
  traced_ = model_.config;
  haveTraced_ = true;
  gui::TraceState& t = model_.trace;
  t.config = traced_;
  t.valid = false;
  t.error.clear();
  if (!model_.configError.empty()) {
    t.error = model_.configError;
    return;
  }
  if (!findKernel(traced_.kernel)->traceable) {
    t.error = "CUB is a library: it has no traced twin, so there is nothing to animate. Its time "
              "and bandwidth are in the results and plots.";
    return;
  }
  std::string err;
  std::vector<uint8_t> bytes;
  if (traceEngine_) {
    void* dev = nullptr;
    size_t size = 0;
    if (std::string e = traceInterop_.map(&dev, &size); !e.empty()) {
      t.error = e;
      return;
    }
    TraceRun run = traceEngine_->runTraced(traced_, dev, size);
    traceInterop_.unmap();
    if (!run.ok) {
      t.error = run.error;
      return;
    }
    // The views' shaders read the GL buffer the kernel wrote; labels need a host copy.
    bytes.resize(trace::bufferBytes(unsigned(traced_.block)));
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, traceBuffer_);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes.size()), bytes.data());
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    t.data = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
    t.source = "GPU (" + model_.device.name + "), written by the traced kernel through CUDA-GL interop";
  } else {
    const DeviceInfo d = model_.device.available ? model_.device : assumedH200();
    t.data = modelTrace(traced_, assumedGeometry(traced_, d).grid(), d.ccMajor, &err);
    if (t.data.valid()) {
      bytes = t.data.toBuffer();
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, traceBuffer_);
      glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(bytes.size()), bytes.data());
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    }
    t.source = "CPU model (no NVIDIA GPU)";
  }
  if (!t.data.valid()) {
    t.error = err.empty() ? "no trace recorded" : err;
    return;
  }
  t.summary = summarize(t.data);
  t.valid = true;
  ++t.version;
  t.step = std::min(t.step, t.data.numSteps() - 1);
  t.warp = std::min(t.warp, t.data.numWarps() - 1);
}

}  // namespace rl::app
