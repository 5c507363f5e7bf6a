#pragma once
// The one launch plan of a run: grid of every pass, shared memory, loads in flight, cache hint,
// thread-block cluster, programmatic dependent launch. The engine launches exactly this plan and
// the CPU model traces exactly this plan; they differ only in who answers the questions a plan
// asks of the device (LaunchFacts): the driver for the engine, the occupancy calculator and the
// kernels' recorded resources for the CPU model.
#include <cstdint>
#include <optional>
#include <string>

#include "reducelab/config.hpp"
#include "reducelab/device_info.hpp"
#include "reducelab/policy.hpp"

namespace rl {

class LaunchFacts {
 public:
  virtual ~LaunchFacts() = default;
  virtual int smCount() const = 0;
  virtual int ccMajor() const = 0;
  virtual int ccMinor() const = 0;
  // Blocks of the kernel's first-pass instantiation resident on one SM with `smem` bytes of
  // dynamic shared memory (at least 1).
  virtual int residentPerSM(const KernelInfo& k, const RunConfig& c, size_t smem) = 0;
  // The largest thread-block cluster (16 or 8 CTAs) of that instantiation that can be resident;
  // 0 where none (before Hopper, or nothing fits).
  virtual int largestCluster(const KernelInfo& k, const RunConfig& c, size_t smem) = 0;
  // The device's tuned launch policies (reducelab tune); empty without a table.
  virtual const PolicyTable& policies() = 0;
};

// Plans a validated configuration (validate() said ""). `forced`: the policy under test while
// tuning. Returns "" or why it cannot be planned.
std::string planLaunch(const RunConfig& c, LaunchFacts& facts, Geometry* g,
                       const std::optional<LaunchPolicy>& forced = std::nullopt);

// The configuration a run launches: a dispatch's (auto's) with the block it chose for this N,
// type and device, so records, traces and tables say what ran; any other kernel's as it is.
RunConfig dispatchedConfig(const RunConfig& c, LaunchFacts& facts);

// `auto --deterministic` (bench's flag, and this call for a library user): the fixed-order plan.
// The same bits run to run and whatever block was asked, because nothing in the tree comes from
// a launch choice: tiles of 256 threads x 4 vectors of 16 bytes (k10's block), one block per tile,
// each thread combining its 4 vectors in order, the block by warp shuffles and then warp 0, then the
// same kernel over the tile sums, pass after pass, until one value is left (final stage gpu). A k10
// configuration, so the record says what ran. "" in *error, or why not (another kernel than auto).
RunConfig deterministicPlan(const RunConfig& c, std::string* error);
constexpr int kDeterministicBlock = 256;

// The kernels' resources as compiled for one architecture (registers, static shared memory,
// local memory per thread), recorded from the driver by `reducelab info --kernel-resources` into
// assets/kernels/resources-sm<NN>.json and embedded, so the CPU model knows the residency the
// driver will find. Not recorded (another architecture, a kernel added since): nullopt.
struct RecordedResources {
  int registers = 0;
  int staticSmemBytes = 0;
  int localBytes = 0;
};
std::optional<RecordedResources> recordedResources(const RunConfig& c, int ccMajor, int ccMinor);
// The architecture the embedded table was recorded on ("sm_90"), and its variant count.
std::string recordedResourcesArch();
size_t recordedResourcesCount();
// The key of one variant in that table: "k13 sum float32->float32", "k6 max int32->int64 b256"
// (block-templated kernels carry the block).
std::string resourceKey(const RunConfig& c);

// The CPU model's answers: the occupancy calculator on `device` with the recorded resources (or
// kAssumedRegisters where none are recorded), the cluster rule of Hopper and later, and the
// device's stored policy table (policies.json, by UUID and driver) when it has one.
class ModelLaunchFacts : public LaunchFacts {
 public:
  explicit ModelLaunchFacts(const DeviceInfo& device);
  int smCount() const override { return device_.smCount; }
  int ccMajor() const override { return device_.ccMajor; }
  int ccMinor() const override { return device_.ccMinor; }
  int residentPerSM(const KernelInfo& k, const RunConfig& c, size_t smem) override;
  int largestCluster(const KernelInfo& k, const RunConfig& c, size_t smem) override;
  const PolicyTable& policies() override { return policies_; }

 private:
  DeviceInfo device_;
  PolicyTable policies_;
};

// The plan the CPU model traces for `c` on `device` ("" in *error, or why not).
Geometry modelGeometry(const RunConfig& c, const DeviceInfo& device, std::string* error = nullptr);
// dispatchedConfig with the CPU model's answers for `device`.
RunConfig modelDispatchedConfig(const RunConfig& c, const DeviceInfo& device);

}  // namespace rl
