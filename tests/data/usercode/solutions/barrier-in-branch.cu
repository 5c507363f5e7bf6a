// Exercise (seed 001's slides): a __syncthreads() inside a branch that only some threads take.
// Every thread of the block must reach the same barrier; here the upper half of the block never
// does. Press Check: the GPU may hang (the watchdog stops it) or finish with a wrong sum. Move the
// barrier to where every thread reaches it.
// Goal: every case passes and the hazard check finds nothing.
// @reducelab ops: sum
// @reducelab types: int32, float32
__global__ void reduceBarrierInBranch(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
