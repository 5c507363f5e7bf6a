// Exercise: Harris's kernel 3 with one line missing. Each level of the tree reads what the level
// before wrote, often by threads of other warps. Press Check: the hazard check names a read and a
// write of the same shared word in one barrier phase. Put the missing line back.
// Goal: every case passes and the hazard check finds nothing.
// @reducelab ops: sum
// @reducelab types: int32, float32
__global__ void reduceSequential(const T* in, T* out, unsigned int n) {
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
