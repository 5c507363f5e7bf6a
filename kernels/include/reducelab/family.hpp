#pragma once
// A family of kernels: the reductions, the transposes, the matrix products (and next the student's
// own kernel). Everything the rest of ReduceLab asks of a run that depends on what kind of kernel
// it runs goes through this interface, so code outside kernels/families/ does not branch on the
// family (CUB's dispatch layer is the model: the dispatch does not change when an algorithm or a
// tuning is added). A family is one folder, kernels/families/<name>/: its kernels' descriptors
// and defaults, its parameters and their rules, its launch geometry, its CPU model, its checks
// and rates, and one registration line in kernels/families/families.cpp. docs/adding-a-family.md
// lists the pieces.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reducelab/catalogue.hpp"
#include "reducelab/config.hpp"
#include "reducelab/device_info.hpp"
#include "reducelab/sweep.hpp"

namespace rl {

struct TraceData;
struct Measurement;
struct Peaks;

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;

  // ---- names ----
  virtual Family id() const = 0;
  virtual std::string_view name() const = 0;         // "reduction", "transpose", "matmul"
  // What --kernel takes for every kernel of the family ("all" for the reductions' ladder).
  virtual std::string_view listName() const { return name(); }
  // The catalogue's group heading: "reduction (seeds 000-002)".
  virtual std::string_view heading() const = 0;

  // ---- a run's parameters ----
  // "" or the sentence that says what is wrong with this run of kernel k (device: may be null).
  virtual std::string validate(const KernelInfo& k, const RunConfig& c, const DeviceInfo* device) const = 0;
  // The fields that follow from the family's own parameters (the matrices' block and N follow
  // from the tile and the sides). Called after any parameter changes.
  virtual void normalize(const KernelInfo& k, RunConfig& c) const { (void)k, (void)c; }
  // The GUI picked kernel k after `previous`: settle parameters the previous family left that this
  // one cannot take (a matrix tile's block of 841 threads, an operation a transpose has not).
  virtual void adopt(const KernelInfo& k, RunConfig& c, const KernelInfo* previous) const { (void)k, (void)c, (void)previous; }
  // What the run works on, for labels and logs: "N=2^24 b512", "1024 x 1024 (K 1024) t16".
  virtual std::string shape(const KernelInfo& k, const RunConfig& c) const = 0;
  // The family's own parameters of a run as (name, value) pairs, in the order tables and records
  // list them (Rows, Cols, Inner, Tile for the matrices; none for the reductions, whose N, block and
  // operation every record has).
  virtual std::vector<std::pair<std::string, std::string>> ownParameters(const KernelInfo& k, const RunConfig& c) const {
    (void)k, (void)c;
    return {};
  }

  // Whether its runs have an operation (sum, min, max) and a final stage: a reduction's do, a
  // transpose or a product writes a whole output.
  virtual bool hasOperation() const { return true; }
  // The columns a table of its runs adds to the common ones, in order ("% copy", "GFLOP/s",
  // "% peak FLOP", "size", "tile"), and the cells of those that follow from a run's configuration
  // alone ("size" = "1000 x 777 x 95", "tile"); the table fills the rate columns from the record.
  virtual std::vector<std::string> extraColumns() const { return {}; }
  virtual std::vector<std::pair<std::string, std::string>> configCells(const KernelInfo& k, const RunConfig& c) const {
    (void)k, (void)c;
    return {};
  }

  // ---- what a run moves and computes ----
  // Input elements the device generates (matmul: A then B).
  virtual uint64_t inputElements(const KernelInfo& k, const RunConfig& c) const = 0;
  // The least bytes any kernel must move, and the floating-point operations it does.
  virtual double bytesMoved(const KernelInfo& k, const RunConfig& c) const = 0;
  virtual double flopsDone(const KernelInfo& k, const RunConfig& c) const { (void)k, (void)c; return 0; }
  // Device bytes a run allocates (inputs, outputs, partials, the L2 flush buffer).
  virtual uint64_t deviceBytesNeeded(const KernelInfo& k, const RunConfig& c, const DeviceInfo& d) const = 0;
  // Whether its kernels are measured in FLOP/s against the arithmetic peaks (compute-bound).
  virtual bool measuresFlops() const { return false; }
  // Whether a run's result is one value checked against the exact reduction of its input, which
  // the runs of one input share (false: the engine checks the kernel's whole output itself).
  virtual bool scalarResult() const { return true; }
  // Whether its kernels form the ladder the kernel sweep and the ladder plot walk (the reductions).
  virtual bool formsLadder() const { return false; }
  // "" when a sweep over `axis` applies to its kernels, else why not ("sets its block from the
  // tile: sweep the tile axis").
  virtual std::string sweepRefusal(SweepAxis axis) const = 0;

  // ---- launch ----
  // The launch geometry when `residentBlocks` blocks fit on the GPU at once (launch_plan.hpp
  // asks the device; a family whose grid follows from its parameters alone ignores it).
  virtual Geometry geometry(const KernelInfo& k, const RunConfig& c, uint64_t residentBlocks) const = 0;
  // Whether the grid depends on residency (false: a fixed 2-D grid of tiles; no device question).
  virtual bool gridFromResidency() const { return true; }
  // The template argument of the registry's instantiation (a block-templated kernel's block, a
  // matrix kernel's tile; 0 otherwise).
  virtual int instantiation(const KernelInfo& k, const RunConfig& c) const = 0;
  // Bound on the longest chain of dependent operations an element goes through (the float
  // tolerance): `n` is the run's N, or a matmul's inner dimension.
  virtual uint64_t chainBound(const KernelInfo& k, const Geometry& g, uint64_t n) const = 0;

  // ---- the CPU model ----
  // The trace the traced twin of kernel k writes for block c.tracedBlock on a first-pass grid of
  // `grid` blocks (ccMajor: which instructions the device has).
  virtual TraceData model(const KernelInfo& k, const RunConfig& c, uint64_t grid, int ccMajor, std::string* error) const = 0;
};

// Every family, in the catalogue's order of groups.
const std::vector<const KernelFamily*>& families();
const KernelFamily& familyOf(const KernelInfo& k);
const KernelFamily& familyOf(Family f);
// The family of a run's kernel; nullptr when the kernel is unknown.
const KernelFamily* familyOf(const RunConfig& c);
// The family whose listName() is `text` ("all", "transpose", "matmul"), or nullptr.
const KernelFamily* familyByListName(std::string_view text);

}  // namespace rl
