// A kernel written as a template on its element type and operation, as the kernels of ReduceLab
// itself are: ReduceLab instantiates reduceTemplated<T, Op>. Its n is 64-bit.
// @reducelab ops: sum, min
// @reducelab types: int64, float64
template <class V, class Combine>
__global__ void reduceTemplated(const V* in, V* out, unsigned long long n) {
  extern __shared__ unsigned char raw[];
  V* sdata = reinterpret_cast<V*>(raw);
  unsigned int tid = threadIdx.x;
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : Combine::identity();
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = Combine()(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
