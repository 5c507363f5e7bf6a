// The student's own kernel (docs/your-kernel.md): one descriptor, in no catalogue. Its code is the
// student's file, compiled at run time with NVRTC and run in a worker process by its backend
// (usercode::makeUserKernelBackend); the file's contract (// @reducelab types, ops, blocks, launch)
// plans its launch, so the descriptor says only what every row of it shares.
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl {
// Its descriptor: the common fields, its key, and no traced twin (its traces are the GPU's, from
// the Compute Sanitizer's patches of the unmodified kernel: reducelab check, trace --kernel-file).
constexpr bool yoursDescriptorComplete(const KernelInfo& k) {
  return k.family == Family::Yours && k.key == kUserKernelKey && !k.traceable && k.finals.size() == 1 &&
         k.finals.front() == FinalStage::Gpu;
}
}  // namespace rl

namespace rl::desc {

inline constexpr KernelInfo yours = [] {
  KernelInfo k;
  k.family = Family::Yours;
  k.key = kUserKernelKey;
  k.name = "your kernel";
  k.title = "Your own kernel: its file compiled at run time (NVRTC) and run in its worker process";
  k.sourceFile = "your .cu file";  // the row's own (Measurement::kernelName), not an embedded file
  k.minBlock = 1;
  k.shape = GridShape::OnePerThread;
  k.loadsPerIteration = 0;
  k.bytesPerLoad = 0;
  k.sharedRule = SharedRule::None;
  k.finals = {FinalStage::Gpu};
  k.threadRows = 0;
  k.traceable = false;
  return k;
}();
static_assert(commonDescriptorComplete(yours) && yoursDescriptorComplete(yours));

}  // namespace rl::desc
