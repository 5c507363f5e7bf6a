#pragma once
// Launch policies of the tuned single-pass kernel (k13): how deep each thread's loads go, how many
// CTAs per SM the grid may use, and which cache hint the loads carry, per element type, block size
// and N. `reducelab tune` measures them on the device and stores the table per device, beside the
// measured peaks ($XDG_CONFIG_HOME/reducelab/policies.json); without a table a rule decides.
// Plain C++: the GUI, the CLI and the tests read tables without CUDA.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "reducelab/types.hpp"

namespace rl {

// The cache hint of the 16-byte loads (PTX ld.global.nc qualifiers).
enum class CacheHint {
  None,         // ld.global.nc.v4 (the read-only path, as __ldg)
  NoAllocate,   // .L1::no_allocate: streamed data does not displace L1 lines
  EvictFirst,   // .L1::no_allocate + an L2 evict_first cache policy (createpolicy): leaves L2 first
  Prefetch256,  // .L1::no_allocate.L2::256B: L2 fetches 256-byte blocks (whole DRAM bursts)
};
constexpr int kCacheHintCount = 4;
std::string_view name(CacheHint h);
std::optional<CacheHint> parseCacheHint(std::string_view s);

struct LaunchPolicy {
  int loadsInFlight = 1;  // 16-byte loads each thread issues before using one: 1, 2, 4 or 8
  int ctasPerSM = 0;      // grid cap, CTAs per SM (0: as many as are resident)
  CacheHint hint = CacheHint::None;
  double medianUs = 0;    // what the tuner measured with it (0: not measured)
  // CTAs of the whole grid at most (0: no cap). 1: one CTA writes the result itself, with no
  // finish at all (no ticket, no cluster): the shortest chain where N fits one CTA's loads.
  int gridCap = 0;
  // The CTAs' results combined with one atomic each into the result (a dispatch only: auto; k13
  // keeps its fixed-order finish). The shortest finish over many CTAs, but a float sum's last
  // bits then depend on the order the CTAs finish in. Planned only where the atomic is native
  // (sums, integer min/max) and the launch is not replayed from a graph.
  bool atomicFinish = false;
  bool operator==(const LaunchPolicy&) const = default;
};
constexpr int kPolicyLoadsInFlight[] = {1, 2, 4, 8};
constexpr int kPolicyCtasPerSM[] = {1, 2, 4, 0};
// One CTA is tried where each thread then has at most this many 16-byte loads (all in flight).
constexpr uint64_t kSingleCtaMaxVectorsPerThread = 8;

// Without a tuned entry: enough CTAs that every SM has loads in flight (one vector per thread)
// while the work fits in one resident wave; beyond it one wave, each thread looping with four
// loads in flight. `coverOneLoad`: CTAs that give each thread exactly one 16-byte load;
// `resident`: CTAs that fit on the GPU at once.
LaunchPolicy defaultPolicy(uint64_t coverOneLoad, uint64_t resident);

// The grid a policy gives: one CTA per block x 1 vector of work up to the cap.
uint64_t policyGrid(const LaunchPolicy& p, uint64_t coverOneLoad, uint64_t resident, int smCount, int residentPerSM);

// Small N on Hopper: a tuned kernel's whole grid is launched as one thread-block cluster (the
// CTAs finish in distributed shared memory, without the ticket) while the work fits at most this
// many 16-byte vectors a thread in the largest cluster that fits. 4, not 8: in run 2
// (docs/performance.md, outcome H) 2^18 int32 at 8 vectors a thread on a 16-CTA cluster was no
// faster than 128 CTAs with the ticket: 16 SMs cannot pull 1 MiB fast enough.
constexpr uint64_t kClusterMaxVectorsPerThread = 4;

// The CTAs of that one cluster for `coverOneLoad` CTAs of one vector a thread, given the largest
// cluster this kernel fits on the device (16, 8, or 0 where none); 0: no cluster (ticket finish).
int clusterCtasForWork(uint64_t coverOneLoad, int largestCluster);

struct PolicyTable {
  std::string deviceName, uuid, driver, date;
  std::string architecture;  // "sm_90" (absent in tables of earlier versions)
  // (type, block, log2 N) -> the fastest policy measured there.
  std::map<std::tuple<ElemType, int, int>, LaunchPolicy> entries;
  // Where that fastest policy takes the atomic finish: the fastest with an ordered one (k13's
  // always; auto's where the atomic does not apply: a float min or max, a graph replay).
  std::map<std::tuple<ElemType, int, int>, LaunchPolicy> orderedEntries;
  // The entry of the measured N nearest to n in log2 (beyond the largest: the largest), for
  // this type and block; nullptr when the table has none for them. `ordered`: the fastest
  // policy without the atomic finish.
  const LaunchPolicy* find(ElemType t, int block, uint64_t n, int* log2nOut = nullptr, bool ordered = false) const;
  // The fastest block size measured for this type at the measured N nearest to n (0: none).
  int bestBlock(ElemType t, uint64_t n, bool ordered = false) const;
  bool empty() const { return entries.empty(); }
};

// The table checked into the source for an architecture: `reducelab tune` run on a GPU of it,
// stored as assets/kernels/policies-sm<major><minor>.json and embedded. auto uses it where this
// device has no tuned table of its own; empty where the architecture has none.
const PolicyTable& architecturePolicyTable(int ccMajor, int ccMinor);
// auto's block where no table measured one.
constexpr int kAutoDefaultBlock = 512;

nlohmann::json policyTableJson(const PolicyTable& t);
// The table `reducelab tune` stored for this device (policies.json in userConfigDir(), keyed by
// UUID), when it reads and was measured under this driver; else an empty table (tune again).
PolicyTable storedPolicyTable(const std::string& uuid, const std::string& driver);
// Checked like any input file: "" and *out, or the reason (nothing half-read).
std::string policyTableFromJson(const nlohmann::json& j, PolicyTable* out);
// One line per (type, block) for the GUI and `info`: "int32 block 512: 2^12-2^18 x1 ...".
std::vector<std::string> describePolicyTable(const PolicyTable& t);
// What a geometry's policy says, in words ("4 loads in flight, 2 CTAs/SM, L1::no_allocate").
std::string describePolicy(const LaunchPolicy& p);

}  // namespace rl
