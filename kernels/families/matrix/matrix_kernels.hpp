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

// Where a transpose kernel k (tile t) puts input element (y, x) of a rows x cols matrix: its index
// in the output. Its block's tile goes to the transposed tile position if k swaps tiles, the
// element to the transposed place in the tile if k swaps elements: both, x * rows + y; neither
// (a copy), y * cols + x. The check, the CPU model and the kernels agree through this.
constexpr uint64_t transposeDestination(const KernelInfo& k, uint64_t rows, uint64_t cols, int t, uint64_t y, uint64_t x) {
  const uint64_t T = uint64_t(t > 0 ? t : 1);
  const uint64_t outCols = k.swapsTiles ? rows : cols;
  const uint64_t tileRow = k.swapsTiles ? x / T : y / T, tileCol = k.swapsTiles ? y / T : x / T;
  const uint64_t inRow = k.swapsElements ? x % T : y % T, inCol = k.swapsElements ? y % T : x % T;
  return (tileRow * T + inRow) * outCols + tileCol * T + inCol;
}

}  // namespace rl
