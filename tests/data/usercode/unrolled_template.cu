// Complete unrolling (the idea of Harris's kernel 6): the block size is a template parameter, so
// every level of the tree is known when the kernel is compiled; two elements per thread.
// ReduceLab builds one instance per claimed block size: reduceUnrolled<128>, <256>, <512>.
// @reducelab template: BLOCK
// @reducelab blocks: 128, 256, 512
// @reducelab grid: elements-per-thread 2
// @reducelab ops: sum, max
// @reducelab types: int32, float32
template <unsigned int blockSize>
__global__ void reduceUnrolled(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + tid;
  T v = Op::identity();
  if (i < n) v = in[i];
  if (i + blockSize < n) v = Op()(v, in[i + blockSize]);
  sdata[tid] = v;
  __syncthreads();
  if (blockSize >= 512) { if (tid < 256) sdata[tid] = v = Op()(v, sdata[tid + 256]); __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) sdata[tid] = v = Op()(v, sdata[tid + 128]); __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) sdata[tid] = v = Op()(v, sdata[tid + 64]); __syncthreads(); }
  if (tid < 32) {
    // The last warp: at each step lane t < offset takes what lane t + offset held after the last.
    for (unsigned int offset = 32; offset > 0; offset >>= 1) {
      v = Op()(v, sdata[tid + offset]);
      __syncwarp();
      sdata[tid] = v;
      __syncwarp();
    }
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
