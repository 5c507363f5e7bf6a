// What the families' CPU models share (kernels/families/<family>/*_model.cpp): the device's
// operators on the host, and the writer of trace records in the layout of trace_format.hpp. Each
// model re-implements its kernels' steps in plain C++ (its own code, not the CUDA source); on a
// GPU the two are compared (tests/test_gpu_traces.cpp), without one the views draw the model.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "reducelab/config.hpp"
#include "reducelab/trace.hpp"

namespace rl::model {

using namespace rl::trace;

// ---- operators, as the device defines them ----
struct Sum {
  template <class T> static T identity() { return T(0); }
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
    else return a + b;
  }
};
struct Min {
  template <class T> static T identity() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  template <class T> T operator()(T a, T b) const { return b < a ? b : a; }
};
struct Max {
  template <class T> static T identity() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  }
  template <class T> T operator()(T a, T b) const { return a < b ? b : a; }
};

struct Addr {
  int32_t value = 0;
  bool valid = false;
};

template <class T> SlotInfo sLoad() { return {kSpaceShared, kLoad, uint8_t(sizeof(T)), 0}; }
template <class T> SlotInfo sStore() { return {kSpaceShared, kStore, uint8_t(sizeof(T)), 0}; }
template <class T> SlotInfo gLoad() { return {kSpaceGlobal, kLoad, uint8_t(sizeof(T)), 0}; }
template <class T> SlotInfo gLoadFrom(uint8_t region) { return {kSpaceGlobal, kLoad, uint8_t(sizeof(T)), region}; }
template <class T> SlotInfo gStore() { return {kSpaceGlobal, kStore, uint8_t(sizeof(T)), kRegionOutput}; }
template <class T> SlotInfo gAtomic() { return {kSpaceGlobal, kAtomic, uint8_t(sizeof(T)), kRegionOutput}; }

// Writes records in the layout of trace_format.hpp.
class Builder {
 public:
  Builder(unsigned block, uint64_t tracedBlock, unsigned elemBytes, unsigned accBytes, uint64_t grid,
          uint64_t n, uint64_t firstElem) : block_(block) {
    std::memset(&t_.header, 0, sizeof t_.header);
    t_.header.magic = kMagic;
    t_.header.version = kVersion;
    t_.header.blockSize = block;
    t_.header.tracedBlock = uint32_t(tracedBlock);
    t_.header.elemBytes = elemBytes;
    t_.header.accBytes = accBytes;
    t_.header.gridSize = uint32_t(grid);
    t_.header.n = n;
    t_.header.globalBase = int64_t(firstElem * elemBytes);
    t_.header.blockX = block;  // 1-D unless matrixShape() says otherwise
    t_.header.blockY = 1;
    t_.header.gridX = uint32_t(grid);
    t_.header.gridY = 1;
  }
  // The matrix families: 2-D block and grid, the regions' bases (bytes), the tile.
  void matrixShape(const Geometry& g, int64_t secondBase, int64_t outputBase) {
    t_.header.blockX = g.blockX;
    t_.header.blockY = g.blockY;
    t_.header.gridX = g.gridX;
    t_.header.gridY = g.gridY;
    t_.header.tile = uint32_t(g.tile);
    t_.header.secondBase = secondBase;
    t_.header.outputBase = outputBase;
  }
  void step(uint32_t kind, int32_t param, SlotInfo a = {}, SlotInfo b = {}, SlotInfo c = {}, SlotInfo d = {}) {
    StepHeader h{};
    h.kind = kind;
    h.param = param;
    h.slots[0] = a;
    h.slots[1] = b;
    h.slots[2] = c;
    h.slots[3] = d;
    h.numSlots = (a.space != 0) + (b.space != 0) + (c.space != 0) + (d.space != 0);
    h.maxIterations = 1;
    t_.steps.push_back(h);
    t_.lanes.resize(t_.steps.size() * block_, LaneRecord{});
  }
  template <class V>
  void lane(unsigned tid, V value, Addr a0 = {}, Addr a1 = {}, Addr a2 = {}, Addr a3 = {},
            uint32_t iterations = 1) {
    LaneRecord& r = t_.lanes[(t_.steps.size() - 1) * block_ + tid];
    const Addr a[4] = {a0, a1, a2, a3};
    r.flags = kLaneActive;
    for (int s = 0; s < kMaxSlots; ++s) {
      r.addr[s] = a[s].valid ? a[s].value : 0;
      if (a[s].valid) r.flags |= slotBit(s);
    }
    r.iterations = iterations;
    r.value = double(value);
    if (iterations > 1) t_.steps.back().maxIterations = std::max(t_.steps.back().maxIterations, iterations);
  }
  // One warp-level global load of the current step: a request, its distinct 32-byte sectors
  // (each lane's aligned access lies in one), its bytes. `byteAddrs`: the active lanes'.
  void warpLoad(const std::vector<int64_t>& byteAddrs, unsigned bytes) {
    if (byteAddrs.empty()) return;
    std::vector<int64_t> sectors;
    for (int64_t a : byteAddrs) sectors.push_back(a / 32);
    std::sort(sectors.begin(), sectors.end());
    StepHeader& h = t_.steps.back();
    h.totalLoadRequests += 1;
    h.totalLoadSectors += uint64_t(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
    h.totalLoadBytes += uint64_t(byteAddrs.size()) * bytes;
  }
  // One bulk copy (one thread, cp.async.bulk) of `bytes` from byte offset `start` of the input:
  // a request, the 32-byte sectors it spans, its bytes.
  void bulkLoad(int64_t start, uint64_t bytes) {
    if (bytes == 0) return;
    StepHeader& h = t_.steps.back();
    h.totalLoadRequests += 1;
    h.totalLoadSectors += uint64_t((start + int64_t(bytes) - 1) / 32 - start / 32 + 1);
    h.totalLoadBytes += bytes;
  }
  TraceData finish() {
    t_.header.numSteps = uint32_t(t_.steps.size());
    return std::move(t_);
  }

 private:
  unsigned block_;
  TraceData t_;
};


}  // namespace rl::model
