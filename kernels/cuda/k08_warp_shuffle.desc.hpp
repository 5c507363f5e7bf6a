// Descriptor of kernel 8 (k08_warp_shuffle.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K8 = {
    .id = KernelId::K8,
    .family = Family::Reduction,
    .key = "k8",
    .name = "warp shuffle",
    .title = "Warp-shuffle reduction (__shfl_down_sync, __reduce_*_sync)",
    .harris = 0,
    .upc = "",
    .sourceFile = "k08_warp_shuffle.cuh",
    .minBlock = 32,
    .blockTemplated = false,
    .shape = GridShape::GridStride,
    .loadsPerIteration = 2,
    .bytesPerLoad = 0,
    .sharedRule = SharedRule::OnePerWarp,
    .finals = {FinalStage::Gpu, FinalStage::Cpu},
    .tiles = {},
    .threadRows = 0,
    .tileLayout = TileLayout::None,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::GridStridePairs, Phase::ShuffleBlockReduce, Phase::GlobalResult},
};

}  // namespace rl::desc
