// Starter: a copy of catalogue kernel k11, one launch with an atomic final combine, written for
// `reducelab check` (docs/your-kernel.md).
// Idea: k10's loads and block reduction, then thread 0 of each block combines the block's result
// into out[0] with one atomic (ReduceLab sets out[0] to the identity before the launch): no
// second launch, no partials. Float sums are then not the same bits every run: the blocks finish
// in a different order each time and float addition is not associative.
// Atomics: atomicAdd exists for int, unsigned long long (int64's two's-complement sum wraps the
// same way), float and double; atomicMin / atomicMax for int and long long. Floats have no min or
// max atomic: a compare-and-swap loop on their bits does it.
// Try: `reducelab check k11.cu --type float32 --op sum` twice with the same --seed and compare
// the sums; or make the result deterministic with a last-block finish (k12).
// @reducelab grid: fixed 1024
// @reducelab shared: warps
// @reducelab final: atomic
// @reducelab ops: sum, min, max
// @reducelab types: int32, int64, float32, float64
// @reducelab blocks: 32, 64, 128, 256, 512, 1024

// 16-byte vectors: four 32-bit or two 64-bit elements in one load instruction.
#if TYPE_INT32
typedef int4 Vec;
#elif TYPE_INT64
typedef longlong2 Vec;
#elif TYPE_FLOAT32
typedef float4 Vec;
#else
typedef double2 Vec;
#endif
#if TYPE_INT32 || TYPE_FLOAT32
__device__ T combineVec(T acc, Vec v) { return Op()(Op()(Op()(Op()(acc, v.x), v.y), v.z), v.w); }
#else
__device__ T combineVec(T acc, Vec v) { return Op()(Op()(acc, v.x), v.y); }
#endif
const int kElementsPerVec = sizeof(Vec) / sizeof(T);
const int kLoadsInFlight = 4;

// This thread's partial: its vectors, kLoadsInFlight loads issued before any is used, striding
// by the grid; then the elements outside whole vectors, one by one.
__device__ T threadSum(const T* in, size_t n) {
  // A vector load needs a 16-byte aligned address. The first launch's input is (cudaMalloc's);
  // a later launch reads the previous one's partials, which need not be: the elements before
  // the first 16-byte boundary (the head) and after the last whole vector (the tail) are read
  // one at a time.
  size_t bytesToBoundary = (16 - reinterpret_cast<unsigned long long>(in) % 16) % 16;
  size_t head = bytesToBoundary / sizeof(T) < n ? bytesToBoundary / sizeof(T) : n;
  const Vec* vin = reinterpret_cast<const Vec*>(in + head);
  size_t numVecs = (n - head) / kElementsPerVec;
  size_t first = size_t(blockIdx.x) * blockDim.x * kLoadsInFlight + threadIdx.x;
  size_t stride = size_t(gridDim.x) * blockDim.x * kLoadsInFlight;
  T acc = Op::identity();
  for (size_t base = first; base < numVecs; base += stride) {
    Vec r[kLoadsInFlight];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) {  // all loads issued before any is used
      size_t j = base + size_t(u) * blockDim.x;
      if (j < numVecs) r[u] = vin[j];
    }
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u)
      if (base + size_t(u) * blockDim.x < numVecs) acc = combineVec(acc, r[u]);
  }
  size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;  // head and tail: fewer than 4 each
  if (t < head) acc = Op()(acc, in[t]);
  size_t tail = head + numVecs * kElementsPerVec + t;
  if (tail < n) acc = Op()(acc, in[tail]);
  return acc;
}

// Lane 0 ends with the warp's result (k8's). Every lane of the warp must call it.
__device__ T warpReduce(T v) {
#if TYPE_INT32 && __CUDA_ARCH__ >= 800
#if OP_SUM
  return __reduce_add_sync(0xffffffffu, v);
#elif OP_MIN
  return __reduce_min_sync(0xffffffffu, v);
#else
  return __reduce_max_sync(0xffffffffu, v);
#endif
#else
  for (int offset = 16; offset > 0; offset >>= 1) v = Op()(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
#endif
}

// Thread 0 ends with the block's result; the block is whole warps (a multiple of 32 threads).
__device__ T blockReduce(T v, T* warpValues) {
  unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warpReduce(v);
  if (lane == 0) warpValues[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warpValues[lane] : Op::identity();
    v = warpReduce(v);
  }
  return v;
}

// *out = Op()(*out, v), atomically.
__device__ void atomicCombine(T* out, T v) {
#if OP_SUM && TYPE_INT64
  atomicAdd(reinterpret_cast<unsigned long long*>(out), (unsigned long long)v);
#elif OP_SUM
  atomicAdd(out, v);
#elif TYPE_INT32 || TYPE_INT64
#if OP_MIN
  atomicMin(out, v);
#else
  atomicMax(out, v);
#endif
#else  // float min / max: retry until no other block changed *out between the read and the swap
#if TYPE_FLOAT32
  unsigned int* bits = reinterpret_cast<unsigned int*>(out);
  unsigned int old = *bits, assumed;
  do {
    assumed = old;
    T next = Op()(__uint_as_float(assumed), v);
    if (next == __uint_as_float(assumed)) return;  // v changes nothing
    old = atomicCAS(bits, assumed, __float_as_uint(next));
  } while (old != assumed);
#else
  unsigned long long* bits = reinterpret_cast<unsigned long long*>(out);
  unsigned long long old = *bits, assumed;
  do {
    assumed = old;
    T next = Op()(__longlong_as_double((long long)assumed), v);
    if (next == __longlong_as_double((long long)assumed)) return;
    old = atomicCAS(bits, assumed, (unsigned long long)__double_as_longlong(next));
  } while (old != assumed);
#endif
#endif
}

__global__ void reduceAtomicFinal(const T* in, T* out, size_t n) {
  extern __shared__ T warpValues[];
  T v = blockReduce(threadSum(in, n), warpValues);
  if (threadIdx.x == 0) atomicCombine(out, v);
}
