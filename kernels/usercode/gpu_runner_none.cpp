// The worker in a build without nvcc: it compiles nothing and runs nothing, and says so. Compiling
// a user's kernel (NVRTC) works in this build all the same.
#include "reducelab/usercode/worker.hpp"

namespace rl::usercode {

namespace {
constexpr const char* kNoCuda =
    "this build of ReduceLab has no CUDA support (built without nvcc): running your kernel needs a build "
    "with the CUDA Toolkit and a GPU";
}  // namespace

DeviceInfo workerDevice() {
  DeviceInfo d;
  d.unavailableReason = kNoCuda;
  return d;
}

RunOutcome runOnGpu(const RunRequest&, const std::vector<uint8_t>&) {
  RunOutcome o;
  o.status = RunOutcome::Status::WorkerError;
  o.message = kNoCuda;
  return o;
}

}  // namespace rl::usercode
