// The matrix families' CPU model (transpose, matmul): the traced block's tile steps replayed on
// the host, writing the records the traced twins write.
#include "matrix/matrix_model.hpp"
#include "matrix/matrix_family.hpp"
#include "matrix/matrix_kernels.hpp"

#include "model_builder.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/reference.hpp"

namespace rl {
namespace {

using namespace rl::model;
using namespace rl::trace;

template <class T>
class MatrixModel {
 public:
  MatrixModel(const RunConfig& c, const KernelInfo& k, const Geometry& g)
      : c_(c), m_(matrixShape(c)), k_(k), g_(g), spec_(dataSpecOf(c)), T_(g.tile), B_(g.block),
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
    const uint64_t R = m_.rows, C = m_.cols, K = m_.inner;
    int64_t inputFirst, second = 0, output;
    if (k_.family == Family::Transpose) {
      inputFirst = int64_t(uint64_t(by_) * T_ * C + uint64_t(bx_) * T_);
      output = int64_t(uint64_t(outTileRow()) * T_ * outCols() + uint64_t(outTileCol()) * T_);
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
    const uint64_t R = m_.rows, C = m_.cols;
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
        tb_.lane(t, element(uint64_t(in)), global(kRegionInput, uint64_t(in)),
                 global(kRegionOutput, transposeDestination(k_, R, C, T_, y, x)));
      }
      warpLoads(kRegionInput, inIndex);
    }
  }
  void transposeLoadTile() {
    const uint64_t R = m_.rows, C = m_.cols;
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
  // The output's shape and the tile this block writes (transpose.cuh's transposeTiled): the
  // transposed tile, or its own where the kernel does not swap tiles.
  uint64_t outRows() const { return k_.swapsTiles ? m_.cols : m_.rows; }
  uint64_t outCols() const { return k_.swapsTiles ? m_.rows : m_.cols; }
  unsigned outTileRow() const { return k_.swapsTiles ? bx_ : by_; }
  unsigned outTileCol() const { return k_.swapsTiles ? by_ : bx_; }
  void transposeStoreTile() {
    for (unsigned i = 0; i < unsigned(T_); i += g_.blockY) {
      tb_.step(kStepTileStore, int32_t(i), sLoad<T>(), gStore<T>());
      for (unsigned t = 0; t < B_; ++t) {
        const uint64_t xo = uint64_t(outTileCol()) * T_ + tx(t), yo = uint64_t(outTileRow()) * T_ + ty(t) + i;
        if (xo >= outCols() || yo >= outRows()) continue;
        const int s = k_.swapsElements ? tileIndex(int(tx(t)), int(ty(t) + i)) : tileIndex(int(ty(t) + i), int(tx(t)));
        tb_.lane(t, shared_[size_t(s)], shared(s), global(kRegionOutput, yo * outCols() + xo));
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
  uint64_t bIndex(uint64_t e, uint64_t col) const { return m_.rows * m_.inner + e * m_.cols + col; }

  void matmulNaiveDot() {
    const uint64_t R = m_.rows, C = m_.cols, K = m_.inner;
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
    const uint64_t R = m_.rows, C = m_.cols, K = m_.inner;
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
    const uint64_t R = m_.rows, C = m_.cols, K = m_.inner;
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
  const MatrixShape m_;  // the sides and tile
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


}  // namespace

TraceData matrixModel(const KernelInfo& k, const RunConfig& c, const Geometry& g) {
  if (c.type == ElemType::Float64) return MatrixModel<double>(c, k, g).run();
  return MatrixModel<float>(c, k, g).run();
}

}  // namespace rl
