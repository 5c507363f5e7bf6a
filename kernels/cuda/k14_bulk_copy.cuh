// Kernel 14: bulk copies into shared memory (Hopper, sm_90), a teaching variant. The block's
// share of the input is cut into tiles of blockDim x 16 bytes (tile j: vectors j*B .. j*B+B-1;
// block b takes tiles b, b + grid, b + 2 grid ...). One thread copies each tile into a stage of a
// ring in shared memory with one `cp.async.bulk` (the copy engine moves the bytes; no thread
// issues a load per vector) and an mbarrier counts the bytes in (expect-tx). While the next
// stages are in flight, every thread reads its vector of the ready stage (16 bytes a lane: a warp
// reads 512 contiguous bytes, no bank conflict) and combines it as k13 does, in the same order.
// Then the block reduces with shuffles and k12's last block finishes. It moves the same bytes as
// k13: the copy frees registers and issue slots, and costs an mbarrier round trip per stage.
#pragma once
#include <cuda/atomic>

#include "k12_last_block.cuh"
#include "reducelab/catalogue.hpp"  // kBulkRingOffset, bulkStages

namespace rl::kernels {

// ---- Hopper's asynchronous copy and transaction barrier (PTX ISA 8.0, sm_90) ----
__device__ __forceinline__ uint32_t sharedAddress(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

// An mbarrier that completes a phase after `arrivals` arrivals and the bytes they announced.
__device__ __forceinline__ void mbarrierInit(uint64_t* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sharedAddress(bar)), "r"(arrivals) : "memory");
}
// The initialised barriers made visible to the copy engine (the async proxy).
__device__ __forceinline__ void fenceAsyncProxy() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// The producer's arrival, announcing the bytes the stage's copy will deliver.
__device__ __forceinline__ void mbarrierArriveExpectTx(uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sharedAddress(bar)), "r"(bytes)
               : "memory");
}
// Whether the phase of this parity has completed (every arrival and every announced byte in).
__device__ __forceinline__ bool mbarrierTryWait(uint64_t* bar, unsigned parity) {
  uint32_t done;
  asm volatile(
      "{\n"
      "  .reg .pred p;\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "  selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(sharedAddress(bar)), "r"(parity)
      : "memory");
  return done != 0;
}
// `bytes` (a multiple of 16; both addresses 16-byte aligned) from global memory into this CTA's
// shared memory; the barrier's transaction count drops by the bytes as they land.
__device__ __forceinline__ void bulkCopyToShared(void* dst, const void* src, unsigned bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(sharedAddress(dst)), "l"(src), "r"(bytes), "r"(sharedAddress(bar))
               : "memory");
}

// Thread level: this thread's partial over its vectors of the block's tiles, read from the ring,
// then the elements outside whole vectors (plain loads). The trace's lane detail is the first
// tile's shared read; the step's totals count every bulk copy (and the plain loads).
template <class Op, class TIn, class TAcc, class Trace>
__device__ __forceinline__ TAcc bulkThreadSum(const TIn* __restrict__ in, size_t n, Trace& tr) {
  using Vec = typename Vec16<TIn>::type;
  constexpr int kWidth = 16 / sizeof(TIn);
  constexpr int kMaxStages = 4;
  __shared__ uint64_t stageFull[kMaxStages];  // one barrier per stage
  const int stages = bulkStages(int(blockDim.x));
  const size_t B = blockDim.x;
  // Bulk copies need 16-byte aligned addresses: the elements before the first boundary (none for
  // cudaMalloc's input) are the head, read with plain loads as the tail is.
  const size_t misaligned = (16 - reinterpret_cast<uintptr_t>(in) % 16) % 16;
  const size_t head = misaligned / sizeof(TIn) < n ? misaligned / sizeof(TIn) : n;
  const Vec* vin = reinterpret_cast<const Vec*>(in + head);
  const size_t numVecs = (n - head) / kWidth;
  const size_t numTiles = (numVecs + B - 1) / B;
  const size_t myTiles = blockIdx.x < numTiles ? (numTiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  Vec* ring = reinterpret_cast<Vec*>(reinterpret_cast<unsigned char*>(sharedArray<TAcc>()) + kBulkRingOffset);

  // Thread 0: tile k of this block into stage k % stages.
  auto issue = [&](size_t k) {
    const size_t j = blockIdx.x + k * gridDim.x;
    const size_t vecs = numVecs - j * B < B ? numVecs - j * B : B;
    const unsigned bytes = unsigned(vecs * 16);
    uint64_t* bar = &stageFull[k % stages];
    mbarrierArriveExpectTx(bar, bytes);
    bulkCopyToShared(ring + (k % stages) * B, vin + j * B, bytes, bar);
    tr.bulkCopy(vin + j * B, bytes);
  };

  const SlotInfo shared16{kSpaceShared, kLoad, 16, 0};
  tr.step(kStepGridStride, kWidth, shared16);
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) mbarrierInit(&stageFull[s], 1);
    fenceAsyncProxy();
  }
  __syncthreads();  // the barriers exist before anyone waits on them
  if (threadIdx.x == 0)
    for (size_t k = 0; k < myTiles && k < size_t(stages); ++k) issue(k);  // fill the ring

  TAcc acc = Op::template identity<TAcc>();
  uint32_t iterations = 0;
  for (size_t k = 0; k < myTiles; ++k) {
    const size_t s = k % stages;
    while (!mbarrierTryWait(&stageFull[s], unsigned(k / stages) & 1u)) {
    }
    const size_t j = blockIdx.x + k * gridDim.x;
    if (j * B + threadIdx.x < numVecs) {  // the last tile may be short
      acc = combineVec<Op>(acc, tr.loadShared(0, ring + s * B + threadIdx.x));
      ++iterations;
    }
    __syncthreads();  // every thread has read stage s: it may be refilled
    if (threadIdx.x == 0 && k + stages < myTiles) {
      fenceAsyncProxy();  // the reads above ordered before the copy engine's writes
      issue(k + stages);
    }
  }
  const size_t first = size_t(blockIdx.x) * B + threadIdx.x;
  if (first < head) acc = Op()(acc, TAcc(tr.loadGlobal(-1, in + first)));
  const size_t tail = head + numVecs * kWidth + first;  // the last (n - head) % kWidth elements
  if (tail < n) acc = Op()(acc, TAcc(tr.loadGlobal(-1, in + tail)));
  tr.iterations(iterations);
  tr.lane(acc);
  return acc;
}

// scratch: `gridDim.x` partials followed by an unsigned counter that starts (and ends) at 0.
template <class Op, class TIn, class TAcc, class Trace>
__global__ void k14BulkCopy(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                            TAcc* __restrict__ partials, unsigned* counter, Trace tr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no bulk copies before Hopper (the engine refuses k14 there)
#else
  tr.begin(sharedArray<TAcc>(), in, n, size_t(blockIdx.x) * blockDim.x * (16 / sizeof(TIn)), sizeof(TIn),
           sizeof(TAcc));
  TAcc v = bulkThreadSum<Op, TIn, TAcc>(in, n, tr);
  v = blockReduce<Op>(v, tr);
  if constexpr (!Trace::enabled) {
    if (gridDim.x == 1) {  // one CTA: its result is the result, no ticket
      if (threadIdx.x == 0) *out = v;
      return;
    }
  }
  lastBlockFinish<Op>(v, out, partials, counter, tr);
#endif
}

}  // namespace rl::kernels
