// Instantiations of kernel 10 (k10_vector_loads.cuh).
#include "k10_vector_loads.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK10(Registry& r) { RL_REGISTER_PLAIN_KERNEL(r, KernelId::K10, k10VectorLoads); }
}  // namespace rl::kernels
