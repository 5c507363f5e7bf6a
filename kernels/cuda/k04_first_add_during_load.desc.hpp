// Descriptor of kernel 4 (k04_first_add_during_load.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K4 = {
    .id = KernelId::K4,
    .family = Family::Reduction,
    .key = "k4",
    .name = "first add on load",
    .title = "First add during global load",
    .harris = 4,
    .upc = "Kernel05",
    .sourceFile = "k04_first_add_during_load.cuh",
    .minBlock = 32,
    .blockTemplated = false,
    .shape = GridShape::PairPerThread,
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
    .schedule = {Phase::LoadPair, Phase::TreeSequential, Phase::SharedResult},
};

}  // namespace rl::desc
