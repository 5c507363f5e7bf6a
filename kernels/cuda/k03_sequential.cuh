// Kernel 3: sequential addressing (no divergence, no bank conflicts).
// Harris's kernel 3; the UPC lecture's Kernel04.
#pragma once
#include "k01_interleaved_divergent.cuh"

namespace rl::kernels {

// Sequential addressing: the stride halves each level and the first s threads add the element
// s away, so active threads stay contiguous (whole warps idle) and a warp reads consecutive
// words. Levels down to stride `lowest` (1: the whole tree). Used by k3, k4, k5.
template <class Op, class TAcc, class Trace>
__device__ __forceinline__ void sequentialTree(TAcc* sdata, Trace& tr, unsigned lowest) {
  const unsigned tid = threadIdx.x;
  for (unsigned s = blockDim.x / 2; s >= lowest && s > 0; s >>= 1) {
    tr.step(kStepTreeLevel, s, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
    if (tid < s) {
      const TAcc a = tr.loadShared(0, &sdata[tid]);
      const TAcc b = tr.loadShared(1, &sdata[tid + s]);
      tr.storeShared(2, &sdata[tid], Op()(a, b));
      tr.lane(Op()(a, b));
    }
    __syncthreads();
  }
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k3Sequential(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                             Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  TAcc* sdata = sharedArray<TAcc>();
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x, sizeof(TIn), sizeof(TAcc));
  loadOneToShared<Op>(in, sdata, n, tr);

  sequentialTree<Op>(sdata, tr, 1);

  writeBlockResult(sdata, out, tr);
  tr.end();
}

}  // namespace rl::kernels
