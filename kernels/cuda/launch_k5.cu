// Instantiations of kernel 5, both forms (k05_unroll_last_warp.cuh).
#include "k05_unroll_last_warp.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK5(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, KernelId::K5, k5UnrollLastWarpVolatile);
  RL_REGISTER_PLAIN_KERNEL(r, KernelId::K5s, k5UnrollLastWarpSync);
}
}  // namespace rl::kernels
