// How the build instantiates the matrix-multiply family (matmul.cuh): per type (float32, float64),
// trace policy and tile of the descriptor's list.
#pragma once
#include "kernel_list.hpp"
#include "launch_common.cuh"
#include "matmul.cuh"

namespace rl::kernels {

template <KernelId Id, int Tile, class T, class Tr>
void addMatmul(Registry& r) {
  constexpr bool tiled = kernelInfoOf<Id>().tileLayout != TileLayout::None;
  LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {
    const MatmulParams& p = paramsAs<MatmulParams>(a.params);
    const int rows = int(p.rows), cols = int(p.cols), inner = int(p.inner);
    const T* A = static_cast<const T*>(a.in);
    const T* B = A + size_t(rows) * inner;
    const dim3 grid(a.gridX, a.gridY), block(a.blockX, a.blockY);
    if constexpr (tiled)
      matmulTiled<Tile, T, Tr><<<grid, block, a.smemBytes, a.stream>>>(A, B, static_cast<T*>(a.out), rows, cols, inner,
                                                                        makeTracer<Tr>(a));
    else
      matmulNaive<Tile, T, Tr><<<grid, block, a.smemBytes, a.stream>>>(A, B, static_cast<T*>(a.out), rows, cols, inner,
                                                                        makeTracer<Tr>(a));
    return cudaGetLastError();
  };
  const void* func = tiled ? reinterpret_cast<const void*>(&matmulTiled<Tile, T, Tr>)
                           : reinterpret_cast<const void*>(&matmulNaive<Tile, T, Tr>);
  r.add({Id, Op::Sum, elemTypeOf<T>(), elemTypeOf<T>(), Tr::enabled, Tile}, {fn, func});
}

// The tiles instantiated here are the descriptor's list.
constexpr bool tilesAre16_8_24_32_29(const KernelInfo& k) {
  return k.tiles.size() == 5 && k.tiles[0] == 16 && k.tiles[1] == 8 && k.tiles[2] == 24 && k.tiles[3] == 32 && k.tiles[4] == 29;
}

template <KernelId Id>
void registerMatmul(Registry& r) {
  static_assert(kernelInfoOf<Id>().family == Family::Matmul && kernelInfoOf<Id>().blockTemplated);
  static_assert(tilesAre16_8_24_32_29(kernelInfoOf<Id>()), "a matmul descriptor lists tiles that launch_matmul.cuh does not instantiate");
  auto perType = [&]<class T, class Tr>() {
    addMatmul<Id, 16, T, Tr>(r);
    addMatmul<Id, 8, T, Tr>(r);
    addMatmul<Id, 24, T, Tr>(r);
    addMatmul<Id, 32, T, Tr>(r);
    addMatmul<Id, 29, T, Tr>(r);
  };
  perType.template operator()<float, NoTrace>();
  perType.template operator()<float, DeviceTrace>();
  perType.template operator()<double, NoTrace>();
  perType.template operator()<double, DeviceTrace>();
}

}  // namespace rl::kernels
