// Exercise: Harris's kernel 5 as printed in 2007. The last 32 threads finish the tree without a
// barrier, through a volatile pointer, trusting that the 32 lanes of a warp run in lockstep. Since
// Volta they need not. Press Check: the hazard check warns about each unrolled stage. Make every
// stage safe without going back to __syncthreads() (the catalogue's k5s shows one way).
// Goal: every case passes and the hazard check finds nothing.
// @reducelab ops: sum
// @reducelab types: int32, float32
// @reducelab blocks: 128, 256, 512
__global__ void reduceLastWarp(const T* in, T* out, unsigned int n) {
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
