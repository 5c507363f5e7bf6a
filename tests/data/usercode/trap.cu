// Stops itself with __trap() (as a failed check inside a kernel would).
// @reducelab types: int32
// @reducelab blocks: 256
__global__ void reduceTrap(const T* in, T* out, unsigned int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) __trap();
  if (threadIdx.x == 0) out[blockIdx.x] = n > 0 ? in[0] : T(0);
}
