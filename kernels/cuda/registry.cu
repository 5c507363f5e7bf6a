#include "launch.hpp"

namespace rl::kernels {

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    registerK1(reg);
    registerK2(reg);
    registerK3(reg);
    registerK4(reg);
    registerK5(reg);
    registerK6(reg);
    registerK7(reg);
    registerK8(reg);
    registerK9(reg);
    registerK10(reg);
    registerK11(reg);
    registerK12(reg);
    return reg;
  }();
  return r;
}

}  // namespace rl::kernels
