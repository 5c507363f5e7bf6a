// Starter: a copy of catalogue kernel k1, interleaved addressing with a divergent branch
// (Harris's kernel 1), written for `reducelab check` (docs/your-kernel.md).
// Idea: each block loads one element per thread into shared memory, then at stride s = 1, 2, 4 ...
// the threads whose index is a multiple of 2s add the element s away. `tid % (2 * s)` leaves
// most lanes of every warp idle (divergence), and % is a slow instruction.
// Try: replace the branch with the strided index of k2 (`index = 2 * s * tid`), or the
// sequential addressing of k3; `reducelab bench --kernel k1,k2,k3` times the catalogue's three.
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
// @reducelab blocks: 32, 64, 128, 256, 512, 1024
__global__ void reduceInterleavedDivergent(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : Op::identity();  // past the end: the identity changes nothing
  __syncthreads();
  // The block size must be a power of two: sdata[tid + s] stays inside the block.
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
    __syncthreads();  // every level reads what the previous one wrote
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
