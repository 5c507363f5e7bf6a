// The reduction family's CPU model: each kernel's schedule (its descriptor's phases) replayed for
// one block, writing the records its traced twin writes.
#include "reduction/reduction_model.hpp"

#include "model_builder.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/type_dispatch.hpp"

namespace rl {
namespace {

using namespace rl::model;
using namespace rl::trace;

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

TraceData reductionModel(const KernelInfo& k, const RunConfig& c, uint64_t grid, int ccMajor) {
  return withTypePair(c.type, c.accumulate, [&]<class TIn, class TAcc>(TypeTag<TIn>, TypeTag<TAcc>) {
    return runModel<TIn, TAcc>(c, grid, ccMajor, k);
  });
}

}  // namespace rl
