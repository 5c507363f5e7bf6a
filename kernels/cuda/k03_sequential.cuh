// Kernel 3: sequential addressing (no divergence, no bank conflicts).
// Harris's kernel 3; the UPC lecture's Kernel04.
#pragma once
#include "reduce_ops.cuh"
#include "tracer.cuh"

namespace rl::kernels {

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k3Sequential(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                             Trace tr) {
  TAcc* sdata = sharedArray<TAcc>();
  const unsigned tid = threadIdx.x;
  const size_t i = size_t(blockIdx.x) * blockDim.x + tid;
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x, sizeof(TIn), sizeof(TAcc));

  sdata[tid] = loadOrIdentity<Op, TAcc>(in, i, n);
  tr.step(kStepLoad, 1, globalLoad<TIn>(), sharedStore<TAcc>());
  tr.lane(sdata[tid], tr.global(in + i, i < n), tr.shared(&sdata[tid]));
  __syncthreads();

  // The stride halves each level and the first s threads add the element s away:
  // active threads stay contiguous (whole warps idle) and a warp reads consecutive words.
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    tr.step(kStepTreeLevel, s, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
    if (tid < s) {
      sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
      tr.lane(sdata[tid], tr.shared(&sdata[tid]), tr.shared(&sdata[tid + s]), tr.shared(&sdata[tid]));
    }
    __syncthreads();
  }

  tr.step(kStepBlockResult, 0, sharedLoad<TAcc>(), globalStore<TAcc>());
  if (tid == 0) {
    out[blockIdx.x] = sdata[0];
    tr.lane(sdata[0], tr.shared(&sdata[0]), tr.output(blockIdx.x, sizeof(TAcc)));
  }
  tr.end();
}

}  // namespace rl::kernels
