// Instantiations of kernel 2 (k02_interleaved_strided.cuh).
#include "k02_interleaved_strided.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK2(Registry& r) { RL_REGISTER_PLAIN_KERNEL(r, KernelId::K2, k2InterleavedStrided); }
}  // namespace rl::kernels
