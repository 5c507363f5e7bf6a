// kahan_sum.cu without the compensation: the same loads (8 elements per thread), the same tree,
// the same launch; what Kahan costs and what it buys are measured against this one.
// @reducelab types: float32
// @reducelab ops: sum
// @reducelab blocks: 256
// @reducelab grid: elements-per-thread 8
// @reducelab shared: 2 x block
__global__ void plainSum8(const T* in, T* out, unsigned int n) {
  extern __shared__ T shared[];
  T* hi = shared;  // the second half is unused: the shared memory of kahan_sum.cu, for a like-for-like launch
  const unsigned int tid = threadIdx.x;
  const unsigned int first = blockIdx.x * blockDim.x * 8 + tid;
  T sum = 0;
  for (unsigned int k = 0; k < 8; ++k) {
    const unsigned int i = first + k * blockDim.x;
    if (i < n) sum = sum + in[i];
  }
  hi[tid] = sum;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) hi[tid] = hi[tid] + hi[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = hi[0];
}
