#include "reducelab/catalogue.hpp"

#include "reducelab/embedded_text.hpp"

namespace rl {

extern const EmbeddedText kKernelSources[];
extern const int kKernelSources_count;
extern const EmbeddedText kKernelNotes[];
extern const int kKernelNotes_count;

namespace {
using F = FinalStage;
const std::vector<F> kPartials = {F::Gpu, F::Cpu};
}  // namespace

const std::vector<KernelInfo>& catalogue() {
  static const std::vector<KernelInfo> k = {
      {KernelId::K1, "k1", "interleaved, divergent", "Interleaved addressing, divergent branch",
       1, "Kernel01/02", 32, false, GridShape::OnePerThread, 1, kPartials, false, true, true,
       "k01_interleaved_divergent.cuh"},
      {KernelId::K2, "k2", "interleaved, strided", "Interleaved addressing, strided index (bank conflicts)",
       2, "Kernel03", 32, false, GridShape::OnePerThread, 1, kPartials, false, true, true,
       "k02_interleaved_strided.cuh"},
      {KernelId::K3, "k3", "sequential", "Sequential addressing", 3, "Kernel04", 32, false,
       GridShape::OnePerThread, 1, kPartials, false, true, true, "k03_sequential.cuh"},
      {KernelId::K4, "k4", "first add on load", "First add during global load", 4, "Kernel05",
       32, false, GridShape::PairPerThread, 2, kPartials, false, true, true,
       "k04_first_add_during_load.cuh"},
      {KernelId::K5, "k5", "unroll last warp (volatile)",
       "Unroll the last warp: historical volatile code, unsafe since Volta", 5, "Kernel06", 64,
       false, GridShape::PairPerThread, 2, kPartials, true, true, true,
       "k05_unroll_last_warp.cuh"},
      {KernelId::K5s, "k5s", "unroll last warp (__syncwarp)",
       "Unroll the last warp, correct form with __syncwarp", 5, "", 64, false,
       GridShape::PairPerThread, 2, kPartials, false, true, true, "k05_unroll_last_warp.cuh"},
      {KernelId::K6, "k6", "complete unroll", "Completely unrolled, block size as a template",
       6, "", 32, true, GridShape::PairPerThread, 2, kPartials, false, true, true,
       "k06_complete_unroll.cuh"},
      {KernelId::K7, "k7", "grid-stride", "Multiple elements per thread, grid-stride loop", 7,
       "Kernel07/08", 32, true, GridShape::GridStride, 2, kPartials, false, true, true,
       "k07_grid_stride.cuh"},
      {KernelId::K8, "k8", "warp shuffle", "Warp-shuffle reduction (__shfl_down_sync, __reduce_*_sync)",
       0, "", 32, false, GridShape::GridStride, 2, kPartials, false, true, true,
       "k08_warp_shuffle.cuh"},
      {KernelId::K9, "k9", "cooperative groups", "Cooperative groups (cg::reduce)", 0, "", 32,
       false, GridShape::GridStride, 2, kPartials, false, true, true,
       "k09_cooperative_groups.cuh"},
      {KernelId::K10, "k10", "16-byte loads", "16-byte vector loads, 4 loads in flight per thread",
       0, "", 32, false, GridShape::GridStride, 16, kPartials, false, true, true,
       "k10_vector_loads.cuh"},
      {KernelId::K11, "k11", "single pass, atomics", "Single pass, atomic final combine", 0, "",
       32, false, GridShape::GridStride, 16, {F::Atomic}, false, false, true,
       "k11_atomic_final.cuh"},
      {KernelId::K12, "k12", "single pass, last block", "Single pass, last-block finish (deterministic)",
       0, "", 32, false, GridShape::GridStride, 16, {F::LastBlock}, false, true, true,
       "k12_last_block.cuh"},
      {KernelId::Cub, "cub", "CUB DeviceReduce", "cub::DeviceReduce (library reference)", 0, "",
       32, false, GridShape::Library, 0, {F::Gpu}, false, true, false, "cub_reduce.cu"},
  };
  return k;
}

const KernelInfo* findKernel(std::string_view key) {
  for (const KernelInfo& k : catalogue())
    if (k.key == key) return &k;
  return nullptr;
}

const KernelInfo& kernelInfo(KernelId id) {
  for (const KernelInfo& k : catalogue())
    if (k.id == id) return k;
  return catalogue().front();
}

std::string kernelKeys() {
  std::string s;
  for (const KernelInfo& k : catalogue()) s += (s.empty() ? "" : ",") + std::string(k.key);
  return s;
}

std::vector<const KernelInfo*> parseKernelList(std::string_view text, std::string* error) {
  std::vector<const KernelInfo*> out;
  if (text == "all") {
    for (const KernelInfo& k : catalogue()) out.push_back(&k);
    return out;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view key = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    const KernelInfo* k = findKernel(key);
    if (!k) {
      if (error)
        *error = "unknown kernel '" + std::string(key) + "' (known: all, " + kernelKeys() + ")";
      return {};
    }
    out.push_back(k);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string_view kernelSourceFile(std::string_view file) {
  return findEmbedded(kKernelSources, kKernelSources_count, file);
}
std::string_view kernelSource(const KernelInfo& k) { return kernelSourceFile(k.sourceFile); }
std::string_view kernelNotes(const KernelInfo& k) {
  return findEmbedded(kKernelNotes, kKernelNotes_count, std::string(k.key) + ".md");
}

FinalStage defaultFinal(const KernelInfo& k) { return k.finals.front(); }
bool allowsFinal(const KernelInfo& k, FinalStage f) {
  if (f == FinalStage::Default) return true;
  for (FinalStage a : k.finals)
    if (a == f) return true;
  return false;
}

}  // namespace rl
