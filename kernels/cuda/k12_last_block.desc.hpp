// Descriptor of kernel 12 (k12_last_block.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K12 = {
    .id = KernelId::K12,
    .family = Family::Reduction,
    .key = "k12",
    .name = "single pass, last block",
    .title = "Single pass, last-block finish (deterministic)",
    .harris = 0,
    .upc = "",
    .sourceFile = "k12_last_block.cuh",
    .minBlock = 32,
    .blockTemplated = false,
    .shape = GridShape::GridStride,
    .loadsPerIteration = 4,
    .bytesPerLoad = 16,
    .sharedRule = SharedRule::OnePerWarp,
    .finals = {FinalStage::LastBlock},
    .tiles = {},
    .threadRows = 0,
    .tileLayout = TileLayout::None,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::VectorLoads, Phase::ShuffleBlockReduce, Phase::GlobalResult},
};

}  // namespace rl::desc
