// Starter: a copy of catalogue kernel k3, sequential addressing (Harris's kernel 3), written for
// `reducelab check` (docs/your-kernel.md).
// Idea: the stride halves each level (s = block / 2 ... 1) and the first s threads add the
// element s away: the active threads stay contiguous (whole warps idle, no divergence) and a
// warp reads consecutive words (no bank conflicts).
// Try: half the threads are idle from the first level on: let each thread add two elements
// while loading (k4), then unroll the last warp (k5s).
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
// @reducelab blocks: 32, 64, 128, 256, 512, 1024
__global__ void reduceSequential(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  // The block size must be a power of two: every level halves it exactly.
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
