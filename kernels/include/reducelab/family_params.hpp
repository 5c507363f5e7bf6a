#pragma once
// Each family's own parameters: what a run of its kernels needs beyond what every run has (N,
// block, type, operation, final stage, data, timing). RunConfig::params holds the one of its
// kernel's family. Code outside kernels/families/ reads and writes them through the family's
// parameter list (KernelFamily::parameters(), family.hpp), never by field: only the family's
// own code and its launchers name these structs.
#include <cstdint>
#include <variant>

namespace rl {

// The reductions: N, block and the operation are every run's. `gpuPasses`: with a CPU final
// stage, the GPU launches before the CPU adds what is left (0 or 1: one launch, the seeds'
// Kernel01; 2: the UPC lecture's Kernel02, which launches again on its 32768 partials and adds
// the last 64 on the CPU).
// `grid`: the first launch's blocks for the grid-stride kernels (0: one wave of resident blocks;
// the UPC lecture's Kernel07 used 4096).
struct ReductionParams {
  int gpuPasses = 0;
  uint64_t grid = 0;
};

// Transpose: the input is rows x cols, the output cols x rows. `tile`: the tile's side (0: the
// kernel's default); it sets the block, so `block` and `n` follow (KernelFamily::normalize).
// `repeat`: times one launch moves the whole matrix (seed 004's "loop within kernel" timing;
// 1: once, its "loop over kernel"); the bytes moved count every pass.
struct TransposeParams {
  uint64_t rows = 1024, cols = 1024;
  int tile = 0;
  uint32_t repeat = 1;
};

// Matmul: C (rows x cols) = A (rows x inner) x B (inner x cols); `tile` as for the transpose.
struct MatmulParams {
  uint64_t rows = 1024, cols = 1024, inner = 1024;
  int tile = 0;
};

// A new RunConfig holds the first (its default kernel is a reduction).
using FamilyParams = std::variant<ReductionParams, TransposeParams, MatmulParams>;

// The parameters of type P that `params` holds, or P's defaults where it holds another family's
// (a configuration whose kernel changed and was not normalized yet).
template <class P>
const P& paramsAs(const FamilyParams& params) {
  static const P defaults{};
  const P* p = std::get_if<P>(&params);
  return p ? *p : defaults;
}
// For writing: another family's parameters are replaced by P's defaults first.
template <class P>
P& paramsAs(FamilyParams& params) {
  if (!std::holds_alternative<P>(params)) params.template emplace<P>();
  return std::get<P>(params);
}

}  // namespace rl
