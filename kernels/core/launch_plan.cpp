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

std::string planLaunch(const RunConfig& c, LaunchFacts& facts, Geometry* g, const std::optional<LaunchPolicy>& forced) {
  const KernelInfo* k = findKernel(c.kernel);
  if (!k) return "unknown kernel " + c.kernel;
  if (!familyOf(*k).gridFromResidency()) {  // e.g. a 2-D grid fixed by the matrix and the tile
    *g = planGeometry(*k, c, 1);
    g->loadsInFlight = k->loadsPerIteration;
    g->policySource = "descriptor";
    return {};
  }
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
  // The dispatch policy: under test, tuned on this device, or the latency rule.
  const uint64_t cover = blocksToCover(*k, c.n, c.block, c.type);
  LaunchPolicy p;
  std::string source;
  int log2n = 0;
  if (forced) {
    p = *forced;
    source = "under test (tune)";
  } else if (const LaunchPolicy* t = facts.policies().find(c.type, c.block, c.n, &log2n)) {
    p = *t;
    source = "tuned on this device (policies.json, entry 2^" + std::to_string(log2n) + ")";
  } else {
    p = defaultPolicy(cover, resident);
    source = "latency rule (no tuned entry for " + std::string(name(c.type)) + ", block " + std::to_string(c.block) + ")";
  }
  uint64_t grid = policyGrid(p, cover, resident, facts.smCount(), perSM);
  // Small N: the whole grid as one thread-block cluster when the work fits in one (at most
  // kClusterMaxVectorsPerThread vectors a thread): the CTAs finish through distributed shared
  // memory, not the ticket.
  int cluster = 0;
  if (facts.ccMajor() >= 9 && cover >= 2)
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
  g->policySource = source;
  return {};
}

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

Geometry modelGeometry(const RunConfig& c, const DeviceInfo& device, std::string* error) {
  ModelLaunchFacts facts(device);
  Geometry g;
  const std::string e = planLaunch(c, facts, &g);
  if (error) *error = e;
  return g;
}

}  // namespace rl
