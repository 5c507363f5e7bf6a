// Descriptor of kernel 2 (k02_interleaved_strided.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K2 = {
    .id = KernelId::K2,
    .family = Family::Reduction,
    .key = "k2",
    .name = "interleaved, strided",
    .title = "Interleaved addressing, strided index (bank conflicts)",
    .harris = 2,
    .upc = "Kernel03",
    .sourceFile = "k02_interleaved_strided.cuh",
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
    .schedule = {Phase::LoadOne, Phase::TreeInterleavedStrided, Phase::SharedResult},
};

}  // namespace rl::desc
