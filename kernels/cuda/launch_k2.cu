// Instantiations of kernel 2 (k02_interleaved_strided.cuh).
#include "k02_interleaved_strided.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K2>(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, K2, k2InterleavedStrided);
}
}  // namespace rl::kernels
