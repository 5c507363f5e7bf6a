// Descriptor of kernel 6 (k06_complete_unroll.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K6 = {
    .id = KernelId::K6,
    .family = Family::Reduction,
    .key = "k6",
    .name = "complete unroll",
    .title = "Completely unrolled, block size as a template",
    .harris = 6,
    .upc = "",
    .sourceFile = "k06_complete_unroll.cuh",
    .minBlock = 32,
    .blockTemplated = true,
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
    .schedule = {Phase::LoadPair, Phase::TreeUnrolled, Phase::SyncwarpLastWarp, Phase::SharedResult},
};

}  // namespace rl::desc
