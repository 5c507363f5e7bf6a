// Kernel 10: 16-byte vector loads with several independent loads in flight per thread.
// Each thread issues kLoadsInFlight 16-byte loads (float4 / int4 / double2 / longlong2) before
// using any of them, so each SM keeps many bytes in flight and DRAM stays busy; fewer load
// instructions move the same bytes. The block then reduces as kernel 8. The elements past the
// last whole vector are summed with scalar loads.
#pragma once
#include "k08_warp_shuffle.cuh"

namespace rl::kernels {

constexpr int kLoadsInFlight = 4;

template <class T> struct Vec16;
template <> struct Vec16<int32_t> { using type = int4; };
template <> struct Vec16<int64_t> { using type = longlong2; };
template <> struct Vec16<float> { using type = float4; };
template <> struct Vec16<double> { using type = double2; };

template <class Op, class TAcc>
__device__ __forceinline__ TAcc combineVec(TAcc acc, int4 v) {
  return Op()(Op()(Op()(Op()(acc, TAcc(v.x)), TAcc(v.y)), TAcc(v.z)), TAcc(v.w));
}
template <class Op, class TAcc>
__device__ __forceinline__ TAcc combineVec(TAcc acc, float4 v) {
  return Op()(Op()(Op()(Op()(acc, TAcc(v.x)), TAcc(v.y)), TAcc(v.z)), TAcc(v.w));
}
template <class Op, class TAcc>
__device__ __forceinline__ TAcc combineVec(TAcc acc, longlong2 v) {
  return Op()(Op()(acc, TAcc(v.x)), TAcc(v.y));
}
template <class Op, class TAcc>
__device__ __forceinline__ TAcc combineVec(TAcc acc, double2 v) {
  return Op()(Op()(acc, TAcc(v.x)), TAcc(v.y));
}

// Thread level: this thread's partial over its vectors (grid-stride, kLoadsInFlight at a time)
// and over the scalar tail. `in` must be 16-byte aligned (cudaMalloc gives 256).
template <class Op, class TIn, class TAcc, class Trace>
__device__ __forceinline__ TAcc vectorThreadSum(const TIn* __restrict__ in, size_t n, Trace& tr) {
  using Vec = typename Vec16<TIn>::type;
  constexpr int kWidth = 16 / sizeof(TIn);
  const Vec* vin = reinterpret_cast<const Vec*>(in);
  const size_t numVecs = n / kWidth;
  const size_t first = size_t(blockIdx.x) * blockDim.x * kLoadsInFlight + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x * kLoadsInFlight;

  // The trace's lane detail is the first iteration's; its totals count every iteration's loads
  // (and the scalar tail's, which has no slot of its own).
  const SlotInfo vec16{kSpaceGlobal, kLoad, 16, 0};
  tr.step(kStepGridStride, kWidth, vec16, vec16, vec16, vec16);
  TAcc acc = Op::template identity<TAcc>();
  uint32_t iterations = 0;
  for (size_t base = first; base < numVecs; base += stride, ++iterations) {
    Vec r[kLoadsInFlight];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) {  // all loads issued before any is used
      const size_t j = base + size_t(u) * blockDim.x;
      if (j < numVecs) r[u] = tr.loadGlobal(u, vin + j);
    }
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u)
      if (base + size_t(u) * blockDim.x < numVecs) acc = combineVec<Op>(acc, r[u]);
  }
  // The last n % kWidth elements (fewer than one vector), one per thread.
  const size_t tail = numVecs * kWidth + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tail < n) acc = Op()(acc, TAcc(tr.loadGlobal(-1, in + tail)));

  tr.iterations(iterations);
  tr.lane(acc);
  return acc;
}

// Block level: the block's sum of its vectors, in thread 0. Used by k10, k11, k12.
template <class Op, class TIn, class TAcc, class Trace>
__device__ __forceinline__ TAcc vectorBlockSum(const TIn* __restrict__ in, size_t n, Trace& tr) {
  tr.begin(sharedArray<TAcc>(), in, n, size_t(blockIdx.x) * blockDim.x * kLoadsInFlight * (16 / sizeof(TIn)),
           sizeof(TIn), sizeof(TAcc));
  TAcc v = vectorThreadSum<Op, TIn, TAcc>(in, n, tr);
  return blockReduce<Op>(v, tr);
}

template <class Op, class TIn, class TAcc, class Trace>
__global__ void k10VectorLoads(const TIn* __restrict__ in, TAcc* __restrict__ out, size_t n,
                               Trace tr) {
  waitForPreviousGrid();  // a second pass launched early waits for the first here
  const TAcc v = vectorBlockSum<Op, TIn, TAcc>(in, n, tr);
  storeBlockResult(v, out, tr);
  tr.end();
}

}  // namespace rl::kernels
