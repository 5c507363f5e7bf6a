#include "reducelab/config.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rl {
namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
int log2Ceil(uint64_t v) { return v <= 1 ? 0 : 64 - std::countl_zero(v - 1); }

}  // namespace

FinalStage resolvedFinal(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k) return FinalStage::Gpu;
  return c.final == FinalStage::Default ? defaultFinal(*k) : c.final;
}

bool usesProgrammaticDependentLaunch(const RunConfig& c, const Geometry& g, int ccMajor) {
  return c.pdl && g.final == FinalStage::Gpu && g.passGrids.size() > 1 && ccMajor >= 9;
}

bool programmaticDependentLaunchApplies(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  return k && !isMatrixFamily(*k) && k->shape != GridShape::Library && !k->policyTuned &&
         resolvedFinal(c) == FinalStage::Gpu;
}

int effectiveTile(const KernelInfo& k, const RunConfig& c) {
  if (!isMatrixFamily(k)) return 0;
  return c.tile > 0 ? c.tile : k.tiles.front();
}

std::string runShape(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k || !isMatrixFamily(*k)) return "N=" + formatCount(c.n) + " b" + std::to_string(c.block);
  return std::to_string(c.rows) + " x " + std::to_string(c.cols) +
         (k->family == Family::Matmul ? " (K " + std::to_string(c.inner) + ")" : "") + " t" +
         std::to_string(effectiveTile(*k, c));
}

void applyMatrixShape(RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k || !isMatrixFamily(*k)) return;
  const int t = effectiveTile(*k, c);
  if (t < 1 || t > 32) return;  // validate() says why
  c.block = matrixBlockX(*k, t) * matrixBlockY(*k, t);
  c.n = c.rows * c.cols;
}

uint64_t inputElements(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k || !isMatrixFamily(*k)) return c.n;
  if (k->family == Family::Matmul) return c.rows * c.inner + c.inner * c.cols;
  return c.rows * c.cols;
}

double bytesMoved(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  const double eb = double(elemBytes(c.type));
  if (!k || k->family == Family::Reduction) return double(c.n) * eb;
  if (k->family == Family::Transpose) return 2.0 * double(c.rows) * double(c.cols) * eb;
  // matmul: A and B read once and C written once, the least any kernel can move
  return (double(c.rows) * double(c.inner) + double(c.inner) * double(c.cols) + double(c.rows) * double(c.cols)) * eb;
}

double flopsDone(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k || k->family != Family::Matmul) return 0;
  return 2.0 * double(c.rows) * double(c.cols) * double(c.inner);
}

uint64_t blocksToCover(const KernelInfo& k, uint64_t n, int block, ElemType in) {
  switch (k.shape) {
    case GridShape::OnePerThread: return ceilDiv(n, uint64_t(block));
    case GridShape::PairPerThread: return ceilDiv(n, 2 * uint64_t(block));
    case GridShape::GridStride: return ceilDiv(n, uint64_t(block) * elemsPerIteration(k, in));
    case GridShape::Library: return 1;
    case GridShape::MatrixTiles: break;  // planGeometry's own branch (2-D grid)
    case GridShape::Unset: break;  // refused by kernel_list.hpp
  }
  return 1;
}

Geometry planGeometry(const KernelInfo& k, const RunConfig& c, uint64_t residentBlocks) {
  Geometry g;
  g.final = resolvedFinal(c);
  if (isMatrixFamily(k)) {
    // Transpose: tiles over the input (cols across, rows down); matmul: over C. Ragged edges
    // get a whole tile, whose threads outside the matrix do nothing.
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
    g.maxElemsPerThread = k.family == Family::Matmul ? c.inner : ceilDiv(uint64_t(t), g.blockY);
    return g;
  }
  g.block = unsigned(c.block);
  g.smemBytes = sharedBytes(k, c.block, c.accType());
  residentBlocks = std::max<uint64_t>(residentBlocks, 1);
  auto gridFor = [&](uint64_t n, ElemType in) {
    uint64_t cover = blocksToCover(k, n, c.block, in);
    return k.shape == GridShape::GridStride ? std::min(cover, residentBlocks) : cover;
  };
  if (k.shape == GridShape::Library) {
    g.passGrids = {1};
    g.partials = 1;
    g.maxElemsPerThread = 0;
    return g;
  }
  uint64_t grid = gridFor(c.n, c.type);
  g.passGrids.push_back(grid);
  const uint64_t threads = grid * uint64_t(c.block);
  g.maxElemsPerThread =
      k.shape == GridShape::GridStride
          ? ceilDiv(c.n, threads * elemsPerIteration(k, c.type)) * elemsPerIteration(k, c.type)
          : (k.shape == GridShape::PairPerThread ? 2 : 1);
  if (g.final == FinalStage::Gpu) {
    while (grid > 1) {
      grid = gridFor(grid, c.accType());
      g.passGrids.push_back(grid);
    }
    g.partials = 1;
  } else if (g.final == FinalStage::Cpu) {
    g.partials = grid;
  } else {
    g.partials = 1;  // atomic, last block: one launch leaves one value
  }
  return g;
}

uint64_t sequentialChainBound(const KernelInfo& k, const Geometry& g, uint64_t n) {
  const int treeDepth = log2Ceil(g.block ? g.block : 1);
  if (isMatrixFamily(k)) return k.family == Family::Matmul ? n + 2 : 1;  // n: inner (the caller's)
  if (k.shape == GridShape::Library)  // CUB: per-thread tiles and a tree; bound it generously
    return std::max<uint64_t>(64, uint64_t(std::sqrt(double(n)))) + 2 * log2Ceil(n) + 64;
  uint64_t chain = g.maxElemsPerThread + treeDepth;
  switch (g.final) {
    case FinalStage::Gpu:
      for (size_t p = 1; p < g.passGrids.size(); ++p)
        chain += ceilDiv(g.passGrids[p - 1], g.passGrids[p] * g.block) * 2 + treeDepth;
      break;
    case FinalStage::Cpu: chain += g.partials; break;
    case FinalStage::Atomic: chain += g.grid(); break;
    case FinalStage::LastBlock: chain += ceilDiv(g.grid(), g.block) + treeDepth; break;
    default: break;
  }
  return chain + 2;
}

uint64_t deviceBytesNeeded(const RunConfig& c, const DeviceInfo& d) {
  const KernelInfo* k = findKernel(c.kernel);
  if (k && isMatrixFamily(*k)) {  // input(s), output, and the L2 flush buffer
    const uint64_t flush = c.warmL2 ? 0 : uint64_t(std::max<int64_t>(d.l2Bytes, 1 << 20)) * 2;
    return (inputElements(c) + c.rows * c.cols) * elemBytes(c.type) + flush + (16 << 20);
  }
  const uint64_t input = c.n * elemBytes(c.type);
  const uint64_t partials = 2 * (blocksToCover(*findKernel(c.kernel), c.n, c.block, c.type) + 64) *
                            elemBytes(c.accType());
  const uint64_t flush = c.warmL2 ? 0 : uint64_t(std::max<int64_t>(d.l2Bytes, 1 << 20)) * 2;
  return input + partials + flush + (64 << 20);  // + CUB temp storage and slack
}

namespace {
// Most elements of a matrix (rows x cols): the output is checked on the host (2 GiB in float64).
constexpr uint64_t kMaxMatrixElements = uint64_t(1) << 28;

// The matrix families' rules (their block and n follow from the tile and the matrix).
std::string validateMatrix(const KernelInfo& k, const RunConfig& c, const DeviceInfo* device) {
  const std::string key(k.key);
  if (c.type != ElemType::Float32 && c.type != ElemType::Float64)
    return "kernel " + key + " works on float32 or float64, not " + std::string(name(c.type));
  if (c.op != Op::Sum || c.accumulate != Accumulate::Same)
    return "kernel " + key + " is a " + std::string(familyName(k.family)) +
           ": --op and --accumulate apply to reductions only";
  if (!allowsFinal(k, c.final)) return "kernel " + key + " has no final stage: --final applies to reductions only";
  std::string tiles;
  for (int t : k.tiles) tiles += (tiles.empty() ? "" : ", ") + std::to_string(t);
  const int t = effectiveTile(k, c);
  if (!hasTile(k, t))
    return "kernel " + key + " has no tile of " + std::to_string(c.tile) + " (tiles: " + tiles + ")";
  auto side = [&](const char* what, uint64_t v) -> std::string {
    if (v < 1 || v > kMaxMatrixSide)
      return std::string(what) + " = " + std::to_string(v) + " is outside 1.." + std::to_string(kMaxMatrixSide);
    return {};
  };
  if (std::string e = side("rows", c.rows); !e.empty()) return e;
  if (std::string e = side("cols", c.cols); !e.empty()) return e;
  if (c.rows * c.cols > kMaxMatrixElements)
    return "rows x cols = " + std::to_string(c.rows * c.cols) + " elements is above the limit of 2^28 (the output is "
           "checked on the host)";
  if (k.family == Family::Matmul) {
    if (std::string e = side("inner", c.inner); !e.empty()) return e;
    if (c.rows * c.cols * c.inner > kMaxMatmulWork)
      return "rows x cols x inner = " + std::to_string(c.rows * c.cols * c.inner) +
             " multiply-adds is above the limit of 2^33 per run";
  }
  const int expectBlock = matrixBlockX(k, t) * matrixBlockY(k, t);
  if (c.block != expectBlock || c.n != c.rows * c.cols)
    return "kernel " + key + " with tile " + std::to_string(t) + " runs " + std::to_string(expectBlock) +
           " threads per block on rows x cols = " + std::to_string(c.rows * c.cols) +
           " elements; this configuration says block " + std::to_string(c.block) + " and N " +
           std::to_string(c.n) + " (set them from the tile: applyMatrixShape)";
  if (c.reps < 1 || c.reps > 100000) return "repetitions must be between 1 and 100000";
  if (c.warmup < 0 || c.warmup > 10000) return "warm-up runs must be between 0 and 10000";
  if (c.data == DataPattern::IntRange && c.rangeLo > c.rangeHi)
    return "the integer range is empty (low " + std::to_string(c.rangeLo) + " > high " +
           std::to_string(c.rangeHi) + ")";
  if (device && device->available) {
    if (c.block > device->maxThreadsPerBlock)
      return "tile " + std::to_string(t) + " needs " + std::to_string(c.block) +
             " threads per block, above this GPU's limit of " + std::to_string(device->maxThreadsPerBlock);
    const uint64_t need = deviceBytesNeeded(c, *device);
    const uint64_t have = uint64_t(device->freeMemBytes);
    if (have > 0 && need > have)
      return "the matrices need " + std::to_string(need >> 20) + " MiB of device memory, but only " +
             std::to_string(have >> 20) + " MiB are free";
  }
  return {};
}
}  // namespace

std::string validate(const RunConfig& c, const DeviceInfo* device) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k) return "unknown kernel '" + c.kernel + "' (known: " + kernelKeys() + ")";
  if (device && device->available && k->minCc > 0 && device->ccMajor * 10 + device->ccMinor < k->minCc)
    return "kernel " + std::string(k->key) + " needs a GPU of compute capability " + std::to_string(k->minCc / 10) +
           "." + std::to_string(k->minCc % 10) + " or newer (" + std::string(k->name) + "); this GPU is " +
           device->ccString();
  if (isMatrixFamily(*k)) return validateMatrix(*k, c, device);
  const int maxBlock = device && device->available ? device->maxThreadsPerBlock : 1024;
  if (c.block < 32 || c.block > 1024 || (c.block & (c.block - 1)) != 0)
    return "block size " + std::to_string(c.block) + " is not a power of two from 32 to 1024";
  if (c.block > maxBlock)
    return "block size " + std::to_string(c.block) + " is above this GPU's limit of " +
           std::to_string(maxBlock) + " threads per block";
  if (c.block < k->minBlock)
    return "kernel " + std::string(k->key) + " needs at least " + std::to_string(k->minBlock) +
           " threads per block (its last warp reads sdata[tid + 32])";
  if (!allowsFinal(*k, c.final)) {
    std::string allowed;
    for (FinalStage f : k->finals) allowed += (allowed.empty() ? "" : " or ") + std::string(name(f));
    return "kernel " + std::string(k->key) + " finishes with " + allowed + "; --final " +
           std::string(name(c.final)) + " does not apply to it";
  }
  if (c.n < 1) return "N must be at least 1";
  if (c.n > (uint64_t(1) << 40)) return "N is above the largest supported value (2^40)";
  if (c.reps < 1 || c.reps > 100000) return "repetitions must be between 1 and 100000";
  if (c.warmup < 0 || c.warmup > 10000) return "warm-up runs must be between 0 and 10000";
  if (c.data == DataPattern::IntRange && c.rangeLo > c.rangeHi)
    return "the integer range is empty (low " + std::to_string(c.rangeLo) + " > high " +
           std::to_string(c.rangeHi) + ")";
  const uint64_t cover = blocksToCover(*k, c.n, c.block, c.type);
  if (k->shape != GridShape::GridStride && k->shape != GridShape::Library &&
      cover > 0x7fffffffull)
    return "N = " + std::to_string(c.n) + " needs " + std::to_string(cover) +
           " blocks of " + std::to_string(c.block) + " threads, above the grid limit of 2^31-1";
  if (device && device->available) {
    const uint64_t need = deviceBytesNeeded(c, *device);
    const uint64_t have = uint64_t(device->freeMemBytes);
    if (have > 0 && need > have)
      return "N = " + std::to_string(c.n) + " " + std::string(name(c.type)) + " needs " +
             std::to_string(need >> 20) + " MiB of device memory, but only " +
             std::to_string(have >> 20) + " MiB are free";
  }
  return {};
}

}  // namespace rl
