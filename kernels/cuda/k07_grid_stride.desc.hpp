// Descriptor of kernel 7 (k07_grid_stride.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K7 = {
    .id = KernelId::K7,
    .family = Family::Reduction,
    .key = "k7",
    .name = "grid-stride",
    .title = "Multiple elements per thread, grid-stride loop",
    .harris = 7,
    .upc = "Kernel07/08",
    .sourceFile = "k07_grid_stride.cuh",
    .minBlock = 32,
    .blockTemplated = true,
    .shape = GridShape::GridStride,
    .loadsPerIteration = 2,
    .bytesPerLoad = 0,
    .sharedRule = SharedRule::TreeOfBlock,
    .finals = {FinalStage::Gpu, FinalStage::Cpu},
    .tiles = {},
    .threadRows = 0,
    .tileLayout = TileLayout::None,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::GridStridePairsToShared, Phase::TreeUnrolled, Phase::SyncwarpLastWarp, Phase::SharedResult},
};

}  // namespace rl::desc
