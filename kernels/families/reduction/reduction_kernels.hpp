// The reduction family's kernels (seeds 000-002, Harris's ladder, and beyond). Each descriptor
// starts from the family's defaults and sets only what differs. Plain C++, no CUDA: the catalogue,
// the launch plan, the CPU model and the tests read them. A new kernel is its source in
// kernels/cuda/, a descriptor here and one line in reducelab/kernel_ids.hpp (docs/adding-a-kernel.md).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl {
// A reduction's descriptor: a 1-D grid, no tiles; CUB (the library) has no traced twin and
// manages its own shared memory.
constexpr bool reductionDescriptorComplete(const KernelInfo& k) {
  const bool library = k.shape == GridShape::Library;
  return k.threadRows == 0 && k.tileLayout == TileLayout::None && k.tiles.empty() && k.harris >= 0 &&
         k.minBlock >= 32 && k.minBlock <= 1024 && k.shape != GridShape::Unset && k.shape != GridShape::MatrixTiles &&
         k.sharedRule != SharedRule::Unset && (library ? k.loadsPerIteration == 0 : k.loadsPerIteration >= 1) &&
         (k.bytesPerLoad == 0 || k.bytesPerLoad == 16) && k.traceable == !library &&
         (library ? k.sharedRule == SharedRule::None : k.sharedRule != SharedRule::None);
}
}  // namespace rl

namespace rl::desc {

// A reduction kernel of ours unless its descriptor says otherwise: one element per thread into
// one shared accumulator per thread, a GPU or CPU finish, traced, deterministic, any GPU.
constexpr KernelInfo reductionKernel() {
  KernelInfo k;
  k.family = Family::Reduction;
  k.minBlock = 32;
  k.blockTemplated = false;
  k.shape = GridShape::OnePerThread;
  k.loadsPerIteration = 1;
  k.bytesPerLoad = 0;
  k.sharedRule = SharedRule::TreeOfBlock;
  k.finals = {FinalStage::Gpu, FinalStage::Cpu};
  k.tiles = {};
  k.threadRows = 0;
  k.tileLayout = TileLayout::None;
  return k;
}

inline constexpr KernelInfo K1 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K1;
  k.key = "k1";
  k.name = "interleaved, divergent";
  k.title = "Interleaved addressing, divergent branch";
  k.harris = 1;
  k.upc = "Kernel01/02";
  k.sourceFile = "k01_interleaved_divergent.cuh";
  k.schedule = {Phase::LoadOne, Phase::TreeInterleavedDivergent, Phase::SharedResult};
  return k;
}();

inline constexpr KernelInfo K2 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K2;
  k.key = "k2";
  k.name = "interleaved, strided";
  k.title = "Interleaved addressing, strided index (bank conflicts)";
  k.harris = 2;
  k.upc = "Kernel03";
  k.sourceFile = "k02_interleaved_strided.cuh";
  k.schedule = {Phase::LoadOne, Phase::TreeInterleavedStrided, Phase::SharedResult};
  return k;
}();

inline constexpr KernelInfo K3 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K3;
  k.key = "k3";
  k.name = "sequential";
  k.title = "Sequential addressing";
  k.harris = 3;
  k.upc = "Kernel04";
  k.sourceFile = "k03_sequential.cuh";
  k.schedule = {Phase::LoadOne, Phase::TreeSequential, Phase::SharedResult};
  return k;
}();

inline constexpr KernelInfo K4 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K4;
  k.key = "k4";
  k.name = "first add on load";
  k.title = "First add during global load";
  k.harris = 4;
  k.upc = "Kernel05";
  k.sourceFile = "k04_first_add_during_load.cuh";
  k.shape = GridShape::PairPerThread;
  k.loadsPerIteration = 2;
  k.schedule = {Phase::LoadPair, Phase::TreeSequential, Phase::SharedResult};
  return k;
}();

inline constexpr KernelInfo K5 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K5;
  k.key = "k5";
  k.name = "unroll last warp (volatile)";
  k.title = "Unroll the last warp: historical volatile code, unsafe since Volta";
  k.harris = 5;
  k.upc = "Kernel06";
  k.sourceFile = "k05_unroll_last_warp.cuh";
  k.minBlock = 64;
  k.shape = GridShape::PairPerThread;
  k.loadsPerIteration = 2;
  k.unsafe = true;
  k.schedule = {Phase::LoadPair, Phase::TreeSequentialAbove32, Phase::VolatileLastWarp, Phase::SharedResult};
  return k;
}();

inline constexpr KernelInfo K5s = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K5s;
  k.key = "k5s";
  k.name = "unroll last warp (__syncwarp)";
  k.title = "Unroll the last warp, correct form with __syncwarp";
  k.harris = 5;
  k.sourceFile = "k05_unroll_last_warp.cuh";
  k.minBlock = 64;
  k.shape = GridShape::PairPerThread;
  k.loadsPerIteration = 2;
  k.schedule = {Phase::LoadPair, Phase::TreeSequentialAbove32, Phase::SyncwarpLastWarp, Phase::SharedResult};
  return k;
}();

inline constexpr KernelInfo K6 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K6;
  k.key = "k6";
  k.name = "complete unroll";
  k.title = "Completely unrolled, block size as a template";
  k.harris = 6;
  k.sourceFile = "k06_complete_unroll.cuh";
  k.blockTemplated = true;
  k.shape = GridShape::PairPerThread;
  k.loadsPerIteration = 2;
  k.schedule = {Phase::LoadPair, Phase::TreeUnrolled, Phase::SyncwarpLastWarp, Phase::SharedResult};
  return k;
}();

inline constexpr KernelInfo K7 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K7;
  k.key = "k7";
  k.name = "grid-stride";
  k.title = "Multiple elements per thread, grid-stride loop";
  k.harris = 7;
  k.upc = "Kernel07/08";
  k.sourceFile = "k07_grid_stride.cuh";
  k.blockTemplated = true;
  k.shape = GridShape::GridStride;
  k.loadsPerIteration = 2;
  k.schedule = {Phase::GridStridePairsToShared, Phase::TreeUnrolled, Phase::SyncwarpLastWarp, Phase::SharedResult};
  return k;
}();

inline constexpr KernelInfo K8 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K8;
  k.key = "k8";
  k.name = "warp shuffle";
  k.title = "Warp-shuffle reduction (__shfl_down_sync, __reduce_*_sync)";
  k.sourceFile = "k08_warp_shuffle.cuh";
  k.shape = GridShape::GridStride;
  k.loadsPerIteration = 2;
  k.sharedRule = SharedRule::OnePerWarp;
  k.schedule = {Phase::GridStridePairs, Phase::ShuffleBlockReduce, Phase::GlobalResult};
  return k;
}();

inline constexpr KernelInfo K9 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K9;
  k.key = "k9";
  k.name = "cooperative groups";
  k.title = "Cooperative groups (cg::reduce)";
  k.sourceFile = "k09_cooperative_groups.cuh";
  k.shape = GridShape::GridStride;
  k.loadsPerIteration = 2;
  k.sharedRule = SharedRule::OnePerWarp;
  k.schedule = {Phase::GridStridePairs, Phase::CgBlockReduce, Phase::GlobalResult};
  return k;
}();

inline constexpr KernelInfo K10 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K10;
  k.key = "k10";
  k.name = "16-byte loads";
  k.title = "16-byte vector loads, 4 loads in flight per thread";
  k.sourceFile = "k10_vector_loads.cuh";
  k.shape = GridShape::GridStride;
  k.loadsPerIteration = 4;
  k.bytesPerLoad = 16;
  k.sharedRule = SharedRule::OnePerWarp;
  k.schedule = {Phase::VectorLoads, Phase::ShuffleBlockReduce, Phase::GlobalResult};
  return k;
}();

inline constexpr KernelInfo K11 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K11;
  k.key = "k11";
  k.name = "single pass, atomics";
  k.title = "Single pass, atomic final combine";
  k.sourceFile = "k11_atomic_final.cuh";
  k.shape = GridShape::GridStride;
  k.loadsPerIteration = 4;
  k.bytesPerLoad = 16;
  k.sharedRule = SharedRule::OnePerWarp;
  k.finals = {FinalStage::Atomic};
  k.deterministic = false;
  k.schedule = {Phase::VectorLoads, Phase::ShuffleBlockReduce, Phase::AtomicResult};
  return k;
}();

inline constexpr KernelInfo K12 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K12;
  k.key = "k12";
  k.name = "single pass, last block";
  k.title = "Single pass, last-block finish (deterministic)";
  k.sourceFile = "k12_last_block.cuh";
  k.shape = GridShape::GridStride;
  k.loadsPerIteration = 4;
  k.bytesPerLoad = 16;
  k.sharedRule = SharedRule::OnePerWarp;
  k.finals = {FinalStage::LastBlock};
  k.schedule = {Phase::VectorLoads, Phase::ShuffleBlockReduce, Phase::GlobalResult};
  return k;
}();

inline constexpr KernelInfo K13 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K13;
  k.key = "k13";
  k.name = "tuned single pass";
  k.title = "Tuned single pass: policy from the device, one launch at every N";
  k.sourceFile = "k13_tuned_single_pass.cuh";
  k.shape = GridShape::GridStride;
  k.bytesPerLoad = 16;
  k.sharedRule = SharedRule::OnePerWarp;
  k.finals = {FinalStage::LastBlock};
  k.policyTuned = true;
  k.schedule = {Phase::VectorGridStride, Phase::ShuffleBlockReduce, Phase::GlobalResult};
  return k;
}();

// auto: ReduceLab's own DeviceReduce. Not a new kernel but a dispatch over k13's code: the block,
// the grid (one CTA, one cluster, or a ticket over a wave), loads in flight and cache hint come
// per type and N from the architecture's policy table (assets/kernels/policies-sm90.json,
// measured by `reducelab tune` on an H200), or from this device's own tuned table.
inline constexpr KernelInfo Auto = [] {
  KernelInfo k = K13;
  k.id = KernelId::Auto;
  k.key = "auto";
  k.name = "dispatch: fastest per N";
  k.title = "auto: block, grid and loads chosen per N, type and GPU from a checked-in policy table";
  k.dispatches = true;
  k.deterministic = false;  // a plan may take the atomic finish (float sums: bits vary); --deterministic fixes them
  return k;
}();

inline constexpr KernelInfo K14 = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::K14;
  k.key = "k14";
  k.name = "bulk copies";
  k.title = "Bulk copies into shared memory (cp.async.bulk + mbarrier, Hopper): a teaching variant";
  k.sourceFile = "k14_bulk_copy.cuh";
  k.shape = GridShape::GridStride;  // one resident wave at large N, one CTA per tile below
  k.bytesPerLoad = 16;
  k.sharedRule = SharedRule::BulkRing;
  k.finals = {FinalStage::LastBlock};
  k.minCc = 90;
  k.schedule = {Phase::BulkStages, Phase::ShuffleBlockReduce, Phase::GlobalResult};
  return k;
}();

inline constexpr KernelInfo Cub = [] {
  KernelInfo k = reductionKernel();
  k.id = KernelId::Cub;
  k.key = "cub";
  k.name = "CUB DeviceReduce";
  k.title = "cub::DeviceReduce (library reference)";
  k.sourceFile = "cub_reduce.cu";
  k.shape = GridShape::Library;
  k.loadsPerIteration = 0;
  k.sharedRule = SharedRule::None;
  k.finals = {FinalStage::Gpu};
  k.traceable = false;
  k.schedule = {};
  return k;
}();

}  // namespace rl::desc
