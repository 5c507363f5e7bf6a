// Device patch functions for the Compute Sanitizer patching API (instrumented.hpp). The driver
// calls them before each patched instruction of the armed launch, in every thread of every block;
// they record the traced block's events into the launch's buffer (userdata: a RawBufferHeader
// followed by RawAccess records; null for launches that are not traced).
// Built into a fatbin with `nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch`
// (kernels/instrumented/CMakeLists.txt) and embedded in the binary.
#include <sanitizer_patching.h>

#include "reducelab/instrumented_format.hpp"

using namespace rl::instrumented;

namespace {

// trace::AccessKind, without including trace_format.hpp into a tools patch.
constexpr uint8_t kLoad = 1, kStore = 2, kAtomic = 3;

__device__ __forceinline__ uint32_t linearThreadIndex() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ uint32_t linearBlockIndex() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

// One record of the traced block. A thread's records are numbered by its own counter (only it
// writes it); the buffer slot comes from the shared count, which keeps counting past the
// capacity so the host sees how much was lost.
__device__ __forceinline__ void record(void* userdata, uint64_t pc, uint8_t space, uint8_t access, uint64_t address,
                                       uint32_t bytes, const void* stored, uint64_t extra = 0) {
  RawBufferHeader* h = static_cast<RawBufferHeader*>(userdata);
  if (!h || linearBlockIndex() != h->tracedBlock) return;
  const uint32_t thread = linearThreadIndex();
  const uint32_t sequence = thread < kRawMaxThreads ? h->sequence[thread]++ : 0;
  const uint32_t slot = atomicAdd(&h->attempted, 1u);
  if (slot >= h->capacity) return;
  RawAccess r;
  r.pc = pc;
  r.address = address;
  r.value = extra;
  r.thread = thread;
  r.sequence = sequence;
  r.bytes = bytes;
  r.space = space;
  r.access = access;
  r.flags = 0;
  r.reserved = 0;
  if (stored && !(h->options & kRawOptionNoStoreValues)) {  // the bytes a store writes, as the API hands them over
    const uint8_t* p = static_cast<const uint8_t*>(stored);
    uint64_t v = 0;
    for (uint32_t k = 0; k < bytes && k < 8; ++k) v |= uint64_t(p[k]) << (8 * k);
    r.value = v;
    r.flags = kRawValueKnown;
  }
  reinterpret_cast<RawAccess*>(h + 1)[slot] = r;
}

// A memory access: a prefetch is no access; a write whose data the API withholds is an atomic
// (sanitizer_patching.h: "If the access is an atomic, the pointer will be NULL"), as is a
// read-and-write; for reads pData is a byte mask, not data.
__device__ __forceinline__ void memoryAccess(void* userdata, uint64_t pc, uint8_t space, void* ptr, uint32_t bytes,
                                             uint32_t flags, const void* pData) {
  if (flags & SANITIZER_MEMORY_DEVICE_FLAG_PREFETCH) return;
  const bool read = flags & SANITIZER_MEMORY_DEVICE_FLAG_READ, write = flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE;
  const bool atomic = (read && write) || (flags & SANITIZER_MEMORY_DEVICE_FLAG_ATOMSYS) || (write && !pData);
  const uint8_t access = atomic ? kAtomic : write ? kStore : kLoad;
  record(userdata, pc, space, access, reinterpret_cast<uint64_t>(ptr), bytes, access == kStore ? pData : nullptr);
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
  record(userdata, pc, kRawBarrier, 0, barIndex, threadCount, nullptr, flags);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_syncwarp(void* userdata, uint64_t pc, uint32_t mask) {
  record(userdata, pc, kRawSyncWarp, 0, mask, 0, nullptr);
  return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_shfl(void* userdata, uint64_t pc) {
  record(userdata, pc, kRawShuffle, 0, 0, 0, nullptr);
  return SANITIZER_PATCH_SUCCESS;
}

// cp.async.bulk global -> shared: data bits 0-15 are the 16-byte blocks copied; the shared
// destination goes into `value`.
extern "C" __device__ __noinline__ SanitizerPatchResult rl_patch_bulk_copy(void* userdata, uint64_t pc, uint64_t src,
                                                                           uint32_t dst, uint32_t barrier,
                                                                           uint32_t data, uint32_t isMulticast) {
  (void)barrier;
  (void)isMulticast;
  record(userdata, pc, kRawBulkCopy, kLoad, src, (data & 0xffffu) * 16u, nullptr, dst);
  return SANITIZER_PATCH_SUCCESS;
}
