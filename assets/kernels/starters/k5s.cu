// Starter: a copy of catalogue kernel k5s, the unrolled last warp in its correct form (Harris's
// kernel 5 with __syncwarp), written for `reducelab check` (docs/your-kernel.md). The catalogue's
// k5 is Harris's 2007 code, which relied on `volatile` and on the 32 lanes of a warp running in
// step: since Volta they need not, and that form is a race.
// Idea: k4's load and tree down to 64 values; then warp 0 alone finishes without
// __syncthreads(): at each stage every lane reads its partner, __syncwarp() (all reads done),
// writes, __syncwarp() (all writes seen).
// Try: remove the two __syncwarp() calls and run `reducelab check`: the hazard check warns of a
// warp-synchronous race even when every sum is right.
// @reducelab grid: elements-per-thread 2
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
// @reducelab blocks: 64, 128, 256, 512, 1024
__global__ void reduceUnrollLastWarp(const T* in, T* out, unsigned int n) {
  extern __shared__ T sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T a = i < n ? in[i] : Op::identity();
  T b = i + blockDim.x < n ? in[i + blockDim.x] : Op::identity();
  sdata[tid] = Op()(a, b);
  __syncthreads();
  // The tree down to 64 values (so the block needs at least 64 threads).
  for (unsigned int s = blockDim.x / 2; s >= 64; s >>= 1) {
    if (tid < s) sdata[tid] = Op()(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid < 32) {
    T v = sdata[tid];
    for (unsigned int offset = 32; offset > 0; offset >>= 1) {
      v = Op()(v, sdata[tid + offset]);
      __syncwarp();  // every lane has read before any lane overwrites
      sdata[tid] = v;
      __syncwarp();  // every write is seen by the next stage's reads
    }
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
