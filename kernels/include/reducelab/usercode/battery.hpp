#pragma once
// `reducelab check` (docs/your-kernel.md): the user's kernel against the exact CPU reference over
// a battery of cases: awkward sizes around the block, data that catches the usual mistakes (the
// wrong identity for min or max, a narrow accumulator, reading an element twice), fresh random
// seeds, and every type, operation and block size the kernel claims. The list of cases and the
// judging are plain C++; the runs happen in the worker process (worker.hpp).
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reducelab/datagen.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/stats.hpp"
#include "reducelab/usercode/compiler.hpp"
#include "reducelab/usercode/contract.hpp"
#include "reducelab/usercode/worker.hpp"

namespace rl::usercode {

struct CheckCase {
  int index = 0;
  ElemType type = ElemType::Float32;
  Op op = Op::Sum;
  int block = 256;
  uint64_t n = 0;
  std::string data;  // "ones", "random", "all negative", "all positive", "wide values"
  DataSpec spec;
  std::string label() const;  // "float32 sum, block 256, N=33, random"
};

struct BatteryOptions {
  // Restrict to these (each must be claimed); empty: everything the kernel claims.
  std::vector<ElemType> types;
  std::vector<Op> ops;
  std::vector<int> blocks;
  bool large = false;  // also N = 2^31 + 7 (where the GPU has the memory)
  uint64_t seed = 1;   // the random data's seeds derive from it: a fresh one per check
};

// N of the battery for one block size: 1, 2, 31, 33, block-1, block+1, 2^20+7, 2^24 (and 2^31+7).
std::vector<uint64_t> batterySizes(int block, bool large);
// The data sets for one type and operation, with the reason each is there.
struct DataCase {
  std::string name;
  DataPattern pattern = DataPattern::Uniform;
  int64_t lo = 0, hi = 0;
  std::string why;
};
std::vector<DataCase> batteryData(ElemType type, Op op);
// Every case, in the order they run; "" or why the options do not fit the contract.
std::vector<CheckCase> planBattery(const Contract& c, const BatteryOptions& o, std::string* error);

enum class Verdict { Pass, Fail, Crash, Timeout, Skipped, NotRun };
std::string_view name(Verdict v);

struct CaseResult {
  CheckCase c;
  Verdict verdict = Verdict::NotRun;
  std::string expected, got;  // values as text (exact integers, %.17g floats)
  std::string note;           // "exact", "within tolerance", why it failed, skipped or did not run
  std::vector<std::string> findings;  // guard zones, changed input
  bool valueRight = false;            // the value passed (a finding alone failed the case)
  double kernelMs = 0;
  uint64_t launches = 0;
  std::string text() const;   // the one line `reducelab check` prints
};

// The worker's request for one case: the kernel of a build for its block, over the case's type,
// operation, N and data, launched by `plan`.
RunRequest runRequestFor(const KernelBuild& k, const CheckCase& c, const LaunchPlan& plan);
// "" or why N does not fit the kernel's n parameter (a 32-bit int up to 2^31 - 1, unsigned 2^32 - 1).
std::string nDoesNotFit(const KernelBuild& k, uint64_t n);

// The verdict of one run: the value against the exact reference (checkResult's rules and a
// tolerance from the plan's chain of operations for float sums), plus what the guard zones and
// the input comparison found. Plain C++: tested without a GPU.
Value valueFromBits(ElemType t, uint64_t bits);
CaseResult judgeCase(const CheckCase& c, const LaunchPlan& plan, const RunOutcome& run, const Reference& ref);

// The shared-memory hazard check (instrumented_hazards.hpp): one traced launch of the kernel
// (its first launch, block 0) at a mid-size N with the first type, operation and block checked.
struct HazardCheck {
  bool ran = false;
  std::string why;  // not ran: why (no Compute Sanitizer library, a case crashed or hung ...)
  CheckCase c;      // what was traced
  std::string function;
  uint64_t records = 0;
  int phases = 0;
  std::vector<instrumented::Hazard> hazards;  // failures first
  uint64_t suppressed = 0;
  std::vector<std::string> notes;
  // The traced block's shared-memory wavefronts (trace.hpp's summary: Nsight Compute's count) and
  // those beyond the ideal, the bank conflicts; known when the trace converted.
  bool banksKnown = false;
  int wavefronts = 0, idealWavefronts = 0, bankConflicts = 0;
  std::vector<uint8_t> trace;  // the traced block (TraceData bytes, trace_format.hpp): the GUI's views draw it
  int failures() const;
  std::string text() const;  // the lines `reducelab check` prints
};
// N of the traced launch for a block size: 64 blocks and 7 elements more (a partial last block).
uint64_t hazardCheckSize(int block);

// The measured time beside ours: the kernel timed in the worker as the engine times ours (an L2
// flush before each repetition, the stream held until the launches are enqueued, CUDA events
// around the launches only), then CUB and our fastest kernels on the same type, operation and N,
// measured by this process's engine in the same run. Only a kernel that passed every case is timed.
struct TimingOptions {
  bool run = true;
  uint64_t n = uint64_t(1) << 24;
  int reps = 20, warmups = 3;
  bool warmL2 = false;
};
struct TimedRow {
  std::string key;    // "yours", "cub", "k13"
  std::string label;  // "your kernel", "CUB DeviceReduce", "k13 tuned single pass"
  std::string error;  // not measured: why
  Stats ms;           // the kernel time of each repetition
  double gbs = 0;     // N x element size / median time
};
struct TimingCheck {
  bool ran = false;
  std::string why;  // not ran: why
  CheckCase c;      // type, operation, block and N timed (random data)
  int reps = 0, warmups = 0;
  bool warmL2 = false;
  int enqueueTimeouts = 0;
  TimedRow yours;
  std::vector<TimedRow> others;  // as measured: CUB and our fast kernels
  const TimedRow* cub() const;
  const TimedRow* fastestOfOurs() const;  // the fastest measured row that is not CUB
  std::string text() const;  // the lines `reducelab check` prints
};
// What the app measures beside the user's kernel (its engine: CUB and our fast kernels).
using MeasureOthers = std::function<std::vector<TimedRow>(const RunConfig&)>;
// The kernels measured beside the user's: CUB and our fastest single-pass and vector kernels.
const std::vector<std::string>& timingCompanions();

struct CheckSummary {
  int passed = 0, failed = 0, crashed = 0, timedOut = 0, skipped = 0, notRun = 0;
  int total() const { return passed + failed + crashed + timedOut + skipped + notRun; }
};

// ---- the whole check, for the CLI and the GUI (call from a worker thread) ----
struct CheckRequest {
  std::string source, file;
  BatteryOptions battery;
  int sm = 0;              // 0: the GPU's architecture (sm_90 where there is no GPU)
  std::string cacheDir;    // "": the default cache
  bool useCache = true;
  TimingOptions timing;
};

enum class CheckStatus { Ran, CompileError, Environment, Usage, Cancelled };
std::string_view name(CheckStatus s);  // "ran", "compile error", ... (check_json.cpp)

// The first case that gave a wrong result (or wrote outside its buffers), traced as it ran: the
// same type, operation, block, N and data, through the Compute Sanitizer's patches. The GUI opens
// the views on it. Crashes and hangs are not traced (they would fault or hang again).
struct FailureTrace {
  bool ran = false;
  std::string why;      // not ran: why ("" when every case passed)
  CheckCase c;
  int64_t block = 0;    // the traced block: the first launch's last (a partial block's bugs show there)
  uint64_t grid = 0;    // of the first launch
  std::vector<uint8_t> trace;  // TraceData bytes
};

struct CheckReport {
  CheckStatus status = CheckStatus::Environment;
  std::string error;       // Environment / Usage / Cancelled: why
  std::string file;
  DeviceInfo device;       // the worker's GPU
  int sm = 0;
  std::string nvrtcVersion;
  uint64_t seed = 0;
  Contract contract;
  std::vector<Diagnostic> diagnostics;  // of every build, each once
  std::vector<CompileResult> builds;    // one per type x operation claimed
  std::vector<CaseResult> cases;
  CheckSummary summary;
  HazardCheck hazards;
  FailureTrace failureTrace;
  TimingCheck timing;
  int workerRestarts = 0;
  // 0 all passed, 3 a case failed or a hazard was found, 4 compile errors, 1 environment (no
  // NVRTC, no GPU), 2 usage.
  int exitCode() const;
  std::string summaryText() const;
};

struct CheckHooks {
  std::function<void(const CheckReport&)> onCompiled;  // the builds are done, the cases not yet run
  std::function<void(const CaseResult&)> onCase;  // after each case (progress)
  std::function<void(const HazardCheck&)> onHazards;  // after the hazard check
  std::function<void(const TimingCheck&)> onTiming;  // after the timing
  std::function<bool()> cancelled;                // polled between cases
  MeasureOthers measureOthers;  // none: the user's kernel is timed alone
};

CheckReport runCheck(const CheckRequest& request, KernelWorker& worker, const CheckHooks& hooks = {});

// Compiles every claimed type x operation (the first one `compile` reports; `check` runs them).
std::vector<CompileResult> compileClaims(const std::string& source, const std::string& file, int sm,
                                         const std::vector<ElemType>& types, const std::vector<Op>& ops,
                                         const std::string& cacheDir, bool useCache);
// The diagnostics of several builds, each once (the same warning in every build is one line).
std::vector<Diagnostic> mergedDiagnostics(const std::vector<CompileResult>& builds);

// The autograder's JSON of a report (check_json.cpp, with its reader).
nlohmann::json checkReportJson(const CheckReport& r);

// The goals of an exercise (lesson `require:` lines, check --require) judged from a check's report.
struct GoalResult {
  Requirement requirement;
  bool met = false;
  std::string why;  // met: what shows it; not met: what is missing
};
std::vector<GoalResult> judgeGoals(const std::vector<Requirement>& goals, const CheckReport& r);
// The timing N a check needs for these goals (the first speed goal's), or `fallback`.
uint64_t timingSizeFor(const std::vector<Requirement>& goals, uint64_t fallback);
nlohmann::json goalsJson(const std::vector<GoalResult>& goals);

}  // namespace rl::usercode
