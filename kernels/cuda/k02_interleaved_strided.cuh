// Kernel 2: interleaved addressing with a strided index (no divergence, bank conflicts).
// Harris's kernel 2; the UPC lecture's Kernel03.
#pragma once
#include "k01_interleaved_divergent.cuh"

namespace rl::kernels {

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k2InterleavedStrided(const TIn* __restrict__ in, TAcc* __restrict__ out,
                                     size_t n, Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  TAcc* sdata = sharedArray<TAcc>();
  const unsigned tid = threadIdx.x;
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x, sizeof(TIn), sizeof(TAcc));
  loadOneToShared<Op>(in, sdata, n, tr);

  // Consecutive threads do the work (index = 2*s*tid), so whole warps retire together...
  // but lanes of a warp now hit shared-memory words 2s apart: the same bank, many ways.
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    tr.step(kStepTreeLevel, s, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x) {
      const TAcc a = tr.loadShared(0, &sdata[index]);
      const TAcc b = tr.loadShared(1, &sdata[index + s]);
      tr.storeShared(2, &sdata[index], Op()(a, b));
      tr.lane(Op()(a, b));
    }
    __syncthreads();
  }

  writeBlockResult(sdata, out, tr);
  tr.end();
}

}  // namespace rl::kernels
