#pragma once
// The two kernels around a timed repetition, shared by the engine (engine.cu) and the worker
// that times a user's kernel (usercode/gpu_runner.cu), so both are timed the same way: the L2
// flushed by reading a buffer, then the stream held until every timed launch is enqueued.
#include <cstdint>

namespace rl::timing {
namespace {  // one copy per translation unit: each links its own device code

// Reads 16-byte vectors, four in flight per thread, and folds them so the loads stay live:
// the measured read ceiling.
__global__ void readStreamKernel(const int4* __restrict__ p, uint64_t nvec, int* sink) {
  int acc = 0;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x * 4;
  for (uint64_t base = blockIdx.x * uint64_t(blockDim.x) * 4 + threadIdx.x; base < nvec; base += stride) {
    int4 r[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const uint64_t j = base + uint64_t(u) * blockDim.x;
      r[u] = j < nvec ? p[j] : make_int4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) acc ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
  }
  if (acc == 0x7fffffff) *sink = acc;  // practically never: keeps the loads
}

// Holds the stream until the host has enqueued the timed work (nvbench's method), so host
// enqueue cost never sits between the start event and the first timed kernel. It spins on a
// host-mapped flag and gives up after `timeoutNs` of %globaltimer, so it can never hang; a
// timeout is reported through *timedOut.
__global__ void blockStreamKernel(const volatile int* release, unsigned long long timeoutNs, volatile int* timedOut) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    if (*release != 0) return;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeoutNs) {
      *timedOut = 1;
      return;
    }
    __nanosleep(500);
  }
}

}  // namespace
}  // namespace rl::timing
