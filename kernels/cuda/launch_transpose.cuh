// How the build instantiates the transpose family (transpose.cuh): per type (float32, float64), trace
// policy and tile of the descriptor's list.
#pragma once
#include "kernel_list.hpp"
#include "launch_common.cuh"
#include "transpose.cuh"

namespace rl::kernels {

template <class F> void forEachMatrixVariant(F&& f) {
  f.template operator()<float, NoTrace>();
  f.template operator()<float, DeviceTrace>();
  f.template operator()<double, NoTrace>();
  f.template operator()<double, DeviceTrace>();
}

template <KernelId Id, int Tile, class T, class Tr>
void addTranspose(Registry& r) {
  constexpr TileLayout L = kernelInfoOf<Id>().tileLayout;
  constexpr BlockOrder O = kernelInfoOf<Id>().blockOrder;
  constexpr bool Tiles = kernelInfoOf<Id>().swapsTiles, Elements = kernelInfoOf<Id>().swapsElements;
  LaunchFn fn;
  const void* func;
  if constexpr (L == TileLayout::None) {
    static_assert(Tiles == Elements, "without a tile a kernel either transposes or copies");
    fn = [](const LaunchArgs& a) -> cudaError_t {
      const TransposeParams& p = paramsAs<TransposeParams>(a.params);
      transposeNaive<Tile, Tiles, T, Tr><<<dim3(a.gridX, a.gridY), dim3(a.blockX, a.blockY), a.smemBytes, a.stream>>>(
          static_cast<const T*>(a.in), static_cast<T*>(a.out), int(p.rows), int(p.cols), int(p.repeat), makeTracer<Tr>(a));
      return cudaGetLastError();
    };
    func = reinterpret_cast<const void*>(&transposeNaive<Tile, Tiles, T, Tr>);
  } else {
    fn = [](const LaunchArgs& a) -> cudaError_t {
      const TransposeParams& p = paramsAs<TransposeParams>(a.params);
      transposeTiled<Tile, L, O, Tiles, Elements, T, Tr><<<dim3(a.gridX, a.gridY), dim3(a.blockX, a.blockY), a.smemBytes, a.stream>>>(
          static_cast<const T*>(a.in), static_cast<T*>(a.out), int(p.rows), int(p.cols), int(p.repeat), makeTracer<Tr>(a));
      return cudaGetLastError();
    };
    func = reinterpret_cast<const void*>(&transposeTiled<Tile, L, O, Tiles, Elements, T, Tr>);
  }
  r.add({Id, Op::Sum, elemTypeOf<T>(), elemTypeOf<T>(), Tr::enabled, Tile}, {fn, func});
}

// The tiles instantiated here are the descriptor's list, and the blocks transpose.cuh's launch
// bounds assume (tile x 8 threads, fewer rows for a smaller tile).
constexpr bool tilesAre32_16_8(const KernelInfo& k) {
  return k.tiles.size() == 3 && k.tiles[0] == 32 && k.tiles[1] == 16 && k.tiles[2] == 8 && k.threadRows == 8;
}

template <KernelId Id>
void registerTranspose(Registry& r) {
  static_assert(kernelInfoOf<Id>().family == Family::Transpose && kernelInfoOf<Id>().blockTemplated);
  static_assert(tilesAre32_16_8(kernelInfoOf<Id>()), "a transpose descriptor lists tiles that launch_transpose.cuh does not instantiate");
  forEachMatrixVariant([&]<class T, class Tr>() {
    addTranspose<Id, 32, T, Tr>(r);
    addTranspose<Id, 16, T, Tr>(r);
    addTranspose<Id, 8, T, Tr>(r);
  });
}

}  // namespace rl::kernels
