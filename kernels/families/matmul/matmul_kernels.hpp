// The matrix-multiply family's kernels (seed 003): one source, matmul.cuh. Each descriptor starts
// from the family's defaults and sets only what differs (docs/adding-a-kernel.md).
#pragma once
#include "matrix/matrix_kernels.hpp"

namespace rl {
// A matrix product's descriptor: a matrix kernel of square blocks (one thread per element of C's tile).
constexpr bool matmulDescriptorComplete(const KernelInfo& k) { return matrixDescriptorComplete(k) && k.threadRows == 0; }
}  // namespace rl

namespace rl::desc {

// A matrix multiply of ours unless its descriptor says otherwise: square tiles of 16, 8, 32 and
// the seed's 24 and 29 (one thread per output element), shared As and Bs tiles.
constexpr KernelInfo matmulKernel() {
  KernelInfo k;
  k.family = Family::Matmul;
  k.minBlock = 32;
  k.blockTemplated = true;
  k.shape = GridShape::MatrixTiles;
  k.loadsPerIteration = 1;
  k.bytesPerLoad = 0;
  k.sharedRule = SharedRule::TwoTiles;
  k.finals = {FinalStage::Gpu};
  k.tiles = {16, 8, 24, 32, 29};
  k.threadRows = 0;
  k.tileLayout = TileLayout::Plain;
  k.sourceFile = "matmul.cuh";
  k.schedule = {Phase::MatmulTileLoad, Phase::MatmulTileDot, Phase::MatmulStore};
  return k;
}

inline constexpr KernelInfo MmNaive = [] {
  KernelInfo k = matmulKernel();
  k.id = KernelId::MmNaive;
  k.key = "mm-naive";
  k.name = "naive matmul";
  k.title = "Matrix multiply from global memory, the seed's thread mapping (column reads)";
  k.sharedRule = SharedRule::NoneOwn;
  k.tileLayout = TileLayout::None;
  k.schedule = {Phase::MatmulNaiveDot, Phase::MatmulStore};
  return k;
}();

inline constexpr KernelInfo MmTiled = [] {
  KernelInfo k = matmulKernel();
  k.id = KernelId::MmTiled;
  k.key = "mm-tiled";
  k.name = "tiled matmul";
  k.title = "Matrix multiply through shared As and Bs tiles (seed 003's shared-memory kernel)";
  return k;
}();

}  // namespace rl::desc
