#pragma once
// Runs a user's kernel in a worker process (docs/your-kernel.md). A kernel that faults leaves its
// CUDA context unusable ("sticky" errors), and one that loops forever never returns: so the app
// never runs it itself. The worker (`reducelab check-worker`) loads the cubin, launches it per the
// contract over device-generated data with guard zones around every buffer, and answers over its
// stdin/stdout in the frames of the remote protocol (remote_protocol.hpp). The parent kills it
// after a watchdog timeout and starts a fresh one on the next request.
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reducelab/datagen.hpp"
#include "reducelab/device_info.hpp"
#include "reducelab/instrumented_hazards.hpp"
#include "reducelab/remote_protocol.hpp"
#include "reducelab/usercode/contract.hpp"

namespace rl::usercode {

// One run of the kernel: the launches of `plan` over N generated elements.
struct RunRequest {
  uint64_t id = 0;
  std::string symbol;  // the kernel's lowered name in the cubin
  int nBytes = 4;      // size of its n parameter
  ElemType type = ElemType::Float32;
  Op op = Op::Sum;
  uint64_t n = 0;
  DataSpec data;
  LaunchPlan plan;
  // >= 0: trace this block of the FIRST launch through the Compute Sanitizer patches
  // (instrumented.hpp): the launch is run once unpatched, then patched; RunOutcome::trace holds
  // the trace, hazards what instrumented_hazards.hpp finds in its records.
  int64_t traceBlock = -1;
  uint32_t traceRecords = 1u << 21;  // the record buffer's capacity
  // > 0: after the checked run, time the launches as the engine times ours (engine.cu): warm-ups,
  // then per repetition an L2 flush (unless warmL2), the stream held until every launch is
  // enqueued, CUDA events around the launches only. Not with a trace (patched launches are slow).
  int timedReps = 0;
  int timedWarmups = 0;
  bool warmL2 = false;
};
constexpr int kMaxTimedReps = 1000, kMaxTimedWarmups = 100;
// The byte every buffer's guard zones, and every output before the kernel writes it (unless the
// contract says `output: zeroed`), are filled with: a result made of it was read past a buffer or never written.
constexpr unsigned char kFillByte = 0x7f;

// Bytes that changed in the guard zone before or after a buffer: offsets count from the
// buffer's first byte (negative: before it).
struct GuardFinding {
  std::string buffer;  // "input", "partials of launch 1", "output"
  int64_t firstOffset = 0, lastOffset = 0;
  uint64_t bytesChanged = 0;
  uint64_t bufferBytes = 0;
  int elemBytes = 0;
  std::string text() const;
};

struct RunOutcome {
  enum class Status {
    Ok,            // the launches ran; result and findings below
    LaunchError,   // refused before or at launch (resources, configuration): the context is fine
    Fault,         // the kernel faulted (illegal address, trap, ...): its worker is gone
    Timeout,       // the watchdog stopped it
    Skipped,       // not run: e.g. the GPU has not the memory for this N
    WorkerError,   // the worker could not be started or answered nonsense
  };
  Status status = Status::WorkerError;
  std::string message;  // one sentence for everything but Ok
  uint64_t resultBits = 0;  // the result's bytes (T) in the low bytes
  std::vector<GuardFinding> guards;
  uint64_t inputChanged = 0;     // input elements the kernel overwrote
  uint64_t firstInputChange = 0;
  double kernelMs = 0;           // all launches of the checked run, CUDA events
  std::vector<double> repMs;     // a timing request: each repetition's launches, CUDA events
  std::vector<double> repEndToEndMs;  // ... and to after the result's copy and the CPU's final loop
  int enqueueTimeouts = 0;       // repetitions whose enqueue outlasted the stream hold
  bool contextLost = false;      // the worker exits after answering (sticky error)
  // A trace request (RunRequest::traceBlock): the trace (TraceData bytes, trace_format.hpp) or why
  // there is none, what the conversion could not show, and the block's shared-memory hazards.
  std::vector<uint8_t> trace;
  std::string traceError;
  std::vector<std::string> traceNotes;
  std::string tracedFunction;
  uint64_t traceRecords = 0;
  int tracePhases = 0;
  std::vector<instrumented::Hazard> hazards;
  uint64_t hazardsSuppressed = 0;
};
std::string_view name(RunOutcome::Status s);

// ---- the messages (JSON bodies of remote::encodeFrame; the run request carries the cubin in hex) ----
// `tracer`: "" when the worker subscribed to the Compute Sanitizer (it can trace), else why not.
nlohmann::json workerHelloJson(const DeviceInfo& device, const std::string& tracer);
std::string decodeWorkerHello(const remote::Frame& f, DeviceInfo* device, std::string* tracer);
nlohmann::json runRequestJson(const RunRequest& r, const std::vector<uint8_t>& cubin);
std::string decodeRunRequest(const remote::Frame& f, RunRequest* r, std::vector<uint8_t>* cubin);
// The largest cubin a request carries (its hex must fit a frame's JSON).
constexpr size_t kMaxCubinBytes = remote::kMaxJsonBytes / 2 - (size_t(64) << 10);
// The outcome's trace travels as the frame's binary payload (remote::encodeFrame).
nlohmann::json runOutcomeJson(uint64_t id, const RunOutcome& o);
std::string decodeRunOutcome(const remote::Frame& f, uint64_t* id, RunOutcome* o);

// ---- the worker's side ----
// The GPU the worker uses (its context is created here); available == false says why not.
DeviceInfo workerDevice();
// Runs one request (gpu_runner.cu; a build without CUDA answers that it cannot).
RunOutcome runOnGpu(const RunRequest& r, const std::vector<uint8_t>& cubin);
// The worker's loop: hello, then one outcome per request, until its input ends or a run loses
// the context. Returns the exit code.
int serveWorker(int inFd, int outFd);

// ---- the parent's side ----
struct WorkerOptions {
  std::string executable;               // default: this program (/proc/self/exe)
  std::vector<std::string> args = {"check-worker"};
  double startSeconds = 60;             // for the hello (CUDA's start-up)
  double timeoutSeconds = 10;           // per run: the watchdog
  std::function<bool()> cancelled;      // polled while waiting (the CLI's Ctrl+C)
};

// This program's `check-worker`, or the program and arguments REDUCELAB_KERNEL_WORKER names
// (space-separated; the tests' fake worker, for the CLI and the remote server without a GPU).
WorkerOptions workerOptionsFromEnvironment();

// One worker process at a time, started when first needed and again after it died or was
// stopped. Not thread-safe: one thread runs requests (a GUI worker thread, the CLI); cancel()
// may be called from any thread and stops a run in flight.
class KernelWorker {
 public:
  explicit KernelWorker(WorkerOptions options = {});
  ~KernelWorker();
  KernelWorker(const KernelWorker&) = delete;
  KernelWorker& operator=(const KernelWorker&) = delete;

  // Starts the worker if none runs and returns its device (available == false: why not).
  DeviceInfo device();
  // "" when the worker can trace (it subscribed to the Compute Sanitizer), else why not; starts it.
  std::string tracer();
  RunOutcome run(const RunRequest& r, const std::vector<uint8_t>& cubin);
  void cancel() { cancel_ = true; }
  bool running() const { return pid_ > 0; }
  int restarts() const { return starts_ > 0 ? starts_ - 1 : 0; }
  void stop();  // ends the worker (bye, then SIGKILL) and reaps it

 private:
  std::string start();
  // Reads frames until one arrives, the deadline passes (Timeout) or the worker ends.
  enum class Wait { Frame, Timeout, Ended, Cancelled };
  Wait readFrame(remote::Frame* f, double seconds, std::string* error);
  void kill();
  std::string endedText();  // how the worker ended, with the tail of its stderr

  WorkerOptions options_;
  pid_t pid_ = -1;
  int toWorker_ = -1, fromWorker_ = -1, errFromWorker_ = -1;
  remote::FrameReader reader_;
  DeviceInfo device_;
  std::string tracer_ = "the worker has not started";
  std::string stderrTail_;
  int starts_ = 0;
  uint64_t nextId_ = 1;
  std::atomic<bool> cancel_{false};
};

}  // namespace rl::usercode
