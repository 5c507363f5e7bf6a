// Kernel 4: first add during the global load (half the blocks, no idle threads at level one).
// Harris's kernel 4; the UPC lecture's Kernel05.
#pragma once
#include "k03_sequential.cuh"

namespace rl::kernels {

// Loads in[i] and in[i + blockDim.x] and combines them: each block covers 2 * blockDim.x elements.
template <class Op, class TIn, class TAcc, class Trace>
__device__ __forceinline__ void loadPairToShared(const TIn* in, TAcc* sdata, size_t n, Trace& tr) {
  const unsigned tid = threadIdx.x;
  const size_t i = size_t(blockIdx.x) * (blockDim.x * 2) + tid;
  tr.step(kStepLoad, 2, globalLoad<TIn>(), globalLoad<TIn>(), sharedStore<TAcc>());
  const TAcc a = i < n ? TAcc(tr.loadGlobal(0, in + i)) : Op::template identity<TAcc>();
  const TAcc b = i + blockDim.x < n ? TAcc(tr.loadGlobal(1, in + i + blockDim.x)) : Op::template identity<TAcc>();
  tr.storeShared(2, &sdata[tid], Op()(a, b));
  tr.lane(Op()(a, b));
  __syncthreads();
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k4FirstAddDuringLoad(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                                     Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  TAcc* sdata = sharedArray<TAcc>();
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x * 2, sizeof(TIn), sizeof(TAcc));
  loadPairToShared<Op>(in, sdata, n, tr);

  sequentialTree<Op>(sdata, tr, 1);  // the same tree as kernel 3

  writeBlockResult(sdata, out, tr);
  tr.end();
}

}  // namespace rl::kernels
