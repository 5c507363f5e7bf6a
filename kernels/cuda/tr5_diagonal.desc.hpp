// Descriptor of the diagonal transpose (transpose.cuh): plain C++, no CUDA. The catalogue, geometry planning, the
// registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo TrDiagonal = {
    .id = KernelId::TrDiagonal,
    .family = Family::Transpose,
    .key = "tr-diagonal",
    .name = "diagonal transpose",
    .title = "Padded transpose with diagonal block order (seed 004's partition camping fix)",
    .harris = 0,
    .upc = "",
    .sourceFile = "transpose.cuh",
    .minBlock = 32,
    .blockTemplated = true,
    .shape = GridShape::MatrixTiles,
    .loadsPerIteration = 1,
    .bytesPerLoad = 0,
    .sharedRule = SharedRule::TilePadded,
    .finals = {FinalStage::Gpu},
    .tiles = {32, 16, 8},
    .threadRows = 8,
    .tileLayout = TileLayout::Padded,
    .blockOrder = BlockOrder::Diagonal,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::TransposeLoadTile, Phase::TransposeStoreTile},
};

}  // namespace rl::desc
