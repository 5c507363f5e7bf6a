#pragma once
// The launch + measurement engine (implemented in CUDA; this header has no CUDA types).
// One engine per thread: it owns a stream and device buffers (input, partials, L2 flush).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reducelab/instrumented_trace.hpp"
#include "reducelab/pitfalls.hpp"
#include "reducelab/policy.hpp"
#include "reducelab/record.hpp"

namespace rl {

struct MeasureOptions {
  bool cpuBaseline = true;  // time the seeds' sequential loop (speedup column)
  bool reference = true;    // exact CPU reference (error column, pass/fail)
  // Already computed for this data (a table of kernels over the same input shares them).
  const Reference* knownReference = nullptr;
  const CpuBaseline* knownCpu = nullptr;
  // Checked before each warm-up and each repetition (and by the CPU baseline).
  std::function<bool()> cancel;
  // Told what long CPU work (the exact reference, the CPU baseline) is doing and how far it is
  // (0..1), a few times a second, from the measuring thread.
  std::function<void(const std::string& what, double fraction)> progress;
  // Called after each timed repetition has completed, outside the timed region, with the
  // input still in place: the measurement service runs trace jobs of the same input here.
  std::function<void()> betweenRepetitions;
};

// The options' cancel and progress hooks as the hooks of one piece of long CPU work.
inline CpuWork cpuWorkOf(const MeasureOptions& o, const std::string& what) {
  CpuWork w{o.cancel, {}};
  if (o.progress) w.progress = [progress = o.progress, what](double fraction) { progress(what, fraction); };
  return w;
}

// What `reducelab tune` measures: the tuned kernel (k13) for each type x block x N, over loads in
// flight x CTAs per SM (hint none), then every cache hint with the fastest of those.
struct TuneOptions {
  std::vector<ElemType> types = {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64};
  std::vector<int> blocks = {32, 64, 128, 256, 512, 1024};
  std::vector<int> log2Sizes = {12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
  int reps = 10;
  std::function<bool()> cancel;
  std::function<void(const std::string&)> progress;  // one line per (type, N, block)
};

struct TraceRun {
  bool ok = false;
  std::string error;
  Geometry geometry;
  Value result;
};

// One run of the reduction with its first pass's UNTRACED kernel (CUB: its first kernel)
// instrumented: the raw records of block c.tracedBlock and what turning them into a trace needs
// (instrumented::toTraceData(raw, convert, ...)). The process must have subscribed first
// (instrumented.hpp).
struct InstrumentedRun {
  TraceRun run;                          // ok, error, geometry, result (exact while patched?)
  instrumented::RawTrace raw;
  instrumented::ConvertOptions convert;  // where the input and output lie, the types, shared origin
};

class Engine {
 public:
  virtual ~Engine() = default;
  // nullptr with *error when no usable device exists.
  static std::unique_ptr<Engine> create(int device, std::string* error);

  virtual const DeviceInfo& device() const = 0;
  // Theoretical and measured peaks; measured once per device and driver, cached in the
  // user's config folder ($XDG_CONFIG_HOME/reducelab/peaks.json). `cancel` is checked between
  // the repetitions of the measurement (a cancelled measurement is neither returned nor cached).
  virtual Peaks peaks(bool remeasure = false, const std::function<bool()>& cancel = {}) = 0;
  virtual ResourceUsage resources(const RunConfig& c, std::string* error) = 0;
  virtual Geometry geometry(const RunConfig& c, std::string* error) = 0;
  virtual Measurement measure(const RunConfig& c, const MeasureOptions& o = {}) = 0;
  // Runs the reduction once with the first pass traced: block c.tracedBlock records into
  // `traceBuffer` (device memory, e.g. a mapped GL buffer of trace::bufferBytes(block) bytes).
  virtual TraceRun runTraced(const RunConfig& c, void* traceBuffer, size_t traceBytes) = 0;
  // The same into device memory the engine owns, copied back into *bytes (CLI, tests).
  virtual TraceRun runTracedToHost(const RunConfig& c, std::vector<uint8_t>* bytes) = 0;
  // The untraced reduction run once, its first kernel traced through the Compute Sanitizer
  // patches (InstrumentedRun). Reductions and CUB; `capacity`: records the device buffer holds.
  virtual InstrumentedRun runInstrumented(const RunConfig& c, uint32_t capacity) {
    (void)c;
    (void)capacity;
    InstrumentedRun out;
    out.run.error = "this engine cannot run instrumented traces";
    return out;
  }
  // The device's copy of input elements [first, first + count), as doubles (tests).
  virtual std::vector<double> readInput(const RunConfig& c, uint64_t first, uint64_t count) = 0;
  // The last matrix run's output (rows x cols, row-major) elements [first, first + count), as
  // doubles (tests check them on the CPU); empty when there is none of that size.
  virtual std::vector<double> readMatrixOutput(const RunConfig& c, uint64_t first, uint64_t count) {
    (void)c, (void)first, (void)count;
    return {};
  }
  // One of seed 002's pitfalls beside its fix, on the device (kernels/cuda/pitfalls.cu);
  // `cancel` is checked between sizes. An engine without them says so.
  virtual PitfallResult runPitfall(const PitfallRequest& r, const std::function<bool()>& cancel = {}) {
    (void)cancel;
    PitfallResult out;
    out.kind = r.kind;
    out.label = r.label;
    out.error = "this engine runs no pitfall demonstrations";
    return out;
  }
  // The empty-launch floor: one launch of an empty kernel timed the way `mode` times a
  // repetition (median and spread over 50 launches after warm-up; measured once per engine and
  // mode). Empty statistics where nothing can be launched.
  virtual Stats launchFloor(TimingMode mode) {
    (void)mode;
    return {};
  }
  // The tuned policies of this device (empty when none are stored): read once from
  // $XDG_CONFIG_HOME/reducelab/policies.json, by device UUID and driver.
  virtual PolicyTable policies() { return {}; }
  // Measures the policies and stores them (replacing this device's entry). "" or the reason
  // (nothing stored then); *out holds what was measured.
  virtual std::string tune(const TuneOptions& options, PolicyTable* out) {
    (void)options;
    (void)out;
    return "tuning needs a CUDA device";
  }
};

}  // namespace rl
