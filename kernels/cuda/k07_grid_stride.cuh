// Kernel 7: multiple elements per thread with a grid-stride loop. Harris's kernel 7; the UPC
// lecture's Kernel07 (partials finished on the CPU) and Kernel08 (finished on the GPU).
// A grid of about one wave of blocks; each thread first sums many elements in a register
// (pairs blockSize apart, as Harris does), then the block reduces as kernel 6.
#pragma once
#include "k06_complete_unroll.cuh"

namespace rl::kernels {

template <unsigned BlockSize, class Op, class TIn, class TAcc, class Trace>
__global__ void __launch_bounds__(BlockSize)
    k7GridStride(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n, Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  TAcc* sdata = sharedArray<TAcc>();
  const unsigned tid = threadIdx.x;
  const size_t first = size_t(blockIdx.x) * (BlockSize * 2) + tid;
  const size_t gridSize = size_t(BlockSize) * 2 * gridDim.x;
  tr.begin(sdata, in, n, size_t(blockIdx.x) * BlockSize * 2, sizeof(TIn), sizeof(TAcc));

  // The trace's lane detail is the first iteration's; its totals count every iteration's loads.
  tr.step(kStepGridStride, 2, globalLoad<TIn>(), globalLoad<TIn>(), sharedStore<TAcc>());
  TAcc v = Op::template identity<TAcc>();
  uint32_t iterations = 0;
  for (size_t i = first; i < n; i += gridSize) {
    v = Op()(v, TAcc(tr.loadGlobal(0, in + i)));
    if (i + BlockSize < n) v = Op()(v, TAcc(tr.loadGlobal(1, in + i + BlockSize)));
    ++iterations;
  }
  tr.storeShared(2, &sdata[tid], v);
  tr.iterations(iterations);
  tr.lane(v);
  __syncthreads();

  blockReduceUnrolled<BlockSize, Op>(sdata, tid, tr);

  writeBlockResult(sdata, out, tr);
  tr.end();
}

}  // namespace rl::kernels
