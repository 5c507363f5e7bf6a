// Instantiations of the transpose family (transpose.cuh): per type (float32, float64), trace
// policy and tile of the descriptor's list.
#include "kernel_list.hpp"
#include "launch_common.cuh"
#include "transpose.cuh"

namespace rl::kernels {
namespace {

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
  LaunchFn fn;
  const void* func;
  if constexpr (L == TileLayout::None) {
    fn = [](const LaunchArgs& a) -> cudaError_t {
      transposeNaive<Tile, T, Tr><<<dim3(a.gridX, a.gridY), dim3(a.blockX, a.blockY), a.smemBytes, a.stream>>>(
          static_cast<const T*>(a.in), static_cast<T*>(a.out), a.rows, a.cols, makeTracer<Tr>(a));
      return cudaGetLastError();
    };
    func = reinterpret_cast<const void*>(&transposeNaive<Tile, T, Tr>);
  } else {
    fn = [](const LaunchArgs& a) -> cudaError_t {
      transposeTiled<Tile, L, O, T, Tr><<<dim3(a.gridX, a.gridY), dim3(a.blockX, a.blockY), a.smemBytes, a.stream>>>(
          static_cast<const T*>(a.in), static_cast<T*>(a.out), a.rows, a.cols, makeTracer<Tr>(a));
      return cudaGetLastError();
    };
    func = reinterpret_cast<const void*>(&transposeTiled<Tile, L, O, T, Tr>);
  }
  r.add({Id, Op::Sum, elemTypeOf<T>(), elemTypeOf<T>(), Tr::enabled, Tile}, {fn, func});
}

template <KernelId Id>
void registerTranspose(Registry& r) {
  static_assert(kernelInfoOf<Id>().family == Family::Transpose && kernelInfoOf<Id>().blockTemplated);
  forEachMatrixVariant([&]<class T, class Tr>() {
    addTranspose<Id, 32, T, Tr>(r);
    addTranspose<Id, 16, T, Tr>(r);
    addTranspose<Id, 8, T, Tr>(r);
  });
}

// The tiles instantiated here are the descriptors' lists, and the blocks transpose.cuh's launch
// bounds assume (tile x 8 threads, fewer rows for a smaller tile).
constexpr bool tilesAre32_16_8(const KernelInfo& k) {
  return k.tiles.size() == 3 && k.tiles[0] == 32 && k.tiles[1] == 16 && k.tiles[2] == 8 && k.threadRows == 8;
}
static_assert(tilesAre32_16_8(desc::TrNaive) && tilesAre32_16_8(desc::TrTile) && tilesAre32_16_8(desc::TrPadded) &&
                  tilesAre32_16_8(desc::TrSwizzled) && tilesAre32_16_8(desc::TrDiagonal),
              "a transpose descriptor lists tiles that launch_transpose.cu does not instantiate");

}  // namespace

template <> void registerKernel<KernelId::TrNaive>(Registry& r) { registerTranspose<KernelId::TrNaive>(r); }
template <> void registerKernel<KernelId::TrTile>(Registry& r) { registerTranspose<KernelId::TrTile>(r); }
template <> void registerKernel<KernelId::TrPadded>(Registry& r) { registerTranspose<KernelId::TrPadded>(r); }
template <> void registerKernel<KernelId::TrSwizzled>(Registry& r) { registerTranspose<KernelId::TrSwizzled>(r); }
template <> void registerKernel<KernelId::TrDiagonal>(Registry& r) { registerTranspose<KernelId::TrDiagonal>(r); }

}  // namespace rl::kernels
