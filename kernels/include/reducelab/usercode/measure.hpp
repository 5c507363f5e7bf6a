#pragma once
// The user's kernel as a row like ours (docs/your-kernel.md): compiled for one type and operation,
// run in the worker over the configuration's data, checked against the exact reference, and timed
// as the engine times ours (kernel time and end to end, the configuration's repetitions, warm-ups
// and L2 mode). The Measurement it gives goes into the same tables, exports and records as ours.
#include <string>

#include "reducelab/catalogue.hpp"
#include "reducelab/record.hpp"
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

}  // namespace rl::usercode
