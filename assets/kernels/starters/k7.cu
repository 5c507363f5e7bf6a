// Starter: a copy of catalogue kernel k7, many elements per thread with a grid-stride loop
// (Harris's kernel 7), written for `reducelab check` (docs/your-kernel.md).
// Idea: a fixed grid of about one wave of blocks; each thread first combines many elements in a
// register (pairs a block apart, striding by the whole grid), then the block reduces as k6 does.
// Few blocks, so the tree and the partials cost little next to the loads.
// Try: change the grid (`grid: fixed G`: the SMs x blocks per SM of your GPU is one wave), or
// replace the shared-memory tree by warp shuffles (k8).
// @reducelab template: BLOCK
// @reducelab grid: fixed 1024
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
// @reducelab blocks: 64, 128, 256, 512, 1024
template <unsigned int blockSize>
__global__ void __launch_bounds__(blockSize) reduceGridStride(const T* in, T* out, size_t n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  size_t gridSize = size_t(blockSize) * 2 * gridDim.x;
  T v = Op::identity();
  for (size_t i = size_t(blockIdx.x) * (blockSize * 2) + tid; i < n; i += gridSize) {
    v = Op()(v, in[i]);
    if (i + blockSize < n) v = Op()(v, in[i + blockSize]);
  }
  sdata[tid] = v;
  __syncthreads();
  if (blockSize >= 1024) { if (tid < 512) sdata[tid] = Op()(sdata[tid], sdata[tid + 512]); __syncthreads(); }
  if (blockSize >= 512) { if (tid < 256) sdata[tid] = Op()(sdata[tid], sdata[tid + 256]); __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) sdata[tid] = Op()(sdata[tid], sdata[tid + 128]); __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) sdata[tid] = Op()(sdata[tid], sdata[tid + 64]); __syncthreads(); }
  if (tid < 32) {
    v = sdata[tid];
#pragma unroll
    for (unsigned int offset = 32; offset > 0; offset >>= 1) {
      v = Op()(v, sdata[tid + offset]);
      __syncwarp();
      sdata[tid] = v;
      __syncwarp();
    }
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
