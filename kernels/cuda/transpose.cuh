// The transpose family (seed 004, "Ejemplo 4: Trasposición de matrices"): out (cols x rows) =
// in (rows x cols) transposed. Each block moves one tile x tile piece with tile x threadRows
// threads (the seed: 32 x 32 tiles, 32 x 8 threads, each thread 4 elements of a column); the
// grid is 2-D over the input (x: columns, y: rows) and ragged edges are guarded, so any matrix
// size works. Every global and shared access goes through the tracer, where it happens.
#pragma once
#include "reducelab/catalogue.hpp"
#include "tracer.cuh"

namespace rl::kernels {

// Where element (r, c) of a tile lies in shared memory.
//   Plain:    r x tile + c          column reads hit one bank tile times (32-way for float32)
//   Padded:   r x (tile + 1) + c    the seed's TILE_DIM + 1: a column walks across the banks
//   Swizzled: r x tile + (c ^ r)    XOR swizzle: the same, without the unused column
template <int Tile, TileLayout Layout>
__device__ __forceinline__ int tileIndex(int r, int c) {
  if constexpr (Layout == TileLayout::Padded) return r * (Tile + 1) + c;
  else if constexpr (Layout == TileLayout::Swizzled) return r * Tile + (c ^ r);
  else return r * Tile + c;
}

// The seed's transposeNaive: reads rows (coalesced), writes columns (a warp's 32 stores land
// `rows` elements apart: one sector each). Swap false: its "simple copy", out = in, the yardstick.
// Blocks are Tile x min(Tile, 8) threads (the descriptors' threadRows). `repeat`: passes over the
// whole matrix in this one launch (seed 004's loop within the kernel); the traced twin makes one.
template <int Tile, bool Swap, class T, class Trace>
__global__ void __launch_bounds__(Tile * (Tile < 8 ? Tile : 8)) transposeNaive(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, int repeat, Trace tr) {
  const int x = int(blockIdx.x) * Tile + int(threadIdx.x);
  const int y0 = int(blockIdx.y) * Tile + int(threadIdx.y);
  const size_t outFirst = Swap ? size_t(blockIdx.x) * Tile * rows + size_t(blockIdx.y) * Tile
                               : size_t(blockIdx.y) * Tile * cols + size_t(blockIdx.x) * Tile;
  tr.begin(nullptr, in, size_t(rows) * cols, size_t(blockIdx.y) * Tile * cols + size_t(blockIdx.x) * Tile,
           sizeof(T), sizeof(T));
  tr.regions(in, in, out + outFirst, out, Tile);
  const int passes = Trace::enabled ? 1 : repeat;
  for (int pass = 0; pass < passes; ++pass) {
    // Each pass reads the input again: without this the compiler may keep a pass's values (the
    // pointers are __restrict__) and make the later passes stores only.
    if (pass > 0) asm volatile("" ::: "memory");
    for (int i = 0; i < Tile; i += int(blockDim.y)) {
      tr.step(kStepCopyRow, i, globalLoad<T>(), globalStore<T>());
      const int y = y0 + i;
      if (x < cols && y < rows) {
        const T v = tr.loadGlobal(0, &in[size_t(y) * cols + x]);
        tr.storeGlobal(1, &out[Swap ? size_t(x) * rows + y : size_t(y) * cols + x], v);
        tr.lane(v);
      }
    }
  }
  tr.end();
}

// Through a shared tile (the seed's transposeCoalesced, transposeNoBankConflicts, and the
// diagonal one): rows in, __syncthreads, columns of the tile out as rows of the output, so
// both global directions are coalesced; the tile's layout decides the bank conflicts of the
// column read. Diagonal order renumbers the blocks so that consecutive blocks take tiles on a
// diagonal (the seed's fix for partition camping; a bijection for any grid shape).
// SwapTiles / SwapElements false give the seed's yardsticks and halves: neither, its "shared
// memory copy"; tiles only, "coarse-grained" (each tile lands at the transposed place, its
// elements as they were); elements only, "fine-grained" (each tile transposed in place).
template <int Tile, TileLayout Layout, BlockOrder Order, bool SwapTiles, bool SwapElements, class T, class Trace>
__global__ void __launch_bounds__(Tile * (Tile < 8 ? Tile : 8)) transposeTiled(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, int repeat, Trace tr) {
  T* tile = sharedArray<T>();
  unsigned bx = blockIdx.x, by = blockIdx.y;
  if constexpr (Order == BlockOrder::Diagonal) {
    const unsigned bid = blockIdx.x + gridDim.x * blockIdx.y;
    by = bid % gridDim.y;
    bx = (bid / gridDim.y + by) % gridDim.x;
  }
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  const int x = int(bx) * Tile + tx;
  const int y0 = int(by) * Tile + ty;
  // The output's shape, and the tile this block writes: the transposed tile, or its own.
  const int outRows = SwapTiles ? cols : rows, outCols = SwapTiles ? rows : cols;
  const int outTileRow = int(SwapTiles ? bx : by), outTileCol = int(SwapTiles ? by : bx);
  tr.begin(tile, in, size_t(rows) * cols, size_t(by) * Tile * cols + size_t(bx) * Tile, sizeof(T), sizeof(T));
  tr.regions(in, in, out + size_t(outTileRow) * Tile * outCols + size_t(outTileCol) * Tile, out, Tile);
  const int passes = Trace::enabled ? 1 : repeat;
  for (int pass = 0; pass < passes; ++pass) {
    if (pass > 0) {
      __syncthreads();  // the previous pass's reads of the tile are done
      asm volatile("" ::: "memory");  // and this pass reads the input again (see transposeNaive)
    }
    for (int i = 0; i < Tile; i += int(blockDim.y)) {
      tr.step(kStepTileLoad, i, globalLoad<T>(), sharedStore<T>());
      if (x < cols && y0 + i < rows) {
        const T v = tr.loadGlobal(0, &in[size_t(y0 + i) * cols + x]);
        tr.storeShared(1, &tile[tileIndex<Tile, Layout>(ty + i, tx)], v);
        tr.lane(v);
      }
    }
    __syncthreads();
    const int xo = outTileCol * Tile + tx;
    for (int i = 0; i < Tile; i += int(blockDim.y)) {
      tr.step(kStepTileStore, i, sharedLoad<T>(), globalStore<T>());
      const int yo = outTileRow * Tile + ty + i;
      if (xo < outCols && yo < outRows) {
        const int s = SwapElements ? tileIndex<Tile, Layout>(tx, ty + i) : tileIndex<Tile, Layout>(ty + i, tx);
        const T v = tr.loadShared(0, &tile[s]);
        tr.storeGlobal(1, &out[size_t(yo) * outCols + xo], v);
        tr.lane(v);
      }
    }
  }
  tr.end();
}

}  // namespace rl::kernels
