// Descriptor of the tiled matmul (matmul.cuh): plain C++, no CUDA. The catalogue, geometry planning, the
// registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo MmTiled = {
    .id = KernelId::MmTiled,
    .family = Family::Matmul,
    .key = "mm-tiled",
    .name = "tiled matmul",
    .title = "Matrix multiply through shared As and Bs tiles (seed 003's shared-memory kernel)",
    .harris = 0,
    .upc = "",
    .sourceFile = "matmul.cuh",
    .minBlock = 32,
    .blockTemplated = true,
    .shape = GridShape::MatrixTiles,
    .loadsPerIteration = 1,
    .bytesPerLoad = 0,
    .sharedRule = SharedRule::TwoTiles,
    .finals = {FinalStage::Gpu},
    .tiles = {16, 8, 32, 29},
    .threadRows = 0,
    .tileLayout = TileLayout::Plain,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::MatmulTileLoad, Phase::MatmulTileDot, Phase::MatmulStore},
};

}  // namespace rl::desc
