// Descriptor of kernel 10 (k10_vector_loads.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K10 = {
    .id = KernelId::K10,
    .family = Family::Reduction,
    .key = "k10",
    .name = "16-byte loads",
    .title = "16-byte vector loads, 4 loads in flight per thread",
    .harris = 0,
    .upc = "",
    .sourceFile = "k10_vector_loads.cuh",
    .minBlock = 32,
    .blockTemplated = false,
    .shape = GridShape::GridStride,
    .loadsPerIteration = 4,
    .bytesPerLoad = 16,
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
    .schedule = {Phase::VectorLoads, Phase::ShuffleBlockReduce, Phase::GlobalResult},
};

}  // namespace rl::desc
