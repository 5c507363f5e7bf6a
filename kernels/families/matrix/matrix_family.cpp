#include "matrix/matrix_family.hpp"

#include <algorithm>

#include "matrix/matrix_model.hpp"
#include "reducelab/trace.hpp"

namespace rl {
namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
// Most elements of a matrix (rows x cols): the output is checked on the host (2 GiB in float64).
constexpr uint64_t kMaxMatrixElements = uint64_t(1) << 28;

}  // namespace

std::string MatrixFamily::validate(const KernelInfo& k, const RunConfig& c, const DeviceInfo* device) const {
  const std::string key(k.key);
  if (c.type != ElemType::Float32 && c.type != ElemType::Float64)
    return "kernel " + key + " works on float32 or float64, not " + std::string(rl::name(c.type));
  if (c.op != Op::Sum || c.accumulate != Accumulate::Same)
    return "kernel " + key + " is a " + std::string(name()) + ": --op and --accumulate apply to reductions only";
  if (!allowsFinal(k, c.final)) return "kernel " + key + " has no final stage: --final applies to reductions only";
  std::string tiles;
  for (int t : k.tiles) tiles += (tiles.empty() ? "" : ", ") + std::to_string(t);
  const int t = effectiveTile(k, c);
  if (!hasTile(k, t)) return "kernel " + key + " has no tile of " + std::to_string(c.tile) + " (tiles: " + tiles + ")";
  auto side = [&](const char* what, uint64_t v) -> std::string {
    if (v < 1 || v > kMaxMatrixSide)
      return std::string(what) + " = " + std::to_string(v) + " is outside 1.." + std::to_string(kMaxMatrixSide);
    return {};
  };
  if (std::string e = side("rows", c.rows); !e.empty()) return e;
  if (std::string e = side("cols", c.cols); !e.empty()) return e;
  if (c.rows * c.cols > kMaxMatrixElements)
    return "rows x cols = " + std::to_string(c.rows * c.cols) +
           " elements is above the limit of 2^28 (the output is checked on the host)";
  if (hasInner()) {
    if (std::string e = side("inner", c.inner); !e.empty()) return e;
    if (c.rows * c.cols * c.inner > kMaxMatmulWork)
      return "rows x cols x inner = " + std::to_string(c.rows * c.cols * c.inner) +
             " multiply-adds is above the limit of 2^33 per run";
  }
  const int expectBlock = matrixBlockX(k, t) * matrixBlockY(k, t);
  if (c.block != expectBlock || c.n != c.rows * c.cols)
    return "kernel " + key + " with tile " + std::to_string(t) + " runs " + std::to_string(expectBlock) +
           " threads per block on rows x cols = " + std::to_string(c.rows * c.cols) +
           " elements; this configuration says block " + std::to_string(c.block) + " and N " + std::to_string(c.n) +
           " (set them from the tile: applyMatrixShape)";
  if (device && device->available) {
    if (c.block > device->maxThreadsPerBlock)
      return "tile " + std::to_string(t) + " needs " + std::to_string(c.block) +
             " threads per block, above this GPU's limit of " + std::to_string(device->maxThreadsPerBlock);
    const uint64_t need = deviceBytesNeeded(k, c, *device);
    const uint64_t have = uint64_t(device->freeMemBytes);
    if (have > 0 && need > have)
      return "the matrices need " + std::to_string(need >> 20) + " MiB of device memory, but only " +
             std::to_string(have >> 20) + " MiB are free";
  }
  return {};
}

void MatrixFamily::normalize(const KernelInfo& k, RunConfig& c) const {
  const int t = effectiveTile(k, c);
  if (t < 1 || t > 32) return;  // validate() says why
  c.block = matrixBlockX(k, t) * matrixBlockY(k, t);
  c.n = c.rows * c.cols;
}

void MatrixFamily::adopt(const KernelInfo& k, RunConfig& c, const KernelInfo*) const {
  // Its own parameters: float types, no operation or wide accumulator, block and N from the tile.
  if (c.type != ElemType::Float32 && c.type != ElemType::Float64) c.type = ElemType::Float32;
  c.op = Op::Sum;
  c.accumulate = Accumulate::Same;
  c.final = FinalStage::Default;
  if (!hasTile(k, c.tile)) c.tile = 0;
  normalize(k, c);
}

std::string MatrixFamily::shape(const KernelInfo& k, const RunConfig& c) const {
  return std::to_string(c.rows) + " x " + std::to_string(c.cols) +
         (hasInner() ? " (K " + std::to_string(c.inner) + ")" : "") + " t" + std::to_string(effectiveTile(k, c));
}

std::vector<std::pair<std::string, std::string>> MatrixFamily::ownParameters(const KernelInfo& k, const RunConfig& c) const {
  std::vector<std::pair<std::string, std::string>> p = {{"Rows", std::to_string(c.rows)}, {"Cols", std::to_string(c.cols)}};
  if (hasInner()) p.push_back({"Inner", std::to_string(c.inner)});
  p.push_back({"Tile", std::to_string(effectiveTile(k, c))});
  return p;
}

std::vector<std::string> MatrixFamily::extraColumns() const {
  std::vector<std::string> c = {"% copy"};  // a matrix kernel reads and writes: against the measured copy
  if (measuresFlops()) c.insert(c.end(), {"GFLOP/s", "% peak FLOP"});
  c.insert(c.end(), {"size", "tile"});
  return c;
}

std::vector<std::pair<std::string, std::string>> MatrixFamily::configCells(const KernelInfo& k, const RunConfig& c) const {
  return {{"size", std::to_string(c.rows) + " x " + std::to_string(c.cols) + (hasInner() ? " x " + std::to_string(c.inner) : "")},
          {"tile", std::to_string(effectiveTile(k, c))}};
}

uint64_t MatrixFamily::deviceBytesNeeded(const KernelInfo& k, const RunConfig& c, const DeviceInfo& d) const {
  // The input(s), the output, and the L2 flush buffer.
  const uint64_t flush = c.warmL2 ? 0 : uint64_t(std::max<int64_t>(d.l2Bytes, 1 << 20)) * 2;
  return (inputElements(k, c) + c.rows * c.cols) * elemBytes(c.type) + flush + (16 << 20);
}

Geometry MatrixFamily::geometry(const KernelInfo& k, const RunConfig& c, uint64_t) const {
  // Tiles over the output (a transpose's input: cols across, rows down); ragged edges get a whole
  // tile whose threads outside the matrix do nothing.
  Geometry g;
  g.final = resolvedFinal(c);
  const int t = effectiveTile(k, c);
  g.tile = t;
  g.blockX = unsigned(matrixBlockX(k, t));
  g.blockY = unsigned(matrixBlockY(k, t));
  g.block = g.blockX * g.blockY;
  g.gridX = unsigned(ceilDiv(c.cols, uint64_t(t)));
  g.gridY = unsigned(ceilDiv(c.rows, uint64_t(t)));
  g.passGrids = {uint64_t(g.gridX) * g.gridY};
  g.smemBytes = sharedBytes(k, int(g.block), c.type, t);
  g.partials = 0;
  g.maxElemsPerThread = hasInner() ? c.inner : ceilDiv(uint64_t(t), g.blockY);
  return g;
}

TraceData MatrixFamily::model(const KernelInfo& k, const RunConfig& c, uint64_t, int, std::string*) const {
  return matrixModel(k, c, geometry(k, c, 1));
}

}  // namespace rl
