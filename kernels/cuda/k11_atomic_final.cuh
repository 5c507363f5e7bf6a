// Kernel 11: single pass, the blocks' results combined with atomics (seed 004's atomicAdd).
// Kernel 10's loads and block reduction, then thread 0 of each block does one atomic on the
// result. No second launch, no partials array. Floating-point sums are then NOT run-to-run
// deterministic: the blocks finish in a different order each run, and float addition is not
// associative, so the last bits of the result change between runs.
#pragma once
#include "k10_vector_loads.cuh"

namespace rl::kernels {

// `out[0]` must hold the identity before the launch (the launcher writes it).
template <class Op, class TIn, class TAcc, class Trace>
__global__ void k11AtomicFinal(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                               Trace tr) {
  const TAcc v = vectorBlockSum<Op, TIn, TAcc>(in, n, tr);  // kernel 10's block
  tr.step(kStepBlockResult, 0, globalAtomic<TAcc>());
  if (threadIdx.x == 0) {
    tr.template atomicOutput<Op>(0, out, v);
    tr.lane(v);
  }
  tr.end();
}

template <class Op, class TAcc>
__global__ void writeIdentity(TAcc* out) {
  *out = Op::template identity<TAcc>();
}

}  // namespace rl::kernels
