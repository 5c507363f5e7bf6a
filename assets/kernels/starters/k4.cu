// Starter: a copy of catalogue kernel k4, first add during the global load (Harris's kernel 4),
// written for `reducelab check` (docs/your-kernel.md).
// Idea: each thread loads two elements a block apart and combines them before the tree, so a
// block covers 2 x block elements, half as many blocks run, and no thread is idle at the first
// level. The tree is k3's sequential addressing.
// Try: load four elements per thread (`grid: elements-per-thread 4`), or unroll the last warp
// (k5s).
// @reducelab grid: elements-per-thread 2
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
// @reducelab blocks: 32, 64, 128, 256, 512, 1024
__global__ void reduceFirstAddDuringLoad(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T a = i < n ? in[i] : Op::identity();
  T b = i + blockDim.x < n ? in[i + blockDim.x] : Op::identity();
  sdata[tid] = Op()(a, b);
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
