// Descriptor of kernel 13 (k13_tuned_single_pass.cuh): plain C++, no CUDA. The catalogue,
// geometry planning, the registry, the CPU model and the test lists are built from it
// (kernel_list.hpp). Its grid, loads in flight and cache hint come from the dispatch policy
// (policyTuned): the device's table written by `reducelab tune`, or the latency rule.
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo K13 = {
    .id = KernelId::K13,
    .family = Family::Reduction,
    .key = "k13",
    .name = "tuned single pass",
    .title = "Tuned single pass: policy from the device, one launch at every N",
    .harris = 0,
    .upc = "",
    .sourceFile = "k13_tuned_single_pass.cuh",
    .minBlock = 32,
    .blockTemplated = false,
    .shape = GridShape::GridStride,
    .loadsPerIteration = 1,  // per step of the grid; the policy keeps 1-8 of them in flight
    .bytesPerLoad = 16,
    .sharedRule = SharedRule::OnePerWarp,
    .finals = {FinalStage::LastBlock},
    .tiles = {},
    .threadRows = 0,
    .tileLayout = TileLayout::None,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .policyTuned = true,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::VectorGridStride, Phase::ShuffleBlockReduce, Phase::GlobalResult},
};

}  // namespace rl::desc
