// Instantiations of kernel 5, both forms (k05_unroll_last_warp.cuh).
#include "k05_unroll_last_warp.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K5>(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, K5, k5UnrollLastWarpVolatile);
}
template <> void registerKernel<KernelId::K5s>(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, K5s, k5UnrollLastWarpSync);
}
}  // namespace rl::kernels
