// Starter: a copy of catalogue kernel k8, the warp-shuffle reduction, written for
// `reducelab check` (docs/your-kernel.md).
// Idea: k7's grid-stride loop, then the lanes of a warp exchange registers with
// __shfl_down_sync instead of going through shared memory; shared memory holds one value per
// warp, which warp 0 reduces the same way. For 32-bit integers on sm_80 and later one
// __reduce_*_sync instruction reduces the whole warp.
// Try: drop the __reduce_*_sync branch (int32 then shuffles too) and compare the registers
// (`reducelab compile`) and the kernel_ms of `reducelab check --format json`; give the loop four
// elements per iteration.
// @reducelab grid: fixed 1024
// @reducelab shared: warps
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
// @reducelab blocks: 32, 64, 128, 256, 512, 1024

// Lane 0 ends with the warp's result. Every lane of the warp must call it (the full mask).
__device__ T warpReduce(T v) {
#if TYPE_INT32 && __CUDA_ARCH__ >= 800
#if OP_SUM
  return __reduce_add_sync(0xffffffffu, v);
#elif OP_MIN
  return __reduce_min_sync(0xffffffffu, v);
#else
  return __reduce_max_sync(0xffffffffu, v);
#endif
#else
  for (int offset = 16; offset > 0; offset >>= 1) v = Op()(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
#endif
}

// Thread 0 ends with the block's result; the block is whole warps (a multiple of 32 threads).
__device__ T blockReduce(T v, T* warpValues) {
  unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warpReduce(v);
  if (lane == 0) warpValues[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warpValues[lane] : Op::identity();
    v = warpReduce(v);
  }
  return v;
}

__global__ void reduceWarpShuffle(const T* in, T* out, size_t n) {
  extern __shared__ T warpValues[];
  size_t stride = size_t(gridDim.x) * blockDim.x * 2;
  T v = Op::identity();
  for (size_t i = size_t(blockIdx.x) * blockDim.x * 2 + threadIdx.x; i < n; i += stride) {
    v = Op()(v, in[i]);
    if (i + blockDim.x < n) v = Op()(v, in[i + blockDim.x]);
  }
  v = blockReduce(v, warpValues);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
