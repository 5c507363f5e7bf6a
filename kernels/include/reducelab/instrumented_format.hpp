#pragma once
// The raw records of an instrumented trace: what the Compute Sanitizer patches
// (kernels/instrumented/patches.cu) write for every access, barrier and shuffle of the traced
// block of an unmodified kernel, one record per thread and event. Plain structs shared by the
// device patches and the host (instrumented_trace.hpp turns them into a trace::TraceData).
#include <cstdint>

namespace rl::instrumented {

// What a record is. Shared addresses are offsets in the block's shared window, as the API gives
// them (sm_80+ reserve its first 1 KiB); global ones are virtual addresses.
enum RawSpace : uint8_t {
  kRawGlobal = 1,        // a global load, store or atomic
  kRawShared = 2,        // a shared-memory load, store or atomic of this block
  kRawLocal = 3,         // local memory (spills, stack arrays)
  kRawBarrier = 4,       // a thread arrived at a block barrier (__syncthreads, bar.sync)
  kRawShuffle = 5,       // a shfl instruction (the API gives no lane or value)
  kRawSyncWarp = 6,      // __syncwarp (address: its mask)
  kRawBulkCopy = 7,      // cp.async.bulk global -> shared (address: the source, bytes: its size)
  kRawRemoteShared = 8,  // another block's shared memory (distributed shared memory of a cluster)
  kRawLastSpace = kRawRemoteShared,
};

// RawBufferHeader::options.
constexpr uint32_t kRawOptionNoStoreValues = 1;  // never read a store's data (pData): values unknown

// RawAccess::flags.
constexpr uint8_t kRawValueKnown = 1;  // `value` holds the first (up to 8) bytes a store wrote

struct RawAccess {  // 40 bytes
  uint64_t pc;        // the instruction: absolute PC as the device writes it; an offset from the
                      // launched function's start once the host has read it back
  uint64_t address;   // global: virtual address; shared, local: offset in the window; barrier:
                      // barrier index; syncwarp: mask; bulk copy: source address
  uint64_t value;     // stores (kRawValueKnown): the bytes written, little-endian, zero-extended
  uint32_t thread;    // linear thread index in the block (x fastest)
  uint32_t sequence;  // this thread's record number: 0, 1, 2 ... in the order it executed
  uint32_t bytes;     // access size (1..16); bulk copy: bytes copied; barrier: threads expected
  uint8_t space;      // RawSpace
  uint8_t access;     // trace::AccessKind (kLoad, kStore, kAtomic) for memory records, else 0
  uint8_t flags;
  uint8_t reserved;
};
static_assert(sizeof(RawAccess) == 40);

constexpr uint32_t kRawMaxThreads = 1024;

// The device buffer of one traced launch: this header, then `capacity` records, cut into one
// region of `perThread` records for each thread of the block (thread t's records are slots
// t * perThread ...). The host writes tracedBlock, capacity, options and perThread (everything else
// zero); each thread of the traced block counts its own records in count[t], past its region's end
// when it overflows (the host sees how much was lost). No atomics: a thread only reads and writes
// its own counter, so the patches need no branch (patches.cu says why that matters).
struct RawBufferHeader {
  uint32_t tracedBlock;  // linear block index: x + gridDim.x * (y + gridDim.y * z)
  uint32_t capacity;     // records the buffer holds
  uint32_t perThread;    // records of each thread's region (capacity / the block's threads)
  uint32_t options;      // kRawOption* bits
  uint32_t threads;      // threads that have a region: min(block threads, capacity / perThread)
  uint32_t reserved[11];
  uint32_t count[kRawMaxThreads];  // each thread's records so far (only it writes its own)
};
static_assert(sizeof(RawBufferHeader) % 64 == 0);

constexpr uint64_t rawBufferBytes(uint32_t capacity) {
  return sizeof(RawBufferHeader) + uint64_t(capacity) * sizeof(RawAccess);
}

}  // namespace rl::instrumented
