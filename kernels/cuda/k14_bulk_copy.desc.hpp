// Descriptor of kernel 14 (k14_bulk_copy.cuh): plain C++, no CUDA. The catalogue, geometry
// planning, the registry, the CPU model and the test lists are built from it (kernel_list.hpp).
// Hopper only (minCc 90): the engine refuses it on an older GPU with one sentence.
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K14 = {
    .id = KernelId::K14,
    .family = Family::Reduction,
    .key = "k14",
    .name = "bulk copies",
    .title = "Bulk copies into shared memory (cp.async.bulk + mbarrier, Hopper): a teaching variant",
    .harris = 0,
    .upc = "",
    .sourceFile = "k14_bulk_copy.cuh",
    .minBlock = 32,
    .blockTemplated = false,
    .shape = GridShape::GridStride,  // one resident wave at large N, one CTA per tile below
    .loadsPerIteration = 1,          // one 16-byte vector per thread per tile
    .bytesPerLoad = 16,
    .sharedRule = SharedRule::BulkRing,
    .finals = {FinalStage::LastBlock},
    .tiles = {},
    .threadRows = 0,
    .tileLayout = TileLayout::None,
    .blockOrder = BlockOrder::Grid,
    .minCc = 90,
    .policyTuned = false,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::BulkStages, Phase::ShuffleBlockReduce, Phase::GlobalResult},
};

}  // namespace rl::desc
