// The registry of kernel families: one line per family (docs/adding-a-family.md).
#include <algorithm>
#include <stdexcept>

#include "reducelab/family.hpp"
#include "reducelab/reference.hpp"

namespace rl {

const KernelFamily& reductionFamily();  // reduction/reduction_family.cpp
const KernelFamily& transposeFamily();  // transpose/transpose_family.cpp
const KernelFamily& matmulFamily();     // matmul/matmul_family.cpp
const KernelFamily& yoursFamily();      // yours/yours_family.cpp

const std::vector<const KernelFamily*>& families() {
  static const std::vector<const KernelFamily*> all = {&reductionFamily(), &transposeFamily(), &matmulFamily(), &yoursFamily()};
  return all;
}

const KernelFamily& familyOf(Family f) {
  for (const KernelFamily* family : families())
    if (family->id() == f) return *family;
  throw std::logic_error("a kernel of an unregistered family");  // kernel_list.hpp's checks make this unreachable
}

const KernelFamily& familyOf(const KernelInfo& k) { return familyOf(k.family); }

const KernelInfo* findAnyKernel(std::string_view key) {
  if (const KernelInfo* k = findKernel(key)) return k;
  for (const KernelFamily* family : families())
    if (const KernelInfo* k = family->sourceKernel(); k && k->key == key) return k;
  return nullptr;
}

const KernelFamily* familyOf(const RunConfig& c) {
  const KernelInfo* k = findAnyKernel(c.kernel);
  return k ? &familyOf(*k) : nullptr;
}

bool runsUserSource(std::string_view key) {
  for (const KernelFamily* family : families())
    if (const KernelInfo* k = family->sourceKernel(); k && k->key == key) return true;
  return false;
}

const KernelFamily* familyByListName(std::string_view text) {
  for (const KernelFamily* family : families())
    if (!family->listName().empty() && family->listName() == text) return family;
  return nullptr;
}

const std::vector<FamilyParameter>& KernelFamily::parameters() const {
  static const std::vector<FamilyParameter> none;
  return none;
}

std::string KernelFamily::extent(const KernelInfo& k, const RunConfig& c) const { return shape(k, c); }

CpuBaseline KernelFamily::cpuBaseline(const KernelInfo&, const RunConfig& c, int reps, double budgetSeconds,
                                      const CpuWork& work) const {
  return runCpuBaseline(c, reps, budgetSeconds, work);
}

CpuBaseline cpuBaselineOf(const RunConfig& c, int reps, double budgetSeconds, const CpuWork& work) {
  const KernelInfo* k = findKernel(c.kernel);
  return k ? familyOf(*k).cpuBaseline(*k, c, reps, budgetSeconds, work) : runCpuBaseline(c, reps, budgetSeconds, work);
}

const std::vector<FamilyParameter>& allFamilyParameters() {
  static const std::vector<FamilyParameter> all = [] {
    std::vector<FamilyParameter> out;
    auto has = [&](const std::string& key) {
      return std::find_if(out.begin(), out.end(), [&](const FamilyParameter& p) { return p.key == key; });
    };
    for (const KernelFamily* family : families()) {
      auto after = out.begin();  // where this family's next new key goes: after its previous one
      for (const FamilyParameter& p : family->parameters()) {
        if (auto it = has(p.key); it != out.end()) {
          after = it + 1;
          continue;
        }
        after = out.insert(after, p) + 1;
      }
    }
    return out;
  }();
  return all;
}

const FamilyParameter* anyParameterByKey(std::string_view key) {
  for (const FamilyParameter& p : allFamilyParameters())
    if (p.key == key) return &p;
  return nullptr;
}

const FamilyParameter* anyParameterByAxis(std::string_view axis) {
  for (const FamilyParameter& p : allFamilyParameters())
    if (p.axis == axis) return &p;
  return nullptr;
}

const FamilyParameter* ownParameter(const RunConfig& c, std::string_view key) {
  if (const KernelFamily* f = familyOf(c))
    for (const FamilyParameter& p : f->parameters())
      if (p.key == key) return &p;
  return nullptr;
}

void applyParameters(RunConfig& c, const ParameterValues& values) {
  if (const KernelFamily* f = familyOf(c))
    for (const FamilyParameter& p : f->parameters())
      if (auto it = values.find(p.key); it != values.end()) p.set(c, it->second);
  normalizeConfig(c);
}

void setParametersOfRole(RunConfig& c, ParameterRole role, uint64_t value) {
  if (const KernelFamily* f = familyOf(c))
    for (const FamilyParameter& p : f->parameters())
      if (p.role == role) p.set(c, value);
}

}  // namespace rl
