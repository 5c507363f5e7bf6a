// Descriptor of the coalesced transpose (transpose.cuh): plain C++, no CUDA. The catalogue, geometry planning, the
// registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo TrTile = {
    .id = KernelId::TrTile,
    .family = Family::Transpose,
    .key = "tr-tile",
    .name = "coalesced transpose",
    .title = "Transpose through a shared tile: coalesced both ways, 32-way column reads",
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
    .tileLayout = TileLayout::Plain,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::TransposeLoadTile, Phase::TransposeStoreTile},
};

}  // namespace rl::desc
