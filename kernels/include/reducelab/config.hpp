#pragma once
// One run's configuration, its launch geometry and its validation. The same record drives the
// CLI, the GUI, the CPU model and the exports.
#include <cstdint>
#include <string>
#include <vector>

#include "reducelab/catalogue.hpp"
#include "reducelab/device_info.hpp"
#include "reducelab/family_params.hpp"
#include "reducelab/policy.hpp"
#include "reducelab/types.hpp"

namespace rl {

struct RunConfig {
  std::string kernel = "k7";
  Op op = Op::Sum;
  ElemType type = ElemType::Float32;
  Accumulate accumulate = Accumulate::Same;
  uint64_t n = uint64_t(1) << 24;
  int block = 512;
  FinalStage final = FinalStage::Default;
  int reps = 20;
  int warmup = 3;
  bool warmL2 = false;
  TimingMode timing = TimingMode::Blocked;
  // Later passes of a GPU final launched with programmatic dependent launch (sm_90: the next pass
  // starts while the previous one drains). Off: plain launches, to time what PDL saves.
  bool pdl = true;
  DataPattern data = DataPattern::Uniform;
  uint64_t seed = 1;
  int64_t rangeLo = -1000, rangeHi = 1000;  // int-range data
  uint64_t tracedBlock = 0;
  // The kernel's family's own parameters (family_params.hpp; a matrix's sides and tile), read
  // and written through the family's parameter list (KernelFamily::parameters). Fields above
  // that follow from them (a matrix's block and N) are set by normalizeConfig.
  FamilyParams params;

  ElemType accType() const { return accumulatorType(type, accumulate); }
};

// How one run is launched.
struct Geometry {
  FinalStage final = FinalStage::Gpu;
  unsigned block = 0;
  size_t smemBytes = 0;            // dynamic shared memory per block
  std::vector<uint64_t> passGrids; // grid of each launch of the kernel (GPU final: > 1 pass)
  uint64_t partials = 0;           // values left after the GPU passes (1, or the CPU's share)
  uint64_t maxElemsPerThread = 0;  // first pass: elements one thread combines sequentially
  // Matrix families: the 2-D grid and block (grid() == gridX x gridY, block == blockX x blockY).
  unsigned gridX = 0, gridY = 0, blockX = 0, blockY = 0;
  int tile = 0;
  // Loads each thread keeps in flight in the first pass: the descriptor's, or (tuned kernel) the
  // dispatch policy's. Where the launch comes from: "descriptor", "policy (tuned ...)", "default policy".
  int loadsInFlight = 0;
  CacheHint cacheHint = CacheHint::None;
  std::string policySource;
  // Two-pass finals: the later passes launched with programmatic dependent launch (they start
  // while the previous pass drains and wait for it in the kernel).
  bool programmaticDependentLaunch = false;
  // The tuned kernel at small N: the first pass launched as one thread-block cluster of this many
  // CTAs (the whole grid), finishing in distributed shared memory; 0: no cluster.
  int clusterCtas = 0;
  uint64_t grid() const { return passGrids.empty() ? 0 : passGrids.front(); }
};

// After the kernel or a parameter changed: `params` made the kernel's family's, and the fields
// that follow from them set (a matrix's block and N from its tile and sides). KernelFamily::normalize.
void normalizeConfig(RunConfig& c);
// What a run works on, in words for labels and logs: "N=2^24 b512" for reductions,
// "1024 x 1024 t32" for a transpose, "1024 x 1024 (K 1024) t16" for a matmul.
std::string runShape(const RunConfig& c);
// Input elements the device generates: N for reductions; rows x cols for transpose;
// rows x inner (A) followed by inner x cols (B) for matmul.
uint64_t inputElements(const RunConfig& c);
// Bytes a kernel must move at least (reduction: N elements read; transpose: every element read
// and written once) and the floating-point operations it does (matmul: 2 x rows x cols x inner).
double bytesMoved(const RunConfig& c);
double flopsDone(const RunConfig& c);
// Largest matrix side, and the most multiply-adds a matmul run may ask for (a naive product
// of 2^33 takes seconds per repetition).
constexpr uint64_t kMaxMatrixSide = 1u << 15;
constexpr uint64_t kMaxMatmulWork = uint64_t(1) << 33;

// Blocks the first pass needs to give each thread at least one element.
uint64_t blocksToCover(const KernelInfo& k, uint64_t n, int block, ElemType in);
// residentBlocks: blocks of this kernel that fit on the whole GPU at once (SMs x occupancy),
// the grid of the grid-stride kernels.
Geometry planGeometry(const KernelInfo& k, const RunConfig& c, uint64_t residentBlocks);

// A plain sentence saying what is wrong, or "" when the run can be launched: a kernel of the
// catalogue, by its family's rules (KernelFamily::validate). `device` may be null (CPU model):
// then only the device-independent rules apply.
std::string validate(const RunConfig& c, const DeviceInfo* device);
// The same for a row that some backend measured, of a kernel of any family: the catalogue's, or
// the student's own (a family's sourceKernel, family.hpp), which gets its family's checks that
// need no contract (its worker checks the file's claims). What a session, a recording or the
// remote protocol may hold.
std::string validateRow(const RunConfig& c, const DeviceInfo* device);

// Device bytes a run allocates (input, partials, L2 flush buffer).
uint64_t deviceBytesNeeded(const RunConfig& c, const DeviceInfo& d);

FinalStage resolvedFinal(const RunConfig& c);

// Whether the later passes of this plan launch with programmatic dependent launch: asked for
// (c.pdl), a GPU final of more than one pass, and a device of compute capability 9.0 or newer.
bool usesProgrammaticDependentLaunch(const RunConfig& c, const Geometry& g, int ccMajor);
// Whether the PDL switch changes anything for this configuration (a kernel of ours whose final
// is a second pass on the GPU): the GUI shows it only then.
bool programmaticDependentLaunchApplies(const RunConfig& c);

// Bound on the longest chain of sequential operations any input element goes through, used
// by the floating-point tolerance: first-pass elements per thread + tree depth + the finish.
uint64_t sequentialChainBound(const KernelInfo& k, const Geometry& g, uint64_t n);

}  // namespace rl
