#include "kernel_list.hpp"
#include "launch.hpp"

namespace rl::kernels {

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
#define RL_REGISTER(ID, STEM, FORM, KERNEL) registerKernel<KernelId::ID>(reg);
    RL_KERNELS(RL_REGISTER)
#undef RL_REGISTER
    return reg;
  }();
  return r;
}

}  // namespace rl::kernels
