// Descriptor of kernel 1 (k01_interleaved_divergent.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K1 = {
    .id = KernelId::K1,
    .family = Family::Reduction,
    .key = "k1",
    .name = "interleaved, divergent",
    .title = "Interleaved addressing, divergent branch",
    .harris = 1,
    .upc = "Kernel01/02",
    .sourceFile = "k01_interleaved_divergent.cuh",
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
    .schedule = {Phase::LoadOne, Phase::TreeInterleavedDivergent, Phase::SharedResult},
};

}  // namespace rl::desc
