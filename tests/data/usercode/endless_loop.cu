// A kernel that never returns: it waits for its input to change, which nothing does. The
// watchdog must stop it, say so, and the next check must work.
// @reducelab types: int32
// @reducelab blocks: 256
__global__ void spin(const T* in, T* out, unsigned int n) {
  volatile const T* p = in;
  const T first = p[0];
  while (p[0] == first) {
  }
  out[blockIdx.x] = first;
}
