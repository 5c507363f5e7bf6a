// A barrier inside a branch that not every thread takes (the exercise of seed 001's slides:
// `if (tid < s) { ...; __syncthreads(); }`). __syncthreads() must be reached by every thread of
// the block: here thread 0 reaches it once per level, the upper half of the block never. The GPU
// may hang or go on with threads at different barriers and a wrong sum; `reducelab check` says
// which (the watchdog or the battery) and the hazard check names the divergent barrier.
// @reducelab ops: sum
// @reducelab types: int32
__global__ void reduceBarrierInBranch(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
      __syncthreads();
    }
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
