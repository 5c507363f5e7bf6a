// The transpose family's kernels (seed 004): one source, transpose.cuh, instantiated per tile
// layout and block order. Each descriptor starts from the family's defaults and sets only what
// differs (docs/adding-a-kernel.md).
#pragma once
#include "matrix/matrix_kernels.hpp"

namespace rl {
// A transpose's descriptor: a matrix kernel whose blocks have rows of threads of their own.
// Without a tile a kernel transposes or copies: half a transpose needs the tile.
constexpr bool transposeDescriptorComplete(const KernelInfo& k) {
  return matrixDescriptorComplete(k) && k.threadRows > 0 &&
         (k.tileLayout != TileLayout::None || k.swapsTiles == k.swapsElements);
}
}  // namespace rl

namespace rl::desc {

// A transpose of ours unless its descriptor says otherwise: tiles of 32, 16 and 8 with 8 rows of
// threads (the seed's BLOCK_ROWS), a plain shared tile loaded by rows and stored by columns.
constexpr KernelInfo transposeKernel() {
  KernelInfo k;
  k.family = Family::Transpose;
  k.minBlock = 32;
  k.blockTemplated = true;
  k.shape = GridShape::MatrixTiles;
  k.loadsPerIteration = 1;
  k.bytesPerLoad = 0;
  k.sharedRule = SharedRule::Tile;
  k.finals = {FinalStage::Gpu};
  k.tiles = {32, 16, 8};
  k.threadRows = 8;
  k.tileLayout = TileLayout::Plain;
  k.sourceFile = "transpose.cuh";
  k.schedule = {Phase::TransposeLoadTile, Phase::TransposeStoreTile};
  return k;
}

inline constexpr KernelInfo TrCopy = [] {
  KernelInfo k = transposeKernel();
  k.id = KernelId::TrCopy;
  k.key = "tr-copy";
  k.name = "simple copy";
  k.title = "Copy, the naive kernel's reads and writes both by rows: seed 004's yardstick";
  k.sharedRule = SharedRule::NoneOwn;
  k.tileLayout = TileLayout::None;
  k.swapsTiles = k.swapsElements = false;
  k.schedule = {Phase::TransposeDirect};
  return k;
}();

inline constexpr KernelInfo TrCopyShared = [] {
  KernelInfo k = transposeKernel();
  k.id = KernelId::TrCopyShared;
  k.key = "tr-copy-shared";
  k.name = "shared memory copy";
  k.title = "Copy through a shared tile: the tiled kernels' cost without the transpose (seed 004)";
  k.swapsTiles = k.swapsElements = false;
  return k;
}();

inline constexpr KernelInfo TrNaive = [] {
  KernelInfo k = transposeKernel();
  k.id = KernelId::TrNaive;
  k.key = "tr-naive";
  k.name = "naive transpose";
  k.title = "Transpose, naive: coalesced reads, strided writes (seed 004)";
  k.sharedRule = SharedRule::NoneOwn;
  k.tileLayout = TileLayout::None;
  k.schedule = {Phase::TransposeDirect};
  return k;
}();

inline constexpr KernelInfo TrTile = [] {
  KernelInfo k = transposeKernel();
  k.id = KernelId::TrTile;
  k.key = "tr-tile";
  k.name = "coalesced transpose";
  k.title = "Transpose through a shared tile: coalesced both ways, 32-way column reads";
  return k;
}();

inline constexpr KernelInfo TrPadded = [] {
  KernelInfo k = transposeKernel();
  k.id = KernelId::TrPadded;
  k.key = "tr-padded";
  k.name = "padded transpose";
  k.title = "Transpose through a TILE x (TILE+1) tile: no bank conflicts (seed 004)";
  k.sharedRule = SharedRule::TilePadded;
  k.tileLayout = TileLayout::Padded;
  return k;
}();

inline constexpr KernelInfo TrCoarse = [] {
  KernelInfo k = transposeKernel();
  k.id = KernelId::TrCoarse;
  k.key = "tr-coarse";
  k.name = "coarse-grained";
  k.title = "Half a transpose: tiles to their transposed place, elements untouched (seed 004)";
  k.sharedRule = SharedRule::TilePadded;
  k.tileLayout = TileLayout::Padded;
  k.swapsElements = false;
  return k;
}();

inline constexpr KernelInfo TrFine = [] {
  KernelInfo k = transposeKernel();
  k.id = KernelId::TrFine;
  k.key = "tr-fine";
  k.name = "fine-grained";
  k.title = "The other half: each tile transposed in place (seed 004)";
  k.sharedRule = SharedRule::TilePadded;
  k.tileLayout = TileLayout::Padded;
  k.swapsTiles = false;
  return k;
}();

inline constexpr KernelInfo TrSwizzled = [] {
  KernelInfo k = transposeKernel();
  k.id = KernelId::TrSwizzled;
  k.key = "tr-swizzle";
  k.name = "swizzled transpose";
  k.title = "Transpose through an XOR-swizzled tile: no bank conflicts, no padding";
  k.tileLayout = TileLayout::Swizzled;
  return k;
}();

inline constexpr KernelInfo TrDiagonal = [] {
  KernelInfo k = transposeKernel();
  k.id = KernelId::TrDiagonal;
  k.key = "tr-diagonal";
  k.name = "diagonal transpose";
  k.title = "Padded transpose with diagonal block order (seed 004's partition camping fix)";
  k.sharedRule = SharedRule::TilePadded;
  k.tileLayout = TileLayout::Padded;
  k.blockOrder = BlockOrder::Diagonal;
  return k;
}();

}  // namespace rl::desc
