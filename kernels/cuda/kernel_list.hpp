// Every kernel, named once. The catalogue (kernels/core/catalogue.cpp), the registry
// (registry.cu: each launch_kNN.cu defines registerKernel<KernelId::KNN>), the CPU model (which
// replays each descriptor's schedule) and the tests' parameter lists (catalogueKeys()) all come
// from this list. Plain C++: reducelab_core includes it without CUDA.
#pragma once
#include <iterator>

#include "cub_reduce.desc.hpp"
#include "k01_interleaved_divergent.desc.hpp"
#include "k02_interleaved_strided.desc.hpp"
#include "k03_sequential.desc.hpp"
#include "k04_first_add_during_load.desc.hpp"
#include "k05_unroll_last_warp.desc.hpp"
#include "k05s_unroll_last_warp_syncwarp.desc.hpp"
#include "k06_complete_unroll.desc.hpp"
#include "k07_grid_stride.desc.hpp"
#include "k08_warp_shuffle.desc.hpp"
#include "k09_cooperative_groups.desc.hpp"
#include "k10_vector_loads.desc.hpp"
#include "k11_atomic_final.desc.hpp"
#include "k12_last_block.desc.hpp"
#include "k13_tuned_single_pass.desc.hpp"
#include "k14_bulk_copy.desc.hpp"
#include "mm1_naive.desc.hpp"
#include "mm2_tiled.desc.hpp"
#include "tr1_naive.desc.hpp"
#include "tr2_tile.desc.hpp"
#include "tr3_padded.desc.hpp"
#include "tr4_swizzled.desc.hpp"
#include "tr5_diagonal.desc.hpp"

// X(Id): rl::desc::Id is the descriptor of KernelId::Id. In KernelId order.
#define RL_FOR_EACH_KERNEL(X) \
  X(K1) X(K2) X(K3) X(K4) X(K5) X(K5s) X(K6) X(K7) X(K8) X(K9) X(K10) X(K11) X(K12) X(K13) X(K14) \
  X(TrNaive) X(TrTile) X(TrPadded) X(TrSwizzled) X(TrDiagonal) X(MmNaive) X(MmTiled) X(Cub)

namespace rl::desc {

// Each descriptor complete, and the list in KernelId order with every id once.
#define RL_CHECK_DESCRIPTOR(ID)                                                           \
  static_assert(descriptorComplete(ID), "descriptor rl::desc::" #ID " has a field unset"); \
  static_assert(ID.id == KernelId::ID, "descriptor rl::desc::" #ID " has another kernel's id");
RL_FOR_EACH_KERNEL(RL_CHECK_DESCRIPTOR)
#undef RL_CHECK_DESCRIPTOR

#define RL_LISTED_ID(ID) KernelId::ID,
inline constexpr KernelId kListedIds[] = {RL_FOR_EACH_KERNEL(RL_LISTED_ID)};
#undef RL_LISTED_ID
constexpr bool listIsEveryIdInOrder() {
  if (int(std::size(kListedIds)) != kKernelIdCount) return false;
  for (int i = 0; i < kKernelIdCount; ++i)
    if (kListedIds[i] != KernelId(i)) return false;
  return true;
}
static_assert(listIsEveryIdInOrder(), "kernel_list.hpp must name every KernelId once, in order");

}  // namespace rl::desc

namespace rl {
// The descriptor of a kernel id, at compile time (launch files pick their template arguments
// from it: a tile layout, a block order).
template <KernelId Id>
constexpr KernelInfo kernelInfoOf() {
#define RL_PICK_DESCRIPTOR(ID) if constexpr (Id == KernelId::ID) return desc::ID; else
  RL_FOR_EACH_KERNEL(RL_PICK_DESCRIPTOR) return KernelInfo{};
#undef RL_PICK_DESCRIPTOR
}
}  // namespace rl
