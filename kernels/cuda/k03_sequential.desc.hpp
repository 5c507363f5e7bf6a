// Descriptor of kernel 3 (k03_sequential.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K3 = {
    .id = KernelId::K3,
    .family = Family::Reduction,
    .key = "k3",
    .name = "sequential",
    .title = "Sequential addressing",
    .harris = 3,
    .upc = "Kernel04",
    .sourceFile = "k03_sequential.cuh",
    .minBlock = 32,
    .blockTemplated = false,
    .shape = GridShape::OnePerThread,
    .loadsPerIteration = 1,
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
    .schedule = {Phase::LoadOne, Phase::TreeSequential, Phase::SharedResult},
};

}  // namespace rl::desc
