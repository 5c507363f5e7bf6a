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
  smem[tid] = Op()(TAcc(smem[tid]), TAcc(smem[tid + offset]));
  tr.step(kStepWarpSync, offset, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
  tr.lane(TAcc(smem[tid]), tr.shared((const void*)&smem[tid]), tr.shared((const void*)&smem[tid + offset]), tr.shared((const void*)&smem[tid]));
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k5UnrollLastWarpVolatile(const TIn* __restrict__ in, TAcc* __restrict__ out,
                                         size_t n, Trace tr) {
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
  v = Op()(v, sdata[tid + Offset]);
  __syncwarp();
  sdata[tid] = v;
  __syncwarp();
  if constexpr (First) {  // the first stage also read sdata[tid] into v
    tr.step(kStepWarpSync, Offset, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
    tr.lane(v, tr.shared(&sdata[tid]), tr.shared(&sdata[tid + Offset]), tr.shared(&sdata[tid]));
  } else {
    tr.step(kStepWarpSync, Offset, sharedLoad<TAcc>(), sharedStore<TAcc>());
    tr.lane(v, tr.shared(&sdata[tid + Offset]), tr.shared(&sdata[tid]));
  }
  return v;
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k5UnrollLastWarpSync(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                                     Trace tr) {
  TAcc* sdata = sharedArray<TAcc>();
  const unsigned tid = threadIdx.x;
  tr.begin(sdata, in, n, size_t(blockIdx.x) * blockDim.x * 2, sizeof(TIn), sizeof(TAcc));
  loadPairToShared<Op>(in, sdata, n, tr);
  sequentialTree<Op>(sdata, tr, 64);  // down to 64 values: the last 64 are left to warp 0

  if (tid < 32) {
    TAcc v = sdata[tid];
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
