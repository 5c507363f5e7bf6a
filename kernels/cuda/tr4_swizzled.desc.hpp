// Descriptor of the swizzled transpose (transpose.cuh): plain C++, no CUDA. The catalogue, geometry planning, the
// registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo TrSwizzled = {
    .id = KernelId::TrSwizzled,
    .family = Family::Transpose,
    .key = "tr-swizzle",
    .name = "swizzled transpose",
    .title = "Transpose through an XOR-swizzled tile: no bank conflicts, no padding",
    .harris = 0,
    .upc = "",
    .sourceFile = "transpose.cuh",
    .minBlock = 32,
    .blockTemplated = true,
    .shape = GridShape::MatrixTiles,
    .loadsPerIteration = 1,
    .bytesPerLoad = 0,
    .sharedRule = SharedRule::Tile,
    .finals = {FinalStage::Gpu},
    .tiles = {32, 16, 8},
    .threadRows = 8,
    .tileLayout = TileLayout::Swizzled,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::TransposeLoadTile, Phase::TransposeStoreTile},
};

}  // namespace rl::desc
