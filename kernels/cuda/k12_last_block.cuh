// Kernel 12: single pass with a last-block finish (a ticket counter). Deterministic.
// Each block writes its partial, then takes a ticket from a global counter with a device-scope
// release (the partial is published with the ticket); the block that draws the last ticket
// acquires (every other block's partial is then visible to it) and reduces them in a fixed
// order. One launch, and the same bits every run.
#pragma once
#include <cuda/atomic>

#include "k10_vector_loads.cuh"

namespace rl::kernels {

// The finish after each block's reduction (k12, k14): thread 0 stores the block's partial and
// takes a ticket; the block that draws the last one combines every partial in a fixed order.
// scratch: `gridDim.x` partials followed by an unsigned counter that starts (and ends) at 0.
template <class Op, class TAcc, class Trace>
__device__ __forceinline__ void lastBlockFinish(TAcc v, TAcc* __restrict__ out, TAcc* __restrict__ partials,
                                                unsigned* counter, Trace& tr) {
  __shared__ bool amLast;
  storeBlockResult(v, partials, tr);  // by thread 0, the thread that takes the ticket
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> tickets(*counter);
    // Release: this block's partial is visible to whoever acquires a later ticket value.
    const unsigned ticket = tickets.fetch_add(1u, cuda::std::memory_order_release);
    amLast = ticket == gridDim.x - 1;
    // Acquire (last block only): the fetch_add read the end of every block's release sequence,
    // so after this fence every partial is visible; __syncthreads passes that to the block.
    if (amLast) cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
  }
  __syncthreads();
  tr.end();

  if (amLast) {  // every other block has written its partial
    TAcc w = Op::template identity<TAcc>();
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) w = Op()(w, partials[i]);
    NoTrace none;
    w = blockReduce<Op>(w, none);
    if (threadIdx.x == 0) {
      *out = w;
      // Ready for the next launch (ordered before it by the kernel boundary).
      cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).store(0u, cuda::std::memory_order_relaxed);
    }
  }
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k12LastBlock(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                             TAcc* __restrict__ partials, unsigned* counter, Trace tr) {
  const TAcc v = vectorBlockSum<Op, TIn, TAcc>(in, n, tr);  // kernel 10's block
  lastBlockFinish<Op>(v, out, partials, counter, tr);
}

}  // namespace rl::kernels
