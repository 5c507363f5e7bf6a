// The student's kernel as a Backend (user_kernel_backend.hpp): one thread runs its jobs in order
// through one worker process; poll() hands back what finished.
#include "reducelab/usercode/user_kernel_backend.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <variant>

#include "reducelab/family.hpp"
#include "reducelab/usercode/contract.hpp"
#include "reducelab/usercode/measure.hpp"

namespace rl::usercode {

std::vector<RunConfig> planUserSweep(const SweepSpec& s, const std::string& source, const std::string& file,
                                     std::vector<std::string>* skipped, std::string* error) {
  std::vector<RunConfig> out;
  const ContractResult contract = parseContract(source, file);
  if (!contract.ok()) {
    if (error) *error = contract.diagnostics.empty() ? "the kernel's contract has errors" : contract.diagnostics.front().text();
    return out;
  }
  const Contract& k = contract.contract;
  RunConfig base = s.base;
  base.kernel = std::string(kUserKernelKey);
  base.final = FinalStage::Default;
  auto skip = [&](const std::string& why) {
    if (skipped) skipped->push_back("your kernel " + why);
  };
  auto claimed = [&](const RunConfig& c) {
    if (!k.claims(c.type)) return skip(std::string(name(c.type)) + ": not claimed (// @reducelab types)"), false;
    if (!k.claims(c.op)) return skip(std::string(name(c.op)) + ": not claimed (// @reducelab ops)"), false;
    if (!k.claimsBlock(c.block)) return skip("block " + std::to_string(c.block) + ": not claimed (// @reducelab blocks)"), false;
    return true;
  };
  switch (s.axis) {
    case SweepAxis::Block:
      for (int b : k.blocks) {
        RunConfig c = base;
        c.block = b;
        if (claimed(c)) out.push_back(c);
      }
      break;
    case SweepAxis::N: {
      const uint64_t nMax = s.nMax ? s.nMax : uint64_t(1) << 28;
      if (s.nMin < 1 || s.nMin > nMax) {
        if (error) *error = "the N range is empty (" + formatCount(s.nMin) + " to " + formatCount(nMax) + ")";
        return {};
      }
      for (uint64_t n = s.nMin; n <= nMax; n *= 2) {
        RunConfig c = base;
        c.n = n;
        if (claimed(c)) out.push_back(c);
      }
      break;
    }
    case SweepAxis::Type:
      for (ElemType t : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64}) {
        RunConfig c = base;
        c.type = t;
        if (claimed(c)) out.push_back(c);
      }
      break;
    case SweepAxis::Kernel:
    case SweepAxis::Tile:
    case SweepAxis::Size:
      if (error) *error = familyOf(base)->sweepRefusal(s.axis);  // its family says which axes it takes
      return {};
  }
  if (out.empty() && error && error->empty()) *error = "nothing to run: your kernel claims none of the swept values";
  return out;
}

namespace {

class UserKernelBackend final : public Backend {
 public:
  explicit UserKernelBackend(UserKernelSource s) : src_(std::move(s)), worker_(workerOptions()) {
    device_.available = false;
    device_.unavailableReason = "the kernel's worker has not started";
    shown_ = device_;
    thread_ = std::thread([this] { loop(); });
  }
  ~UserKernelBackend() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      jobs_.clear();
    }
    cancel_ = true;
    worker_.cancel();
    wake_.notify_all();
    thread_.join();
  }

  std::string name() const override {
    return "your kernel (" + std::filesystem::path(src_.file).filename().string() + ")";
  }
  // The worker's GPU once it has answered (as of the last poll); until then, "not started".
  const DeviceInfo& device() const override { return shown_; }
  std::string measuresNot() const override { return {}; }  // each run says why, if it cannot
  std::string tracesNot(const RunConfig& c) const override {
    return runsUserSource(c.kernel) ? "" : "the " + name() + " traces only itself";
  }

  void queueRun(const RunConfig& c, const std::string& label, RunKind, const RunInputs& inputs) override {
    push(Job{RunJob{c, label, inputs.reference}});
  }
  void queueSweep(const SweepSpec& s) override {
    cancelSweep_ = false;
    push(Job{s});
  }
  void cancelSweep() override {
    cancelSweep_ = true;
    worker_.cancel();
  }
  void cancelRuns() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::erase_if(jobs_, [](const Job& j) { return !std::holds_alternative<TraceJob>(j); });
    }
    cancel_ = true;
    worker_.cancel();
  }
  uint64_t queueTrace(const RunConfig& c, TraceTarget) override {
    const uint64_t id = nextTrace_++;
    push(Job{TraceJob{id, c}});
    return id;
  }
  void queueResources(const RunConfig&) override {}
  void queuePeaks(bool) override {}
  void queuePitfall(const PitfallRequest&) override {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.refusals.push_back("the pitfalls run ReduceLab's own kernels, not yours");
  }

  BackendEvents poll() override {
    std::lock_guard<std::mutex> lock(mutex_);
    BackendEvents ev = std::move(events_);
    events_ = {};
    shown_ = device_;
    return ev;
  }
  bool busy() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ || !jobs_.empty();
  }
  size_t pendingJobs() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return jobs_.size() + (running_ ? 1 : 0);
  }

 private:
  struct RunJob {
    RunConfig config;
    std::string label;
    std::shared_ptr<const Reference> reference;
  };
  struct TraceJob {
    uint64_t id;
    RunConfig config;
  };
  using Job = std::variant<RunJob, SweepSpec, TraceJob>;

  WorkerOptions workerOptions() {
    WorkerOptions w = src_.worker;
    std::function<bool()> outer = w.cancelled;
    w.cancelled = [this, outer] { return cancel_.load() || (outer && outer()); };
    return w;
  }

  void push(Job j) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(std::move(j));
    }
    wake_.notify_all();
  }

  void loop() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (stopping_) break;
        job = std::move(jobs_.front());
        jobs_.pop_front();
        running_ = true;
        cancel_ = false;
      }
      std::visit([this](auto& j) { run(j); }, job);
      std::lock_guard<std::mutex> lock(mutex_);
      running_ = false;
    }
    worker_.stop();
  }

  void learnDevice() {
    if (!worker_.running()) return;
    const DeviceInfo d = worker_.device();
    std::lock_guard<std::mutex> lock(mutex_);
    device_ = d;
  }

  Measurement measure(const RunConfig& c, const std::shared_ptr<const Reference>& reference) {
    UserMeasureRequest q;
    q.source = src_.source;
    q.file = src_.file;
    q.config = c;
    q.sm = src_.sm;
    q.cacheDir = src_.cacheDir;
    q.useCache = src_.useCache;
    q.knownReference = reference.get();
    q.peaks = src_.peaks;
    Measurement m;
    try {
      m = measureUserKernel(q, worker_);
    } catch (const std::exception& e) {  // never std::terminate from this thread: say it
      m.config = c;
      m.config.kernel = std::string(kUserKernelKey);
      m.ok = false;
      m.error = std::string("the run stopped: ") + e.what();
    }
    learnDevice();
    return m;
  }

  void run(RunJob& j) {
    Measurement m = measure(j.config, j.reference);
    m.label = j.label;
    std::lock_guard<std::mutex> lock(mutex_);
    events_.service.measurements.push_back(std::move(m));
  }

  void run(SweepSpec& s) {
    const std::string axis(rl::name(s.axis));
    std::vector<std::string> skipped;
    std::string error;
    const std::vector<RunConfig> configs = planUserSweep(s, src_.source, src_.file, &skipped, &error);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const std::string& k : skipped) events_.service.messages.push_back("sweep skipped " + k);
      if (configs.empty()) {
        events_.refusals.push_back(error);
        events_.service.sweep = SweepProgress{axis, 0, 0, "", true};
        return;
      }
    }
    int done = 0;
    for (const RunConfig& c : configs) {
      if (cancelSweep_ || cancel_) break;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        events_.service.sweep = SweepProgress{axis, done, int(configs.size()), name() + " " + formatCount(c.n), false};
      }
      Measurement m = measure(c, nullptr);
      std::lock_guard<std::mutex> lock(mutex_);
      events_.service.sweepRows.emplace_back(axis, std::move(m));
      ++done;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    events_.service.sweep = SweepProgress{axis, done, int(configs.size()), "", true};
  }

  void run(TraceJob& j) {
    UserTraceRequest q;
    q.source = src_.source;
    q.file = src_.file;
    q.config = j.config;
    q.sm = src_.sm;
    q.cacheDir = src_.cacheDir;
    q.useCache = src_.useCache;
    TraceResult r;
    r.id = j.id;
    r.config = j.config;
    r.config.kernel = std::string(kUserKernelKey);
    try {
      const UserTrace t = traceUserKernel(q, worker_);
      r.ok = t.ok;
      r.error = t.error;
      if (!t.ok && t.failure == 4)
        for (const Diagnostic& d : t.diagnostics)
          if (d.severity == Severity::Error) r.error += (r.error.empty() ? "" : "\n") + d.text();
      r.data = t.data;
      r.gpuWritten = t.ok;
      r.source = "GPU (" + t.device + "), instrumented: " + name() + ", " + std::to_string(t.records) + " records";
    } catch (const std::exception& e) {
      r.ok = false;
      r.error = std::string("the trace stopped: ") + e.what();
    }
    learnDevice();
    std::lock_guard<std::mutex> lock(mutex_);
    events_.traces.push_back(std::move(r));
  }

  UserKernelSource src_;
  KernelWorker worker_;
  DeviceInfo device_;          // written by the thread
  mutable DeviceInfo shown_;   // the caller's copy, taken in poll()
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool running_ = false, stopping_ = false;
  std::atomic<bool> cancel_{false}, cancelSweep_{false};
  BackendEvents events_;
  std::atomic<uint64_t> nextTrace_{1};
};

}  // namespace

std::unique_ptr<Backend> makeUserKernelBackend(UserKernelSource s) {
  return std::make_unique<UserKernelBackend>(std::move(s));
}

}  // namespace rl::usercode
