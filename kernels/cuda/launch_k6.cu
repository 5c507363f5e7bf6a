// Instantiations of kernel 6 for every block size (k06_complete_unroll.cuh).
#include "k06_complete_unroll.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K6>(Registry& r) {
  RL_REGISTER_BLOCK_TEMPLATED_KERNEL(r, K6, k6CompleteUnroll);
}
}  // namespace rl::kernels
