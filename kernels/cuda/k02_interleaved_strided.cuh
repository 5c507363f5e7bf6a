// Kernel 2: interleaved addressing with a strided index (no divergence, bank conflicts).
// Harris's kernel 2; the UPC lecture's Kernel03.
#pragma once
#include "reduce_ops.cuh"
#include "tracer.cuh"

namespace rl::kernels {

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k2InterleavedStrided(const TIn* __restrict__ in, TAcc* __restrict__ out,
                                     size_t n, Trace tr) {
  TAcc* sdata = sharedArray<TAcc>();
  const unsigned tid = threadIdx.x;
  const size_t i = size_t(blockIdx.x) * blockDim.x + tid;
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x, sizeof(TIn), sizeof(TAcc));

  sdata[tid] = loadOrIdentity<Op, TAcc>(in, i, n);
  tr.step(kStepLoad, 1, globalLoad<TIn>(), sharedStore<TAcc>());
  tr.lane(sdata[tid], tr.global(in + i, i < n), tr.shared(&sdata[tid]));
  __syncthreads();

  // Consecutive threads do the work (index = 2*s*tid), so whole warps retire together...
  // but lanes of a warp now hit shared-memory words 2s apart: the same bank, many ways.
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    tr.step(kStepTreeLevel, s, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) {
      sdata[index] = Op()(sdata[index], sdata[index + s]);
      tr.lane(sdata[index], tr.shared(&sdata[index]), tr.shared(&sdata[index + s]), tr.shared(&sdata[index]));
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
