#pragma once
// The one owner of GPU work: a worker thread with the process's only Engine makes every launch
// (measurements, sweeps, traces, peaks, resources). Plain C++ against the abstract Engine, so
// tests drive it with a fake engine.
//
// Ordering: a trace never runs inside a timed region. While a measurement runs, a trace that
// reads the same input runs between two repetitions; any other trace waits until the
// measurement ends (the engine holds one copy of the input, which the trace would replace).
// Cancellation reaches between repetitions, between sweep points and into the peaks
// measurement; the destructor cancels everything and joins.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "reducelab/engine.hpp"
#include "reducelab/sweep.hpp"

namespace rl {

// What a finished trace job hands back. The caller's buffer is free again once this is polled.
struct TraceDone {
  uint64_t id = 0;
  RunConfig config;
  TraceRun run;
  std::vector<uint8_t> hostBytes;  // the trace buffer's bytes, when it was asked with no buffer
};

struct ResourcesDone {
  RunConfig config;
  ResourceUsage usage;
  std::string error;
};

struct SweepProgress {
  std::string axis;
  int done = 0, total = 0;
  std::string current;   // what is measured now
  bool finished = false; // the sweep ended (completed or cancelled)
};

// Long CPU work inside the running measurement (exact reference, CPU baseline).
struct RunProgress {
  std::string what;       // "exact reference"
  double fraction = 0;    // 0..1
};

// Everything that happened since the last poll, in order within each kind.
struct ServiceEvents {
  std::vector<Measurement> measurements;                          // single runs
  std::vector<std::pair<std::string, Measurement>> sweepRows;     // axis, row
  std::vector<std::string> messages;
  std::optional<SweepProgress> sweep;
  std::vector<TraceDone> traces;
  std::optional<ResourcesDone> resources;                         // the latest asked for
  std::optional<Peaks> peaks;
  std::optional<RunProgress> progress;                            // the latest
  std::vector<PitfallResult> pitfalls;                            // seed 002's pitfalls
  std::optional<PolicyTable> policies;  // with the peaks: the device's tuned launch policies
};

// What a run may take as given instead of computing it again: the exact reference and the CPU
// baseline of its input (a table of kernels over one input shares them), or neither at all.
struct RunInputs {
  std::shared_ptr<const Reference> reference;  // known: not computed again
  std::shared_ptr<const CpuBaseline> cpu;      // known: shown, not timed again
  bool cpuBaseline = true;  // time the CPU loop (when `cpu` is not given)
  bool exactReference = true;  // compute the exact reference (when `reference` is not given)
};

enum class RunKind {
  Single,      // full record: CPU baseline and exact reference
  Continuous,  // repeated runs of one configuration: no CPU baseline, the reference reused
};

class MeasurementService {
 public:
  using EngineFactory = std::function<std::unique_ptr<Engine>(std::string* error)>;
  // The engine is created on the worker thread (its stream and buffers belong to it); the
  // peaks are read (cached or measured) before the first job.
  explicit MeasurementService(EngineFactory makeEngine);
  ~MeasurementService();  // cancels whatever runs, returns promptly
  MeasurementService(const MeasurementService&) = delete;
  MeasurementService& operator=(const MeasurementService&) = delete;

  void queueRun(const RunConfig& c, const std::string& label = "", RunKind kind = RunKind::Single,
                const RunInputs& inputs = {});
  // Work on the engine's own thread, in queue order with the runs (never inside a timed region):
  // the CLI's one-off questions (the launch floor, tuning, the kernels' resources, instrumented
  // traces). Waits until `fn` has run; `fn` gets nullptr where no engine exists.
  void callOnEngine(const std::function<void(Engine*)>& fn);
  void queueSweep(const SweepSpec& s);
  void cancelSweep();
  // Cancel in the GUI: the running measurement stops at its next check (between repetitions,
  // inside the exact reference and the CPU baseline), queued runs and sweeps are dropped.
  void cancelRuns();
  // `deviceBuffer` (e.g. a mapped GL buffer) must stay valid until the TraceDone with the
  // returned id has been polled. A null buffer: the trace comes back in TraceDone::hostBytes.
  uint64_t queueTrace(const RunConfig& c, void* deviceBuffer, size_t bytes);
  void queueResources(const RunConfig& c);  // only the latest request is answered
  void queuePeaks(bool remeasure);
  // A pitfall demonstration, queued like a run (never inside a timed region). Without an
  // engine the CPU model answers it, labelled so.
  void queuePitfall(const PitfallRequest& r);

  ServiceEvents poll();
  bool busy() const;           // measurements or sweeps queued or running
  size_t pendingJobs() const;  // how many (queued + running)
  bool traceInFlight() const;  // a trace job queued or running
  // Empty when the engine exists; its creation error otherwise (known once started).
  std::string engineError() const;

 private:
  struct Job {
    enum Kind { Run, Sweep, PitfallDemo, Call } kind = Run;
    RunConfig run;
    RunKind runKind = RunKind::Single;
    RunInputs inputs;
    std::function<void(Engine*)> call;
    std::shared_ptr<std::promise<void>> called;
    SweepSpec spec;
    std::string label;
    PitfallRequest pitfall;
  };
  struct TraceJob {
    uint64_t id;
    RunConfig config;
    void* buffer;
    size_t bytes;
  };

  void workerLoop();
  // Runs queued small jobs (traces, resources, peaks). `duringMeasurementOf`: only traces of
  // that input, and no peaks (they would replace the timed run's buffers and clocks).
  void serviceSmallJobs(const RunConfig* duringMeasurementOf);
  Measurement runOne(const RunConfig& c, const std::string& label, RunKind kind, const RunInputs& inputs);
  void runSweepJob(const SweepSpec& spec);
  PitfallResult runPitfallJob(const PitfallRequest& r);
  MeasureOptions optionsFor(const RunConfig& c, std::atomic<bool>* extraCancel);
  bool stopping() const { return stop_.load(); }

  EngineFactory makeEngine_;
  std::unique_ptr<Engine> engine_;  // touched by the worker thread only
  std::string engineError_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  std::deque<TraceJob> traceJobs_;
  std::optional<RunConfig> resourcesJob_;
  std::optional<bool> peaksJob_;  // remeasure?
  uint64_t nextTraceId_ = 1;
  int runningJobs_ = 0;
  int runningTraces_ = 0;
  ServiceEvents pending_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> cancelSweep_{false};
  std::atomic<bool> cancelRun_{false};  // the running single measurement
  // Continuous runs reuse the exact reference of the same data.
  std::optional<RunConfig> referenceOf_;
  Reference reference_;
  std::thread worker_;  // last: starts after every member above exists
};

// Two configurations read the same input (type, N, data pattern, seed, range).
bool sameInput(const RunConfig& a, const RunConfig& b);

}  // namespace rl
