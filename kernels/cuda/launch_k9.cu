// Instantiations of kernel 9 (k09_cooperative_groups.cuh).
#include "k09_cooperative_groups.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK9(Registry& r) { RL_REGISTER_PLAIN_KERNEL(r, KernelId::K9, k9CooperativeGroups); }
}  // namespace rl::kernels
