// Instantiations of kernel 6 for every block size (k06_complete_unroll.cuh).
#include "k06_complete_unroll.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK6(Registry& r) { RL_REGISTER_BLOCK_TEMPLATED_KERNEL(r, KernelId::K6, k6CompleteUnroll); }
}  // namespace rl::kernels
