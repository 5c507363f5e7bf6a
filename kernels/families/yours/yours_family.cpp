// The student's own kernel as a family (docs/your-kernel.md): one kernel, `yours`, whose code is the
// student's file. It is in no catalogue and no --kernel list: its backend compiles the file with
// NVRTC and runs it in a worker process (usercode::makeUserKernelBackend), the file's contract
// plans its launch, and its rows are named by the record (Measurement::kernelName, "your kernel
// (mine.cu)"). What the rest of ReduceLab asks of its rows (their rules, what they move, their
// shape, the sweeps they take) it answers here, as the other families do for theirs.
#include <algorithm>

#include "reducelab/family.hpp"
#include "reducelab/trace.hpp"
#include "yours/yours_kernels.hpp"

namespace rl {
namespace {

class YoursFamily final : public KernelFamily {
 public:
  Family id() const override { return Family::Yours; }
  std::string_view name() const override { return "yours"; }
  std::string_view listName() const override { return {}; }  // in no --kernel list: its file is the kernel
  std::string_view heading() const override { return "your kernel (its own file)"; }
  const KernelInfo* sourceKernel() const override { return &desc::yours; }

  // The checks a row of it passes that need no contract (the worker checks the file's claims:
  // types, operations, blocks): what a session, a recording or the remote protocol may hold.
  std::string validate(const KernelInfo&, const RunConfig& c, const DeviceInfo*) const override {
    if (c.n < 1) return "N must be at least 1";
    if (c.block < 1 || c.block > 1024) return "the block size must be between 1 and 1024";
    if (c.reps < 1 || c.reps > 100000) return "repetitions must be between 1 and 100000";
    if (c.warmup < 0 || c.warmup > 10000) return "warm-up runs must be between 0 and 10000";
    if (c.accumulate != Accumulate::Same) return "a kernel of your own accumulates in its element type";
    if (c.data == DataPattern::IntRange && c.rangeLo > c.rangeHi)
      return "the integer range is empty (low " + std::to_string(c.rangeLo) + " > high " + std::to_string(c.rangeHi) + ")";
    return {};
  }
  void normalize(const KernelInfo&, RunConfig&) const override {}  // N, block, type, op: every run's
  std::string shape(const KernelInfo&, const RunConfig& c) const override {
    return "N=" + formatCount(c.n) + " b" + std::to_string(c.block);
  }
  bool descriptorComplete(const KernelInfo& k) const override {
    return commonDescriptorComplete(k) && yoursDescriptorComplete(k);
  }

  // A reduction of N elements of its type into one value, checked against the exact reference.
  uint64_t inputElements(const KernelInfo&, const RunConfig& c) const override { return c.n; }
  double bytesMoved(const KernelInfo&, const RunConfig& c) const override { return double(c.n) * double(elemBytes(c.type)); }
  // Its worker allocates its own buffers, on its own GPU.
  uint64_t deviceBytesNeeded(const KernelInfo&, const RunConfig&, const DeviceInfo&) const override { return 0; }
  std::string sweepRefusal(SweepAxis axis) const override {
    if (axis == SweepAxis::Kernel || axis == SweepAxis::Tile || axis == SweepAxis::Size)
      return "your kernel is swept over n, block or type; the " + std::string(rl::name(axis)) + " axis is the catalogue's";
    return {};
  }

  // Its launch is the file's contract's (usercode::planLaunch), which only its backend reads; as
  // far as a row tells, one pass of a block per `block` elements.
  Geometry geometry(const KernelInfo&, const RunConfig& c, uint64_t) const override {
    Geometry g;
    g.block = unsigned(std::max(c.block, 1));
    g.passGrids = {(c.n + g.block - 1) / g.block};
    g.partials = 1;
    g.maxElemsPerThread = 1;
    return g;
  }
  bool gridFromResidency() const override { return false; }
  int instantiation(const KernelInfo&, const RunConfig&) const override { return 0; }
  // Nothing is known of its order of additions: the longest chain there can be.
  uint64_t chainBound(const KernelInfo&, const Geometry&, uint64_t n) const override { return std::max<uint64_t>(n, 1); }

  TraceData model(const KernelInfo&, const RunConfig&, uint64_t, int, std::string* error) const override {
    if (error)
      *error = "your kernel has no CPU model: its trace is the GPU's (reducelab check, or trace --kernel-file)";
    return {};
  }
  std::vector<RunConfig> resourceVariants(const KernelInfo&) const override { return {}; }
};

}  // namespace

const KernelFamily& yoursFamily() {
  static const YoursFamily f;
  return f;
}

}  // namespace rl
