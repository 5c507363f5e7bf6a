#pragma once
// The student's kernel as a Backend (backend.hpp), beside this machine's GPU, a remote one, the
// CPU model and a recording: runs, sweeps and traces of the one kernel a source file holds, each
// compiled with NVRTC (cached by source hash) and run in a worker process (worker.hpp) on a
// thread of its own, so a kernel that hangs or faults costs its worker and nothing else.
// Every configuration it answers is the user's row (config.kernel = kUserKernelKey); the
// `bench`, `sweep` and `record` commands and the editor's Run as a row all come through here.
#include <memory>
#include <string>

#include "reducelab/backend.hpp"
#include "reducelab/usercode/worker.hpp"

namespace rl::usercode {

struct UserKernelSource {
  std::string source;
  std::string file;          // names the source in messages and the row ("your kernel (FILE)")
  int sm = 0;                // 0: the worker's GPU
  std::string cacheDir;      // "": the default build cache
  bool useCache = true;
  Peaks peaks;               // for the % of peak columns (another backend measured them)
  WorkerOptions worker;
};

std::unique_ptr<Backend> makeUserKernelBackend(UserKernelSource s);

// The configurations of a sweep of the user's kernel, as planSweep plans ours: N doubling from
// nMin to nMax (0: 2^28), the blocks the kernel claims, or the types it claims; other axes and
// what it does not claim are listed in *skipped. "" in *error, or why none.
std::vector<RunConfig> planUserSweep(const SweepSpec& s, const std::string& source, const std::string& file,
                                     std::vector<std::string>* skipped, std::string* error);

}  // namespace rl::usercode
