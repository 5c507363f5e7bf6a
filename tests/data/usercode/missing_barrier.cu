// Harris's kernel 3 with the __syncthreads() inside the loop removed (the exercise: find the
// missing barrier). Each level reads what the level before wrote, by threads of other warps,
// with nothing ordering the two: the result depends on how the warps happen to be scheduled.
// `reducelab check` names the race from one traced launch (the hazard check).
// @reducelab ops: sum
// @reducelab types: int32
__global__ void reduceNoBarrier(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
