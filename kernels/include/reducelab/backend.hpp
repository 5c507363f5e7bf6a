#pragma once
// Where runs, sweeps and traces go (ImHex's provider interface is the model: a file, a process
// and a remote machine behind one API). The GUI's controller and every CLI command use a Backend
// and nothing else: this machine's GPU through the measurement service (the one owner of GPU
// work: no Engine is created anywhere else), a remote GPU over SSH, the CPU model, an opened
// recording. Each answers the same requests; one that cannot says why, in a sentence, and the
// caller asks the next source (traces: the recording's first, then the GPU's, then the model's).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reducelab/config.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/measurement_service.hpp"
#include "reducelab/pitfalls.hpp"
#include "reducelab/sweep.hpp"
#include "reducelab/trace.hpp"

namespace rl {

struct Recording;
namespace usercode {
struct CheckRequest;
struct CheckEvent;
}  // namespace usercode

// Where a trace may be written: device memory the caller holds (a GL buffer mapped for CUDA-GL
// interop, which this machine's GPU writes in place), or none (the trace comes back as bytes).
struct TraceTarget {
  void* deviceBuffer = nullptr;
  size_t bytes = 0;
};

// A finished trace, whichever source made it.
struct TraceResult {
  uint64_t id = 0;
  RunConfig config;
  bool ok = false;
  std::string error;
  TraceData data;               // always on the host too (labels, summaries, exports)
  bool writtenInPlace = false;  // also already in the target's device buffer
  bool gpuWritten = false;      // written by the traced kernel itself, not a model
  std::string source;           // for the views' caption: "GPU (NVIDIA H200), written by ..."
};

struct BackendEvents {
  ServiceEvents service;                // runs, sweep rows and progress, messages, peaks, resources
  std::vector<TraceResult> traces;
  std::optional<DeviceInfo> device;     // the device became known or changed (a remote's hello)
  std::optional<std::string> connected; // a remote answered: what it said of itself (once)
  std::optional<std::string> lost;      // it stopped answering: why (once); what arrived stays
  std::vector<std::string> refusals;    // requests it could not take, each in a sentence
  // A check of the user's kernel on this source (queueCheck): its steps in order, the last Done.
  std::vector<std::shared_ptr<const usercode::CheckEvent>> checks;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // "NVIDIA H200 (this machine)", "gpu1 over SSH", "CPU model", "recording upc.reducelab".
  virtual std::string name() const = 0;
  virtual const DeviceInfo& device() const = 0;
  // "" when it measures now; else why not, in a sentence a user reads.
  virtual std::string measuresNot() const = 0;
  // "" when it can trace c now; else why not ("this configuration is not in the recording").
  virtual std::string tracesNot(const RunConfig& c) const = 0;
  // Whether its traces can be written straight into a TraceTarget's device buffer (this
  // machine's GPU); the others hand bytes back.
  virtual bool writesDeviceBuffers() const { return false; }

  virtual void queueRun(const RunConfig& c, const std::string& label, RunKind kind, const RunInputs& inputs = {}) = 0;
  virtual void queueSweep(const SweepSpec& s) = 0;
  virtual void cancelSweep() = 0;
  virtual void cancelRuns() = 0;
  // The id the TraceResult carries. `target` stays valid until that result has been polled.
  virtual uint64_t queueTrace(const RunConfig& c, TraceTarget target) = 0;
  virtual void queueResources(const RunConfig& c) = 0;
  virtual void queuePeaks(bool remeasure) = 0;
  virtual void queuePitfall(const PitfallRequest& r) = 0;
  // One-off work on the engine that only this machine's GPU answers (the launch floor, tuning,
  // the kernels' resources, instrumented traces): run on the engine's own thread, waited for.
  // "" when `fn` ran; otherwise why not (another source, or no engine).
  virtual std::string onEngine(const std::function<void(Engine&)>& fn) {
    (void)fn;
    return "the " + name() + " runs no kernel on this machine's GPU";
  }

  // The user's kernel where this source runs it itself (a remote server: docs/your-kernel.md): ""
  // when later runs, sweeps and traces of kernel "yours" go to it; else why not. Elsewhere the
  // user-kernel backend (usercode/user_kernel_backend.hpp) is the source of those rows.
  virtual std::string setUserKernel(const std::string& file, const std::string& source) {
    (void)file, (void)source;
    return "the " + name() + " does not run a kernel of yours";
  }
  // `reducelab check` of the user's kernel on this source's GPU, its steps in poll().checks: ""
  // when queued; else why not (one check at a time). Where this is refused, the check runs here,
  // in a worker process of this machine.
  virtual std::string queueCheck(const usercode::CheckRequest& q, double timeoutSeconds) {
    (void)q, (void)timeoutSeconds;
    return "the " + name() + " does not check kernels";
  }
  virtual void cancelCheck() {}

  // Everything finished since the last poll; never waits.
  virtual BackendEvents poll() = 0;
  virtual bool busy() const = 0;            // runs or sweeps queued or running
  virtual size_t pendingJobs() const = 0;
};

// This machine's GPU `ordinal`, through a measurement service (its engine is created on the
// service's thread). Measures nothing when no GPU answers (measuresNot() says why).
std::unique_ptr<Backend> makeLocalGpuBackend(int ordinal);
// The CPU model of the kernels' traces on `shape` (the assumed H200 where no GPU exists); it
// measures nothing. `why`: the reason it answers instead of a GPU, for its captions.
std::unique_ptr<Backend> makeCpuModelBackend(const DeviceInfo& shape, std::string why);
// An opened recording: the GPU's own traces of the configurations it holds.
std::unique_ptr<Backend> makeRecordingBackend(std::shared_ptr<const Recording> recording);

// The first source of `sources` (null entries skipped) that can trace c; nullptr when none can,
// with *why holding the first source's refusal ("" when there was none).
Backend* firstTraceSource(const std::vector<Backend*>& sources, const RunConfig& c, std::string* why);

// For the CLI: every configuration measured in order on `b`, each handed to onResult as it
// finishes; stops early when `cancelled` says so (the backend's runs are cancelled then).
std::vector<Measurement> measureAll(Backend& b, const std::vector<RunConfig>& configs, const RunInputs& inputs = {},
                                    const std::function<void(const Measurement&)>& onResult = {},
                                    const std::function<bool()>& cancelled = {});
// For the CLI: a whole sweep on `b`, its rows in order; `onRow` gets each row with the rows done
// and the total; cancelled when `cancelled` says so.
std::vector<Measurement> sweepAll(Backend& b, const SweepSpec& s,
                                  const std::function<void(const Measurement&, int done, int total)>& onRow = {},
                                  const std::function<bool()>& cancelled = {});
// One trace, waited for (at most `seconds`); ok == false with the reason otherwise.
TraceResult traceNow(Backend& b, const RunConfig& c, double seconds = 120);

}  // namespace rl
