#pragma once
// A family of kernels: the reductions, the transposes, the matrix products and the student's own
// kernel. Everything the rest of ReduceLab asks of a run that depends on what kind of kernel
// it runs goes through this interface, so code outside kernels/families/ does not branch on the
// family (CUB's dispatch layer is the model: the dispatch does not change when an algorithm or a
// tuning is added). A family is one folder, kernels/families/<name>/: its kernels' descriptors
// and defaults, its parameters and their rules, its launch geometry, its CPU model, its checks
// and rates, and one registration line in kernels/families/families.cpp. docs/adding-a-family.md
// lists the pieces.
#include <cstdint>
#include <map>
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
struct CpuBaseline;
struct CpuWork;
namespace trace {
struct TraceHeader;
}

// What a family's parameter is to the rest of ReduceLab beyond its value.
enum class ParameterRole {
  OutputSide,  // a side of the output (rows, cols): the size sweep sets it, a tile sweep's label shows it
  InnerSide,   // a side that is not the output's (matmul's K): the size sweep sets it too
  Tile,        // one of the kernel's tiles, 0 its default: the tile sweep and the tile menu set it
  Count,       // a small count no sweep sets (the reductions' GPU passes before a CPU final)
  Blocks,      // the first launch's blocks where the kernel's grid is free (grid-stride reductions), 0 its own
  Repeats,     // passes over the data inside one launch (seed 004's loop within the kernel); no sweep sets it
};

// One of a family's own parameters, as every reader and writer names and checks it: the command
// line, the Parameters panel, lessons, settings, session records, the remote protocol. Sides are
// counts (an unsigned option; validate() says what is wrong with one), a tile a small int.
struct FamilyParameter {
  std::string key;      // "rows": --rows, a lesson's rows=, settings and the remote protocol
  std::string axis;     // "Rows": its axis in session records (nvbench's layout)
  std::string label;    // "inner (K)": the Parameters panel
  std::string tooltip;  // the Parameters panel's
  std::string help;     // --rows's (a key several families share: the first family's text)
  std::string what;     // "a matrix side": in a reader's error message
  std::string allowed;  // "1..32768": in a lesson's error message
  ParameterRole role = ParameterRole::OutputSide;
  // Its default, and what a lesson, a session record or the remote protocol may hold.
  uint64_t defaultValue = 0, min = 0, max = 0;
  uint64_t (*get)(const RunConfig&) = nullptr;  // as set (a tile of 0: the kernel's default)
  void (*set)(RunConfig&, uint64_t) = nullptr;  // makes c hold the family's parameters first
  uint64_t (*used)(const KernelInfo&, const RunConfig&) = nullptr;  // what the run uses (the tile 0 stands for)
};

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
  // Its kernel that no build compiles: the student's own, whose code is a file compiled at run time
  // (NVRTC) and run by the backend that compiled it (usercode::makeUserKernelBackend). It is in no
  // catalogue and no --kernel list (listName() ""); its rows carry its key and are named by the
  // record (Measurement::kernelName); a recording keeps its traces beside the file
  // (Recording::userKernel); only a backend that was given the file runs or traces it. nullptr:
  // every kernel of the family is in the catalogue.
  virtual const KernelInfo* sourceKernel() const { return nullptr; }

  // ---- a run's parameters ----
  // Its own parameters, in the order records and tables list them (none for the reductions,
  // whose N, block and operation every record has).
  virtual const std::vector<FamilyParameter>& parameters() const;
  // "" or the sentence that says what is wrong with this run of kernel k (device: may be null).
  virtual std::string validate(const KernelInfo& k, const RunConfig& c, const DeviceInfo* device) const = 0;
  // Makes c.params this family's (another family's are dropped, or their shared values carried)
  // and sets the fields that follow from them (the matrices' block and N follow from the tile and
  // the sides). Called after the kernel or any parameter changes (normalizeConfig).
  virtual void normalize(const KernelInfo& k, RunConfig& c) const = 0;
  // The GUI picked kernel k after `previous`: settle parameters the previous family left that this
  // one cannot take (a matrix tile's block of 841 threads, an operation a transpose has not).
  virtual void adopt(const KernelInfo& k, RunConfig& c, const KernelInfo* previous) const { (void)k, (void)c, (void)previous; }
  // What the run works on, for labels and logs: "N=2^24 b512", "1024 x 1024 (K 1024) t16".
  virtual std::string shape(const KernelInfo& k, const RunConfig& c) const = 0;
  // The same without the launch, for the matrix table's "size" column: "1000 x 777 (K 95)".
  virtual std::string extent(const KernelInfo& k, const RunConfig& c) const;
  // The line of bench's header that says what is measured ("Transpose of a 1024 x 1024 float32
  // matrix, ..."), and trace's first line; "" where the common ones (N, block, operation) say it.
  virtual std::string benchLine(const KernelInfo& k, const RunConfig& c) const { (void)k, (void)c; return {}; }
  virtual std::string traceLine(const KernelInfo& k, const RunConfig& c, const trace::TraceHeader& h,
                                const std::string& source) const {
    (void)k, (void)c, (void)h, (void)source;
    return {};
  }
  // Whether a kernel's descriptor has the fields the family needs, consistent (its part of
  // kernel_list.hpp's compile-time descriptorComplete, for the tests' messages).
  virtual bool descriptorComplete(const KernelInfo& k) const = 0;

  // Whether its runs have an operation (sum, min, max) and a final stage: a reduction's do, a
  // transpose or a product writes a whole output.
  virtual bool hasOperation() const { return true; }
  // The columns a table of its runs adds to the common ones, in order ("% copy", "GFLOP/s",
  // "% peak FLOP", "size", "tile"), and the cells of those that follow from a run's configuration
  // alone ("size" = "1000 x 777 x 95", "tile"); the table fills the rate columns from the record.
  // A cell may also refine a common column ("final" = "cpu after 2 passes").
  virtual std::vector<std::string> extraColumns() const { return {}; }
  virtual std::vector<std::pair<std::string, std::string>> configCells(const KernelInfo& k, const RunConfig& c) const {
    (void)k, (void)c;
    return {};
  }

  // ---- what a run moves and computes ----
  // Input elements the device generates (matmul: A then B), and output elements a run writes
  // (a reduction: its one value; a matrix: rows x cols).
  virtual uint64_t inputElements(const KernelInfo& k, const RunConfig& c) const = 0;
  virtual uint64_t outputElements(const KernelInfo& k, const RunConfig& c) const { (void)k, (void)c; return 1; }
  // The least bytes any kernel must move, and the floating-point operations it does.
  virtual double bytesMoved(const KernelInfo& k, const RunConfig& c) const = 0;
  virtual double flopsDone(const KernelInfo& k, const RunConfig& c) const { (void)k, (void)c; return 0; }
  // The seeds' sequential CPU code for this run, timed on one core (the 'vs CPU' column): `reps`
  // repetitions, fewer past about `budgetSeconds`. The reductions: the loop acc = acc op v[i]
  // (runCpuBaseline); the matrices: their plain loops (seed 003's Tabla 12).
  virtual CpuBaseline cpuBaseline(const KernelInfo& k, const RunConfig& c, int reps, double budgetSeconds,
                                  const CpuWork& work) const;
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
  // The configurations of kernel k whose registers the CPU model needs (`info --kernel-resources`
  // records one per compiled variant: a block-templated kernel's blocks, a matrix kernel's tiles).
  virtual std::vector<RunConfig> resourceVariants(const KernelInfo& k) const = 0;
};

// Every family, in the catalogue's order of groups.
const std::vector<const KernelFamily*>& families();
const KernelFamily& familyOf(const KernelInfo& k);
const KernelFamily& familyOf(Family f);
// The family of a run's kernel (the catalogue's, or a family's sourceKernel); nullptr when the
// kernel is unknown.
const KernelFamily* familyOf(const RunConfig& c);
// The family whose listName() is `text` ("all", "transpose", "matmul"), or nullptr ("" names none).
const KernelFamily* familyByListName(std::string_view text);
// A kernel by key: the catalogue's (findKernel), or a family's sourceKernel ("yours"); nullptr.
// The readers of rows (sessions, recordings, the remote protocol), the rules of a row
// (validateRow) and its amounts (runShape, bytesMoved) take either; what launches or models a
// kernel (validate, the engine, the CPU model) asks findKernel.
const KernelInfo* findAnyKernel(std::string_view key);
// Whether kernel `key` is a family's sourceKernel ("yours"): the student's file, which only the
// backend that compiled it runs and traces (the remote server routes it there; the window's
// editor shows its traces).
bool runsUserSource(std::string_view key);

// ---- the families' parameters, for code that handles them all ----
// Every family's parameters, each key once: a family's in its order, a key a later family adds
// placed after the key it follows there (--help lists rows, cols, inner, tile).
const std::vector<FamilyParameter>& allFamilyParameters();
// A parameter any family has, by key ("rows") or by record axis ("Rows"); nullptr if none.
const FamilyParameter* anyParameterByKey(std::string_view key);
const FamilyParameter* anyParameterByAxis(std::string_view axis);
// The parameter `key` of c's family, or nullptr (unknown kernel, or not its family's).
const FamilyParameter* ownParameter(const RunConfig& c, std::string_view key);
// Values by key, for any family (the command line's --rows, a settings file): applying them
// sets those c's family has, and normalizes c.
using ParameterValues = std::map<std::string, uint64_t, std::less<>>;
void applyParameters(RunConfig& c, const ParameterValues& values);
// Sets every parameter of c's family that has this role (the size sweep's sides, a tile).
void setParametersOfRole(RunConfig& c, ParameterRole role, uint64_t value);

}  // namespace rl
