// Descriptor of the naive transpose (transpose.cuh): plain C++, no CUDA. The catalogue, geometry planning, the
// registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo TrNaive = {
    .id = KernelId::TrNaive,
    .family = Family::Transpose,
    .key = "tr-naive",
    .name = "naive transpose",
    .title = "Transpose, naive: coalesced reads, strided writes (seed 004)",
    .harris = 0,
    .upc = "",
    .sourceFile = "transpose.cuh",
    .minBlock = 32,
    .blockTemplated = true,
    .shape = GridShape::MatrixTiles,
    .loadsPerIteration = 1,
    .bytesPerLoad = 0,
    .sharedRule = SharedRule::NoneOwn,
    .finals = {FinalStage::Gpu},
    .tiles = {32, 16, 8},
    .threadRows = 8,
    .tileLayout = TileLayout::None,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::TransposeDirect},
};

}  // namespace rl::desc
