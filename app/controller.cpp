#include "controller.hpp"

#include "reducelab/occupancy.hpp"
#include "reducelab/trace.hpp"

namespace rl::app {

namespace {
std::string configKeyOf(const RunConfig& c) {
  return c.kernel + " " + std::string(name(c.type)) + " N=" + formatCount(c.n) + " block " + std::to_string(c.block);
}
}  // namespace

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

void Controller::queueRun(const RunConfig& c, const std::string& label) {
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
    jobs_.push_back({false, c, {}, label});
  }
  wake_.notify_one();
}

void Controller::queueSweep(const SweepSpec& s) {
  if (!model_.device.available) {
    model_.addLog(gui::LogLevel::Warn, "Sweeps measure kernels and need an NVIDIA GPU");
    return;
  }
  if (model_.sweep.running) {
    model_.addLog(gui::LogLevel::Warn, "A sweep is already running: cancel it first");
    return;
  }
  cancelSweep_ = false;
  model_.sweep.running = true;
  model_.sweep.axis = std::string(name(s.axis));
  model_.sweep.done = 0;
  model_.sweep.total = 0;
  model_.sweep.current = "planning";
  model_.sweep.rows[model_.sweep.axis].clear();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sweepProgress_ = {};
    jobs_.push_back({true, {}, s, ""});
  }
  wake_.notify_one();
}

void Controller::cancelSweep() { cancelSweep_ = true; }

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
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      job = jobs_.front();
      jobs_.pop_front();
      ++running_;
    }
    if (job.sweep) {
      std::vector<std::string> skipped;
      std::string planError;
      const std::vector<RunConfig> configs =
          engine ? planSweep(job.spec, engine->device(), &skipped, &planError) : std::vector<RunConfig>{};
      const std::string axis(name(job.spec.axis));
      {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const std::string& s : skipped) workerMessages_.push_back("sweep skipped " + s);
        if (!planError.empty()) workerMessages_.push_back("sweep: " + planError);
        sweepProgress_.total = int(configs.size());
        sweepProgress_.current = configs.empty() ? "" : configKeyOf(configs.front());
        sweepProgressChanged_ = true;
      }
      if (engine && !configs.empty())
        runSweep(*engine, configs,
                 [&](const Measurement& m, int done, int total) {
                   std::lock_guard<std::mutex> lock(mutex_);
                   sweepRows_.push_back({axis, m});
                   sweepProgress_.done = done;
                   sweepProgress_.total = total;
                   sweepProgress_.current = done < total ? configKeyOf(configs[size_t(done)]) : "";
                   sweepProgressChanged_ = true;
                 },
                 &cancelSweep_);
      std::lock_guard<std::mutex> lock(mutex_);
      sweepFinished_ = true;
      sweepProgressChanged_ = true;
      workerMessages_.push_back(cancelSweep_ ? "Sweep cancelled" : "Sweep over " + axis + " finished");
      --running_;
      continue;
    }
    Measurement m;
    if (engine) {
      MeasureOptions o;
      o.cancel = [this] { return cancel_.load(); };
      m = engine->measure(job.run, o);
    } else {
      m.config = job.run;
      m.error = err;
    }
    m.label = job.label;
    std::lock_guard<std::mutex> lock(mutex_);
    finished_.push_back(std::move(m));
    --running_;
  }
}

void Controller::update() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Measurement& m : finished_) {
      if (m.label.rfind("lesson:", 0) == 0) {  // a lesson's run: its table row gets it too
        const size_t row = std::stoul(m.label.substr(7));
        if (row < model_.lesson.rows.size()) model_.lesson.rows[row].runs.push_back(m);
      }
      if (m.ok)
        model_.addLog(gui::LogLevel::Info,
                      m.config.kernel + ": " + std::to_string(m.kernel.median) + " ms, " +
                          std::to_string(int(m.bandwidthGBs)) + " GB/s");
      else
        model_.addLog(gui::LogLevel::Error, m.config.kernel + " not run: " + m.error);
      model_.results.push_back(std::move(m));
    }
    finished_.clear();
    for (auto& [axis, m] : sweepRows_) model_.sweep.rows[axis].push_back(std::move(m));
    sweepRows_.clear();
    for (std::string& msg : workerMessages_) model_.addLog(gui::LogLevel::Info, std::move(msg));
    workerMessages_.clear();
    if (sweepProgressChanged_) {
      model_.sweep.done = sweepProgress_.done;
      model_.sweep.total = sweepProgress_.total;
      model_.sweep.current = sweepProgress_.current;
      if (sweepFinished_) model_.sweep.running = false;
      sweepFinished_ = false;
      sweepProgressChanged_ = false;
    }
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
  gui::TraceState& t = model_.trace;
  if (t.pendingSelection && t.valid) {  // asked for by a lesson or the command line
    t.step = t.pendingStep < 0 ? t.data.numSteps() - 1 : std::min(t.pendingStep, t.data.numSteps() - 1);
    t.warp = std::min(t.pendingWarp, t.data.numWarps() - 1);
    t.pendingSelection = false;
  }
  if (!haveResources_ || resourcesFor_.kernel != model_.config.kernel || resourcesFor_.block != model_.config.block ||
      resourcesFor_.type != model_.config.type || resourcesFor_.accumulate != model_.config.accumulate ||
      resourcesFor_.op != model_.config.op || resourcesFor_.n != model_.config.n)
    updateResources();
  // Continuous runs: a new measurement whenever the queue is idle.
  if (model_.continuous && !model_.measuring && model_.configError.empty() && model_.device.available)
    queueRun(model_.config);
}

void Controller::updateResources() {
  resourcesFor_ = model_.config;
  haveResources_ = true;
  model_.resources = {};
  model_.resourcesMeasured = false;
  if (!model_.configError.empty()) return;
  if (traceEngine_) {
    std::string err;
    model_.resources = traceEngine_->resources(model_.config, &err);
    model_.resourcesMeasured = err.empty() && model_.resources.registers > 0;
    if (model_.resourcesMeasured) return;
  }
  // CPU model: the calculator with an assumed 32 registers per thread.
  const DeviceInfo d = model_.device.available ? model_.device : assumedH200();
  const Geometry g = assumedGeometry(model_.config, d);
  const OccupancyResult r = computeOccupancy(d, {model_.config.block, 32, int(g.smemBytes)});
  model_.resources.registers = 32;
  model_.resources.dynamicSmemBytes = int(g.smemBytes);
  model_.resources.activeBlocksPerSM = r.activeBlocks;
  model_.resources.occupancy = r.occupancy;
  model_.resources.limiter = r.limiter;
  model_.resources.waves = r.activeBlocks > 0 ? double(g.grid()) / (double(r.activeBlocks) * d.smCount) : 0;
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
