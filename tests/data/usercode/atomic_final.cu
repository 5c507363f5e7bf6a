// One launch: each block reduces its part in shared memory and adds it to out[0] with an atomic
// (final: atomic; ReduceLab sets out[0] to the identity first).
// @reducelab final: atomic
// @reducelab ops: sum
// @reducelab types: int32, float32
// @reducelab blocks: 256, 512
__global__ void atomicSum(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(out, sdata[0]);
}
