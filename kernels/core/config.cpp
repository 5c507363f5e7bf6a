#include "reducelab/config.hpp"

#include "reducelab/family.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rl {
namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

FinalStage resolvedFinal(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k) return FinalStage::Gpu;
  return c.final == FinalStage::Default ? defaultFinal(*k) : c.final;
}

bool usesProgrammaticDependentLaunch(const RunConfig& c, const Geometry& g, int ccMajor) {
  return c.pdl && g.final == FinalStage::Gpu && g.passGrids.size() > 1 && ccMajor >= 9;
}

bool programmaticDependentLaunchApplies(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  return k && k->shape != GridShape::MatrixTiles && k->shape != GridShape::Library && !k->policyTuned &&
         resolvedFinal(c) == FinalStage::Gpu;
}

std::string runShape(const RunConfig& c) {
  const KernelInfo* k = findAnyKernel(c.kernel);
  return k ? familyOf(*k).shape(*k, c) : "N=" + formatCount(c.n) + " b" + std::to_string(c.block);
}

void normalizeConfig(RunConfig& c) {
  if (const KernelInfo* k = findAnyKernel(c.kernel)) familyOf(*k).normalize(*k, c);
}

uint64_t inputElements(const RunConfig& c) {
  const KernelInfo* k = findAnyKernel(c.kernel);
  return k ? familyOf(*k).inputElements(*k, c) : c.n;
}

double bytesMoved(const RunConfig& c) {
  const KernelInfo* k = findAnyKernel(c.kernel);
  return k ? familyOf(*k).bytesMoved(*k, c) : double(c.n) * double(elemBytes(c.type));
}

double flopsDone(const RunConfig& c) {
  const KernelInfo* k = findAnyKernel(c.kernel);
  return k ? familyOf(*k).flopsDone(*k, c) : 0;
}

uint64_t blocksToCover(const KernelInfo& k, uint64_t n, int block, ElemType in) {
  switch (k.shape) {
    case GridShape::OnePerThread: return ceilDiv(n, uint64_t(block));
    case GridShape::PairPerThread: return ceilDiv(n, 2 * uint64_t(block));
    case GridShape::GridStride: return ceilDiv(n, uint64_t(block) * elemsPerIteration(k, in));
    case GridShape::Library: return 1;
    case GridShape::MatrixTiles: break;  // planGeometry's own branch (2-D grid)
    case GridShape::Unset: break;  // refused by kernel_list.hpp
  }
  return 1;
}

Geometry planGeometry(const KernelInfo& k, const RunConfig& c, uint64_t residentBlocks) {
  return familyOf(k).geometry(k, c, residentBlocks);
}

uint64_t sequentialChainBound(const KernelInfo& k, const Geometry& g, uint64_t n) {
  return familyOf(k).chainBound(k, g, n);
}

uint64_t deviceBytesNeeded(const RunConfig& c, const DeviceInfo& d) {
  const KernelInfo* k = findAnyKernel(c.kernel);
  return k ? familyOf(*k).deviceBytesNeeded(*k, c, d) : 0;
}

namespace {

std::string validateKernel(const KernelInfo* k, const RunConfig& c, const DeviceInfo* device) {
  if (!k) return "unknown kernel '" + c.kernel + "' (known: " + kernelKeys() + ")";
  if (device && device->available && k->minCc > 0 && device->ccMajor * 10 + device->ccMinor < k->minCc)
    return "kernel " + std::string(k->key) + " needs a GPU of compute capability " + std::to_string(k->minCc / 10) +
           "." + std::to_string(k->minCc % 10) + " or newer (" + std::string(k->name) + "); this GPU is " +
           device->ccString();
  if (c.reps < 1 || c.reps > 100000) return "repetitions must be between 1 and 100000";
  if (c.warmup < 0 || c.warmup > 10000) return "warm-up runs must be between 0 and 10000";
  if (c.data == DataPattern::IntRange && c.rangeLo > c.rangeHi)
    return "the integer range is empty (low " + std::to_string(c.rangeLo) + " > high " + std::to_string(c.rangeHi) + ")";
  return familyOf(*k).validate(*k, c, device);
}

}  // namespace

std::string validate(const RunConfig& c, const DeviceInfo* device) { return validateKernel(findKernel(c.kernel), c, device); }

std::string validateRow(const RunConfig& c, const DeviceInfo* device) {
  return validateKernel(findAnyKernel(c.kernel), c, device);
}

}  // namespace rl
