// The matrix-multiply family (seed 003, "Multiplicación de matrices en CUDA"): C (rows x cols)
// = A (rows x inner) x B (inner x cols), row-major, one tile x tile block of C per block of
// tile x tile threads (the seed's BLOCK_SIZE x BLOCK_SIZE). A and B lie in one buffer, B right
// after A. Sums use fma, one per product, in k order (the CPU model and reference do the same).
#pragma once
#include "reducelab/catalogue.hpp"
#include "tracer.cuh"

namespace rl::kernels {

__device__ __forceinline__ float fmaOf(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double fmaOf(double a, double b, double c) { return fma(a, b, c); }

// 16 bytes of As's row: V consecutive elements read by one LDS.128 (matmulRowVector).
template <class T, int V>
struct alignas(sizeof(T) * V) RowVector {
  T v[V];
};

// The seed's global-memory kernel, with its mapping: threadIdx.x walks the rows of C, so a
// warp's reads of A are a column (`inner` elements apart: uncoalesced) and its reads of B and
// writes of C are strided by threadIdx.y only (a broadcast / one element each).
// __launch_bounds__: a block is Tile x Tile threads (1024 for 32), so the compiler keeps the traced
// twin's registers within what a block that large can have.
template <int Tile, class T, class Trace>
__global__ void __launch_bounds__(Tile * Tile) matmulNaive(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int rows,
                            int cols, int inner, Trace tr) {
  const int row = int(blockIdx.y) * Tile + int(threadIdx.x);
  const int col = int(blockIdx.x) * Tile + int(threadIdx.y);
  tr.begin(nullptr, a, size_t(rows) * inner + size_t(inner) * cols, size_t(blockIdx.y) * Tile * inner,
           sizeof(T), sizeof(T));
  tr.regions(b + size_t(blockIdx.x) * Tile, a, c + size_t(blockIdx.y) * Tile * cols + size_t(blockIdx.x) * Tile,
             c, Tile);
  T sum = T(0);
  tr.step(kStepDot, inner, globalLoad<T>(kRegionInput), globalLoad<T>(kRegionSecond));
  if (row < rows && col < cols) {
    for (int e = 0; e < inner; ++e) {
      const T x = tr.loadGlobal(0, &a[size_t(row) * inner + e]);
      const T y = tr.loadGlobal(1, &b[size_t(e) * cols + col]);
      sum = fmaOf(x, y, sum);
    }
    tr.lane(sum);
  }
  tr.step(kStepOutput, 0, globalStore<T>());
  if (row < rows && col < cols) {
    tr.storeGlobal(0, &c[size_t(row) * cols + col], sum);
    tr.lane(sum);
  }
  tr.end();
}

// The seed's shared-memory kernel: per K-tile, each thread loads one element of A and one of
// B into As and Bs (zeros outside the matrices), then the block multiplies the tiles. In the
// loop a warp reads As[ty][n] (one word per row of the tile: a broadcast) and Bs[n][tx]
// (consecutive words: conflict-free). Where the rows of As are 16-byte aligned, As is read 16
// bytes at a time (every V-th term), as nvcc vectorizes the seed's loop; each term of the loop
// is a step of the trace, which records the first K-tile (its header says how many there are)
// and the store; the other K-tiles repeat the same pattern.
template <int Tile, class T, class Trace>
__global__ void __launch_bounds__(Tile * Tile) matmulTiled(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int rows,
                            int cols, int inner, Trace tr) {
  constexpr int V = matmulRowVector(Tile, int(sizeof(T)));
  using Vec = RowVector<T, V>;
  T* as = sharedArray<T>();
  T* bs = as + Tile * Tile;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  const int row = int(blockIdx.y) * Tile + ty;
  const int col = int(blockIdx.x) * Tile + tx;
  tr.begin(as, a, size_t(rows) * inner + size_t(inner) * cols, size_t(blockIdx.y) * Tile * inner, sizeof(T),
           sizeof(T));
  tr.regions(b + size_t(blockIdx.x) * Tile, a, c + size_t(blockIdx.y) * Tile * cols + size_t(blockIdx.x) * Tile,
             c, Tile);
  T sum = T(0);
  const int kTiles = (inner + Tile - 1) / Tile;
  for (int t = 0; t < kTiles; ++t) {
    if (t == 1) tr.pause();
    tr.step(kStepTileLoad, kTiles, globalLoad<T>(kRegionInput), globalLoad<T>(kRegionSecond), sharedStore<T>(),
            sharedStore<T>());
    const int ka = t * Tile + tx, kb = t * Tile + ty;
    const T x = row < rows && ka < inner ? tr.loadGlobal(0, &a[size_t(row) * inner + ka]) : T(0);
    const T y = kb < inner && col < cols ? tr.loadGlobal(1, &b[size_t(kb) * cols + col]) : T(0);
    tr.storeShared(2, &as[ty * Tile + tx], x);
    tr.storeShared(3, &bs[ty * Tile + tx], y);
    tr.lane(x);
    __syncthreads();
#pragma unroll
    for (int n0 = 0; n0 < Tile; n0 += V) {
      Vec p;  // As[ty][n0 .. n0 + V - 1], read at the group's first term
#pragma unroll
      for (int j = 0; j < V; ++j) {
        tr.step(kStepDotTerm, n0 + j, j == 0 ? sharedLoad<Vec>() : SlotInfo{}, sharedLoad<T>());
        if (j == 0) p = tr.loadShared(0, reinterpret_cast<const Vec*>(&as[ty * Tile + n0]));
        const T q = tr.loadShared(1, &bs[(n0 + j) * Tile + tx]);
        sum = fmaOf(p.v[j], q, sum);
        tr.lane(sum);
      }
    }
    __syncthreads();
  }
  tr.resume();
  tr.step(kStepOutput, 0, globalStore<T>());
  if (row < rows && col < cols) {
    tr.storeGlobal(0, &c[size_t(row) * cols + col], sum);
    tr.lane(sum);
  }
  tr.end();
}

}  // namespace rl::kernels
