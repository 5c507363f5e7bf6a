// Starter: a copy of catalogue kernel k2, interleaved addressing with a strided index (Harris's
// kernel 2), written for `reducelab check` (docs/your-kernel.md).
// Idea: as k1, but consecutive threads do the work (thread t combines the pair at 2 * s * t), so
// whole warps finish together instead of diverging. The lanes of a warp now touch words 2s apart
// in shared memory: the same bank, many ways (bank conflicts).
// Try: `reducelab trace --kernel-file k2.cu` and look at the conflicts per level; then switch to
// k3's sequential addressing (`tid < s` adds `tid + s`) and trace it again.
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
// @reducelab blocks: 32, 64, 128, 256, 512, 1024
__global__ void reduceInterleavedStrided(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  // The block size must be a power of two: index + s stays inside the block.
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    unsigned int index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] = Op()(sdata[index], sdata[index + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
