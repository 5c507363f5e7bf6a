// Kernel 5: unroll the last warp. Harris's kernel 5; the UPC lecture's Kernel06.
// Two forms: the historical warp-synchronous code (volatile, no barrier), kept for teaching and
// UNSAFE since Volta's independent thread scheduling (lanes of a warp may run out of step), and
// a correct form that orders the last warp's stages with __syncwarp(). Both need >= 64 threads.
#pragma once
#include "k04_first_add_during_load.cuh"

namespace rl::kernels {

// One stage of the historical code: `smem[tid] += smem[tid + offset]` through a volatile pointer.
template <class Op, class TAcc, class Trace>
__device__ __forceinline__ void volatileStage(volatile TAcc* smem, unsigned tid, unsigned offset,
                                              Trace& tr) {
  tr.step(kStepWarpSync, offset, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
  const TAcc a = tr.loadShared(0, &smem[tid]);
  const TAcc b = tr.loadShared(1, &smem[tid + offset]);
  tr.storeShared(2, &smem[tid], Op()(a, b));
  tr.lane(Op()(a, b));
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k5UnrollLastWarpVolatile(const TIn* __restrict__ in, TAcc* __restrict__ out,
                                         size_t n, Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  TAcc* sdata = sharedArray<TAcc>();
  const unsigned tid = threadIdx.x;
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x * 2, sizeof(TIn), sizeof(TAcc));
  loadPairToShared<Op>(in, sdata, n, tr);
  sequentialTree<Op>(sdata, tr, 64);  // down to 64 values: the last 64 are left to warp 0

  // Historical: the 32 lanes of warp 0 were assumed to run in lockstep, so no barrier between
  // stages; `volatile` only stops the compiler from caching values in registers. Since Volta a
  // warp's lanes are scheduled independently and this is a data race (racecheck reports it).
  if (tid < 32) {
    volatile TAcc* smem = sdata;
    volatileStage<Op>(smem, tid, 32, tr);
    volatileStage<Op>(smem, tid, 16, tr);
    volatileStage<Op>(smem, tid, 8, tr);
    volatileStage<Op>(smem, tid, 4, tr);
    volatileStage<Op>(smem, tid, 2, tr);
    volatileStage<Op>(smem, tid, 1, tr);
  }

  writeBlockResult(sdata, out, tr);
  tr.end();
}

// The correct last warp: read, __syncwarp (all reads done), write, __syncwarp (all writes
// visible). Lanes that cannot contribute still run each stage, as in the historical code.
template <unsigned Offset, bool First, class Op, class TAcc, class Trace>
__device__ __forceinline__ TAcc syncwarpStage(TAcc* sdata, TAcc v, unsigned tid, Trace& tr) {
  // The first stage also reads sdata[tid] into v (slot 0); later stages have v in a register.
  constexpr int kPartner = First ? 1 : 0, kStore = First ? 2 : 1;
  if constexpr (First) {
    tr.step(kStepWarpSync, Offset, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
    v = tr.loadShared(0, &sdata[tid]);
  } else {
    tr.step(kStepWarpSync, Offset, sharedLoad<TAcc>(), sharedStore<TAcc>());
  }
  v = Op()(v, tr.loadShared(kPartner, &sdata[tid + Offset]));
  __syncwarp();
  tr.storeShared(kStore, &sdata[tid], v);
  __syncwarp();
  tr.lane(v);
  return v;
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k5UnrollLastWarpSync(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                                     Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  TAcc* sdata = sharedArray<TAcc>();
  const unsigned tid = threadIdx.x;
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x * 2, sizeof(TIn), sizeof(TAcc));
  loadPairToShared<Op>(in, sdata, n, tr);
  sequentialTree<Op>(sdata, tr, 64);  // down to 64 values: the last 64 are left to warp 0

  if (tid < 32) {
    TAcc v = Op::template identity<TAcc>();  // the first stage reads sdata[tid]
    v = syncwarpStage<32, true, Op>(sdata, v, tid, tr);
    v = syncwarpStage<16, false, Op>(sdata, v, tid, tr);
    v = syncwarpStage<8, false, Op>(sdata, v, tid, tr);
    v = syncwarpStage<4, false, Op>(sdata, v, tid, tr);
    v = syncwarpStage<2, false, Op>(sdata, v, tid, tr);
    v = syncwarpStage<1, false, Op>(sdata, v, tid, tr);
  }

  writeBlockResult(sdata, out, tr);
  tr.end();
}

}  // namespace rl::kernels
