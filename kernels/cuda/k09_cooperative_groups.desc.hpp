// Descriptor of kernel 9 (k09_cooperative_groups.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K9 = {
    .id = KernelId::K9,
    .family = Family::Reduction,
    .key = "k9",
    .name = "cooperative groups",
    .title = "Cooperative groups (cg::reduce)",
    .harris = 0,
    .upc = "",
    .sourceFile = "k09_cooperative_groups.cuh",
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
    .schedule = {Phase::GridStridePairs, Phase::CgBlockReduce, Phase::GlobalResult},
};

}  // namespace rl::desc
