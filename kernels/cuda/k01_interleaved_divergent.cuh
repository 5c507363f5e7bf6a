// Kernel 1: interleaved addressing with a divergent branch.
// Harris's kernel 1; the UPC lecture's Kernel01 (partials finished on the CPU) and Kernel02
// (finished by a second GPU pass).
#pragma once
#include "reduce_ops.cuh"
#include "tracer.cuh"

namespace rl::kernels {

// Each thread loads one element into shared memory (the identity past the end). Used by k1-k3.
template <class Op, class TIn, class TAcc, class Trace>
__device__ __forceinline__ void loadOneToShared(const TIn* in, TAcc* sdata, size_t n, Trace& tr) {
  const unsigned tid = threadIdx.x;
  const size_t i = size_t(blockIdx.x) * blockDim.x + tid;
  tr.step(kStepLoad, 1, globalLoad<TIn>(), sharedStore<TAcc>());
  const TAcc v = i < n ? TAcc(tr.loadGlobal(0, in + i)) : Op::template identity<TAcc>();
  tr.storeShared(1, &sdata[tid], v);
  tr.lane(v);
  __syncthreads();
}

// Thread 0 writes the block's result, sdata[0], to out[blockIdx.x]. Used by k1-k7.
template <class TAcc, class Trace>
__device__ __forceinline__ void writeBlockResult(const TAcc* sdata, TAcc* out, Trace& tr) {
  tr.step(kStepBlockResult, 0, sharedLoad<TAcc>(), globalStore<TAcc>());
  if (threadIdx.x == 0) {
    const TAcc v = tr.loadShared(0, &sdata[0]);
    tr.storeOutput(1, out, blockIdx.x, v);
    tr.lane(v);
  }
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k1InterleavedDivergent(const TIn* __restrict__ in, TAcc* __restrict__ out,
                                       size_t n, Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  TAcc* sdata = sharedArray<TAcc>();
  const unsigned tid = threadIdx.x;
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x, sizeof(TIn), sizeof(TAcc));
  loadOneToShared<Op>(in, sdata, n, tr);

  // The tree: at stride s, threads whose index is a multiple of 2s add the element s away.
  // `tid % (2*s)` leaves most lanes of every warp idle: the warps diverge.
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    tr.step(kStepTreeLevel, s, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
    if (tid % (2 * s) == 0) {
      const TAcc a = tr.loadShared(0, &sdata[tid]);
      const TAcc b = tr.loadShared(1, &sdata[tid + s]);
      tr.storeShared(2, &sdata[tid], Op()(a, b));
      tr.lane(Op()(a, b));
    }
    __syncthreads();
  }

  writeBlockResult(sdata, out, tr);
  tr.end();
}

}  // namespace rl::kernels
