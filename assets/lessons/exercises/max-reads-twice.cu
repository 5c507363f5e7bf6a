// Exercise (seed 002): the maximum, two elements per thread, as the practicum's solution wrote it.
// Press Check: some cases fail. Which ones, and what do their inputs have in common? Find the line
// that makes a thread never look at one of its two elements, and fix it.
// Goal: every case of the check passes.
// @reducelab ops: max
// @reducelab types: int32, float32
// @reducelab grid: elements-per-thread 2
__global__ void maxTwoPerThread(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int second = gridDim.x * blockDim.x + i;
  T first = i < n ? in[i] : Op::identity();
  T other = second < n ? in[i] : Op::identity();
  sdata[tid] = Op()(first, other);
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
