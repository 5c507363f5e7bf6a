#pragma once
// What the two matrix families (transpose, matmul: seeds 003 and 004) share: a rows x cols
// output covered by a 2-D grid of tile x tile pieces, the tile setting the block, float types, the
// output checked on the host, and the matrix CPU model. transpose/ and matmul/ add what differs.
#include "reducelab/family.hpp"

namespace rl {

// The sides and tile of either matrix family's parameters (TransposeParams, MatmulParams), so the
// code they share reads one shape. `inner`: matmul's K (a transpose's: MatmulParams' default).
// Another family's parameters read as the defaults.
struct MatrixShape {
  uint64_t rows = MatmulParams{}.rows, cols = MatmulParams{}.cols, inner = MatmulParams{}.inner;
  int tile = 0;
};
MatrixShape matrixShape(const RunConfig& c);
// The tile a run uses: its own, or (0) the kernel's default.
int effectiveTile(const KernelInfo& k, const RunConfig& c);
// The shared entries of the matrix families' parameter lists, for P (TransposeParams or
// MatmulParams), tooltips by family.
template <class P>
FamilyParameter rowsParameter(std::string tooltip);
template <class P>
FamilyParameter colsParameter(std::string tooltip);
template <class P>
FamilyParameter tileParameter();

class MatrixFamily : public KernelFamily {
 public:
  std::string validate(const KernelInfo& k, const RunConfig& c, const DeviceInfo* device) const override;
  void normalize(const KernelInfo& k, RunConfig& c) const override;
  void adopt(const KernelInfo& k, RunConfig& c, const KernelInfo* previous) const override;
  std::string shape(const KernelInfo& k, const RunConfig& c) const override;
  std::string extent(const KernelInfo& k, const RunConfig& c) const override;
  uint64_t outputElements(const KernelInfo& k, const RunConfig& c) const override;
  std::string benchLine(const KernelInfo& k, const RunConfig& c) const override;
  std::string traceLine(const KernelInfo& k, const RunConfig& c, const trace::TraceHeader& h,
                        const std::string& source) const override;
  std::vector<RunConfig> resourceVariants(const KernelInfo& k) const override;
  uint64_t deviceBytesNeeded(const KernelInfo& k, const RunConfig& c, const DeviceInfo& d) const override;
  Geometry geometry(const KernelInfo& k, const RunConfig& c, uint64_t residentBlocks) const override;
  CpuBaseline cpuBaseline(const KernelInfo& k, const RunConfig& c, int reps, double budgetSeconds,
                          const CpuWork& work) const override;
  bool gridFromResidency() const override { return false; }
  int instantiation(const KernelInfo& k, const RunConfig& c) const override { return effectiveTile(k, c); }
  TraceData model(const KernelInfo& k, const RunConfig& c, uint64_t grid, int ccMajor, std::string* error) const override;
  bool scalarResult() const override { return false; }  // the engine checks every output element
  bool hasOperation() const override { return false; }
  std::vector<std::string> extraColumns() const override;
  std::vector<std::pair<std::string, std::string>> configCells(const KernelInfo& k, const RunConfig& c) const override;
  std::string sweepRefusal(SweepAxis axis) const override {
    if (axis == SweepAxis::Block) return "sets its block from the tile: sweep the tile axis";
    if (axis == SweepAxis::N) return "is sized by its matrix: sweep the size axis";
    return {};
  }

 protected:
  // Whether the family has an inner dimension (matmul's K).
  virtual bool hasInner() const { return false; }
  // Makes c hold this family's parameters, carrying the sides and tile of the other matrix
  // family's (a kernel picked across the two keeps its matrix).
  virtual void holdOwnParameters(RunConfig& c) const = 0;
};

}  // namespace rl
