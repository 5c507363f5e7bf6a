// Instantiations of kernel 7 for every block size (k07_grid_stride.cuh).
#include "k07_grid_stride.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K7>(Registry& r) {
  RL_REGISTER_BLOCK_TEMPLATED_KERNEL(r, K7, k7GridStride);
}
}  // namespace rl::kernels
