// Instantiations of kernel 1 (k01_interleaved_divergent.cuh).
#include "k01_interleaved_divergent.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK1(Registry& r) { RL_REGISTER_PLAIN_KERNEL(r, KernelId::K1, k1InterleavedDivergent); }
}  // namespace rl::kernels
