// Descriptor of the naive matmul (matmul.cuh): plain C++, no CUDA. The catalogue, geometry planning, the
// registry, the CPU model and the test lists are built from it (kernel_list.hpp).
#pragma once
#include "reducelab/catalogue.hpp"

namespace rl::desc {

inline constexpr KernelInfo MmNaive = {
    .id = KernelId::MmNaive,
    .family = Family::Matmul,
    .key = "mm-naive",
    .name = "naive matmul",
    .title = "Matrix multiply from global memory, the seed's thread mapping (column reads)",
    .harris = 0,
    .upc = "",
    .sourceFile = "matmul.cuh",
    .minBlock = 32,
    .blockTemplated = true,
    .shape = GridShape::MatrixTiles,
    .loadsPerIteration = 1,
    .bytesPerLoad = 0,
    .sharedRule = SharedRule::NoneOwn,
    .finals = {FinalStage::Gpu},
    .tiles = {16, 8, 32, 29},
    .threadRows = 0,
    .tileLayout = TileLayout::None,
    .blockOrder = BlockOrder::Grid,
    .minCc = 0,
    .unsafe = false,
    .deterministic = true,
    .traceable = true,
    .schedule = {Phase::MatmulNaiveDot, Phase::MatmulStore},
};

}  // namespace rl::desc
