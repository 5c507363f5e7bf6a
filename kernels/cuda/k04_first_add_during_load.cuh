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
  sdata[tid] = Op()(loadOrIdentity<Op, TAcc>(in, i, n),
                    loadOrIdentity<Op, TAcc>(in, i + blockDim.x, n));
  tr.step(kStepLoad, 2, globalLoad<TIn>(), globalLoad<TIn>(), sharedStore<TAcc>());
  tr.lane(sdata[tid], tr.global(in + i, i < n), tr.global(in + i + blockDim.x, i + blockDim.x < n),
          tr.shared(&sdata[tid]));
  __syncthreads();
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k4FirstAddDuringLoad(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                                     Trace tr) {
  TAcc* sdata = sharedArray<TAcc>();
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x * 2, sizeof(TIn), sizeof(TAcc));
  loadPairToShared<Op>(in, sdata, n, tr);

  sequentialTree<Op>(sdata, tr, 1);  // the same tree as kernel 3

  writeBlockResult(sdata, out, tr);
  tr.end();
}

}  // namespace rl::kernels
