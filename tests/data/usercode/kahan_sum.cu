// Kahan (compensated) summation, to measure what accuracy costs (the precision lesson; seed 000's
// float-vs-double): each thread adds 8 elements with Kahan's running compensation, then the block
// adds its threads' (sum, compensation) pairs with TwoSum, which keeps every addition's rounding
// error instead of dropping it; the next pass does the same on the blocks' results.
// @reducelab types: float32
// @reducelab ops: sum
// @reducelab blocks: 256
// @reducelab grid: elements-per-thread 8
// @reducelab shared: 2 x block
__global__ void kahanSum(const T* in, T* out, unsigned int n) {
  extern __shared__ T shared[];
  T* hi = shared;               // each thread's sum
  T* lo = shared + blockDim.x;  // and what its additions rounded away
  const unsigned int tid = threadIdx.x;
  const unsigned int first = blockIdx.x * blockDim.x * 8 + tid;
  T sum = 0, c = 0;  // Kahan: the running total is sum - c
  for (unsigned int k = 0; k < 8; ++k) {
    const unsigned int i = first + k * blockDim.x;  // a warp reads 32 consecutive elements
    if (i < n) {
      const T y = in[i] - c;
      const T t = sum + y;
      c = (t - sum) - y;
      sum = t;
    }
  }
  hi[tid] = sum;
  lo[tid] = -c;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      const T a = hi[tid], b = hi[tid + stride];
      const T t = a + b;
      const T z = t - a;
      const T err = (a - (t - z)) + (b - z);  // TwoSum: a + b == t + err exactly
      hi[tid] = t;
      lo[tid] = lo[tid] + lo[tid + stride] + err;
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = hi[0] + lo[0];
}
