// Seed 002's shared memory for one array, used for two. Its practicum keeps A and B side by side in
// one dynamic shared array, `s_A = &sdata[0], *s_B = &sdata[blockDim.x]`, but launches with
// `smemSize = threadsPerBlock.x*sizeof(float)`: room for s_A only. It never checks an error, so a
// launch that fails returns at once, and its times came out impossibly flat across block sizes.
// Here the same staging in a sum (each block's first half of elements in s_A, its second in s_B),
// launched as the seed launches: one float per thread of dynamic shared memory (ReduceLab's
// default). Press Check: what does each launch do, and what would checking the error have said?
// Solution: shared memory for both arrays, 2 x block x sizeof(float) bytes (the seed's smemSize
// doubled), said to ReduceLab by `shared: 2 x block`.
// @reducelab shared: 2 x block
// @reducelab ops: sum
// @reducelab types: float32
// @reducelab grid: elements-per-thread 2
__global__ void sumTwoArrays(const float* in, float* out, unsigned int n) {
  extern __shared__ float sdata[];
  float *s_A = &sdata[0],
        *s_B = &sdata[blockDim.x];
  unsigned int tid = threadIdx.x;
  unsigned int first = blockIdx.x * 2 * blockDim.x + tid;
  unsigned int second = first + blockDim.x;
  s_A[tid] = first < n ? in[first] : 0.0f;
  s_B[tid] = second < n ? in[second] : 0.0f;
  __syncthreads();
  s_A[tid] += s_B[tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) s_A[tid] += s_A[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s_A[0];
}
