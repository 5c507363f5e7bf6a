// Seed 002's maximum with two elements per thread, and its mistake: the second element is read
// as in[i] again instead of in[second], so the upper half of each launch's input is never seen.
// The check must fail exactly the cases whose maximum lies there.
// @reducelab ops: max
// @reducelab types: float32
// @reducelab grid: elements-per-thread 2
__global__ void maxTwoPerThread(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int second = gridDim.x * blockDim.x + i;
  T first = i < n ? in[i] : Op::identity();
  T other = second < n ? in[i] : Op::identity();  // the bug: in[i], not in[second]
  sdata[tid] = Op()(first, other);
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
