// A grid-stride kernel with a fixed grid: each thread folds its elements, warps combine with
// shuffles, one value per warp in shared memory; the CPU adds the 1024 partials (final: cpu).
// @reducelab grid: fixed 1024
// @reducelab final: cpu
// @reducelab shared: warps
// @reducelab blocks: 128, 256, 1024
// @reducelab ops: sum, max
// @reducelab types: float32, int64
__global__ void gridStride(const T* in, T* out, unsigned int n) {
  extern __shared__ T warpValues[];
  T v = Op::identity();
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v = Op()(v, in[i]);
  for (int offset = 16; offset > 0; offset >>= 1) v = Op()(v, __shfl_down_sync(0xffffffffu, v, offset));
  const unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warpValues[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warpValues[lane] : Op::identity();
    for (int offset = 16; offset > 0; offset >>= 1) v = Op()(v, __shfl_down_sync(0xffffffffu, v, offset));
    if (lane == 0) out[blockIdx.x] = v;
  }
}
