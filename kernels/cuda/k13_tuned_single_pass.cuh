// Kernel 13: tuned single pass. One launch at every N: 16-byte loads, a loop over the grid's
// threads (thread g loads vectors g, g + S, g + 2S ... with S the number of threads in the grid),
// `loadsInFlight` of those loads issued before any is used, the block reduced with shuffles
// (__reduce_*_sync for 32-bit integers), and the last block to finish combining the partials
// (k12's ticket). The launch policy (loads in flight, grid cap, cache hint) comes from the
// device's tuned table or the latency rule: at small N enough CTAs that every SM has loads in
// flight, at large N one resident wave with deeper loads. Each thread combines its vectors in the
// same order whatever the depth, so the result and the trace do not depend on the policy.
#pragma once
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cstring>

#include "k10_vector_loads.cuh"

namespace rl::kernels {

// Cache hints of the 16-byte loads (reducelab/policy.hpp's CacheHint, in its order).
enum LoadHint : int { kHintNone = 0, kHintNoAllocate = 1, kHintEvictFirst = 2, kHintPrefetch256 = 3 };
// The launch word k13 receives: bits 0-7 the cache hint; bits 8-15 the CTAs of the one thread-block
// cluster the grid is launched as (0: no cluster); bit 16 the atomic finish (auto's plans only).
// engine.cu packs it the same way.
constexpr int kLaunchHintMask = 0xff, kLaunchClusterShift = 8, kLaunchAtomicFinish = 1 << 16;

// One 16-byte vector through the read-only path with the hint's qualifiers (asm volatile: the
// loads stay where the loop issues them, all of a group before the first use).
template <int Hint, class Vec>
__device__ __forceinline__ Vec loadVector(const Vec* p) {
  uint32_t a, b, c, d;
  if constexpr (Hint == kHintNone)
    asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p));
  else if constexpr (Hint == kHintNoAllocate)
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p));
  else if constexpr (Hint == kHintEvictFirst) {
    // sm_90 takes an L2 eviction priority on 16-byte loads only through a cache policy operand
    // (the .L2::evict_first qualifier needs 32-byte loads, sm_100).
    uint64_t policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p), "l"(policy));
  }
  else
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p));
  const uint4 raw = make_uint4(a, b, c, d);
  Vec v;
  memcpy(&v, &raw, sizeof v);  // registers only: the bits reinterpreted
  return v;
}

// The thread's vectors first, first + stride, ... : groups of U loads issued before any is
// combined, then the rest one at a time. The combination order is the same for every U.
template <int U, int Hint, class Op, class TAcc, class Vec>
__device__ __forceinline__ TAcc deepVectorSum(const Vec* __restrict__ vin, size_t numVecs, size_t first,
                                              size_t stride, TAcc acc) {
  size_t j = first;
  if constexpr (U > 1) {
    for (; j + size_t(U - 1) * stride < numVecs; j += size_t(U) * stride) {
      Vec r[U];
#pragma unroll
      for (int u = 0; u < U; ++u) r[u] = loadVector<Hint>(vin + j + size_t(u) * stride);
#pragma unroll
      for (int u = 0; u < U; ++u) acc = combineVec<Op>(acc, r[u]);
    }
  }
  for (; j < numVecs; j += stride) acc = combineVec<Op>(acc, loadVector<Hint>(vin + j));
  return acc;
}

template <int Hint, class Op, class TAcc, class Vec>
__device__ __forceinline__ TAcc deepVectorSumAnyDepth(int loadsInFlight, const Vec* __restrict__ vin, size_t numVecs,
                                                      size_t first, size_t stride, TAcc acc) {
  switch (loadsInFlight) {  // uniform over the grid: no divergence
    case 8: return deepVectorSum<8, Hint, Op>(vin, numVecs, first, stride, acc);
    case 4: return deepVectorSum<4, Hint, Op>(vin, numVecs, first, stride, acc);
    case 2: return deepVectorSum<2, Hint, Op>(vin, numVecs, first, stride, acc);
    default: return deepVectorSum<1, Hint, Op>(vin, numVecs, first, stride, acc);
  }
}

// Thread level. The traced twin records one vector per step of the grid (the model's
// VectorGridStride phase); the untraced kernel runs the same sequence `loadsInFlight` deep.
template <class Op, class TIn, class TAcc, class Trace>
__device__ __forceinline__ TAcc tunedThreadSum(const TIn* __restrict__ in, size_t n, int loadsInFlight, int hint,
                                               Trace& tr) {
  using Vec = typename Vec16<TIn>::type;
  constexpr int kWidth = 16 / sizeof(TIn);
  const Vec* vin = reinterpret_cast<const Vec*>(in);
  const size_t numVecs = n / kWidth;
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  TAcc acc = Op::template identity<TAcc>();
  if constexpr (Trace::enabled) {
    const SlotInfo vec16{kSpaceGlobal, kLoad, 16, 0};
    tr.step(kStepGridStride, kWidth, vec16);
    uint32_t iterations = 0;
    for (size_t j = first; j < numVecs; j += stride, ++iterations) acc = combineVec<Op>(acc, tr.loadGlobal(0, vin + j));
    const size_t tail = numVecs * kWidth + first;
    if (tail < n) acc = Op()(acc, TAcc(tr.loadGlobal(-1, in + tail)));
    tr.iterations(iterations);
    tr.lane(acc);
  } else {
    switch (hint) {
      case kHintNoAllocate: acc = deepVectorSumAnyDepth<kHintNoAllocate, Op>(loadsInFlight, vin, numVecs, first, stride, acc); break;
      case kHintEvictFirst: acc = deepVectorSumAnyDepth<kHintEvictFirst, Op>(loadsInFlight, vin, numVecs, first, stride, acc); break;
      case kHintPrefetch256: acc = deepVectorSumAnyDepth<kHintPrefetch256, Op>(loadsInFlight, vin, numVecs, first, stride, acc); break;
      default: acc = deepVectorSumAnyDepth<kHintNone, Op>(loadsInFlight, vin, numVecs, first, stride, acc); break;
    }
    // The last n % kWidth elements (fewer than one vector), one per thread.
    const size_t tail = numVecs * kWidth + first;
    if (tail < n) acc = Op()(acc, TAcc(in[tail]));
  }
  return acc;
}

// scratch: `gridDim.x` partials followed by an unsigned counter that starts (and ends) at 0.
template <class Op, class TIn, class TAcc, class Trace>
__global__ void k13TunedSinglePass(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                                   TAcc* __restrict__ partials, unsigned* counter, int loadsInFlight, int hint,
                                   Trace tr) {
  __shared__ bool amLast;
  tr.begin(sharedArray<TAcc>(), in, n, size_t(blockIdx.x) * blockDim.x * (16 / sizeof(TIn)), sizeof(TIn),
           sizeof(TAcc));
  TAcc v = tunedThreadSum<Op, TIn, TAcc>(in, n, loadsInFlight, hint & kLaunchHintMask, tr);
  if constexpr (!Trace::enabled) {
    // One warp: its shuffles are the block's reduction (no shared memory, no barrier). The traced
    // twin keeps blockReduce's steps; the value is the same (warp 0 then adds identities).
    if (blockDim.x == 32) {
      NoTrace none;
      v = warpReduce<Op>(v, none);
    } else {
      v = blockReduce<Op>(v, tr);
    }
  } else {
    v = blockReduce<Op>(v, tr);
  }
  if constexpr (!Trace::enabled) {
    if (gridDim.x == 1) {  // one CTA: its result is the result, no ticket
      if (threadIdx.x == 0) *out = v;
      return;
    }
    // The atomic finish: out holds the identity (the launcher's two accumulators take turns) and
    // `partials` is the other one, which block 0 resets for the next launch.
    if (hint & kLaunchAtomicFinish) {
      if (threadIdx.x == 0) {
        atomicCombine(Op(), out, v);
        if (blockIdx.x == 0) *partials = Op::template identity<TAcc>();
      }
      return;
    }
    // The whole grid is one thread-block cluster (Hopper): the CTAs' results meet in distributed
    // shared memory behind a cluster barrier, without the ticket's fence, atomic and L2 round trips.
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    if (cluster.num_blocks() == gridDim.x) {
      __shared__ TAcc clusterPartial;
      if (threadIdx.x == 0) clusterPartial = v;
      cluster.sync();
      if (cluster.block_rank() == 0 && threadIdx.x < 32) {  // rank order: the same bits every run
        TAcc w = threadIdx.x < gridDim.x ? *cluster.map_shared_rank(&clusterPartial, threadIdx.x)
                                         : Op::template identity<TAcc>();
        NoTrace none;
        w = warpReduce<Op>(w, none);
        if (threadIdx.x == 0) *out = w;
      }
      cluster.sync();  // each CTA's shared memory lives until rank 0 has read it
      return;
    }
  }
  storeBlockResult(v, partials, tr);  // by thread 0, the thread that takes the ticket
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> tickets(*counter);
    // Release: this block's partial is visible to whoever acquires a later ticket value.
    const unsigned ticket = tickets.fetch_add(1u, cuda::std::memory_order_release);
    amLast = ticket == gridDim.x - 1;
    if (amLast) cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
  }
  __syncthreads();
  tr.end();

  if (amLast) {  // every other block has written its partial: the same fixed-order finish as k12
    TAcc w = Op::template identity<TAcc>();
    for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x) w = Op()(w, partials[i]);
    NoTrace none;
    w = blockReduce<Op>(w, none);
    if (threadIdx.x == 0) {
      *out = w;
      cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).store(0u, cuda::std::memory_order_relaxed);
    }
  }
}

// The one-CTA plan (small N) as a kernel of its own: the same loads in the same order and the same
// block reduction as k13's grid of one, without the code of the hints, the depths it does not use,
// the ticket and the cluster. At a few thousand elements the time is the launch, one DRAM round
// trip and the fetch of the kernel's own instructions, which the L2 flush before each repetition
// sends back to DRAM: a short kernel is fetched sooner.
template <class Op, class TIn, class TAcc, int U>
__global__ void k13OneCta(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n) {
  using Vec = typename Vec16<TIn>::type;
  constexpr int kWidth = 16 / sizeof(TIn);
  const size_t numVecs = n / kWidth;
  TAcc acc = deepVectorSum<U, kHintNone, Op>(reinterpret_cast<const Vec*>(in), numVecs, threadIdx.x, blockDim.x,
                                             Op::template identity<TAcc>());
  const size_t tail = numVecs * kWidth + threadIdx.x;
  if (tail < n) acc = Op()(acc, TAcc(in[tail]));
  NoTrace none;
  acc = blockDim.x == 32 ? warpReduce<Op>(acc, none) : blockReduce<Op>(acc, none);
  if (threadIdx.x == 0) *out = acc;
}

}  // namespace rl::kernels
