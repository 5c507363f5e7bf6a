// Exercise: Harris's kernel 4 (the first add during the load) as the slides print it. It halves
// the blocks by having each thread add two elements as it loads them, and it was written for an N
// that is a multiple of twice the block. Press Check: N = 1, 31, 33 and block + 1 fail. Make it
// right for any N without giving up the two elements per thread.
// Goal: every case passes.
// @reducelab ops: sum
// @reducelab types: int32, float32
// @reducelab grid: elements-per-thread 2
__global__ void reduceFirstAdd(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T sum = i < n ? in[i] : T(0);
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
