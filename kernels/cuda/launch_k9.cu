// Instantiations of kernel 9 (k09_cooperative_groups.cuh).
#include "k09_cooperative_groups.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K9>(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, K9, k9CooperativeGroups);
}
}  // namespace rl::kernels
