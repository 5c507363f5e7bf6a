// How Hopper serves one warp's shared-memory load, measured: for each pattern (an access width of
// 4, 8 or 16 bytes and each lane's byte offset, -1 for an inactive lane) one launch of one warp
// executes exactly one LDS of that width. Run under Nsight Compute (scripts/bank_probe.py), the
// instruction-level wavefront counter of each launch is what the hardware needed for that pattern,
// which the model in kernels/core/trace_analysis.cpp must reproduce. Usage: bank_probe < patterns
#include <cstdio>
#include <cuda_runtime.h>

template <int Width>
__global__ void probeLoad(const int* offsets, unsigned* out) {
  __shared__ __align__(16) unsigned char buffer[16384];
  const int lane = int(threadIdx.x);
  const int off = offsets[lane];
  unsigned v = 0;
  if (off >= 0) {
    const unsigned addr = unsigned(__cvta_generic_to_shared(buffer + off));
    if constexpr (Width == 4) {
      asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr));
    } else if constexpr (Width == 8) {
      unsigned a, b;
      asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(addr));
      v = a ^ b;
    } else {
      unsigned a, b, c, d;
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
      v = a ^ b ^ c ^ d;
    }
  }
  out[lane] = v;
}

int main() {
  int* offsets;
  unsigned* out;
  cudaMalloc(&offsets, 32 * sizeof(int));
  cudaMalloc(&out, 32 * sizeof(unsigned));
  int width, host[32], count = 0;
  while (std::scanf("%d", &width) == 1) {
    for (int& o : host)
      if (std::scanf("%d", &o) != 1) return 2;
    cudaMemcpy(offsets, host, sizeof host, cudaMemcpyHostToDevice);
    if (width == 4) probeLoad<4><<<1, 32>>>(offsets, out);
    else if (width == 8) probeLoad<8><<<1, 32>>>(offsets, out);
    else probeLoad<16><<<1, 32>>>(offsets, out);
    if (cudaDeviceSynchronize() != cudaSuccess) return 3;
    ++count;
  }
  std::fprintf(stderr, "bank_probe: %d patterns\n", count);
  return 0;
}
