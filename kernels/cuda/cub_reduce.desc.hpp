// Descriptor of the CUB reference (cub_reduce.cu): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo Cub = {
    .id = KernelId::Cub,
    .family = Family::Reduction,
    .key = "cub",
    .name = "CUB DeviceReduce",
    .title = "cub::DeviceReduce (library reference)",
    .harris = 0,
    .upc = "",
    .sourceFile = "cub_reduce.cu",
    .minBlock = 32,
    .blockTemplated = false,
    .shape = GridShape::Library,
    .loadsPerIteration = 0,
    .bytesPerLoad = 0,
    .sharedRule = SharedRule::None,
    .finals = {FinalStage::Gpu},
    .tiles = {},
    .threadRows = 0,
    .tileLayout = TileLayout::None,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = false,
    .schedule = {},
};

}  // namespace rl::desc
