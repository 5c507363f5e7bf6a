// One launch whose blocks combine into out[0] with atomicMax (final: atomic: ReduceLab writes the
// identity there first), and `output: zeroed` as well: the zeroing must come before the identity,
// or a maximum of all-negative data would come out 0.
// @reducelab final: atomic
// @reducelab output: zeroed
// @reducelab ops: max
// @reducelab types: int32
// @reducelab blocks: 256, 512
__global__ void atomicMaxZeroed(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = max(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) atomicMax(out, sdata[0]);
}
