// Descriptor of kernel 5 (k05_unroll_last_warp.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K5 = {
    .id = KernelId::K5,
    .family = Family::Reduction,
    .key = "k5",
    .name = "unroll last warp (volatile)",
    .title = "Unroll the last warp: historical volatile code, unsafe since Volta",
    .harris = 5,
    .upc = "Kernel06",
    .sourceFile = "k05_unroll_last_warp.cuh",
    .minBlock = 64,
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
    .unsafe = true,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::LoadPair, Phase::TreeSequentialAbove32, Phase::VolatileLastWarp, Phase::SharedResult},
};

}  // namespace rl::desc
