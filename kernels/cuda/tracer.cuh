// Tracing policy. Every kernel is written once and makes its shared and global accesses through
// the tracer (tr.loadShared, tr.storeShared, tr.loadGlobal, tr.storeOutput, tr.atomicOutput,
// tr.shuffleDown). Tracer<false> makes each of them the bare access, inlined (the untraced build
// has no trace code: SASS counts checked by `scripts/gpu-run.sh sass`); Tracer<true> also records
// the access, step by step, into a trace buffer (a mapped GL buffer in the app).
#pragma once
#include <cuda_runtime.h>

#include "reduce_ops.cuh"
#include "reducelab/trace_format.hpp"

namespace rl::kernels {

using namespace rl::trace;

template <class T> __host__ __device__ constexpr SlotInfo sharedLoad() { return {kSpaceShared, kLoad, sizeof(T), 0}; }
template <class T> __host__ __device__ constexpr SlotInfo sharedStore() { return {kSpaceShared, kStore, sizeof(T), 0}; }
template <class T> __host__ __device__ constexpr SlotInfo globalLoad(uint8_t region = kRegionInput) { return {kSpaceGlobal, kLoad, sizeof(T), region}; }
template <class T> __host__ __device__ constexpr SlotInfo globalStore(uint8_t region = kRegionOutput) { return {kSpaceGlobal, kStore, sizeof(T), region}; }
template <class T> __host__ __device__ constexpr SlotInfo globalAtomic() { return {kSpaceGlobal, kAtomic, sizeof(T), kRegionOutput}; }

// Threads and blocks counted linearly (x fastest), so 2-D blocks (the matrix families) trace
// like 1-D ones: thread t = y x blockDim.x + x, warps of 32 consecutive t.
__device__ __forceinline__ unsigned linearThread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
__device__ __forceinline__ unsigned blockThreads() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ __forceinline__ unsigned linearBlock() { return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z); }
__host__ __device__ constexpr SlotInfo shuffleSlot(int bytes) { return {kSpaceShuffle, kLoad, uint8_t(bytes), 0}; }

template <bool Enabled>
class Tracer;

// The accesses a kernel makes go through these members, so each access is recorded where it
// happens. `slot` is the access's slot in the current step (as step() declared it); -1: counted in
// the step's global totals but not in the per-lane detail (k10's scalar tail). Without tracing
// each member is the bare access, inlined.
template <>
class Tracer<false> {
 public:
  static constexpr bool enabled = false;
  __device__ void begin(const void*, const void*, size_t, size_t, unsigned, unsigned) {}
  __device__ void step(uint32_t, int32_t, SlotInfo = {}, SlotInfo = {}, SlotInfo = {}, SlotInfo = {}) {}
  template <class V>
  __device__ void lane(V) {}
  __device__ void iterations(uint32_t) {}
  template <class T> __device__ T loadShared(int, const T* p) { return *p; }
  template <class T> __device__ T loadShared(int, const volatile T* p) { return *p; }
  template <class T> __device__ void storeShared(int, T* p, T v) { *p = v; }
  template <class T> __device__ void storeShared(int, volatile T* p, T v) { *p = v; }
  template <class T> __device__ T loadGlobal(int, const T* p) { return *p; }
  template <class T> __device__ void storeOutput(int, T* out, size_t index, T v) { out[index] = v; }
  template <class T> __device__ void storeGlobal(int, T* p, T v) { *p = v; }
  template <class Op, class T> __device__ void atomicOutput(int, T* out, T v) { atomicCombine(Op(), out, v); }
  template <class T> __device__ T shuffleDown(int, T v, int offset) { return __shfl_down_sync(0xffffffffu, v, offset); }
  __device__ void regions(const void*, const void*, const void*, const void*, unsigned) {}
  __device__ void bulkCopy(const void*, unsigned) {}
  __device__ void pause() {}
  __device__ void resume() {}
  __device__ void end() {}
};

// Records the block `tracedBlock` into `buffer` (laid out as trace_format.hpp says; the caller
// zeroes it first). Thread 0 writes the headers; each lane writes its own records. An access
// records its address in its slot (the first loop iteration's, in a grid-stride loop); lane()
// then writes the lane's record. Every global load also adds to its step's totals (requests,
// sectors, bytes over all iterations), counted per warp-level access as the memory system sees it.
template <>
class Tracer<true> {
 public:
  static constexpr bool enabled = true;
  TraceHeader* buffer = nullptr;
  unsigned tracedBlock = 0;

  __device__ void begin(const void* sharedBase, const void* input, size_t n, size_t firstElem,
                        unsigned elemBytes, unsigned accBytes) {
    mine_ = buffer && linearBlock() == tracedBlock;
    step_ = -1;
    paused_ = false;
    shared_ = static_cast<const char*>(sharedBase);
    global_ = static_cast<const char*>(input) + firstElem * elemBytes;
    base_[kRegionInput] = global_;
    base_[kRegionSecond] = global_;
    base_[kRegionOutput] = nullptr;  // storeOutput records index x size (reductions)
    iterations_ = 1;
    valid_ = 0;
    if (mine_ && linearThread() == 0) {
      buffer->magic = kMagic;
      buffer->version = kVersion;
      buffer->blockSize = blockThreads();
      buffer->tracedBlock = tracedBlock;
      buffer->elemBytes = elemBytes;
      buffer->accBytes = accBytes;
      buffer->gridSize = gridDim.x * gridDim.y * gridDim.z;
      buffer->n = n;
      buffer->globalBase = int64_t(firstElem * elemBytes);
      buffer->blockX = blockDim.x;
      buffer->blockY = blockDim.y * blockDim.z;
      buffer->gridX = gridDim.x;
      buffer->gridY = gridDim.y * gridDim.z;
    }
  }
  // Matrix families: where the second input region (matmul's B) and the output region start,
  // as pointers and as byte offsets from their allocations (the header keeps the offsets), and
  // the tile side. Call after begin().
  __device__ void regions(const void* second, const void* secondAllocation, const void* output,
                          const void* outputAllocation, unsigned tile) {
    base_[kRegionSecond] = static_cast<const char*>(second);
    base_[kRegionOutput] = static_cast<const char*>(output);
    if (mine_ && linearThread() == 0) {
      buffer->secondBase = static_cast<const char*>(second) - static_cast<const char*>(secondAllocation);
      buffer->outputBase = static_cast<const char*>(output) - static_cast<const char*>(outputAllocation);
      buffer->tile = tile;
    }
  }
  // Between pause() and resume() nothing is recorded (steps, accesses, totals): the matmul
  // records its first K-tile and skips the others.
  __device__ void pause() { paused_ = true; }
  __device__ void resume() { paused_ = false; }
  __device__ void step(uint32_t kind, int32_t param, SlotInfo a = {}, SlotInfo b = {},
                       SlotInfo c = {}, SlotInfo d = {}) {
    if (paused_) return;
    ++step_;
    valid_ = 0;
    for (int s = 0; s < kMaxSlots; ++s) region_[s] = (s == 0 ? a : s == 1 ? b : s == 2 ? c : d).region;
    if (!mine_ || linearThread() != 0 || step_ >= kMaxSteps) return;
    StepHeader* h = steps() + step_;  // the totals are left alone: other warps may add already
    h->kind = kind;
    h->param = param;
    h->slots[0] = a;
    h->slots[1] = b;
    h->slots[2] = c;
    h->slots[3] = d;
    h->numSlots = (a.space != 0) + (b.space != 0) + (c.space != 0) + (d.space != 0);
    atomicMax(&h->maxIterations, 1u);  // lanes of other warps may have raised it already
  }
  // Grid-stride steps: how many loop iterations this lane made (call before lane()).
  __device__ void iterations(uint32_t count) { iterations_ = count; }
  // The lane did the step's work and holds `value` after it.
  template <class V>
  __device__ void lane(V value) {
    if (!recording()) return;
    LaneRecord* r = lanes() + size_t(step_) * blockThreads() + linearThread();
    uint32_t flags = kLaneActive;
    for (int s = 0; s < kMaxSlots; ++s) {
      r->addr[s] = (valid_ & slotBit(s)) ? addr_[s] : 0;
      flags |= valid_ & slotBit(s);
    }
    r->flags = flags;
    r->iterations = iterations_;
    r->value = double(value);
    if (iterations_ > 1) atomicMax(&steps()[step_].maxIterations, iterations_);
    iterations_ = 1;
  }

  template <class T> __device__ T loadShared(int slot, const T* p) {
    note(slot, static_cast<const char*>(static_cast<const void*>(p)) - shared_);
    return *p;
  }
  template <class T> __device__ T loadShared(int slot, const volatile T* p) {
    note(slot, reinterpret_cast<const volatile char*>(p) - shared_);
    return *p;
  }
  template <class T> __device__ void storeShared(int slot, T* p, T v) {
    *p = v;
    note(slot, reinterpret_cast<const char*>(p) - shared_);
  }
  template <class T> __device__ void storeShared(int slot, volatile T* p, T v) {
    *p = v;
    note(slot, reinterpret_cast<const volatile char*>(p) - shared_);
  }
  template <class T> __device__ T loadGlobal(int slot, const T* p) {
    const T v = *p;
    note(slot, reinterpret_cast<const char*>(p) - regionBase(slot));
    countGlobalLoad(p, sizeof(T));
    return v;
  }
  // A store into global memory, recorded as its offset in the slot's region (matrix families).
  template <class T> __device__ void storeGlobal(int slot, T* p, T v) {
    *p = v;
    note(slot, reinterpret_cast<const char*>(p) - regionBase(slot));
  }
  // A store into the output array: recorded as its element index times the element size.
  template <class T> __device__ void storeOutput(int slot, T* out, size_t index, T v) {
    out[index] = v;
    note(slot, int64_t(index * sizeof(T)));
  }
  template <class Op, class T> __device__ void atomicOutput(int slot, T* out, T v) {
    atomicCombine(Op(), out, v);
    note(slot, 0);
  }
  // __shfl_down_sync over the full warp; the slot records the source lane.
  template <class T> __device__ T shuffleDown(int slot, T v, int offset) {
    const T r = __shfl_down_sync(0xffffffffu, v, offset);
    const int lane = int(linearThread() % 32);
    note(slot, lane + offset < 32 ? lane + offset : lane);
    return r;
  }
  // A bulk copy (cp.async.bulk) of `bytes` from global `src` into shared memory, issued by one
  // thread: one request, the 32-byte sectors it spans and its bytes in the step's totals (it has
  // no lane of its own: the lanes' detail is their reads of the copied stage).
  __device__ void bulkCopy(const void* src, unsigned bytes) {
    if (!recording() || bytes == 0) return;
    const unsigned long long a = reinterpret_cast<uintptr_t>(src);
    StepHeader* h = steps() + step_;
    atomicAdd(reinterpret_cast<unsigned long long*>(&h->totalLoadRequests), 1ull);
    atomicAdd(reinterpret_cast<unsigned long long*>(&h->totalLoadSectors), (a + bytes - 1) / 32 - a / 32 + 1);
    atomicAdd(reinterpret_cast<unsigned long long*>(&h->totalLoadBytes), (unsigned long long)bytes);
  }
  __device__ void end() {
    if (mine_ && linearThread() == 0) buffer->numSteps = uint32_t(min(step_ + 1, kMaxSteps));
  }

 private:
  __device__ bool recording() const { return mine_ && !paused_ && step_ >= 0 && step_ < kMaxSteps; }
  __device__ const char* regionBase(int slot) const {
    return slot >= 0 && slot < kMaxSlots ? base_[region_[slot] < 3 ? region_[slot] : 0] : global_;
  }
  // The first address of a slot in this step wins: a loop's detail is its first iteration.
  __device__ void note(int slot, int64_t offset) {
    if (!recording() || slot < 0 || (valid_ & slotBit(slot))) return;
    addr_[slot] = int32_t(offset);
    valid_ |= slotBit(slot);
  }
  // One warp-level load: a request, the distinct 32-byte sectors its active lanes touch (an
  // access of 4, 8 or 16 aligned bytes lies in one sector), and the bytes.
  __device__ void countGlobalLoad(const void* p, unsigned bytes) {
    if (!recording()) return;
    const unsigned active = __activemask();
    const unsigned lane = linearThread() % 32;
    const unsigned long long sector = reinterpret_cast<uintptr_t>(p) / 32;
    const unsigned peers = __match_any_sync(active, sector);
    const bool firstOfSector = unsigned(__ffs(peers) - 1) == lane;
    const unsigned sectors = __popc(__ballot_sync(active, firstOfSector));
    if (lane == unsigned(__ffs(active) - 1)) {
      StepHeader* h = steps() + step_;
      auto add = [](uint64_t* total, unsigned long long v) {
        atomicAdd(reinterpret_cast<unsigned long long*>(total), v);
      };
      add(&h->totalLoadRequests, 1);
      add(&h->totalLoadSectors, sectors);
      add(&h->totalLoadBytes, (unsigned long long)__popc(active) * bytes);
    }
  }
  __device__ StepHeader* steps() const {
    return reinterpret_cast<StepHeader*>(reinterpret_cast<char*>(buffer) + kStepsOffset);
  }
  __device__ LaneRecord* lanes() const {
    return reinterpret_cast<LaneRecord*>(reinterpret_cast<char*>(buffer) + kLanesOffset);
  }
  bool mine_ = false;
  bool paused_ = false;
  int step_ = -1;
  const char* base_[3] = {};
  uint8_t region_[kMaxSlots] = {};
  const char* shared_ = nullptr;
  const char* global_ = nullptr;
  uint32_t iterations_ = 1;
  uint32_t valid_ = 0;  // slotBit(s): addr_[s] holds this step's address of slot s
  int32_t addr_[kMaxSlots] = {};
};

using NoTrace = Tracer<false>;
using DeviceTrace = Tracer<true>;

}  // namespace rl::kernels
