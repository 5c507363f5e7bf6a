// Harris's kernel 3 claiming 256 KiB of dynamic shared memory per block: more than any GPU gives
// one block (227 KiB on sm_90), so the launch must be refused with that reason.
// @reducelab types: int32
// @reducelab blocks: 256
// @reducelab shared: 262144 bytes
__global__ void reduceGreedy(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
