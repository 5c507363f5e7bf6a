// Reduction operators and their identities, shared by every kernel.
#pragma once
#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cstdint>

#include "reducelab/reduce_ops.hpp"

namespace rl::kernels {

using rl::MaxOp;
using rl::MinOp;
using rl::SumOp;

// Element at index i, or the identity past the end (so any N works with any block size).
template <class Op, class TAcc, class TIn>
__device__ __forceinline__ TAcc loadOrIdentity(const TIn* in, size_t i, size_t n) {
  return i < n ? TAcc(in[i]) : Op::template identity<TAcc>();
}

// Programmatic dependent launch (sm_90): a later pass of a GPU final may be launched while the
// previous pass still runs; it waits here until that grid has completed and its writes are
// visible, then lets its own dependent start launching. Without the launch attribute both are
// no-ops, so every pass of every kernel calls it first.
__device__ __forceinline__ void waitForPreviousGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// ---- atomics for the single-pass kernel (k11) ----
__device__ inline void atomicCombine(SumOp, int32_t* p, int32_t v) { atomicAdd(p, v); }
__device__ inline void atomicCombine(SumOp, int64_t* p, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), (unsigned long long)v);
}
__device__ inline void atomicCombine(SumOp, float* p, float v) { atomicAdd(p, v); }
__device__ inline void atomicCombine(SumOp, double* p, double v) { atomicAdd(p, v); }
__device__ inline void atomicCombine(MinOp, int32_t* p, int32_t v) { atomicMin(p, v); }
__device__ inline void atomicCombine(MinOp, int64_t* p, int64_t v) {
  atomicMin(reinterpret_cast<long long*>(p), (long long)v);
}
__device__ inline void atomicCombine(MaxOp, int32_t* p, int32_t v) { atomicMax(p, v); }
__device__ inline void atomicCombine(MaxOp, int64_t* p, int64_t v) {
  atomicMax(reinterpret_cast<long long*>(p), (long long)v);
}
// No native float min/max atomics: compare-and-swap on the bit pattern.
template <class Op, class T, class Bits>
__device__ inline void atomicCombineCas(T* p, T v) {
  Bits* bp = reinterpret_cast<Bits*>(p);
  Bits old = *bp, assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    T next = Op()(cur, v);
    if (next == cur) return;
    Bits nb;
    memcpy(&nb, &next, sizeof(T));
    old = atomicCAS(bp, assumed, nb);
  } while (old != assumed);
}
__device__ inline void atomicCombine(MinOp, float* p, float v) {
  atomicCombineCas<MinOp, float, unsigned int>(p, v);
}
__device__ inline void atomicCombine(MaxOp, float* p, float v) {
  atomicCombineCas<MaxOp, float, unsigned int>(p, v);
}
__device__ inline void atomicCombine(MinOp, double* p, double v) {
  atomicCombineCas<MinOp, double, unsigned long long>(p, v);
}
__device__ inline void atomicCombine(MaxOp, double* p, double v) {
  atomicCombineCas<MaxOp, double, unsigned long long>(p, v);
}

// Shared memory of the reduction, typed as the accumulator (dynamic size = blockDim.x).
template <class T>
__device__ __forceinline__ T* sharedArray() {
  extern __shared__ __align__(16) unsigned char rl_shared_bytes[];
  return reinterpret_cast<T*>(rl_shared_bytes);
}

}  // namespace rl::kernels
