// Launching the catalogue's kernels: one registry entry per instantiation
// (kernel x operation x input/accumulator types x trace policy x template block size).
#pragma once
#include <cuda_runtime.h>

#include <compare>
#include <cstddef>
#include <map>

#include "reducelab/catalogue.hpp"
#include "reducelab/family_params.hpp"
#include "reducelab/trace_format.hpp"
#include "reducelab/types.hpp"

namespace rl::kernels {

struct LaunchArgs {
  const void* in = nullptr;
  void* out = nullptr;
  size_t n = 0;
  unsigned grid = 1, block = 256;
  size_t smemBytes = 0;
  cudaStream_t stream = nullptr;
  trace::TraceHeader* trace = nullptr;  // null: the untraced kernel
  unsigned tracedBlock = 0;
  void* partials = nullptr;  // k12: gridDim.x partials
  unsigned* counter = nullptr;  // k12: the ticket counter (0 between launches)
  // The matrix families: 2-D grid and block; the run's own parameters, which its family's launcher
  // reads (the sides: in is the input; matmul's A, with B right after it in the same buffer).
  unsigned gridX = 0, gridY = 0, blockX = 0, blockY = 0;
  FamilyParams params;
  int loadsInFlight = 1;  // k13: the policy's depth and cache hint
  int cacheHint = 0;
  // Launched with programmatic dependent launch (a later pass of a GPU final): it may start while
  // the previous pass drains; the kernel waits for that grid before reading its partials.
  bool programmaticDependent = false;
};

using LaunchFn = cudaError_t (*)(const LaunchArgs&);

struct KernelEntry {
  LaunchFn launch = nullptr;
  const void* func = nullptr;  // the __global__ function, for attributes and occupancy
};

struct VariantKey {
  KernelId id;
  Op op;
  ElemType in, acc;
  bool traced;
  int blockTemplate;  // the block size for kernels templated on it, else 0
  auto operator<=>(const VariantKey&) const = default;
};

class Registry {
 public:
  void add(const VariantKey& k, KernelEntry e) { entries_[k] = e; }
  const KernelEntry* find(const VariantKey& k) const {
    auto it = entries_.find(k);
    return it == entries_.end() ? nullptr : &it->second;
  }
  size_t size() const { return entries_.size(); }

 private:
  std::map<VariantKey, KernelEntry> entries_;
};

// All entries, registered on first use.
const Registry& registry();

// Registers kernel Id's instantiations. Its launch unit defines the specialisation: written by the
// build from its line of reducelab/kernel_ids.hpp, or its own launch_*.cu for the Custom form;
// registry.cu calls one per id, so a kernel without one fails to link.
template <KernelId Id>
void registerKernel(Registry&);

}  // namespace rl::kernels
