// Every kernel's descriptor, by id: the families' descriptors (kernels/families/<family>/) for the
// ids of reducelab/kernel_ids.hpp. The catalogue (kernels/core/catalogue.cpp), the registry
// (kernels/cuda/registry.cu), the launch plan, the CPU model and the tests' parameter lists
// (catalogueKeys()) all come from this list. Plain C++: reducelab_core includes it without CUDA.
#pragma once
#include <iterator>

#include "matmul/matmul_kernels.hpp"
#include "reducelab/kernel_ids.hpp"
#include "reduction/reduction_kernels.hpp"
#include "transpose/transpose_kernels.hpp"

namespace rl {
// Whether a descriptor is complete: the fields every kernel has, and its family's own.
constexpr bool descriptorComplete(const KernelInfo& k) {
  if (!commonDescriptorComplete(k)) return false;
  switch (k.family) {
    case Family::Reduction: return reductionDescriptorComplete(k);
    case Family::Transpose: return transposeDescriptorComplete(k);
    case Family::Matmul: return matmulDescriptorComplete(k);
    case Family::Yours: break;  // its one kernel is the student's file, in no catalogue (yours/)
    case Family::Unset: break;
  }
  return false;
}
}  // namespace rl

namespace rl::desc {

// Each descriptor complete and of its own id; a descriptor missing for an id of kernel_ids.hpp
// does not compile (rl::desc::ID is not declared).
#define RL_CHECK_DESCRIPTOR(ID, STEM, FORM, KERNEL)                                          \
  static_assert(descriptorComplete(ID), "descriptor rl::desc::" #ID " has a field unset"); \
  static_assert(ID.id == KernelId::ID, "descriptor rl::desc::" #ID " has another kernel's id");
RL_KERNELS(RL_CHECK_DESCRIPTOR)
#undef RL_CHECK_DESCRIPTOR

}  // namespace rl::desc

namespace rl {
// The descriptor of a kernel id, at compile time (launch files pick their template arguments
// from it: a tile layout, a block order).
template <KernelId Id>
constexpr KernelInfo kernelInfoOf() {
#define RL_PICK_DESCRIPTOR(ID, STEM, FORM, KERNEL) if constexpr (Id == KernelId::ID) return desc::ID; else
  RL_KERNELS(RL_PICK_DESCRIPTOR) return KernelInfo{};
#undef RL_PICK_DESCRIPTOR
}
}  // namespace rl
