// Instantiations of kernel 4 (k04_first_add_during_load.cuh).
#include "k04_first_add_during_load.cuh"
#include "launch_common.cuh"

namespace rl::kernels {
void registerK4(Registry& r) { RL_REGISTER_PLAIN_KERNEL(r, KernelId::K4, k4FirstAddDuringLoad); }
}  // namespace rl::kernels
