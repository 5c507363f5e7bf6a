// Instantiations of kernel 10 (k10_vector_loads.cuh).
#include "k10_vector_loads.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K10>(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, K10, k10VectorLoads);
}
}  // namespace rl::kernels
