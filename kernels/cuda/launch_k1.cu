// Instantiations of kernel 1 (k01_interleaved_divergent.cuh).
#include "k01_interleaved_divergent.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K1>(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, K1, k1InterleavedDivergent);
}
}  // namespace rl::kernels
