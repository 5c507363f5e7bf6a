// Starter: a copy of catalogue kernel k6, complete unrolling (Harris's kernel 6), written for
// `reducelab check` (docs/your-kernel.md).
// Idea: the block size is a template parameter, so every level of the tree is known when the
// kernel is compiled: the levels that do not exist and every loop counter disappear. ReduceLab
// builds one instance per claimed block size (reduceCompleteUnroll<64>, <128>, ...). Two
// elements per thread on load; the last warp is k5s's, with __syncwarp().
// Try: `reducelab compile k6.cu` shows the registers of each instance; compare them with k5s.
// Block 32 is not claimed: its last warp would read sdata[32..47], past the block's 32 values
// (the catalogue gives such blocks 64 values of shared memory).
// @reducelab template: BLOCK
// @reducelab grid: elements-per-thread 2
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
// @reducelab blocks: 64, 128, 256, 512, 1024
template <unsigned int blockSize>
__global__ void __launch_bounds__(blockSize) reduceCompleteUnroll(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  T a = i < n ? in[i] : Op::identity();
  T b = i + blockSize < n ? in[i + blockSize] : Op::identity();
  sdata[tid] = Op()(a, b);
  __syncthreads();
  // Each `if (blockSize >= ...)` is decided by the compiler: no level costs a test at run time.
  if (blockSize >= 1024) { if (tid < 512) sdata[tid] = Op()(sdata[tid], sdata[tid + 512]); __syncthreads(); }
  if (blockSize >= 512) { if (tid < 256) sdata[tid] = Op()(sdata[tid], sdata[tid + 256]); __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) sdata[tid] = Op()(sdata[tid], sdata[tid + 128]); __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) sdata[tid] = Op()(sdata[tid], sdata[tid + 64]); __syncthreads(); }
  if (tid < 32) {
    T v = sdata[tid];
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
