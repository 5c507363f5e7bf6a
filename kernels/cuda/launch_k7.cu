// Instantiations of kernel 7 for every block size (k07_grid_stride.cuh).
#include "k07_grid_stride.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK7(Registry& r) { RL_REGISTER_BLOCK_TEMPLATED_KERNEL(r, KernelId::K7, k7GridStride); }
}  // namespace rl::kernels
