// Kernel 8: warp-shuffle reduction. Beyond Harris: lanes exchange registers with
// __shfl_down_sync instead of going through shared memory; shared memory only holds one value
// per warp; the grid-stride loop is kernel 7's. For 32-bit integers on GPUs that have it (sm_80+), one __reduce_*_sync instruction
// reduces the whole warp.
#pragma once
#include <type_traits>

#include "reduce_ops.cuh"
#include "tracer.cuh"

namespace rl::kernels {

constexpr unsigned kFullMask = 0xffffffffu;

// Warp level: lane 0 ends with the warp's result.
template <class Op, class TAcc>
constexpr bool kHasRedux = sizeof(TAcc) == 4 && std::is_integral_v<TAcc>;

template <class Op, class TAcc, class Trace>
__device__ __forceinline__ TAcc warpReduce(TAcc v, Trace& tr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kHasRedux<Op, TAcc>) {  // one instruction for the whole warp
    if constexpr (std::is_same_v<Op, SumOp>) v = __reduce_add_sync(kFullMask, v);
    if constexpr (std::is_same_v<Op, MinOp>) v = __reduce_min_sync(kFullMask, v);
    if constexpr (std::is_same_v<Op, MaxOp>) v = __reduce_max_sync(kFullMask, v);
    tr.step(kStepWarpReduce, 32);
    tr.lane(v);
  } else
#endif
  {
    for (int offset = 16; offset > 0; offset /= 2) {
      tr.step(kStepShuffle, offset, shuffleSlot(sizeof(TAcc)));
      v = Op()(v, tr.shuffleDown(0, v, offset));
      tr.lane(v);
    }
  }
  return v;
}

// Block level: each warp reduces, lane 0 of each warp stores its partial in shared memory,
// warp 0 reduces the partials. Thread 0 ends with the block's result.
template <class Op, class TAcc, class Trace>
__device__ __forceinline__ TAcc blockReduce(TAcc v, Trace& tr) {
  TAcc* warpSums = sharedArray<TAcc>();  // 32 values
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned numWarps = (blockDim.x + 31) / 32;
  v = warpReduce<Op>(v, tr);
  tr.step(kStepWarpStore, 0, sharedStore<TAcc>());
  if (lane == 0) {
    tr.storeShared(0, &warpSums[warp], v);
    tr.lane(v);
  }
  __syncthreads();
  if (warp == 0) {
    tr.step(kStepWarpLoad, 0, sharedLoad<TAcc>());
    v = lane < numWarps ? tr.loadShared(0, &warpSums[lane]) : Op::template identity<TAcc>();
    tr.lane(v);
    v = warpReduce<Op>(v, tr);
  }
  return v;
}

// Thread level, kernel 7's loop: two elements blockDim apart per iteration, striding by the
// grid. Used by k8 and k9.
template <class Op, class TIn, class TAcc, class Trace>
__device__ __forceinline__ TAcc pairGridStrideSum(const TIn* __restrict__ in, size_t n, Trace& tr) {
  const size_t first = size_t(blockIdx.x) * blockDim.x * 2 + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x * 2;
  // The trace's lane detail is the first iteration's; its totals count every iteration's loads.
  tr.step(kStepGridStride, 2, globalLoad<TIn>(), globalLoad<TIn>());
  TAcc v = Op::template identity<TAcc>();
  uint32_t iterations = 0;
  for (size_t i = first; i < n; i += stride, ++iterations) {
    v = Op()(v, TAcc(tr.loadGlobal(0, in + i)));
    if (i + blockDim.x < n) v = Op()(v, TAcc(tr.loadGlobal(1, in + i + blockDim.x)));
  }
  tr.iterations(iterations);
  tr.lane(v);
  return v;
}

// Thread 0 holds the block's result in a register: store it to out[blockIdx.x]. Used by k8-k10, k12.
template <class TAcc, class Trace>
__device__ __forceinline__ void storeBlockResult(TAcc v, TAcc* out, Trace& tr) {
  tr.step(kStepBlockResult, 0, globalStore<TAcc>());
  if (threadIdx.x == 0) {
    tr.storeOutput(0, out, blockIdx.x, v);
    tr.lane(v);
  }
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k8WarpShuffle(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                              Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  tr.begin(sharedArray<TAcc>(), in, n, size_t(blockIdx.x) * blockDim.x * 2, sizeof(TIn), sizeof(TAcc));
  TAcc v = pairGridStrideSum<Op, TIn, TAcc>(in, n, tr);
  v = blockReduce<Op>(v, tr);  // shuffles instead of the shared-memory tree
  storeBlockResult(v, out, tr);
  tr.end();
}

}  // namespace rl::kernels
