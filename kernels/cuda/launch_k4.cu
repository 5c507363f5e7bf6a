// Instantiations of kernel 4 (k04_first_add_during_load.cuh).
#include "k04_first_add_during_load.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K4>(Registry& r) {
  RL_REGISTER_PLAIN_KERNEL(r, K4, k4FirstAddDuringLoad);
}
}  // namespace rl::kernels
