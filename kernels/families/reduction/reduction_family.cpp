// The reduction family (seeds 000-002, Harris's ladder, CUB): N elements folded by an operation
// into one value, in passes of blocks and a final stage.
#include <algorithm>
#include <bit>
#include <cmath>

#include "reducelab/family.hpp"
#include "reduction/reduction_kernels.hpp"
#include "reduction/reduction_model.hpp"
#include "reducelab/launch_plan.hpp"

namespace rl {
namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

constexpr int kMaxGpuPasses = 8;
int gpuPassesOf(const RunConfig& c) { return paramsAs<ReductionParams>(c.params).gpuPasses; }

FamilyParameter passesParameter() {
  FamilyParameter p;
  // The record's axis says what the value counts: launches before a CPU final (0: the GPU
  // finishes, however many passes that takes).
  p.key = "gpu-passes", p.axis = "GPU passes before the CPU", p.label = "GPU passes";
  p.tooltip = "final cpu: the GPU launches before the CPU adds what is left. 1: one launch (Kernel01);\n"
              "2: again on its partials, as the UPC lecture's Kernel02 (32768 blocks, then 64, then the CPU)";
  p.help = "Reductions with --final cpu: GPU launches before the CPU adds the partials left (1.." +
           std::to_string(kMaxGpuPasses) + "; 0 or 1: one, the default)";
  p.what = "a number of GPU passes", p.allowed = "0.." + std::to_string(kMaxGpuPasses);
  p.role = ParameterRole::Count;
  p.defaultValue = 0, p.min = 0, p.max = kMaxGpuPasses;
  p.get = [](const RunConfig& c) -> uint64_t { return uint64_t(gpuPassesOf(c)); };
  p.set = [](RunConfig& c, uint64_t v) { paramsAs<ReductionParams>(c.params).gpuPasses = int(v); };
  p.used = [](const KernelInfo&, const RunConfig& c) -> uint64_t {
    return resolvedFinal(c) == FinalStage::Cpu ? uint64_t(std::max(gpuPassesOf(c), 1)) : 0;
  };
  return p;
}
int log2Ceil(uint64_t v) { return v <= 1 ? 0 : 64 - std::countl_zero(v - 1); }

uint64_t gridOf(const RunConfig& c) { return paramsAs<ReductionParams>(c.params).grid; }

FamilyParameter gridParameter() {
  FamilyParameter p;
  p.key = "grid", p.axis = "Grid blocks", p.label = "grid";
  p.tooltip = "Blocks of the first launch of a grid-stride kernel (k7 to k12, k14). 0: one wave, as many as the GPU\n"
              "holds at once; the UPC lecture's Kernel07 used 4096";
  p.help = "Grid-stride reductions (k7 to k12, k14): blocks of the first launch, at most the blocks N needs (0: one wave, the default)";
  p.what = "a number of blocks", p.allowed = "0.." + std::to_string(0x7fffffffull);
  p.role = ParameterRole::Blocks;
  p.defaultValue = 0, p.min = 0, p.max = 0x7fffffffull;
  p.get = [](const RunConfig& c) -> uint64_t { return gridOf(c); };
  p.set = [](RunConfig& c, uint64_t v) { paramsAs<ReductionParams>(c.params).grid = v; };
  p.used = [](const KernelInfo&, const RunConfig& c) -> uint64_t { return gridOf(c); };
  return p;
}

class ReductionFamily final : public KernelFamily {
 public:
  Family id() const override { return Family::Reduction; }
  std::string_view name() const override { return "reduction"; }
  std::string_view listName() const override { return "all"; }
  std::string_view heading() const override { return "reduction (seeds 000-002)"; }
  const std::vector<FamilyParameter>& parameters() const override {
    static const std::vector<FamilyParameter> list = {passesParameter(), gridParameter()};
    return list;
  }

  std::string validate(const KernelInfo& k, const RunConfig& c, const DeviceInfo* device) const override {
    const int maxBlock = device && device->available ? device->maxThreadsPerBlock : 1024;
    if (c.block < 32 || c.block > 1024 || (c.block & (c.block - 1)) != 0)
      return "block size " + std::to_string(c.block) + " is not a power of two from 32 to 1024";
    if (c.block > maxBlock)
      return "block size " + std::to_string(c.block) + " is above this GPU's limit of " + std::to_string(maxBlock) +
             " threads per block";
    if (c.block < k.minBlock)
      return "kernel " + std::string(k.key) + " needs at least " + std::to_string(k.minBlock) +
             " threads per block (its last warp reads sdata[tid + 32])";
    if (!allowsFinal(k, c.final)) {
      std::string allowed;
      for (FinalStage f : k.finals) allowed += (allowed.empty() ? "" : " or ") + std::string(rl::name(f));
      return "kernel " + std::string(k.key) + " finishes with " + allowed + "; --final " +
             std::string(rl::name(c.final)) + " does not apply to it";
    }
    if (const int passes = gpuPassesOf(c); passes > 1) {
      if (passes > kMaxGpuPasses)
        return "gpu-passes " + std::to_string(passes) + " is above " + std::to_string(kMaxGpuPasses);
      if (resolvedFinal(c) != FinalStage::Cpu)
        return "gpu-passes " + std::to_string(passes) + ": the GPU launches before a CPU final stage (--final cpu); with " +
               std::string(rl::name(resolvedFinal(c))) + " the GPU finishes by itself";
      if (!allowsFinal(k, FinalStage::Gpu))
        return "kernel " + std::string(k.key) + " does not launch again on its own partials (no GPU final stage): gpu-passes 1";
    }
    if (const uint64_t grid = gridOf(c); grid > 0) {
      if (k.shape != GridShape::GridStride)
        return "kernel " + std::string(k.key) + " launches the blocks its N needs; --grid applies to the grid-stride kernels (k7 to k12)";
      if (k.policyTuned)
        return "kernel " + std::string(k.key) + " takes its grid from its tuned launch policy (reducelab tune), not --grid";
      const uint64_t cover = std::max<uint64_t>(blocksToCover(k, c.n, c.block, c.type), 1);
      if (grid > cover)
        return "--grid " + std::to_string(grid) + " is more blocks than N = " + formatCount(c.n) + " needs (" +
               std::to_string(cover) + " of " + std::to_string(c.block) + " threads)";
    }
    if (c.n < 1) return "N must be at least 1";
    if (c.n > (uint64_t(1) << 40)) return "N is above the largest supported value (2^40)";
    const uint64_t cover = blocksToCover(k, c.n, c.block, c.type);
    if (k.shape != GridShape::GridStride && k.shape != GridShape::Library && cover > 0x7fffffffull)
      return "N = " + std::to_string(c.n) + " needs " + std::to_string(cover) + " blocks of " + std::to_string(c.block) +
             " threads, above the grid limit of 2^31-1";
    if (device && device->available) {
      const uint64_t need = deviceBytesNeeded(k, c, *device);
      const uint64_t have = uint64_t(device->freeMemBytes);
      if (have > 0 && need > have)
        return "N = " + std::to_string(c.n) + " " + std::string(rl::name(c.type)) + " needs " + std::to_string(need >> 20) +
               " MiB of device memory, but only " + std::to_string(have >> 20) + " MiB are free";
    }
    return {};
  }

  void normalize(const KernelInfo&, RunConfig& c) const override {
    if (!std::holds_alternative<ReductionParams>(c.params)) c.params = ReductionParams{};  // N, block, op: common
  }

  void adopt(const KernelInfo& k, RunConfig& c, const KernelInfo* previous) const override {
    // From a matrix kernel: its tile set the block (a tile of 29 runs 841 threads).
    if (previous && &familyOf(*previous) != this) c.block = 256;
    normalize(k, c);
  }

  bool descriptorComplete(const KernelInfo& k) const override {
    return commonDescriptorComplete(k) && reductionDescriptorComplete(k);
  }

  std::vector<RunConfig> resourceVariants(const KernelInfo& k) const override {
    // Every type, accumulator and operation; a block-templated kernel at each block, the others at 256.
    struct Pair {
      ElemType in;
      Accumulate acc;
    };
    const Pair pairs[] = {{ElemType::Int32, Accumulate::Same},   {ElemType::Int32, Accumulate::Wide},
                          {ElemType::Int64, Accumulate::Same},   {ElemType::Float32, Accumulate::Same},
                          {ElemType::Float32, Accumulate::Wide}, {ElemType::Float64, Accumulate::Same}};
    std::vector<RunConfig> out;
    if (k.shape == GridShape::Library) return out;  // CUB's registers are not ours to model
    RunConfig c;
    c.kernel = std::string(k.key);
    for (const Pair& p : pairs)
      for (Op op : {Op::Sum, Op::Min, Op::Max})
        for (int block = 32; block <= 1024; block *= 2) {
          if (!k.blockTemplated && block != 256) continue;
          c.type = p.in;
          c.accumulate = p.acc;
          c.op = op;
          c.block = std::max(block, k.minBlock);
          out.push_back(c);
        }
    return out;
  }

  std::string shape(const KernelInfo&, const RunConfig& c) const override {
    return "N=" + formatCount(c.n) + " b" + std::to_string(c.block);
  }
  // A CPU final after more than one GPU pass says so where the final stage is shown.
  std::vector<std::pair<std::string, std::string>> configCells(const KernelInfo&, const RunConfig& c) const override {
    if (resolvedFinal(c) != FinalStage::Cpu || gpuPassesOf(c) < 2) return {};
    return {{"final", "cpu after " + std::to_string(gpuPassesOf(c)) + " passes"}};
  }

  uint64_t inputElements(const KernelInfo&, const RunConfig& c) const override { return c.n; }
  double bytesMoved(const KernelInfo&, const RunConfig& c) const override {
    return double(c.n) * double(elemBytes(c.type));
  }
  uint64_t deviceBytesNeeded(const KernelInfo& k, const RunConfig& c, const DeviceInfo& d) const override {
    const uint64_t input = c.n * elemBytes(c.type);
    const uint64_t partials = 2 * (blocksToCover(k, c.n, c.block, c.type) + 64) * elemBytes(c.accType());
    const uint64_t flush = c.warmL2 ? 0 : uint64_t(std::max<int64_t>(d.l2Bytes, 1 << 20)) * 2;
    return input + partials + flush + (64 << 20);  // + CUB temp storage and slack
  }

  Geometry geometry(const KernelInfo& k, const RunConfig& c, uint64_t residentBlocks) const override {
    Geometry g;
    g.final = resolvedFinal(c);
    g.block = unsigned(c.block);
    g.smemBytes = sharedBytes(k, c.block, c.accType());
    residentBlocks = std::max<uint64_t>(residentBlocks, 1);
    auto gridFor = [&](uint64_t n, ElemType in) {
      const uint64_t cover = blocksToCover(k, n, c.block, in);
      return k.shape == GridShape::GridStride ? std::min(cover, residentBlocks) : cover;
    };
    if (k.shape == GridShape::Library) {
      g.passGrids = {1};
      g.partials = 1;
      g.maxElemsPerThread = 0;
      return g;
    }
    uint64_t grid = gridOf(c) > 0 && k.shape == GridShape::GridStride ? gridOf(c) : gridFor(c.n, c.type);
    g.passGrids.push_back(grid);
    const uint64_t threads = grid * uint64_t(c.block);
    g.maxElemsPerThread = k.shape == GridShape::GridStride
                              ? ceilDiv(c.n, threads * elemsPerIteration(k, c.type)) * elemsPerIteration(k, c.type)
                              : (k.shape == GridShape::PairPerThread ? 2 : 1);
    if (g.final == FinalStage::Gpu) {
      while (grid > 1) {
        grid = gridFor(grid, c.accType());
        g.passGrids.push_back(grid);
      }
      g.partials = 1;
    } else if (g.final == FinalStage::Cpu) {
      // More GPU passes first where asked (the UPC lecture's Kernel02: twice, then the CPU).
      for (int p = 1; p < gpuPassesOf(c) && grid > 1; ++p) {
        grid = gridFor(grid, c.accType());
        g.passGrids.push_back(grid);
      }
      g.partials = grid;
    } else {
      g.partials = 1;  // atomic, last block: one launch leaves one value
    }
    return g;
  }

  int instantiation(const KernelInfo& k, const RunConfig& c) const override { return k.blockTemplated ? c.block : 0; }
  bool formsLadder() const override { return true; }
  std::string sweepRefusal(SweepAxis axis) const override {
    if (axis == SweepAxis::Tile) return "has no tile (a reduction: sweep the block axis)";
    if (axis == SweepAxis::Size) return "has no matrix (a reduction: sweep the n axis)";
    return {};
  }

  uint64_t chainBound(const KernelInfo& k, const Geometry& g, uint64_t n) const override {
    const int treeDepth = log2Ceil(g.block ? g.block : 1);
    if (k.shape == GridShape::Library)  // CUB: per-thread tiles and a tree; bound it generously
      return std::max<uint64_t>(64, uint64_t(std::sqrt(double(n)))) + 2 * log2Ceil(n) + 64;
    uint64_t chain = g.maxElemsPerThread + treeDepth;
    switch (g.final) {
      case FinalStage::Gpu:
        for (size_t p = 1; p < g.passGrids.size(); ++p)
          chain += ceilDiv(g.passGrids[p - 1], g.passGrids[p] * g.block) * 2 + treeDepth;
        break;
      case FinalStage::Cpu:
        for (size_t p = 1; p < g.passGrids.size(); ++p)  // GPU passes before it
          chain += ceilDiv(g.passGrids[p - 1], g.passGrids[p] * g.block) * 2 + treeDepth;
        chain += g.partials;
        break;
      case FinalStage::Atomic: chain += g.grid(); break;
      case FinalStage::LastBlock: chain += ceilDiv(g.grid(), g.block) + treeDepth; break;
      default: break;
    }
    return chain + 2;
  }

  TraceData model(const KernelInfo& k, const RunConfig& c, uint64_t grid, int ccMajor, std::string*) const override {
    return reductionModel(k, c, grid, ccMajor);
  }
};

}  // namespace

const KernelFamily& reductionFamily() {
  static const ReductionFamily f;
  return f;
}

// auto --deterministic (launch_plan.hpp): the reduction family's fixed-order plan, a k10 run.
RunConfig deterministicPlan(const RunConfig& c, std::string* error) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k || !k->dispatches) {
    if (error) *error = "--deterministic is a mode of auto (--kernel auto), not of " + c.kernel;
    return c;
  }
  const KernelInfo& tiles = *findKernel("k10");
  RunConfig d = c;
  d.kernel = std::string(tiles.key);
  d.block = kDeterministicBlock;
  d.final = FinalStage::Gpu;
  familyOf(tiles).normalize(tiles, d);
  ParameterValues grid{{"grid", blocksToCover(tiles, c.n, kDeterministicBlock, c.type)}};
  applyParameters(d, grid);  // one block per tile, never a grid-stride loop over tiles
  if (error) error->clear();
  return d;
}

}  // namespace rl
