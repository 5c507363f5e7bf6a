// Instantiations of kernel 8 (k08_warp_shuffle.cuh).
#include "k08_warp_shuffle.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K8>(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, K8, k8WarpShuffle);
}
}  // namespace rl::kernels
