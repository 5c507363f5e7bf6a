#include "reducelab/measurement_service.hpp"

namespace rl {

namespace {
std::string configKeyOf(const RunConfig& c) {
  return c.kernel + " " + std::string(name(c.type)) + " " + runShape(c);
}
}  // namespace

bool sameInput(const RunConfig& a, const RunConfig& b) {
  return a.type == b.type && a.n == b.n && a.data == b.data && a.seed == b.seed && a.rangeLo == b.rangeLo &&
         a.rangeHi == b.rangeHi;
}

MeasurementService::MeasurementService(EngineFactory makeEngine)
    : makeEngine_(std::move(makeEngine)), worker_([this] { workerLoop(); }) {}

MeasurementService::~MeasurementService() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    cancelSweep_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
  for (Job& j : jobs_)  // calls that will not run now: their callers stop waiting
    if (j.kind == Job::Call) j.called->set_value();
  engine_.reset();  // frees the device buffers here, not in a static destructor
}

void MeasurementService::queueRun(const RunConfig& c, const std::string& label, RunKind kind, const RunInputs& inputs) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Job j;
    j.kind = Job::Run;
    j.run = c;
    j.runKind = kind;
    j.label = label;
    j.inputs = inputs;
    jobs_.push_back(std::move(j));
  }
  wake_.notify_all();
}

void MeasurementService::callOnEngine(const std::function<void(Engine*)>& fn) {
  auto called = std::make_shared<std::promise<void>>();
  std::future<void> done = called->get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_) return;
    Job j;
    j.kind = Job::Call;
    j.call = fn;
    j.called = called;
    jobs_.push_back(std::move(j));
  }
  wake_.notify_all();
  done.wait();
}

void MeasurementService::queueSweep(const SweepSpec& s) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelSweep_ = false;
    Job j;
    j.kind = Job::Sweep;
    j.spec = s;
    jobs_.push_back(std::move(j));
  }
  wake_.notify_all();
}

void MeasurementService::queuePitfall(const PitfallRequest& r) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Job j;
    j.kind = Job::PitfallDemo;
    j.pitfall = r;
    jobs_.push_back(std::move(j));
  }
  wake_.notify_all();
}

void MeasurementService::cancelSweep() {
  std::lock_guard<std::mutex> lock(mutex_);
  cancelSweep_ = true;
  // Sweeps not started yet are dropped too.
  for (auto it = jobs_.begin(); it != jobs_.end();)
    it = it->kind == Job::Sweep ? jobs_.erase(it) : it + 1;
}

void MeasurementService::cancelRuns() {
  std::lock_guard<std::mutex> lock(mutex_);
  cancelSweep_ = true;
  cancelRun_ = true;
  size_t dropped = 0;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (it->kind == Job::Run) ++dropped;
    it = jobs_.erase(it);
  }
  if (dropped > 0) pending_.messages.push_back(std::to_string(dropped) + " queued run(s) cancelled");
}

uint64_t MeasurementService::queueTrace(const RunConfig& c, void* deviceBuffer, size_t bytes) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = nextTraceId_++;
    traceJobs_.push_back({id, c, deviceBuffer, bytes});
  }
  wake_.notify_all();
  return id;
}

void MeasurementService::queueResources(const RunConfig& c) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    resourcesJob_ = c;
  }
  wake_.notify_all();
}

void MeasurementService::queuePeaks(bool remeasure) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    peaksJob_ = peaksJob_.value_or(false) || remeasure;
  }
  wake_.notify_all();
}

ServiceEvents MeasurementService::poll() {
  std::lock_guard<std::mutex> lock(mutex_);
  ServiceEvents out = std::move(pending_);
  pending_ = {};
  return out;
}

bool MeasurementService::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !jobs_.empty() || runningJobs_ > 0;
}

size_t MeasurementService::pendingJobs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return jobs_.size() + size_t(runningJobs_);
}

bool MeasurementService::traceInFlight() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !traceJobs_.empty() || runningTraces_ > 0;
}

std::string MeasurementService::engineError() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return engineError_;
}

void MeasurementService::serviceSmallJobs(const RunConfig* duringMeasurementOf) {
  for (;;) {
    std::optional<TraceJob> trace;
    std::optional<RunConfig> resources;
    std::optional<bool> peaks;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_) return;
      for (auto it = traceJobs_.begin(); it != traceJobs_.end(); ++it)
        if (!duringMeasurementOf || sameInput(it->config, *duringMeasurementOf)) {
          trace = *it;
          traceJobs_.erase(it);
          ++runningTraces_;
          break;
        }
      if (!trace && resourcesJob_) {  // queries only: no launch, safe between repetitions
        resources = resourcesJob_;
        resourcesJob_.reset();
      }
      if (!trace && !resources && !duringMeasurementOf && peaksJob_) {
        peaks = peaksJob_;
        peaksJob_.reset();
      }
    }
    if (trace) {
      TraceDone d;
      d.id = trace->id;
      d.config = trace->config;
      if (engine_ && !trace->buffer) d.run = engine_->runTracedToHost(trace->config, &d.hostBytes);
      else if (engine_) d.run = engine_->runTraced(trace->config, trace->buffer, trace->bytes);
      else d.run.error = engineError_;
      // A dispatch (auto) ran the block it chose: the trace's configuration says so, so its bytes,
      // a CPU model of it (compare, the views' labels) and the remote protocol are of that launch.
      if (const KernelInfo* k = findKernel(d.config.kernel); k && k->dispatches && d.run.ok)
        d.config.block = int(d.run.geometry.block);
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.traces.push_back(std::move(d));
      --runningTraces_;
    } else if (resources) {
      ResourcesDone d;
      d.config = *resources;
      if (engine_) d.usage = engine_->resources(*resources, &d.error);
      else d.error = engineError_;
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.resources = std::move(d);
    } else if (peaks) {
      if (!engine_) continue;
      Peaks p = engine_->peaks(*peaks, [this] { return stopping(); });
      PolicyTable policies = engine_->policies();
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.peaks = p;
      pending_.policies = std::move(policies);
    } else {
      return;
    }
  }
}

MeasureOptions MeasurementService::optionsFor(const RunConfig& c, std::atomic<bool>* extraCancel) {
  MeasureOptions o;
  o.cancel = [this, extraCancel] {
    return stopping() || cancelRun_.load() || (extraCancel && extraCancel->load());
  };
  o.progress = [this](const std::string& what, double fraction) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.progress = RunProgress{what, fraction};
  };
  o.betweenRepetitions = [this, c] { serviceSmallJobs(&c); };
  return o;
}

Measurement MeasurementService::runOne(const RunConfig& c, const std::string& label, RunKind kind,
                                       const RunInputs& inputs) {
  Measurement m;
  if (!engine_) {
    m.config = c;
    m.error = engineError_;
    m.label = label;
    return m;
  }
  MeasureOptions o = optionsFor(c, nullptr);
  o.cpuBaseline = inputs.cpuBaseline;
  o.reference = inputs.exactReference;
  o.knownReference = inputs.reference.get();
  o.knownCpu = inputs.cpu.get();
  if (kind == RunKind::Continuous) {
    // The CPU baseline and the exact reference do not change between runs of one input.
    o.cpuBaseline = false;
    if (referenceOf_ && sameInput(*referenceOf_, c) && referenceOf_->op == c.op &&
        referenceOf_->accumulate == c.accumulate)
      o.knownReference = &reference_;
  }
  m = engine_->measure(c, o);
  if (kind == RunKind::Continuous && m.haveReference && !o.knownReference) {
    referenceOf_ = c;
    reference_ = m.reference;
  }
  m.label = label;
  return m;
}

void MeasurementService::runSweepJob(const SweepSpec& spec) {
  const std::string axis(name(spec.axis));
  std::vector<std::string> skipped;
  std::string planError;
  std::vector<RunConfig> configs;
  if (engine_) configs = planSweep(spec, engine_->device(), &skipped, &planError);
  else planError = engineError_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string& s : skipped) pending_.messages.push_back("sweep skipped " + s);
    if (!planError.empty()) pending_.messages.push_back("sweep: " + planError);
    pending_.sweep = SweepProgress{axis, 0, int(configs.size()), configs.empty() ? "" : configKeyOf(configs.front()), false};
  }
  int done = 0;
  if (engine_ && !configs.empty()) {
    SweepHooks hooks;
    std::atomic<bool> cancel{false};
    // runSweep polls one flag: fold stop and cancel into it at each check.
    auto cancelled = [&] { return stopping() || cancelSweep_.load(); };
    hooks.betweenRuns = [this, &cancel, cancelled] {
      serviceSmallJobs(nullptr);
      if (cancelled()) cancel = true;
    };
    hooks.betweenRepetitions = [this, &cancel, cancelled](const RunConfig& c) {
      serviceSmallJobs(&c);
      if (cancelled()) cancel = true;
    };
    runSweep(*engine_, configs,
             [&](const Measurement& m, int d, int total) {
               done = d;
               std::lock_guard<std::mutex> lock(mutex_);
               pending_.sweepRows.push_back({axis, m});
               pending_.sweep = SweepProgress{axis, d, total, d < total ? configKeyOf(configs[size_t(d)]) : "", false};
             },
             &cancel, hooks);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const bool cancelled = done < int(configs.size());
  pending_.sweep = SweepProgress{axis, done, int(configs.size()), "", true};
  pending_.messages.push_back(cancelled && !configs.empty() ? "Sweep cancelled" : "Sweep over " + axis + " finished");
}

PitfallResult MeasurementService::runPitfallJob(const PitfallRequest& r) {
  if (engine_) return engine_->runPitfall(r, [this] { return stopping(); });
  return runPitfallOnCpu(r);  // labelled "CPU model"; the reason is the engine's error, shown elsewhere
}

void MeasurementService::workerLoop() {
  {
    std::string err;
    std::unique_ptr<Engine> e = makeEngine_ ? makeEngine_(&err) : nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    engine_ = std::move(e);
    engineError_ = engine_ ? "" : (err.empty() ? "no measurement engine" : err);
    if (engine_) peaksJob_ = peaksJob_.value_or(false);  // the peaks first, before any job
  }
  for (;;) {
    serviceSmallJobs(nullptr);
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] {
        return stop_ || !jobs_.empty() || !traceJobs_.empty() || resourcesJob_ || peaksJob_;
      });
      if (stop_) return;
      if (jobs_.empty()) continue;  // small jobs: served at the top of the loop
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++runningJobs_;
      cancelRun_ = false;  // a Cancel reaches the jobs queued when it was pressed, not later ones
    }
    if (job.kind == Job::Call) {
      job.call(engine_.get());
      job.called->set_value();
    } else if (job.kind == Job::Sweep) {
      runSweepJob(job.spec);
    } else if (job.kind == Job::PitfallDemo) {
      PitfallResult r = runPitfallJob(job.pitfall);
      std::lock_guard<std::mutex> lock(mutex_);
      if (!stop_) pending_.pitfalls.push_back(std::move(r));
    } else {
      Measurement m = runOne(job.run, job.label, job.runKind, job.inputs);
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.progress.reset();
      if (stop_) {
      } else if (!m.ok && cancelRun_) {  // cancelled by the user: said, not a result row
        pending_.messages.push_back("Run of " + job.run.kernel + " cancelled");
      } else {
        pending_.measurements.push_back(std::move(m));
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --runningJobs_;
  }
}

}  // namespace rl
