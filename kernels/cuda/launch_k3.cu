// Instantiations of kernel 3 (k03_sequential.cuh).
#include "k03_sequential.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K3>(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, K3, k3Sequential);
}
}  // namespace rl::kernels
