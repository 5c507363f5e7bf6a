#pragma once
// The user's kernel as a row like ours (docs/your-kernel.md): compiled for one type and operation,
// run in the worker over the configuration's data, checked against the exact reference, and timed
// as the engine times ours (kernel time and end to end, the configuration's repetitions, warm-ups
// and L2 mode). The Measurement it gives goes into the same tables, exports and records as ours.
#include <string>

#include "reducelab/catalogue.hpp"
#include "reducelab/record.hpp"
#include "reducelab/trace.hpp"
#include "reducelab/usercode/contract.hpp"
#include "reducelab/usercode/worker.hpp"

namespace rl::usercode {


struct UserMeasureRequest {
  std::string source, file;
  RunConfig config;          // type, op, N, block, data, reps, warm-up, L2 mode (config.kernel is ignored)
  int sm = 0;                // 0: the worker's GPU
  std::string cacheDir;      // "": the default build cache
  bool useCache = true;
  const Reference* knownReference = nullptr;  // the same input's, when the caller has it
  Peaks peaks;               // for the % of peak columns (0: not shown)
};

// One row. ok == false says why in `error` (compile errors as file:line: message lines, a type,
// operation or block the kernel does not claim, a crash, a hang).
Measurement measureUserKernel(const UserMeasureRequest& q, KernelWorker& worker);

// The traced block of the kernel's first launch at one configuration (type, op, N, block, data,
// traced block), recorded by the Compute Sanitizer's patches in the worker: what `trace
// --kernel-file`, a recording and the views show.
struct UserTraceRequest {
  std::string source, file;
  RunConfig config;          // config.kernel is ignored
  int sm = 0;                // 0: the worker's GPU
  std::string cacheDir;
  bool useCache = true;
  uint32_t records = 1u << 21;  // the record buffer's capacity
};
struct UserTrace {
  bool ok = false;
  // Why not, with the kind of failure for an exit code: 1 environment (no GPU, no sanitizer, no
  // NVRTC), 2 a configuration the kernel does not claim, 3 the run failed, 4 compile errors.
  std::string error;
  int failure = 0;
  std::vector<Diagnostic> diagnostics;  // the compiler's, errors and warnings
  std::string compileLog;               // NVRTC's log as it came
  RunConfig config;                     // config.kernel = kUserKernelKey
  TraceData data;
  std::vector<uint8_t> bytes;           // the trace format's bytes (a recording stores them)
  std::string device;                   // the worker's GPU
  std::string function;                 // the traced kernel's lowered name
  uint64_t grid = 0, records = 0;
  int phases = 0;
  std::vector<std::string> notes;       // what the conversion could not show
  std::vector<std::string> hazards;     // "hazard: ..." / "warning: ...", at the file's lines
};
UserTrace traceUserKernel(const UserTraceRequest& q, KernelWorker& worker);

}  // namespace rl::usercode
