// The registry of kernel families: one line per family (docs/adding-a-family.md).
#include <stdexcept>

#include "reducelab/family.hpp"

namespace rl {

const KernelFamily& reductionFamily();  // reduction/reduction_family.cpp
const KernelFamily& transposeFamily();  // transpose/transpose_family.cpp
const KernelFamily& matmulFamily();     // matmul/matmul_family.cpp

const std::vector<const KernelFamily*>& families() {
  static const std::vector<const KernelFamily*> all = {&reductionFamily(), &transposeFamily(), &matmulFamily()};
  return all;
}

const KernelFamily& familyOf(Family f) {
  for (const KernelFamily* family : families())
    if (family->id() == f) return *family;
  throw std::logic_error("a kernel of an unregistered family");  // kernel_list.hpp's checks make this unreachable
}

const KernelFamily& familyOf(const KernelInfo& k) { return familyOf(k.family); }

const KernelFamily* familyOf(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  return k ? &familyOf(*k) : nullptr;
}

const KernelFamily* familyByListName(std::string_view text) {
  for (const KernelFamily* family : families())
    if (family->listName() == text) return family;
  return nullptr;
}

}  // namespace rl
