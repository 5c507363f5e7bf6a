// Kernel 6: completely unrolled, the block size a template parameter. Harris's kernel 6.
// Instantiated for every block size 32..1024: the compiler removes the levels that do not exist,
// and every loop counter and its branch disappear. The last warp uses the correct
// (__syncwarp) form of kernel 5. At 32 threads lanes 16..31 read past the block's 32 values:
// the launch gives such blocks 64 values of shared memory (as Harris does), filled with the
// identity; what those lanes compute never reaches lane 0.
#pragma once
#include "k05_unroll_last_warp.cuh"

namespace rl::kernels {

// One tree level of `BlockSize` threads at stride S, with the barrier after it.
template <unsigned BlockSize, unsigned S, class Op, class TAcc, class Trace>
__device__ __forceinline__ void unrolledLevel(TAcc* sdata, unsigned tid, Trace& tr) {
  if constexpr (BlockSize >= 2 * S && S >= 64) {
    tr.step(kStepTreeLevel, S, sharedLoad<TAcc>(), sharedLoad<TAcc>(), sharedStore<TAcc>());
    if (tid < S) {
      const TAcc a = tr.loadShared(0, &sdata[tid]);
      const TAcc b = tr.loadShared(1, &sdata[tid + S]);
      tr.storeShared(2, &sdata[tid], Op()(a, b));
      tr.lane(Op()(a, b));
    }
    __syncthreads();
  }
}

// The block's tree, fully unrolled: result in sdata[0].
template <unsigned BlockSize, class Op, class TAcc, class Trace>
__device__ __forceinline__ void blockReduceUnrolled(TAcc* sdata, unsigned tid, Trace& tr) {
  if constexpr (BlockSize == 32) {  // lanes 16..31 read sdata[32..47]: give them defined values
    sdata[tid + 32] = Op::template identity<TAcc>();
    __syncwarp();
  }
  unrolledLevel<BlockSize, 512, Op>(sdata, tid, tr);
  unrolledLevel<BlockSize, 256, Op>(sdata, tid, tr);
  unrolledLevel<BlockSize, 128, Op>(sdata, tid, tr);
  unrolledLevel<BlockSize, 64, Op>(sdata, tid, tr);
  if (tid < 32) {
    TAcc v = Op::template identity<TAcc>();  // the first stage reads sdata[tid]
    if constexpr (BlockSize >= 64) v = syncwarpStage<32, true, Op>(sdata, v, tid, tr);
    v = syncwarpStage<16, BlockSize == 32, Op>(sdata, v, tid, tr);
    v = syncwarpStage<8, false, Op>(sdata, v, tid, tr);
    v = syncwarpStage<4, false, Op>(sdata, v, tid, tr);
    v = syncwarpStage<2, false, Op>(sdata, v, tid, tr);
    v = syncwarpStage<1, false, Op>(sdata, v, tid, tr);
  }
}

template <unsigned BlockSize, class Op, class TIn, class TAcc, class Trace>
__global__ void __launch_bounds__(BlockSize)
    k6CompleteUnroll(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n, Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  TAcc* sdata = sharedArray<TAcc>();
  const unsigned tid = threadIdx.x;
  tr.begin(sdata, in, n, size_t(blockIdx.x) * BlockSize * 2, sizeof(TIn), sizeof(TAcc));
  loadPairToShared<Op>(in, sdata, n, tr);
  blockReduceUnrolled<BlockSize, Op>(sdata, tid, tr);

  writeBlockResult(sdata, out, tr);
  tr.end();
}

}  // namespace rl::kernels
