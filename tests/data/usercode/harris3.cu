// Harris's kernel 3 (sequential addressing) as a student writes it for ReduceLab's contract
// (docs/your-kernel.md): T and Op come from ReduceLab's prelude, the launch is the default one
// (one output per block, block x sizeof(T) bytes of dynamic shared memory, passes until one value).
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
__global__ void reduce3(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  // The active threads stay contiguous: each level halves the stride.
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
