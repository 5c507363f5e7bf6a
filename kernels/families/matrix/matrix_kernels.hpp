#pragma once
// What the descriptors of the two matrix families (transpose/, matmul/) share.
#include "reducelab/catalogue.hpp"

namespace rl {

// The checks of a matrix kernel's descriptor both families share (compile time: kernel_list.hpp).
constexpr bool matrixDescriptorComplete(const KernelInfo& k) {
  const bool shared = k.tileLayout != TileLayout::None;
  return k.shape == GridShape::MatrixTiles && !k.tiles.empty() && k.loadsPerIteration >= 1 && k.bytesPerLoad == 0 &&
         k.traceable && !k.schedule.empty() &&
         (shared ? k.sharedRule != SharedRule::NoneOwn && k.sharedRule != SharedRule::None &&
                       k.sharedRule != SharedRule::Unset
                 : k.sharedRule == SharedRule::NoneOwn);
}

}  // namespace rl
