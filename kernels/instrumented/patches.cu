// Device patch functions for the Compute Sanitizer patching API (instrumented.hpp). The driver
// calls them before each patched instruction of the armed launch, in every thread of every block;
// they record the traced block's events into the launch's buffer (userdata: a RawBufferHeader
// followed by RawAccess records; null for launches that are not traced).
// Built into a fatbin with `nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch`
// (kernels/instrumented/CMakeLists.txt) and embedded in the binary.
#include <sanitizer_patching.h>

#include <cstddef>

#include "reducelab/instrumented_format.hpp"

using namespace rl::instrumented;

static_assert(offsetof(RawBufferHeader, count) == 64 && offsetof(RawBufferHeader, threads) == 16 &&
              offsetof(RawBufferHeader, perThread) == 8 && offsetof(RawBufferHeader, options) == 12);

namespace {

// trace::AccessKind, without including trace_format.hpp into a tools patch.
constexpr uint8_t kLoad = 1, kStore = 2, kAtomic = 3;

__device__ __forceinline__ uint32_t linearThreadIndex() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ uint32_t linearBlockIndex() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

// One record of the traced block, written without a single branch: every load and store below is
// predicated (inline PTX; no atomics, which ptxas would branch around), so the patch never
// diverges and never takes a convergence barrier (BSSY/BSYNC) or a stack frame. Patches run in the
// middle of the instrumented kernel, between any two of its instructions, with the kernel's
// convergence barriers and registers live: the first version (branches, B0/B1 convergence
// barriers, a stack frame, a global atomic per record) faulted the patched launches of k12-k14
// (docs/instrumented-traces.md, "k12, k13 and k14"). A thread writes its records into its own
// region of the buffer, numbered by its own counter (program order); `skip` (a prefetch) records
// nothing.
__device__ __forceinline__ void record(void* userdata, bool skip, uint64_t pc, uint8_t space, uint8_t access,
                                       uint64_t address, uint32_t bytes, const void* stored, uint64_t extra = 0) {
  const uint32_t thread = linearThreadIndex();
  uint32_t n, options, perThread, covered;
  uint64_t base;
  asm volatile(
      "{\n\t"
      ".reg .pred valid, mine;\n\t"
      ".reg .u32 traced;\n\t"
      ".reg .u64 counter;\n\t"
      "setp.ne.u64 valid, %5, 0;\n\t"
      "cvta.to.global.u64 %3, %5;\n\t"
      "mov.u32 traced, 0xffffffff;\n\t"
      "@valid ld.global.u32 traced, [%3];\n\t"
      "setp.eq.and.u32 mine, traced, %6, valid;\n\t"
      "setp.eq.and.u32 mine, %8, 0, mine;\n\t"
      "mov.u32 %0, 0xffffffff;\n\t"
      "mov.u32 %1, 0;\n\t"
      "mov.u32 %2, 0;\n\t"
      "mov.u32 %4, 0;\n\t"
      "mul.wide.u32 counter, %7, 4;\n\t"
      "add.u64 counter, counter, %3;\n\t"
      "@mine ld.global.u32 %0, [counter+64];\n\t"
      "@mine ld.global.u32 %1, [%3+12];\n\t"
      "@mine ld.global.u32 %2, [%3+8];\n\t"
      "@mine ld.global.u32 %4, [%3+16];\n\t"
      "}"
      : "=r"(n), "=r"(options), "=r"(perThread), "=l"(base), "=r"(covered)
      : "l"(reinterpret_cast<uint64_t>(userdata)), "r"(linearBlockIndex()),
        "r"(thread), "r"(uint32_t(skip))
      : "memory");
  // Bitwise and arithmetic only below, no && / || / ?: on conditions: no branch even in the PTX.
  const uint32_t mine = n != 0xffffffffu;
  const uint32_t room = mine & uint32_t(n < perThread) & uint32_t(thread < covered);
  // The bytes a store writes, as the API hands them over (up to 8, little-endian): eight predicated
  // byte loads, each only where the record is written and the byte exists.
  const uint32_t readBytes = room * uint32_t(stored != nullptr) * uint32_t((options & kRawOptionNoStoreValues) == 0) *
                             min(bytes, 8u);
  uint64_t bits = 0;
#pragma unroll
  for (uint32_t k = 0; k < 8; ++k) {  // one predicated load at a time: few registers, no spill
    uint32_t byte;
    asm volatile(
        "{\n\t"
        ".reg .pred p;\n\t"
        "mov.u32 %0, 0;\n\t"
        "setp.gt.u32 p, %2, %3;\n\t"
        "@p ld.u8 %0, [%1];\n\t"
        "}"
        : "=r"(byte)
        : "l"(reinterpret_cast<uint64_t>(stored) + k), "r"(readBytes), "r"(k)
        : "memory");
    bits |= uint64_t(byte) << (8 * k);
  }
  const uint64_t known = readBytes != 0;
  const uint64_t value = known * bits + (1 - known) * extra;
  // RawAccess as five 8-byte words: pc, address, value, thread | sequence << 32,
  // bytes | space << 32 | access << 40 | flags << 48; then the thread's counter, past its region
  // too (the overflow is measured).
  const uint64_t w3 = uint64_t(thread) | uint64_t(n) << 32;
  const uint64_t w4 = uint64_t(bytes) | uint64_t(space) << 32 | uint64_t(access) << 40 |
                      (known * kRawValueKnown) << 48;
  const uint64_t at = base + sizeof(RawBufferHeader) + (uint64_t(thread) * perThread + n) * sizeof(RawAccess);
  asm volatile(
      "{\n\t"
      ".reg .pred p, q;\n\t"
      "setp.ne.u32 q, %0, 0;\n\t"
      "setp.ne.u32 p, %1, 0;\n\t"
      "@p st.global.u64 [%2], %3;\n\t"
      "@p st.global.u64 [%2+8], %4;\n\t"
      "@p st.global.u64 [%2+16], %5;\n\t"
      "@p st.global.u64 [%2+24], %6;\n\t"
      "@p st.global.u64 [%2+32], %7;\n\t"
      "@q st.global.u32 [%8], %9;\n\t"
      "}" ::"r"(mine), "r"(room), "l"(at), "l"(pc), "l"(address), "l"(value), "l"(w3), "l"(w4),
      "l"(base + offsetof(RawBufferHeader, count) + 4 * uint64_t(thread)), "r"(n + 1)
      : "memory");
}

// A memory access: a prefetch is no access; a write whose data the API withholds is an atomic
// (sanitizer_patching.h: "If the access is an atomic, the pointer will be NULL"), as is a
// read-and-write; for reads pData is a byte mask, not data.
__device__ __forceinline__ void memoryAccess(void* userdata, uint64_t pc, uint8_t space, void* ptr, uint32_t bytes,
                                             uint32_t flags, const void* pData) {
  // Bitwise, not && and ||: no short-circuit branch even in the PTX.
  const uint32_t read = (flags & SANITIZER_MEMORY_DEVICE_FLAG_READ) != 0, write = (flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE) != 0;
  const uint32_t atomic = (read & write) | uint32_t((flags & SANITIZER_MEMORY_DEVICE_FLAG_ATOMSYS) != 0) |
                          (write & uint32_t(pData == nullptr));
  const uint8_t access = uint8_t(atomic * kAtomic + (1 - atomic) * (write * kStore + (1 - write) * kLoad));
  const uint32_t store = (1 - atomic) & write;
  record(userdata, (flags & SANITIZER_MEMORY_DEVICE_FLAG_PREFETCH) != 0, pc, space, access,
         reinterpret_cast<uint64_t>(ptr), bytes, reinterpret_cast<const void*>(reinterpret_cast<uint64_t>(pData) * store));
}

}  // namespace

extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_global(void* userdata, uint64_t pc, void* ptr,
                                                                        uint32_t bytes, uint32_t flags,
                                                                        const void* pData) {
  memoryAccess(userdata, pc, kRawGlobal, ptr, bytes, flags, pData);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_shared(void* userdata, uint64_t pc, void* ptr,
                                                                        uint32_t bytes, uint32_t flags,
                                                                        const void* pData) {
  memoryAccess(userdata, pc, kRawShared, ptr, bytes, flags, pData);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_local(void* userdata, uint64_t pc, void* ptr,
                                                                       uint32_t bytes, uint32_t flags,
                                                                       const void* pData) {
  memoryAccess(userdata, pc, kRawLocal, ptr, bytes, flags, pData);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_remote_shared(void* userdata, uint64_t pc, void* ptr,
                                                                               uint32_t bytes, uint32_t flags,
                                                                               const void* pData) {
  memoryAccess(userdata, pc, kRawRemoteShared, ptr, bytes, flags, pData);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_barrier(void* userdata, uint64_t pc, uint32_t barIndex,
                                                                         uint32_t threadCount, uint32_t flags) {
  record(userdata, false, pc, kRawBarrier, 0, barIndex, threadCount, nullptr, flags);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_syncwarp(void* userdata, uint64_t pc, uint32_t mask) {
  record(userdata, false, pc, kRawSyncWarp, 0, mask, 0, nullptr);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_shfl(void* userdata, uint64_t pc) {
  record(userdata, false, pc, kRawShuffle, 0, 0, 0, nullptr);
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async.bulk global -> shared: data bits 0-15 are the 16-byte blocks copied; the shared
// destination goes into `value`.
extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_bulk_copy(void* userdata, uint64_t pc, uint64_t src,
                                                                           uint32_t dst, uint32_t barrier,
                                                                           uint32_t data, uint32_t isMulticast) {
  (void)barrier;
  (void)isMulticast;
  record(userdata, false, pc, kRawBulkCopy, kLoad, src, (data & 0xffffu) * 16u, nullptr, dst);
  return SANITIZER_PATCH_SUCCESS;
}
