// Writes its block's result far beyond any allocation: an illegal address.
// @reducelab types: int32
// @reducelab blocks: 256
__global__ void reduceWild(const T* in, T* out, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) out[blockIdx.x + (1ull << 40)] = i < n ? in[i] : T(0);
}
