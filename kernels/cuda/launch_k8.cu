// Instantiations of kernel 8 (k08_warp_shuffle.cuh).
#include "k08_warp_shuffle.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK8(Registry& r) { RL_REGISTER_PLAIN_KERNEL(r, KernelId::K8, k8WarpShuffle); }
}  // namespace rl::kernels
