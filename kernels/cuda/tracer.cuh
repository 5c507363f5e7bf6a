// Tracing policy. Every kernel is written once; Tracer<false> makes each `tr.` call an empty
// inline function (the untraced build has no trace code at all), Tracer<true> records what the
// traced block does, step by step, into a trace buffer (a mapped GL buffer in the app).
#pragma once
#include <cuda_runtime.h>

#include "reducelab/trace_format.hpp"

namespace rl::kernels {

using namespace rl::trace;

template <class T> __host__ __device__ constexpr SlotInfo sharedLoad() { return {kSpaceShared, kLoad, sizeof(T), 0}; }
template <class T> __host__ __device__ constexpr SlotInfo sharedStore() { return {kSpaceShared, kStore, sizeof(T), 0}; }
template <class T> __host__ __device__ constexpr SlotInfo globalLoad() { return {kSpaceGlobal, kLoad, sizeof(T), 0}; }
template <class T> __host__ __device__ constexpr SlotInfo globalStore() { return {kSpaceGlobal, kStore, sizeof(T), 0}; }
template <class T> __host__ __device__ constexpr SlotInfo globalAtomic() { return {kSpaceGlobal, kAtomic, sizeof(T), 0}; }
__host__ __device__ constexpr SlotInfo shuffleSlot(int bytes) { return {kSpaceShuffle, kLoad, uint8_t(bytes), 0}; }

// An address recorded for one slot of one lane (valid=false: the lane did not make this access).
struct TraceAddr {
  int32_t value = 0;
  bool valid = false;
};

template <bool Enabled>
class Tracer;

// No tracing: every member is empty and inlined away.
template <>
class Tracer<false> {
 public:
  static constexpr bool enabled = false;
  __device__ void begin(const void*, const void*, size_t, size_t, unsigned, unsigned) {}
  __device__ void step(uint32_t, int32_t, SlotInfo = {}, SlotInfo = {}, SlotInfo = {}, SlotInfo = {}) {}
  template <class V>
  __device__ void lane(V, TraceAddr = {}, TraceAddr = {}, TraceAddr = {}, TraceAddr = {}) {}
  __device__ void iterations(uint32_t) {}
  __device__ TraceAddr shared(const void*) const { return {}; }
  __device__ TraceAddr global(const void*, bool = true) const { return {}; }
  __device__ TraceAddr output(size_t, size_t) const { return {}; }
  __device__ TraceAddr srcLane(int) const { return {}; }
  __device__ void end() {}
};

// Records the block `tracedBlock` into `buffer` (laid out as trace_format.hpp says; the caller
// zeroes it first). Thread 0 writes the headers; each lane writes its own records.
template <>
class Tracer<true> {
 public:
  static constexpr bool enabled = true;
  TraceHeader* buffer = nullptr;
  unsigned tracedBlock = 0;

  __device__ void begin(const void* sharedBase, const void* input, size_t n, size_t firstElem,
                        unsigned elemBytes, unsigned accBytes) {
    mine_ = buffer && blockIdx.x == tracedBlock;
    step_ = -1;
    shared_ = static_cast<const char*>(sharedBase);
    global_ = static_cast<const char*>(input) + firstElem * elemBytes;
    iterations_ = 1;
    if (mine_ && threadIdx.x == 0) {
      buffer->magic = kMagic;
      buffer->version = kVersion;
      buffer->blockSize = blockDim.x;
      buffer->tracedBlock = tracedBlock;
      buffer->elemBytes = elemBytes;
      buffer->accBytes = accBytes;
      buffer->gridSize = gridDim.x;
      buffer->n = n;
      buffer->globalBase = int64_t(firstElem * elemBytes);
    }
  }
  __device__ void step(uint32_t kind, int32_t param, SlotInfo a = {}, SlotInfo b = {},
                       SlotInfo c = {}, SlotInfo d = {}) {
    ++step_;
    if (!mine_ || threadIdx.x != 0 || step_ >= kMaxSteps) return;
    StepHeader* h = steps() + step_;
    h->kind = kind;
    h->param = param;
    h->slots[0] = a;
    h->slots[1] = b;
    h->slots[2] = c;
    h->slots[3] = d;
    h->numSlots = (a.space != 0) + (b.space != 0) + (c.space != 0) + (d.space != 0);
    h->maxIterations = 1;
  }
  // Grid-stride steps: how many loop iterations this lane made (call before lane()).
  __device__ void iterations(uint32_t count) { iterations_ = count; }
  template <class V>
  __device__ void lane(V value, TraceAddr a0 = {}, TraceAddr a1 = {}, TraceAddr a2 = {},
                       TraceAddr a3 = {}) {
    if (!mine_ || step_ < 0 || step_ >= kMaxSteps) return;
    LaneRecord* r = lanes() + size_t(step_) * blockDim.x + threadIdx.x;
    const TraceAddr a[4] = {a0, a1, a2, a3};
    uint32_t flags = kLaneActive;
    for (int s = 0; s < kMaxSlots; ++s) {
      r->addr[s] = a[s].valid ? a[s].value : 0;
      if (a[s].valid) flags |= slotBit(s);
    }
    r->flags = flags;
    r->iterations = iterations_;
    r->value = double(value);
    if (iterations_ > 1) atomicMax(&steps()[step_].maxIterations, iterations_);
    iterations_ = 1;
  }
  __device__ TraceAddr shared(const void* p) const {
    return {int32_t(static_cast<const char*>(p) - shared_), true};
  }
  __device__ TraceAddr global(const void* p, bool valid = true) const {
    return {int32_t(static_cast<const char*>(p) - global_), valid};
  }
  // A store into the output array: its element index times the element size.
  __device__ TraceAddr output(size_t index, size_t bytes) const {
    return {int32_t(index * bytes), true};
  }
  __device__ TraceAddr srcLane(int lane) const { return {lane, true}; }
  __device__ void end() {
    if (mine_ && threadIdx.x == 0) buffer->numSteps = uint32_t(min(step_ + 1, kMaxSteps));
  }

 private:
  __device__ StepHeader* steps() const {
    return reinterpret_cast<StepHeader*>(reinterpret_cast<char*>(buffer) + kStepsOffset);
  }
  __device__ LaneRecord* lanes() const {
    return reinterpret_cast<LaneRecord*>(reinterpret_cast<char*>(buffer) + kLanesOffset);
  }
  bool mine_ = false;
  int step_ = -1;
  const char* shared_ = nullptr;
  const char* global_ = nullptr;
  uint32_t iterations_ = 1;
};

using NoTrace = Tracer<false>;
using DeviceTrace = Tracer<true>;

}  // namespace rl::kernels
