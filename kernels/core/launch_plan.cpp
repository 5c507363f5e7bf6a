#include "reducelab/launch_plan.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "reducelab/embedded_text.hpp"
#include "reducelab/family.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/user_dirs.hpp"

namespace rl {

extern const EmbeddedText kKernelResources[];
extern const int kKernelResources_count;

namespace {
// Where auto may take the atomic finish: a native atomic (sums; integer min and max: a float min
// or max would be a compare-and-swap loop on one address), and no graph replay (each launch takes
// the next of two accumulators, which a captured graph cannot).
bool atomicFinishApplies(const RunConfig& c) {
  return (c.op == Op::Sum || !isFloat(c.accType())) && c.timing != TimingMode::Graph;
}
std::string planTuned(const RunConfig& c, const KernelInfo& kernel, LaunchFacts& facts, Geometry* g,
                      const PolicyTable& architectureTable, const std::optional<LaunchPolicy>& forced);
}  // namespace

std::string planLaunch(const RunConfig& c, LaunchFacts& facts, Geometry* g, const std::optional<LaunchPolicy>& forced) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k) return "unknown kernel " + c.kernel;
  if (!familyOf(*k).gridFromResidency()) {  // e.g. a 2-D grid fixed by the matrix and the tile
    *g = planGeometry(*k, c, 1);
    g->loadsInFlight = k->loadsPerIteration;
    g->policySource = "descriptor";
    return {};
  }
  const PolicyTable& architectureTable = architecturePolicyTable(facts.ccMajor(), facts.ccMinor());
  if (k->dispatches && !forced) {
    // auto: the block the tables measured fastest for this type near this N (this device's own
    // tuned table first, then the architecture's), then that block's policy below; where the
    // atomic finish cannot apply, the fastest ordered ones.
    RunConfig chosen = c;
    std::string why;
    const bool ordered = !atomicFinishApplies(c);
    if (const int b = facts.policies().bestBlock(c.type, c.n, ordered); b > 0) {
      chosen.block = b;
      why = "block " + std::to_string(b) + ": the fastest this device's tuning measured near this N";
    } else if (const int a = architectureTable.bestBlock(c.type, c.n, ordered); a > 0) {
      chosen.block = a;
      why = "block " + std::to_string(a) + ": the fastest measured near this N on " + architectureTable.deviceName;
    } else {
      chosen.block = kAutoDefaultBlock;
      why = "block " + std::to_string(kAutoDefaultBlock) + ": no table for " + std::string(name(c.type)) +
            " on this architecture";
    }
    std::string err = planTuned(chosen, *k, facts, g, architectureTable, forced);
    if (err.empty()) g->policySource = "auto: " + why + "; " + g->policySource;
    return err;
  }
  return planTuned(c, *k, facts, g, architectureTable, forced);
}

RunConfig dispatchedConfig(const RunConfig& c, LaunchFacts& facts) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k || !k->dispatches) return c;
  Geometry g;
  if (!planLaunch(c, facts, &g).empty()) return c;  // the run reports why it cannot be planned
  RunConfig chosen = c;
  chosen.block = int(g.block);
  return chosen;
}

namespace {

std::string planTuned(const RunConfig& c, const KernelInfo& kernel, LaunchFacts& facts, Geometry* g,
                      const PolicyTable& architectureTable, const std::optional<LaunchPolicy>& forced) {
  const KernelInfo* k = &kernel;
  // Shared memory does not depend on the grid: plan once to learn it, then with residency.
  const Geometry probe = planGeometry(*k, c, 1);
  const int perSM = std::max(1, facts.residentPerSM(*k, c, probe.smemBytes));
  const uint64_t resident = uint64_t(perSM) * uint64_t(std::max(facts.smCount(), 1));
  if (!k->policyTuned) {
    *g = planGeometry(*k, c, resident);
    g->loadsInFlight = k->loadsPerIteration;
    g->policySource = "descriptor";
    // Two-pass finals: the later passes launch while the previous one drains (sm_90+, unless
    // --pdl off asks for plain launches).
    g->programmaticDependentLaunch = usesProgrammaticDependentLaunch(c, *g, facts.ccMajor());
    return {};
  }
  // The dispatch policy: under test, tuned on this device, or the latency rule. k13 and any plan
  // the atomic finish cannot apply to take the fastest ordered entry.
  const bool ordered = !k->dispatches || !atomicFinishApplies(c);
  const uint64_t cover = blocksToCover(*k, c.n, c.block, c.type);
  LaunchPolicy p;
  std::string source;
  int log2n = 0;
  if (forced) {
    p = *forced;
    source = "under test (tune)";
  } else if (const LaunchPolicy* t = facts.policies().find(c.type, c.block, c.n, &log2n, ordered)) {
    p = *t;
    source = "tuned on this device (policies.json, entry 2^" + std::to_string(log2n) + ")";
  } else if (const LaunchPolicy* a =
                 k->dispatches ? architectureTable.find(c.type, c.block, c.n, &log2n, ordered) : nullptr) {
    p = *a;
    source = "the " + architectureTable.architecture + " table (" + architectureTable.deviceName + ", entry 2^" +
             std::to_string(log2n) + ")";
  } else {
    p = defaultPolicy(cover, resident);
    source = "latency rule (no tuned entry for " + std::string(name(c.type)) + ", block " + std::to_string(c.block) + ")";
  }
  uint64_t grid = policyGrid(p, cover, resident, facts.smCount(), perSM);
  // Small N: the whole grid as one thread-block cluster when the work fits in one (at most
  // kClusterMaxVectorsPerThread vectors a thread): the CTAs finish through distributed shared
  // memory, not the ticket.
  int cluster = 0;
  if (grid == 1 && p.gridCap == 1 && cover > 1) {
    // One CTA: every thread's vectors in flight at once where they fit the deepest group.
    const uint64_t perThread = cover;
    p.loadsInFlight = perThread <= 2 ? 2 : perThread <= 4 ? 4 : 8;
    source += "; one CTA (it writes the result: no ticket, no cluster)";
  } else if (facts.ccMajor() >= 9 && cover >= 2)
    cluster = clusterCtasForWork(cover, facts.largestCluster(*k, c, probe.smemBytes));
  if (cluster > 1) {
    grid = uint64_t(cluster);
    const uint64_t perThread = (cover + grid - 1) / grid;
    p.loadsInFlight = perThread <= 1 ? 1 : perThread <= 2 ? 2 : perThread <= 4 ? 4 : 8;
    source += "; one cluster of " + std::to_string(cluster) + " CTAs (distributed shared memory finish)";
  }
  *g = planGeometry(*k, c, grid);
  g->loadsInFlight = p.loadsInFlight;
  g->cacheHint = p.hint;
  g->clusterCtas = cluster > 1 ? cluster : 0;
  // The atomic finish: a dispatch's only (k13 promises the same bits every run), over several
  // CTAs that are not one cluster, where the atomic is native (sums; integer min and max: a float
  // min or max would be a compare-and-swap loop on one address) and the launch is not replayed
  // from a graph (each launch takes the next of two accumulators, which a graph cannot).
  if (p.atomicFinish && k->dispatches && grid > 1 && cluster <= 1 && atomicFinishApplies(c)) {
    g->final = FinalStage::Atomic;
    source += "; atomic finish (one atomic per CTA into the result)";
  } else if (p.atomicFinish) {
    source += "; ordered finish (the table's atomic finish does not apply here)";
  }
  g->policySource = source;
  return {};
}

}  // namespace

// ---- the recorded resources ----

namespace {

struct ResourceTable {
  std::string arch;
  std::map<std::string, RecordedResources> entries;
};

const ResourceTable& resourceTable() {
  static const ResourceTable table = [] {
    ResourceTable t;
    const std::string_view text = findEmbedded(kKernelResources, kKernelResources_count, "resources-sm90.json");
    if (text.empty()) return t;
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("variants") || !j["variants"].is_object()) return t;
    t.arch = j.value("arch", "");
    for (const auto& [key, v] : j["variants"].items()) {
      if (!v.is_array() || v.size() != 3 || !v[0].is_number_integer() || !v[1].is_number_integer() ||
          !v[2].is_number_integer())
        continue;
      t.entries[key] = {v[0].get<int>(), v[1].get<int>(), v[2].get<int>()};
    }
    return t;
  }();
  return table;
}

}  // namespace

std::string resourceKey(const RunConfig& c) {
  const KernelInfo* k = findKernel(c.kernel);
  std::string key = c.kernel + " " + std::string(name(c.op)) + " " + std::string(name(c.type)) + "->" +
                    std::string(name(c.accType()));
  if (const int i = k ? familyOf(*k).instantiation(*k, c) : 0; i > 0) key += " i" + std::to_string(i);
  return key;
}

std::optional<RecordedResources> recordedResources(const RunConfig& c, int ccMajor, int ccMinor) {
  const ResourceTable& t = resourceTable();
  if (t.arch != "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor)) return std::nullopt;
  const auto it = t.entries.find(resourceKey(c));
  if (it == t.entries.end()) return std::nullopt;
  return it->second;
}

std::string recordedResourcesArch() { return resourceTable().arch; }
size_t recordedResourcesCount() { return resourceTable().entries.size(); }

// ---- the CPU model's facts ----

ModelLaunchFacts::ModelLaunchFacts(const DeviceInfo& device) : device_(device) {
  if (!device_.uuid.empty()) policies_ = storedPolicyTable(device_.uuid, cudaVersionString(device_.driverVersion));
}

int ModelLaunchFacts::residentPerSM(const KernelInfo&, const RunConfig& c, size_t smem) {
  const std::optional<RecordedResources> r = recordedResources(c, device_.ccMajor, device_.ccMinor);
  const int registers = r ? r->registers : kAssumedRegisters;
  const int staticSmem = r ? r->staticSmemBytes : 0;
  return computeOccupancy(device_, {c.block, registers, staticSmem + int(smem)}).activeBlocks;
}

int ModelLaunchFacts::largestCluster(const KernelInfo& k, const RunConfig& c, size_t smem) {
  // Hopper and later: clusters of up to 16 CTAs where the kernel allows the non-portable size
  // (k13 does), formed on one GPC, so a cluster fits wherever one CTA of it is resident.
  if (device_.ccMajor < 9) return 0;
  return residentPerSM(k, c, smem) >= 1 ? 16 : 0;
}

RunConfig modelDispatchedConfig(const RunConfig& c, const DeviceInfo& device) {
  ModelLaunchFacts facts(device);
  return dispatchedConfig(c, facts);
}

Geometry modelGeometry(const RunConfig& c, const DeviceInfo& device, std::string* error) {
  ModelLaunchFacts facts(device);
  Geometry g;
  const std::string e = planLaunch(c, facts, &g);
  if (error) *error = e;
  return g;
}

}  // namespace rl
