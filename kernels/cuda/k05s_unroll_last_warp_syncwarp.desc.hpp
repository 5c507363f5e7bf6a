// Descriptor of kernel 5s (k05_unroll_last_warp.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K5s = {
    .id = KernelId::K5s,
    .family = Family::Reduction,
    .key = "k5s",
    .name = "unroll last warp (__syncwarp)",
    .title = "Unroll the last warp, correct form with __syncwarp",
    .harris = 5,
    .upc = "",
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
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::LoadPair, Phase::TreeSequentialAbove32, Phase::SyncwarpLastWarp, Phase::SharedResult},
};

}  // namespace rl::desc
