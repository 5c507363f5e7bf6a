// Descriptor of kernel 11 (k11_atomic_final.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K11 = {
    .id = KernelId::K11,
    .family = Family::Reduction,
    .key = "k11",
    .name = "single pass, atomics",
    .title = "Single pass, atomic final combine",
    .harris = 0,
    .upc = "",
    .sourceFile = "k11_atomic_final.cuh",
    .minBlock = 32,
    .blockTemplated = false,
    .shape = GridShape::GridStride,
    .loadsPerIteration = 4,
    .bytesPerLoad = 16,
    .sharedRule = SharedRule::OnePerWarp,
    .finals = {FinalStage::Atomic},
    .tiles = {},
    .threadRows = 0,
    .tileLayout = TileLayout::None,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = false,
    .traceable = true,
    .schedule = {Phase::VectorLoads, Phase::ShuffleBlockReduce, Phase::AtomicResult},
};

}  // namespace rl::desc
