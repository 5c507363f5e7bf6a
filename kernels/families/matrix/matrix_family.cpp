#include "matrix/matrix_family.hpp"

#include <algorithm>
#include <cstdio>

#include "matrix/matrix_model.hpp"
#include "reducelab/trace.hpp"

namespace rl {
namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
// Most elements of a matrix (rows x cols): the output is checked on the host (2 GiB in float64).
constexpr uint64_t kMaxMatrixElements = uint64_t(1) << 28;

uint64_t sideMax() { return kMaxMatrixSide; }

}  // namespace

MatrixShape matrixShape(const RunConfig& c) {
  MatrixShape m;
  if (const auto* t = std::get_if<TransposeParams>(&c.params)) m.rows = t->rows, m.cols = t->cols, m.tile = t->tile;
  if (const auto* p = std::get_if<MatmulParams>(&c.params)) m.rows = p->rows, m.cols = p->cols, m.inner = p->inner, m.tile = p->tile;
  return m;
}

int effectiveTile(const KernelInfo& k, const RunConfig& c) {
  if (k.tiles.empty()) return 0;  // no tiles: not a tiled kernel
  const int tile = matrixShape(c).tile;
  return tile > 0 ? tile : k.tiles.front();
}

// The three entries both matrix families have; P's fields by name, so one definition serves both.
template <class P>
FamilyParameter rowsParameter(std::string tooltip) {
  FamilyParameter p;
  p.key = "rows", p.axis = "Rows", p.label = "rows", p.tooltip = std::move(tooltip);
  p.help = "Matrix kernels: rows of the input (transpose) or of C (matmul), 1.." + std::to_string(sideMax());
  p.what = "a matrix side", p.allowed = "1.." + std::to_string(sideMax());
  p.role = ParameterRole::OutputSide;
  p.defaultValue = P{}.rows, p.min = 1, p.max = sideMax();
  p.get = [](const RunConfig& c) -> uint64_t { return paramsAs<P>(c.params).rows; };
  p.set = [](RunConfig& c, uint64_t v) { paramsAs<P>(c.params).rows = v; };
  p.used = [](const KernelInfo&, const RunConfig& c) -> uint64_t { return paramsAs<P>(c.params).rows; };
  return p;
}

template <class P>
FamilyParameter colsParameter(std::string tooltip) {
  FamilyParameter p;
  p.key = "cols", p.axis = "Cols", p.label = "cols", p.tooltip = std::move(tooltip);
  p.help = "Matrix kernels: columns of the input (transpose) or of C (matmul), 1.." + std::to_string(sideMax());
  p.what = "a matrix side", p.allowed = "1.." + std::to_string(sideMax());
  p.role = ParameterRole::OutputSide;
  p.defaultValue = P{}.cols, p.min = 1, p.max = sideMax();
  p.get = [](const RunConfig& c) -> uint64_t { return paramsAs<P>(c.params).cols; };
  p.set = [](RunConfig& c, uint64_t v) { paramsAs<P>(c.params).cols = v; };
  p.used = [](const KernelInfo&, const RunConfig& c) -> uint64_t { return paramsAs<P>(c.params).cols; };
  return p;
}

template <class P>
FamilyParameter tileParameter() {
  FamilyParameter p;
  p.key = "tile", p.axis = "Tile", p.label = "tile", p.tooltip = "";  // the menu lists the tiles as "16 x 16"
  p.help = "Matrix kernels: tile side (transpose 32, 16, 8; matmul 16, 8, 24, 32, 29); it sets the block. 0: the kernel's default";
  p.what = "a tile size", p.allowed = "a tile of the kernel's list, 0: its default";
  p.role = ParameterRole::Tile;
  p.defaultValue = uint64_t(P{}.tile), p.min = 0, p.max = 1024;
  p.get = [](const RunConfig& c) -> uint64_t { return uint64_t(paramsAs<P>(c.params).tile); };
  p.set = [](RunConfig& c, uint64_t v) { paramsAs<P>(c.params).tile = int(v); };
  p.used = [](const KernelInfo& k, const RunConfig& c) -> uint64_t { return uint64_t(effectiveTile(k, c)); };
  return p;
}

template FamilyParameter rowsParameter<TransposeParams>(std::string);
template FamilyParameter rowsParameter<MatmulParams>(std::string);
template FamilyParameter colsParameter<TransposeParams>(std::string);
template FamilyParameter colsParameter<MatmulParams>(std::string);
template FamilyParameter tileParameter<TransposeParams>();
template FamilyParameter tileParameter<MatmulParams>();

std::string MatrixFamily::validate(const KernelInfo& k, const RunConfig& c, const DeviceInfo* device) const {
  const std::string key(k.key);
  if (c.type != ElemType::Float32 && c.type != ElemType::Float64)
    return "kernel " + key + " works on float32 or float64, not " + std::string(rl::name(c.type));
  if (c.op != Op::Sum || c.accumulate != Accumulate::Same)
    return "kernel " + key + " is a " + std::string(name()) + ": --op and --accumulate apply to reductions only";
  if (!allowsFinal(k, c.final)) return "kernel " + key + " has no final stage: --final applies to reductions only";
  std::string tiles;
  for (int t : k.tiles) tiles += (tiles.empty() ? "" : ", ") + std::to_string(t);
  const MatrixShape m = matrixShape(c);
  const int t = effectiveTile(k, c);
  if (!hasTile(k, t)) return "kernel " + key + " has no tile of " + std::to_string(m.tile) + " (tiles: " + tiles + ")";
  auto side = [&](const char* what, uint64_t v) -> std::string {
    if (v < 1 || v > kMaxMatrixSide)
      return std::string(what) + " = " + std::to_string(v) + " is outside 1.." + std::to_string(kMaxMatrixSide);
    return {};
  };
  if (std::string e = side("rows", m.rows); !e.empty()) return e;
  if (std::string e = side("cols", m.cols); !e.empty()) return e;
  if (m.rows * m.cols > kMaxMatrixElements)
    return "rows x cols = " + std::to_string(m.rows * m.cols) +
           " elements is above the limit of 2^28 (the output is checked on the host)";
  if (hasInner()) {
    if (std::string e = side("inner", m.inner); !e.empty()) return e;
    if (m.rows * m.cols * m.inner > kMaxMatmulWork)
      return "rows x cols x inner = " + std::to_string(m.rows * m.cols * m.inner) +
             " multiply-adds is above the limit of 2^33 per run";
  }
  const int expectBlock = matrixBlockX(k, t) * matrixBlockY(k, t);
  if (c.block != expectBlock || c.n != m.rows * m.cols)
    return "kernel " + key + " with tile " + std::to_string(t) + " runs " + std::to_string(expectBlock) +
           " threads per block on rows x cols = " + std::to_string(m.rows * m.cols) +
           " elements; this configuration says block " + std::to_string(c.block) + " and N " + std::to_string(c.n) +
           " (set them from the tile: normalizeConfig)";
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
  holdOwnParameters(c);
  const int t = effectiveTile(k, c);
  if (t < 1 || t > 32) return;  // validate() says why
  c.block = matrixBlockX(k, t) * matrixBlockY(k, t);
  const MatrixShape m = matrixShape(c);
  c.n = m.rows * m.cols;
}

void MatrixFamily::adopt(const KernelInfo& k, RunConfig& c, const KernelInfo*) const {
  // Its own parameters: float types, no operation or wide accumulator, block and N from the tile.
  if (c.type != ElemType::Float32 && c.type != ElemType::Float64) c.type = ElemType::Float32;
  c.op = Op::Sum;
  c.accumulate = Accumulate::Same;
  c.final = FinalStage::Default;
  holdOwnParameters(c);
  if (!hasTile(k, matrixShape(c).tile)) setParametersOfRole(c, ParameterRole::Tile, 0);
  normalize(k, c);
}

std::string MatrixFamily::extent(const KernelInfo&, const RunConfig& c) const {
  const MatrixShape m = matrixShape(c);
  return std::to_string(m.rows) + " x " + std::to_string(m.cols) + (hasInner() ? " (K " + std::to_string(m.inner) + ")" : "");
}

std::string MatrixFamily::shape(const KernelInfo& k, const RunConfig& c) const {
  return extent(k, c) + " t" + std::to_string(effectiveTile(k, c));
}

uint64_t MatrixFamily::outputElements(const KernelInfo&, const RunConfig& c) const {
  const MatrixShape m = matrixShape(c);
  return m.rows * m.cols;
}

std::string MatrixFamily::benchLine(const KernelInfo&, const RunConfig& c) const {
  const MatrixShape m = matrixShape(c);
  char b[512];
  if (hasInner())
    std::snprintf(b, sizeof b,
                  "C (%llu x %llu) = A (%llu x %llu) x B (%llu x %llu), %s, data %s (seed %llu), %d reps after %d "
                  "warm-up, %s L2\n",
                  (unsigned long long)m.rows, (unsigned long long)m.cols, (unsigned long long)m.rows,
                  (unsigned long long)m.inner, (unsigned long long)m.inner, (unsigned long long)m.cols,
                  std::string(rl::name(c.type)).c_str(), std::string(rl::name(c.data)).c_str(), (unsigned long long)c.seed,
                  c.reps, c.warmup, c.warmL2 ? "warm" : "cold (flushed)");
  else
    std::snprintf(b, sizeof b, "Transpose of a %llu x %llu %s matrix, data %s (seed %llu), %d reps after %d warm-up, %s L2\n",
                  (unsigned long long)m.rows, (unsigned long long)m.cols, std::string(rl::name(c.type)).c_str(),
                  std::string(rl::name(c.data)).c_str(), (unsigned long long)c.seed, c.reps, c.warmup,
                  c.warmL2 ? "warm" : "cold (flushed)");
  return b;
}

std::string MatrixFamily::traceLine(const KernelInfo&, const RunConfig& c, const trace::TraceHeader& h,
                                    const std::string& source) const {
  const MatrixShape m = matrixShape(c);
  char b[512];
  std::snprintf(b, sizeof b,
                "Trace of block %u of %u (%u x %u tiles): kernel %s, tile %u, %u x %u threads, %s, %s %llu x %llu%s, "
                "from the %s\n",
                h.tracedBlock, h.gridSize, h.gridX, h.gridY, c.kernel.c_str(), h.tile, h.blockX, h.blockY,
                std::string(rl::name(c.type)).c_str(), hasInner() ? "C =" : "input", (unsigned long long)m.rows,
                (unsigned long long)m.cols, hasInner() ? (", K = " + std::to_string(m.inner)).c_str() : "", source.c_str());
  return b;
}

std::vector<RunConfig> MatrixFamily::resourceVariants(const KernelInfo& k) const {
  // One instantiation per tile and float type.
  std::vector<RunConfig> out;
  RunConfig c;
  c.kernel = std::string(k.key);
  for (ElemType t : {ElemType::Float32, ElemType::Float64})
    for (int tile : k.tiles) {
      c.type = t;
      setParametersOfRole(c, ParameterRole::Tile, uint64_t(tile));
      normalizeConfig(c);
      out.push_back(c);
    }
  return out;
}

std::vector<std::string> MatrixFamily::extraColumns() const {
  std::vector<std::string> c = {"% copy"};  // a matrix kernel reads and writes: against the measured copy
  if (measuresFlops()) c.insert(c.end(), {"GFLOP/s", "% peak FLOP"});
  c.insert(c.end(), {"size", "tile"});
  return c;
}

std::vector<std::pair<std::string, std::string>> MatrixFamily::configCells(const KernelInfo& k, const RunConfig& c) const {
  const MatrixShape m = matrixShape(c);
  return {{"size", std::to_string(m.rows) + " x " + std::to_string(m.cols) + (hasInner() ? " x " + std::to_string(m.inner) : "")},
          {"tile", std::to_string(effectiveTile(k, c))}};
}

uint64_t MatrixFamily::deviceBytesNeeded(const KernelInfo& k, const RunConfig& c, const DeviceInfo& d) const {
  // The input(s), the output, and the L2 flush buffer.
  const uint64_t flush = c.warmL2 ? 0 : uint64_t(std::max<int64_t>(d.l2Bytes, 1 << 20)) * 2;
  return (inputElements(k, c) + outputElements(k, c)) * elemBytes(c.type) + flush + (16 << 20);
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
  const MatrixShape m = matrixShape(c);
  g.gridX = unsigned(ceilDiv(m.cols, uint64_t(t)));
  g.gridY = unsigned(ceilDiv(m.rows, uint64_t(t)));
  g.passGrids = {uint64_t(g.gridX) * g.gridY};
  g.smemBytes = sharedBytes(k, int(g.block), c.type, t);
  g.partials = 0;
  g.maxElemsPerThread = hasInner() ? m.inner : ceilDiv(uint64_t(t), g.blockY);
  return g;
}

TraceData MatrixFamily::model(const KernelInfo& k, const RunConfig& c, uint64_t, int, std::string*) const {
  return matrixModel(k, c, geometry(k, c, 1));
}

}  // namespace rl
