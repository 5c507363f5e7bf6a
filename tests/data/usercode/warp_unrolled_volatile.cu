// Harris's kernel 5 as printed in 2007: the last warp unrolled through a volatile pointer, with no
// __syncwarp(). Correct while a warp's 32 lanes run in lockstep; since Volta they need not, so
// each stage may read what another lane has not written yet. The hazard check reports it as a
// warning (the result is usually right on today's GPUs; __syncwarp() between the stages fixes it).
// @reducelab ops: sum
// @reducelab types: int32
// @reducelab blocks: 128, 256
__global__ void reduceVolatileWarp(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid < 32) {
    volatile T* v = sdata;
    v[tid] = Op()(v[tid], v[tid + 32]);
    v[tid] = Op()(v[tid], v[tid + 16]);
    v[tid] = Op()(v[tid], v[tid + 8]);
    v[tid] = Op()(v[tid], v[tid + 4]);
    v[tid] = Op()(v[tid], v[tid + 2]);
    v[tid] = Op()(v[tid], v[tid + 1]);
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
