#include "kernel_list.hpp"
#include "launch.hpp"

namespace rl::kernels {

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
#define RL_REGISTER(ID) registerKernel<KernelId::ID>(reg);
    RL_FOR_EACH_KERNEL(RL_REGISTER)
#undef RL_REGISTER
    return reg;
  }();
  return r;
}

}  // namespace rl::kernels
