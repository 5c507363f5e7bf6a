// The CPU model of the traced kernels: for one block, each kernel's steps re-implemented in
// plain C++ (its own code, not the CUDA source), writing the same trace records. On a GPU the
// two are compared (tests/test_gpu_traces.cpp); without one, the views draw this.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "reducelab/datagen.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/trace.hpp"
#include "reducelab/type_dispatch.hpp"

namespace rl {
namespace {

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

// Replays a kernel's schedule (its descriptor's phases, in order) for one block.
template <class Op, class TIn, class TAcc>
class BlockModel {
 public:
  BlockModel(const RunConfig& c, uint64_t grid, int ccMajor, const KernelInfo& k)
      : c_(c), spec_(dataSpecOf(c)), B_(unsigned(c.block)), b_(c.tracedBlock), grid_(grid),
        n_(c.n), ccMajor_(ccMajor), k_(k),
        tb_(B_, c.tracedBlock, sizeof(TIn), sizeof(TAcc), grid, c.n, firstElem()) {}

  TraceData run() {
    sdata_.assign(sharedBytes(k_, int(B_), accType()) / sizeof(TAcc), Op::template identity<TAcc>());
    for (Phase p : k_.schedule) {
      switch (p) {
        case Phase::LoadOne: loadOne(); break;
        case Phase::LoadPair: loadPair(); break;
        case Phase::GridStridePairsToShared: gridStridePairs(true); break;
        case Phase::GridStridePairs: gridStridePairs(false); break;
        case Phase::VectorLoads: vectorThreadSum(); break;
        case Phase::VectorGridStride: vectorGridStride(); break;
        case Phase::BulkStages: bulkStages(); break;
        case Phase::TreeInterleavedDivergent:
          for (unsigned s = 1; s < B_; s *= 2) treeLevel(s, [&](unsigned t) { return t % (2 * s) == 0 ? int(t) : -1; });
          break;
        case Phase::TreeInterleavedStrided:
          for (unsigned s = 1; s < B_; s *= 2) treeLevel(s, [&](unsigned t) { return 2 * s * t < B_ ? int(2 * s * t) : -1; });
          break;
        case Phase::TreeSequential:
          for (unsigned s = B_ / 2; s > 0; s >>= 1) treeLevel(s, [&](unsigned t) { return t < s ? int(t) : -1; });
          break;
        case Phase::TreeSequentialAbove32:
          for (unsigned s = B_ / 2; s > 32; s >>= 1) treeLevel(s, [&](unsigned t) { return t < s ? int(t) : -1; });
          break;
        case Phase::TreeUnrolled:
          for (unsigned s : {512u, 256u, 128u, 64u})
            if (B_ >= 2 * s) treeLevel(s, [&](unsigned t) { return t < s ? int(t) : -1; });
          break;
        case Phase::VolatileLastWarp:
          for (unsigned off : {32u, 16u, 8u, 4u, 2u, 1u}) volatileStage(off);
          break;
        case Phase::SyncwarpLastWarp: lastWarpSyncwarp(B_ >= 64); break;
        case Phase::ShuffleBlockReduce: blockReduceShuffle(false); break;
        case Phase::CgBlockReduce: blockReduceShuffle(true); break;
        case Phase::SharedResult: sharedResult(); break;
        case Phase::GlobalResult: globalResult(false); break;
        case Phase::AtomicResult: globalResult(true); break;
        case Phase::TransposeDirect: case Phase::TransposeLoadTile: case Phase::TransposeStoreTile:
        case Phase::MatmulNaiveDot: case Phase::MatmulTileLoad: case Phase::MatmulTileDot:
        case Phase::MatmulStore:
          break;  // matrix families: MatrixModel below
      }
    }
    return tb_.finish();
  }

 private:
  static constexpr int kWidth = 16 / sizeof(TIn);
  static constexpr int kLoads = 4;

  static constexpr ElemType accType() { return elemTypeOf<TAcc>(); }
  uint64_t firstElem() const { return b_ * B_ * elemsPerIteration(k_, elemTypeOf<TIn>()); }
  TAcc load(uint64_t i) const {
    return i < n_ ? TAcc(generateElement<TIn>(spec_, i)) : Op::template identity<TAcc>();
  }
  TAcc element(uint64_t i) const { return TAcc(generateElement<TIn>(spec_, i)); }
  Addr shared(unsigned index) const { return {int32_t(index * sizeof(TAcc)), true}; }
  Addr global(uint64_t index, bool valid) const {
    return {int32_t(int64_t(index * sizeof(TIn)) - int64_t(firstElem() * sizeof(TIn))), valid};
  }

  // The byte addresses (from the input's start) of the lanes of warp w loading element
  // first(t) + offset, for the lanes where that element exists.
  template <class FirstFn>
  std::vector<int64_t> warpElements(unsigned w, FirstFn elementOf) const {
    std::vector<int64_t> a;
    for (unsigned t = w * 32; t < w * 32 + 32 && t < B_; ++t) {
      const uint64_t i = elementOf(t);
      if (i < n_) a.push_back(int64_t(i * sizeof(TIn)));
    }
    return a;
  }
  unsigned warps() const { return (B_ + 31) / 32; }

  void loadOne() {
    tb_.step(kStepLoad, 1, gLoad<TIn>(), sStore<TAcc>());
    for (unsigned t = 0; t < B_; ++t) {
      const uint64_t i = b_ * B_ + t;
      sdata_[t] = load(i);
      tb_.lane(t, sdata_[t], global(i, i < n_), shared(t));
    }
    for (unsigned w = 0; w < warps(); ++w)
      tb_.warpLoad(warpElements(w, [&](unsigned t) { return b_ * B_ + t; }), sizeof(TIn));
  }
  void loadPair() {
    tb_.step(kStepLoad, 2, gLoad<TIn>(), gLoad<TIn>(), sStore<TAcc>());
    for (unsigned t = 0; t < B_; ++t) {
      const uint64_t i = b_ * B_ * 2 + t;
      sdata_[t] = Op()(load(i), load(i + B_));
      tb_.lane(t, sdata_[t], global(i, i < n_), global(i + B_, i + B_ < n_), shared(t));
    }
    for (unsigned w = 0; w < warps(); ++w)
      for (uint64_t second : {uint64_t(0), uint64_t(B_)})
        tb_.warpLoad(warpElements(w, [&](unsigned t) { return b_ * B_ * 2 + t + second; }), sizeof(TIn));
  }
  // Kernel 7's loop (and kernels 8, 9): pairs blockDim apart, striding by the grid.
  void gridStridePairs(bool toShared) {
    if (toShared) tb_.step(kStepGridStride, 2, gLoad<TIn>(), gLoad<TIn>(), sStore<TAcc>());
    else tb_.step(kStepGridStride, 2, gLoad<TIn>(), gLoad<TIn>());
    regs_.assign(B_, Op::template identity<TAcc>());
    const uint64_t stride = uint64_t(B_) * 2 * grid_;
    for (unsigned t = 0; t < B_; ++t) {
      const uint64_t first = b_ * B_ * 2 + t;
      TAcc v = Op::template identity<TAcc>();
      uint32_t it = 0;
      for (uint64_t i = first; i < n_; i += stride, ++it) {
        v = Op()(v, element(i));
        if (i + B_ < n_) v = Op()(v, element(i + B_));
      }
      regs_[t] = v;
      if (toShared) {
        sdata_[t] = v;
        tb_.lane(t, v, global(first, first < n_), global(first + B_, first + B_ < n_), shared(t), {}, it);
      } else {
        tb_.lane(t, v, global(first, first < n_), global(first + B_, first + B_ < n_), {}, {}, it);
      }
    }
    // Totals over every iteration: in iteration k a warp loads in[i] for its lanes still in the
    // loop (i < n), then in[i + block] for those of them where it exists.
    for (unsigned w = 0; w < warps(); ++w)
      for (uint64_t k = 0;; ++k) {
        const uint64_t offset = b_ * B_ * 2 + k * stride;
        std::vector<int64_t> first = warpElements(w, [&](unsigned t) { return offset + t; });
        if (first.empty()) break;
        tb_.warpLoad(first, sizeof(TIn));
        tb_.warpLoad(warpElements(w, [&](unsigned t) { return offset + t + B_; }), sizeof(TIn));
      }
  }
  // Kernel 10's loop: four 16-byte vectors per iteration, then the scalar tail.
  void vectorThreadSum() {
    const SlotInfo v16{kSpaceGlobal, kLoad, 16, 0};
    tb_.step(kStepGridStride, kWidth, v16, v16, v16, v16);
    regs_.assign(B_, Op::template identity<TAcc>());
    const uint64_t numVecs = n_ / kWidth;
    const uint64_t stride = grid_ * B_ * kLoads;
    auto vecAddr = [&](uint64_t v) {  // byte offset of vector v from the block's base
      return Addr{int32_t(int64_t(v * 16) - int64_t(firstElem() * sizeof(TIn))), v < numVecs};
    };
    for (unsigned t = 0; t < B_; ++t) {
      const uint64_t first = b_ * B_ * kLoads + t;
      TAcc acc = Op::template identity<TAcc>();
      uint32_t it = 0;
      for (uint64_t base = first; base < numVecs; base += stride, ++it)
        for (int u = 0; u < kLoads; ++u) {
          const uint64_t j = base + uint64_t(u) * B_;
          if (j < numVecs)
            for (int e = 0; e < kWidth; ++e) acc = Op()(acc, element(j * kWidth + e));
        }
      const uint64_t tail = numVecs * kWidth + b_ * B_ + t;
      if (tail < n_) acc = Op()(acc, element(tail));
      regs_[t] = acc;
      tb_.lane(t, acc, vecAddr(first), vecAddr(first + B_), vecAddr(first + 2 * B_),
               vecAddr(first + 3 * B_), it);
    }
    // Totals over every iteration: lanes still in the loop (base < numVecs) load each of their
    // kLoads vectors that exists; then the scalar tail, one element per lane where it exists.
    for (unsigned w = 0; w < warps(); ++w) {
      for (uint64_t k = 0;; ++k) {
        const uint64_t base0 = b_ * B_ * kLoads + k * stride;
        bool anyInLoop = false;
        for (unsigned t = w * 32; t < w * 32 + 32 && t < B_; ++t) anyInLoop |= base0 + t < numVecs;
        if (!anyInLoop) break;
        for (int u = 0; u < kLoads; ++u) {
          std::vector<int64_t> a;
          for (unsigned t = w * 32; t < w * 32 + 32 && t < B_; ++t) {
            const uint64_t j = base0 + t + uint64_t(u) * B_;
            if (base0 + t < numVecs && j < numVecs) a.push_back(int64_t(j * 16));
          }
          tb_.warpLoad(a, 16);
        }
      }
      tb_.warpLoad(warpElements(w, [&](unsigned t) { return numVecs * kWidth + b_ * B_ + t; }), sizeof(TIn));
    }
  }
  // Kernel 13's loop: thread t of block b loads vectors g, g + S, g + 2S ... (g = b * block + t,
  // S = grid x block), one per step whatever the depth the policy keeps in flight, then the
  // scalar tail.
  void vectorGridStride() {
    const SlotInfo v16{kSpaceGlobal, kLoad, 16, 0};
    tb_.step(kStepGridStride, kWidth, v16);
    regs_.assign(B_, Op::template identity<TAcc>());
    const uint64_t numVecs = n_ / kWidth;
    const uint64_t stride = grid_ * B_;
    for (unsigned t = 0; t < B_; ++t) {
      const uint64_t first = b_ * B_ + t;
      uint32_t it = 0;
      const TAcc acc = regs_[t] = vectorsOfThread(first, numVecs, stride, &it);
      const Addr a{int32_t(int64_t(first * 16) - int64_t(firstElem() * sizeof(TIn))), first < numVecs};
      tb_.lane(t, acc, a, {}, {}, {}, it);
    }
    // Totals: in step k a warp loads the vectors of its lanes still in the loop; then the tail.
    for (unsigned w = 0; w < warps(); ++w) {
      for (uint64_t k = 0;; ++k) {
        std::vector<int64_t> a;
        for (unsigned t = w * 32; t < w * 32 + 32 && t < B_; ++t) {
          const uint64_t j = b_ * B_ + t + k * stride;
          if (j < numVecs) a.push_back(int64_t(j * 16));
        }
        if (a.empty()) break;
        tb_.warpLoad(a, 16);
      }
      tb_.warpLoad(warpElements(w, [&](unsigned t) { return numVecs * kWidth + b_ * B_ + t; }), sizeof(TIn));
    }
  }
  // Thread `first`'s vectors first, first + stride, ... and its element of the scalar tail, in the
  // order k13 and k14 combine them; `iterations`: the vectors it loaded.
  TAcc vectorsOfThread(uint64_t first, uint64_t numVecs, uint64_t stride, uint32_t* iterations) const {
    TAcc acc = Op::template identity<TAcc>();
    for (uint64_t j = first; j < numVecs; j += stride, ++*iterations)
      for (int e = 0; e < kWidth; ++e) acc = Op()(acc, element(j * kWidth + e));
    const uint64_t tail = numVecs * kWidth + first;
    if (tail < n_) acc = Op()(acc, element(tail));
    return acc;
  }
  // Kernel 14: block b's tiles (b, b + grid, ...) of block x 16 bytes, each one bulk copy into a
  // stage of the ring; thread t reads vector t of each tile from shared memory (the first tile
  // lands in stage 0, at kBulkRingOffset + 16 t), so each thread combines the same vectors in the
  // same order as k13's loop; then the scalar tail. The input starts 16-byte aligned (no head).
  void bulkStages() {
    tb_.step(kStepGridStride, kWidth, SlotInfo{kSpaceShared, kLoad, 16, 0});
    regs_.assign(B_, Op::template identity<TAcc>());
    const uint64_t numVecs = n_ / kWidth;
    const uint64_t stride = grid_ * B_;
    for (unsigned t = 0; t < B_; ++t) {
      const uint64_t first = b_ * B_ + t;
      uint32_t it = 0;
      const TAcc acc = regs_[t] = vectorsOfThread(first, numVecs, stride, &it);
      tb_.lane(t, acc, Addr{int32_t(kBulkRingOffset + 16 * t), first < numVecs}, {}, {}, {}, it);
    }
    // Totals: one bulk copy per tile of this block (the last tile of the input may be short),
    // then the tail's plain loads, one warp-level request per warp.
    const uint64_t numTiles = (numVecs + B_ - 1) / B_;
    for (uint64_t j = b_; j < numTiles; j += grid_)
      tb_.bulkLoad(int64_t(j * B_ * 16), (std::min<uint64_t>(numVecs, (j + 1) * B_) - j * B_) * 16);
    for (unsigned w = 0; w < warps(); ++w)
      tb_.warpLoad(warpElements(w, [&](unsigned t) { return numVecs * kWidth + b_ * B_ + t; }), sizeof(TIn));
  }
  // One tree level: `index(t)` is the element thread t writes, or -1 if it is idle.
  template <class IndexFn>
  void treeLevel(unsigned s, IndexFn index) {
    tb_.step(kStepTreeLevel, int32_t(s), sLoad<TAcc>(), sLoad<TAcc>(), sStore<TAcc>());
    for (unsigned t = 0; t < B_; ++t) {
      const int i = index(t);
      if (i < 0) continue;
      sdata_[unsigned(i)] = Op()(sdata_[unsigned(i)], sdata_[unsigned(i) + s]);
      tb_.lane(t, sdata_[unsigned(i)], shared(unsigned(i)), shared(unsigned(i) + s), shared(unsigned(i)));
    }
  }
  // Warp 0 executes each statement in lockstep: all lanes read, then all write.
  void volatileStage(unsigned off) {
    tb_.step(kStepWarpSync, int32_t(off), sLoad<TAcc>(), sLoad<TAcc>(), sStore<TAcc>());
    TAcc next[32];
    for (unsigned t = 0; t < 32; ++t) next[t] = Op()(sdata_[t], sdata_[t + off]);
    for (unsigned t = 0; t < 32; ++t) sdata_[t] = next[t];
    for (unsigned t = 0; t < 32; ++t) tb_.lane(t, sdata_[t], shared(t), shared(t + off), shared(t));
  }
  // The __syncwarp form: read partner, sync, write, sync. from64: the first stage is 32.
  void lastWarpSyncwarp(bool from64) {
    TAcc v[32];
    for (unsigned t = 0; t < 32; ++t) v[t] = sdata_[t];
    bool first = true;
    for (unsigned off : {32u, 16u, 8u, 4u, 2u, 1u}) {
      if (off == 32 && !from64) continue;
      if (first) tb_.step(kStepWarpSync, int32_t(off), sLoad<TAcc>(), sLoad<TAcc>(), sStore<TAcc>());
      else tb_.step(kStepWarpSync, int32_t(off), sLoad<TAcc>(), sStore<TAcc>());
      for (unsigned t = 0; t < 32; ++t) v[t] = Op()(v[t], sdata_[t + off]);
      for (unsigned t = 0; t < 32; ++t) sdata_[t] = v[t];
      for (unsigned t = 0; t < 32; ++t) {
        if (first) tb_.lane(t, v[t], shared(t), shared(t + off), shared(t));
        else tb_.lane(t, v[t], shared(t + off), shared(t));
      }
      first = false;
    }
  }
  void sharedResult() {
    tb_.step(kStepBlockResult, 0, sLoad<TAcc>(), gStore<TAcc>());
    tb_.lane(0, sdata_[0], shared(0), Addr{int32_t(b_ * sizeof(TAcc)), true});
  }
  void globalResult(bool atomic) {
    if (atomic) {
      tb_.step(kStepBlockResult, 0, gAtomic<TAcc>());
      tb_.lane(0, regs_[0], Addr{0, true});
    } else {
      tb_.step(kStepBlockResult, 0, gStore<TAcc>());
      tb_.lane(0, regs_[0], Addr{int32_t(b_ * sizeof(TAcc)), true});
    }
  }
  // Warp level for `lanes` warps' registers starting at thread `base`.
  void warpReduce(unsigned warpCount, bool cooperativeGroups) {
    const bool redux = !cooperativeGroups && sizeof(TAcc) == 4 && std::is_integral_v<TAcc> && ccMajor_ >= 8;
    if (redux || cooperativeGroups) {
      tb_.step(kStepWarpReduce, 32);
      for (unsigned w = 0; w < warpCount; ++w) {
        // Every lane receives the warp's result (redux.sync; cg::reduce). The order of the
        // combination inside cg::reduce is the library's: a butterfly is assumed here.
        TAcc v[32];
        for (unsigned l = 0; l < 32; ++l) v[l] = regs_[w * 32 + l];
        for (unsigned off = 16; off > 0; off /= 2) {
          TAcc next[32];
          for (unsigned l = 0; l < 32; ++l) next[l] = Op()(v[l], v[l ^ off]);
          std::copy(next, next + 32, v);
        }
        for (unsigned l = 0; l < 32; ++l) {
          regs_[w * 32 + l] = v[l];
          tb_.lane(w * 32 + l, v[l]);
        }
      }
      return;
    }
    for (unsigned off = 16; off > 0; off /= 2) {
      tb_.step(kStepShuffle, int32_t(off), SlotInfo{kSpaceShuffle, kLoad, uint8_t(sizeof(TAcc)), 0});
      for (unsigned w = 0; w < warpCount; ++w) {
        TAcc next[32];
        for (unsigned l = 0; l < 32; ++l)  // __shfl_down_sync: lanes past the end get their own value
          next[l] = Op()(regs_[w * 32 + l], regs_[w * 32 + (l + off < 32 ? l + off : l)]);
        for (unsigned l = 0; l < 32; ++l) {
          regs_[w * 32 + l] = next[l];
          tb_.lane(w * 32 + l, next[l], Addr{int32_t(l + off < 32 ? l + off : l), true});
        }
      }
    }
  }
  void blockReduceShuffle(bool cooperativeGroups) {
    const unsigned warps = (B_ + 31) / 32;
    warpReduce(warps, cooperativeGroups);
    tb_.step(kStepWarpStore, 0, sStore<TAcc>());
    for (unsigned w = 0; w < warps; ++w) {
      sdata_[w] = regs_[w * 32];
      tb_.lane(w * 32, sdata_[w], shared(w));
    }
    tb_.step(kStepWarpLoad, 0, sLoad<TAcc>());
    for (unsigned l = 0; l < 32; ++l) {
      regs_[l] = l < warps ? sdata_[l] : Op::template identity<TAcc>();
      tb_.lane(l, regs_[l], l < warps ? shared(l) : Addr{});  // lanes past the warps load nothing
    }
    warpReduce(1, cooperativeGroups);
  }

  const RunConfig& c_;
  DataSpec spec_;
  unsigned B_;
  uint64_t b_, grid_, n_;
  int ccMajor_;
  const KernelInfo& k_;
  Builder tb_;
  std::vector<TAcc> sdata_, regs_;
};

// The matrix families' CPU model: the traced block's steps of transpose.cuh and matmul.cuh,
// re-implemented here (thread t = ty x blockX + tx; warps of 32 consecutive t).
template <class T>
class MatrixModel {
 public:
  MatrixModel(const RunConfig& c, const KernelInfo& k, const Geometry& g)
      : c_(c), k_(k), g_(g), spec_(dataSpecOf(c)), T_(g.tile), B_(g.block),
        tb_(g.block, c.tracedBlock, sizeof(T), sizeof(T), g.grid(), inputElements(c), 0) {
    // The tile this block takes: the launch order, or the diagonal renumbering.
    bx_ = unsigned(c.tracedBlock % g.gridX);
    by_ = unsigned(c.tracedBlock / g.gridX);
    if (k.blockOrder == BlockOrder::Diagonal) {
      const unsigned bid = bx_ + g.gridX * by_;
      by_ = bid % g.gridY;
      bx_ = (bid / g.gridY + by_) % g.gridX;
    }
  }

  TraceData run() {
    const uint64_t R = c_.rows, C = c_.cols, K = c_.inner;
    int64_t inputFirst, second = 0, output;
    if (k_.family == Family::Transpose) {
      inputFirst = int64_t(uint64_t(by_) * T_ * C + uint64_t(bx_) * T_);
      output = int64_t(uint64_t(bx_) * T_ * R + uint64_t(by_) * T_);
    } else {
      inputFirst = int64_t(uint64_t(by_) * T_ * K);
      second = int64_t(R * K + uint64_t(bx_) * T_);
      output = int64_t(uint64_t(by_) * T_ * C + uint64_t(bx_) * T_);
    }
    base_[kRegionInput] = inputFirst;
    base_[kRegionSecond] = second;
    base_[kRegionOutput] = output;
    tb_ = Builder(B_, c_.tracedBlock, sizeof(T), sizeof(T), g_.grid(), inputElements(c_), uint64_t(inputFirst));
    tb_.matrixShape(g_, second * int64_t(sizeof(T)), output * int64_t(sizeof(T)));
    shared_.assign(sharedBytes(k_, int(B_), c_.type, T_) / sizeof(T), T(0));
    for (Phase p : k_.schedule) {
      switch (p) {
        case Phase::TransposeDirect: transposeDirect(); break;
        case Phase::TransposeLoadTile: transposeLoadTile(); break;
        case Phase::TransposeStoreTile: transposeStoreTile(); break;
        case Phase::MatmulNaiveDot: matmulNaiveDot(); break;
        case Phase::MatmulTileLoad: matmulTileLoad(); break;
        case Phase::MatmulTileDot: matmulTileDot(); break;
        case Phase::MatmulStore: matmulStore(); break;
        default: break;  // reduction phases: not in a matrix schedule (Catalogue test)
      }
    }
    return tb_.finish();
  }

 private:
  unsigned tx(unsigned t) const { return t % g_.blockX; }
  unsigned ty(unsigned t) const { return t / g_.blockX; }
  unsigned warps() const { return (B_ + 31) / 32; }
  T element(uint64_t i) const { return generateElement<T>(spec_, i); }
  // A global access: its offset in `region`, from the element index in the allocation.
  Addr global(uint8_t region, uint64_t index) const {
    return {int32_t((int64_t(index) - base_[region]) * int64_t(sizeof(T))), true};
  }
  Addr shared(int index) const { return {int32_t(index * int(sizeof(T))), true}; }
  int tileIndex(int r, int col) const {
    switch (k_.tileLayout) {
      case TileLayout::Padded: return r * (T_ + 1) + col;
      case TileLayout::Swizzled: return r * T_ + (col ^ r);
      default: return r * T_ + col;
    }
  }
  // Every warp's load of element indexOf(t) (allocation index; -1: the lane loads nothing).
  template <class IndexFn>
  void warpLoads(uint8_t, IndexFn indexOf) {
    for (unsigned w = 0; w < warps(); ++w) {
      std::vector<int64_t> a;
      for (unsigned t = w * 32; t < w * 32 + 32 && t < B_; ++t) {
        const int64_t i = indexOf(t);
        if (i >= 0) a.push_back(i * int64_t(sizeof(T)));
      }
      tb_.warpLoad(a, sizeof(T));
    }
  }

  void transposeDirect() {
    const uint64_t R = c_.rows, C = c_.cols;
    for (unsigned i = 0; i < unsigned(T_); i += g_.blockY) {
      tb_.step(kStepCopyRow, int32_t(i), gLoad<T>(), gStore<T>());
      auto inIndex = [&](unsigned t) -> int64_t {
        const uint64_t x = uint64_t(bx_) * T_ + tx(t), y = uint64_t(by_) * T_ + ty(t) + i;
        return x < C && y < R ? int64_t(y * C + x) : -1;
      };
      for (unsigned t = 0; t < B_; ++t) {
        const int64_t in = inIndex(t);
        if (in < 0) continue;
        const uint64_t x = uint64_t(in) % C, y = uint64_t(in) / C;
        tb_.lane(t, element(uint64_t(in)), global(kRegionInput, uint64_t(in)), global(kRegionOutput, x * R + y));
      }
      warpLoads(kRegionInput, inIndex);
    }
  }
  void transposeLoadTile() {
    const uint64_t R = c_.rows, C = c_.cols;
    for (unsigned i = 0; i < unsigned(T_); i += g_.blockY) {
      tb_.step(kStepTileLoad, int32_t(i), gLoad<T>(), sStore<T>());
      auto inIndex = [&](unsigned t) -> int64_t {
        const uint64_t x = uint64_t(bx_) * T_ + tx(t), y = uint64_t(by_) * T_ + ty(t) + i;
        return x < C && y < R ? int64_t(y * C + x) : -1;
      };
      for (unsigned t = 0; t < B_; ++t) {
        const int64_t in = inIndex(t);
        if (in < 0) continue;
        const int s = tileIndex(int(ty(t) + i), int(tx(t)));
        shared_[size_t(s)] = element(uint64_t(in));
        tb_.lane(t, shared_[size_t(s)], global(kRegionInput, uint64_t(in)), shared(s));
      }
      warpLoads(kRegionInput, inIndex);
    }
  }
  void transposeStoreTile() {
    const uint64_t R = c_.rows, C = c_.cols;
    for (unsigned i = 0; i < unsigned(T_); i += g_.blockY) {
      tb_.step(kStepTileStore, int32_t(i), sLoad<T>(), gStore<T>());
      for (unsigned t = 0; t < B_; ++t) {
        const uint64_t xo = uint64_t(by_) * T_ + tx(t), yo = uint64_t(bx_) * T_ + ty(t) + i;
        if (xo >= R || yo >= C) continue;
        const int s = tileIndex(int(tx(t)), int(ty(t) + i));
        tb_.lane(t, shared_[size_t(s)], shared(s), global(kRegionOutput, yo * R + xo));
      }
    }
  }
  // matmul.cuh's naive kernel: row = by x tile + tx, col = bx x tile + ty (the seed's mapping).
  uint64_t naiveRow(unsigned t) const { return uint64_t(by_) * T_ + tx(t); }
  uint64_t naiveCol(unsigned t) const { return uint64_t(bx_) * T_ + ty(t); }
  uint64_t tiledRow(unsigned t) const { return uint64_t(by_) * T_ + ty(t); }
  uint64_t tiledCol(unsigned t) const { return uint64_t(bx_) * T_ + tx(t); }
  bool naive() const { return k_.tileLayout == TileLayout::None; }
  uint64_t rowOf(unsigned t) const { return naive() ? naiveRow(t) : tiledRow(t); }
  uint64_t colOf(unsigned t) const { return naive() ? naiveCol(t) : tiledCol(t); }
  uint64_t bIndex(uint64_t e, uint64_t col) const { return c_.rows * c_.inner + e * c_.cols + col; }

  void matmulNaiveDot() {
    const uint64_t R = c_.rows, C = c_.cols, K = c_.inner;
    tb_.step(kStepDot, int32_t(K), gLoadFrom<T>(kRegionInput), gLoadFrom<T>(kRegionSecond));
    sums_.assign(B_, T(0));
    for (unsigned t = 0; t < B_; ++t) {
      const uint64_t row = rowOf(t), col = colOf(t);
      if (row >= R || col >= C) continue;
      T sum = T(0);
      for (uint64_t e = 0; e < K; ++e) sum = std::fma(element(row * K + e), element(bIndex(e, col)), sum);
      sums_[t] = sum;
      tb_.lane(t, sum, global(kRegionInput, row * K), global(kRegionSecond, bIndex(0, col)));
    }
    for (uint64_t e = 0; e < K; ++e) {  // the loop's loads, iteration by iteration, A then B
      for (unsigned w = 0; w < warps(); ++w) {
        std::vector<int64_t> a, b;
        for (unsigned t = w * 32; t < w * 32 + 32 && t < B_; ++t) {
          const uint64_t row = rowOf(t), col = colOf(t);
          if (row >= R || col >= C) continue;
          a.push_back(int64_t((row * K + e) * sizeof(T)));
          b.push_back(int64_t(bIndex(e, col) * sizeof(T)));
        }
        tb_.warpLoad(a, sizeof(T));
        tb_.warpLoad(b, sizeof(T));
      }
    }
  }
  // The first K-tile: As and Bs (zeros outside A and B), recorded; later K-tiles are not.
  void matmulTileLoad() {
    const uint64_t R = c_.rows, C = c_.cols, K = c_.inner;
    const int kTiles = int((K + uint64_t(T_) - 1) / uint64_t(T_));
    tb_.step(kStepTileLoad, kTiles, gLoadFrom<T>(kRegionInput), gLoadFrom<T>(kRegionSecond), sStore<T>(), sStore<T>());
    auto aIndex = [&](unsigned t) -> int64_t {
      const uint64_t row = tiledRow(t), ka = tx(t);
      return row < R && ka < K ? int64_t(row * K + ka) : -1;
    };
    auto bIdx = [&](unsigned t) -> int64_t {
      const uint64_t kb = ty(t), col = tiledCol(t);
      return kb < K && col < C ? int64_t(bIndex(kb, col)) : -1;
    };
    for (unsigned t = 0; t < B_; ++t) {
      const int s = int(ty(t)) * T_ + int(tx(t));
      const int64_t ai = aIndex(t), bi = bIdx(t);
      shared_[size_t(s)] = ai >= 0 ? element(uint64_t(ai)) : T(0);
      shared_[size_t(T_ * T_ + s)] = bi >= 0 ? element(uint64_t(bi)) : T(0);
      tb_.lane(t, shared_[size_t(s)], ai >= 0 ? global(kRegionInput, uint64_t(ai)) : Addr{},
               bi >= 0 ? global(kRegionSecond, uint64_t(bi)) : Addr{}, shared(s), shared(T_ * T_ + s));
    }
    warpLoads(kRegionInput, aIndex);
    warpLoads(kRegionSecond, bIdx);
  }
  // The multiply loop, term by term: As[ty][n] (every V-th term a 16-byte read of V elements,
  // matmulRowVector) and Bs[n][tx].
  void matmulTileDot() {
    const int V = matmulRowVector(T_, int(sizeof(T)));
    const SlotInfo aSlot{kSpaceShared, kLoad, uint8_t(V * sizeof(T)), 0};
    sums_.assign(B_, T(0));
    for (int n = 0; n < T_; ++n) {
      const bool readsA = n % V == 0;
      tb_.step(kStepDotTerm, n, readsA ? aSlot : SlotInfo{}, sLoad<T>());
      for (unsigned t = 0; t < B_; ++t) {
        const int a = int(ty(t)) * T_ + n, b = T_ * T_ + n * T_ + int(tx(t));
        sums_[t] = std::fma(shared_[size_t(a)], shared_[size_t(b)], sums_[t]);
        tb_.lane(t, sums_[t], readsA ? shared(a) : Addr{}, shared(b));
      }
    }
  }
  // The store step: the full dot product (every K-tile), as the kernel holds it at the end.
  void matmulStore() {
    const uint64_t R = c_.rows, C = c_.cols, K = c_.inner;
    tb_.step(kStepOutput, 0, gStore<T>());
    for (unsigned t = 0; t < B_; ++t) {
      const uint64_t row = rowOf(t), col = colOf(t);
      if (row >= R || col >= C) continue;
      T sum = T(0);
      if (naive()) {
        sum = sums_[t];
      } else {  // K-tile by K-tile with zeros past K, as the tiled kernel adds
        const uint64_t kTiles = (K + uint64_t(T_) - 1) / uint64_t(T_);
        for (uint64_t kt = 0; kt < kTiles; ++kt)
          for (int n = 0; n < T_; ++n) {
            const uint64_t e = kt * uint64_t(T_) + uint64_t(n);
            const T a = e < K ? element(row * K + e) : T(0);
            const T b = e < K ? element(bIndex(e, col)) : T(0);
            sum = std::fma(a, b, sum);
          }
      }
      tb_.lane(t, sum, global(kRegionOutput, row * C + col));
    }
  }

  const RunConfig& c_;
  const KernelInfo& k_;
  Geometry g_;
  DataSpec spec_;
  int T_;
  unsigned B_;
  unsigned bx_ = 0, by_ = 0;
  int64_t base_[3] = {};
  Builder tb_;
  std::vector<T> shared_, sums_;
};

template <class TIn, class TAcc>
TraceData runModel(const RunConfig& c, uint64_t grid, int cc, const KernelInfo& k) {
  switch (c.op) {
    case Op::Sum: return BlockModel<Sum, TIn, TAcc>(c, grid, cc, k).run();
    case Op::Min: return BlockModel<Min, TIn, TAcc>(c, grid, cc, k).run();
    case Op::Max: return BlockModel<Max, TIn, TAcc>(c, grid, cc, k).run();
  }
  return {};
}

}  // namespace

TraceData modelTrace(const RunConfig& c, uint64_t grid, int ccMajor, std::string* error) {
  if (std::string e = validate(c, nullptr); !e.empty()) {
    if (error) *error = e;
    return {};
  }
  const KernelInfo& k = *findKernel(c.kernel);
  if (!k.traceable) {
    if (error) *error = "CUB is a library: it has no traced twin";
    return {};
  }
  if (c.tracedBlock >= grid) {
    if (error)
      *error = "block " + std::to_string(c.tracedBlock) + " does not exist: the grid has " +
               std::to_string(grid) + " blocks";
    return {};
  }
  if (isMatrixFamily(k)) {
    const Geometry g = planGeometry(k, c, 1);
    if (c.type == ElemType::Float64) return MatrixModel<double>(c, k, g).run();
    return MatrixModel<float>(c, k, g).run();
  }
  return withTypePair(c.type, c.accumulate, [&]<class TIn, class TAcc>(TypeTag<TIn>, TypeTag<TAcc>) {
    return runModel<TIn, TAcc>(c, grid, ccMajor, k);
  });
}

}  // namespace rl
