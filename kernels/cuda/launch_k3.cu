// Instantiations of kernel 3 (k03_sequential.cuh).
#include "k03_sequential.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK3(Registry& r) { RL_REGISTER_PLAIN_KERNEL(r, KernelId::K3, k3Sequential); }
}  // namespace rl::kernels
