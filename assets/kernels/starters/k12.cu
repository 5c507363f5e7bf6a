// Starter: a copy of catalogue kernel k12, one launch with a last-block finish, written for
// `reducelab check` (docs/your-kernel.md). Deterministic: the same bits every run.
// Idea: k10's loads and block reduction; each block stores its partial, then takes a ticket from
// a counter. __threadfence() before the ticket makes the partial visible to every block first;
// the block that draws the last ticket combines all partials in a fixed order and writes out[0].
// The partials and the counter are module variables (`__device__`): the fixed grid of at most
// kMaxBlocks blocks bounds the partials, and the last block puts the counter back to 0 for the
// next launch. Under the contract this is `final: atomic` (one launch, the result in out[0]).
// Try: remove a __threadfence() and think about what the last block may then read; compare its
// kernel_ms (`reducelab check --format json`) with k11's, and the float sums' bits run to run.
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

const unsigned int kMaxBlocks = 1024;  // the grid's G above
__device__ T blockPartials[kMaxBlocks];
__device__ unsigned int blocksDone = 0;  // 0 when the module loads; the last block resets it

__global__ void reduceLastBlock(const T* in, T* out, size_t n) {
  extern __shared__ T warpValues[];
  __shared__ bool amLast;
  T v = blockReduce(threadSum(in, n), warpValues);
  if (blockIdx.x >= kMaxBlocks) __trap();  // a larger grid would write past blockPartials
  if (threadIdx.x == 0) {
    blockPartials[blockIdx.x] = v;
    __threadfence();  // the partial reaches every block before the ticket does
    unsigned int ticket = atomicAdd(&blocksDone, 1u);
    amLast = ticket == gridDim.x - 1;
    if (amLast) __threadfence();  // and the last block sees every partial after its ticket
  }
  __syncthreads();  // amLast for the whole block; warpValues free again
  if (!amLast) return;
  T w = Op::identity();
  for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockDim.x)
    w = Op()(w, __ldcg(&blockPartials[i]));  // from L2, where the other SMs' stores went
  w = blockReduce(w, warpValues);
  if (threadIdx.x == 0) {
    out[0] = w;
    blocksDone = 0;  // ready for the next launch (which starts after this one ends)
  }
}
