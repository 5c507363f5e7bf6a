// Kernel 12: single pass with a last-block finish (threadfence + counter). Deterministic.
// Each block writes its partial, makes it visible device-wide (__threadfence), then takes a
// ticket from a global counter; the block that draws the last ticket knows every partial is
// written and reduces them in a fixed order. One launch, and the same bits every run.
#pragma once
#include "k10_vector_loads.cuh"

namespace rl::kernels {

// scratch: `gridDim.x` partials followed by an unsigned counter that starts (and ends) at 0.
template <class Op, class TIn, class TAcc, class Trace>
__global__ void k12LastBlock(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                             TAcc* __restrict__ partials, unsigned* counter, Trace tr) {
  __shared__ bool amLast;
  const TAcc v = vectorBlockSum<Op, TIn, TAcc>(in, n, tr);  // kernel 10's block

  storeBlockResult(v, partials, tr);
  if (threadIdx.x == 0) {
    __threadfence();  // the partial is visible to every block before the ticket is taken
    const unsigned ticket = atomicAdd(counter, 1u);
    amLast = ticket == gridDim.x - 1;
  }
  __syncthreads();
  tr.end();

  if (amLast) {  // every other block has written its partial
    TAcc w = Op::template identity<TAcc>();
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x)
      w = Op()(w, reinterpret_cast<volatile TAcc*>(partials)[i]);
    NoTrace none;
    w = blockReduce<Op>(w, none);
    if (threadIdx.x == 0) {
      *out = w;
      *counter = 0;  // ready for the next launch
    }
  }
}

}  // namespace rl::kernels
