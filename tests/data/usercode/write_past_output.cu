// Harris's kernel 3 whose last block also writes out[gridDim.x]: one element past its output.
// The sum stays right (the next launch reads only n partials); the guard zone names the write.
// @reducelab types: int32
// @reducelab blocks: 256
__global__ void reduceOverrun(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) {
    out[blockIdx.x] = sdata[0];
    if (blockIdx.x == gridDim.x - 1) out[gridDim.x] = sdata[0];  // the bug
  }
}
