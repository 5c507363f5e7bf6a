#include "reducelab/policy.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "reducelab/embedded_text.hpp"
#include "reducelab/user_dirs.hpp"

namespace rl {

std::string_view name(CacheHint h) {
  switch (h) {
    case CacheHint::None: return "none";
    case CacheHint::NoAllocate: return "L1::no_allocate";
    case CacheHint::EvictFirst: return "L2::evict_first";
    case CacheHint::Prefetch256: return "L2::256B";
  }
  return "?";
}

std::optional<CacheHint> parseCacheHint(std::string_view s) {
  for (CacheHint h : {CacheHint::None, CacheHint::NoAllocate, CacheHint::EvictFirst, CacheHint::Prefetch256})
    if (s == name(h)) return h;
  return std::nullopt;
}

LaunchPolicy defaultPolicy(uint64_t coverOneLoad, uint64_t resident) {
  LaunchPolicy p;
  resident = std::max<uint64_t>(resident, 1);
  // Loads per thread if the work is spread over one wave: 1 (latency-bound, every SM gets loads),
  // 2 when it just fits twice, else 4 in flight over a resident wave.
  const uint64_t perThread = (coverOneLoad + resident - 1) / resident;
  p.loadsInFlight = perThread <= 1 ? 1 : perThread <= 2 ? 2 : 4;
  p.ctasPerSM = 0;
  return p;
}

uint64_t policyGrid(const LaunchPolicy& p, uint64_t coverOneLoad, uint64_t resident, int smCount, int residentPerSM) {
  uint64_t cap = std::max<uint64_t>(resident, 1);
  if (p.ctasPerSM > 0 && smCount > 0)
    cap = std::min<uint64_t>(cap, uint64_t(std::min(p.ctasPerSM, std::max(residentPerSM, 1))) * uint64_t(smCount));
  if (p.gridCap > 0) cap = std::min<uint64_t>(cap, uint64_t(p.gridCap));
  return std::max<uint64_t>(1, std::min(std::max<uint64_t>(coverOneLoad, 1), cap));
}

int clusterCtasForWork(uint64_t coverOneLoad, int largestCluster) {
  if (largestCluster < 2 || coverOneLoad < 2) return 0;
  if (coverOneLoad > uint64_t(largestCluster) * kClusterMaxVectorsPerThread) return 0;
  return int(std::min<uint64_t>(coverOneLoad, uint64_t(largestCluster)));
}

namespace {
int log2Round(uint64_t n) { return n <= 1 ? 0 : int(std::lround(std::log2(double(n)))); }
}  // namespace

namespace {
// An entry as asked: the fastest, or the fastest ordered one (its own entry where the fastest is
// ordered already).
const LaunchPolicy& asAsked(const PolicyTable& t, const std::tuple<ElemType, int, int>& key, const LaunchPolicy& p,
                            bool ordered) {
  if (!ordered || !p.atomicFinish) return p;
  const auto it = t.orderedEntries.find(key);
  return it != t.orderedEntries.end() ? it->second : p;
}
}  // namespace

const LaunchPolicy* PolicyTable::find(ElemType t, int block, uint64_t n, int* log2nOut, bool ordered) const {
  const int want = log2Round(n);
  const LaunchPolicy* best = nullptr;
  int bestDist = 1 << 30, bestLog = 0;
  for (const auto& [key, p] : entries) {
    const auto& [type, b, lg] = key;
    if (type != t || b != block) continue;
    const int dist = std::abs(lg - want);
    if (dist < bestDist || (dist == bestDist && lg > bestLog)) {
      best = &asAsked(*this, key, p, ordered);
      bestDist = dist;
      bestLog = lg;
    }
  }
  if (log2nOut) *log2nOut = bestLog;
  return best;
}

int PolicyTable::bestBlock(ElemType t, uint64_t n, bool ordered) const {
  const int want = log2Round(n);
  int nearest = -1;
  for (const auto& [key, p] : entries)
    if (std::get<0>(key) == t && (nearest < 0 || std::abs(std::get<2>(key) - want) < std::abs(nearest - want)))
      nearest = std::get<2>(key);
  int block = 0;
  double best = 0;
  for (const auto& [key, p] : entries) {
    const LaunchPolicy& q = asAsked(*this, key, p, ordered);
    if (std::get<0>(key) == t && std::get<2>(key) == nearest && q.medianUs > 0 && (block == 0 || q.medianUs < best)) {
      block = std::get<1>(key);
      best = q.medianUs;
    }
  }
  return block;
}

namespace {
nlohmann::json policyRows(const std::map<std::tuple<ElemType, int, int>, LaunchPolicy>& entries) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, p] : entries) {
    const auto& [type, block, lg] = key;
    rows.push_back({{"type", std::string(name(type))}, {"block", block}, {"log2_n", lg},
                    {"loads_in_flight", p.loadsInFlight}, {"ctas_per_sm", p.ctasPerSM},
                    {"cache_hint", std::string(name(p.hint))}, {"median_us", p.medianUs}});
    if (p.gridCap > 0) rows.back()["grid_cap"] = p.gridCap;  // absent in tables of earlier versions
    if (p.atomicFinish) rows.back()["finish"] = "atomic";
  }
  return rows;
}
}  // namespace

nlohmann::json policyTableJson(const PolicyTable& t) {
  nlohmann::json j = {{"device", t.deviceName}, {"uuid", t.uuid},          {"driver", t.driver},
                      {"date", t.date},         {"policies", policyRows(t.entries)}};
  if (!t.orderedEntries.empty()) j["ordered_policies"] = policyRows(t.orderedEntries);
  if (!t.architecture.empty()) j["architecture"] = t.architecture;
  return j;
}

std::string policyTableFromJson(const nlohmann::json& j, PolicyTable* out) {
  if (!j.is_object()) return "the policy table is not a JSON object";
  PolicyTable t;
  auto text = [&](const char* key, std::string* v) -> bool {
    const auto it = j.find(key);
    if (it == j.end()) return true;
    if (!it->is_string()) return false;
    *v = it->get<std::string>();
    return true;
  };
  if (!text("device", &t.deviceName) || !text("uuid", &t.uuid) || !text("driver", &t.driver) || !text("date", &t.date) ||
      !text("architecture", &t.architecture))
    return "the policy table's device, uuid, driver, date or architecture is not text";
  const auto rows = j.find("policies");
  if (rows == j.end() || !rows->is_array()) return "the policy table has no list of policies";
  const auto ordered = j.find("ordered_policies");
  if (ordered != j.end() && !ordered->is_array()) return "the policy table's ordered_policies is not a list";
  auto readRows = [&](const nlohmann::json& list, std::map<std::tuple<ElemType, int, int>, LaunchPolicy>* into) -> std::string {
  for (const auto& r : list) {
    if (!r.is_object()) return "a policy is not an object";
    auto integer = [&](const char* key, int lo, int hi, int* v) {
      const auto it = r.find(key);
      if (it == r.end() || !it->is_number_integer()) return false;
      const int64_t x = it->get<int64_t>();
      if (x < lo || x > hi) return false;
      *v = int(x);
      return true;
    };
    std::string typeText, hintText;
    const auto ty = r.find("type");
    const auto hi = r.find("cache_hint");
    if (ty == r.end() || !ty->is_string() || hi == r.end() || !hi->is_string())
      return "a policy has no type or cache hint";
    const auto type = parseElemType(ty->get<std::string>());
    const auto hint = parseCacheHint(hi->get<std::string>());
    if (!type) return "a policy names an unknown type '" + ty->get<std::string>() + "'";
    if (!hint) return "a policy names an unknown cache hint '" + hi->get<std::string>() + "'";
    int block = 0, lg = 0;
    LaunchPolicy p;
    p.hint = *hint;
    if (!integer("block", 32, 1024, &block) || !std::has_single_bit(unsigned(block)))
      return "a policy's block is not a power of two from 32 to 1024";
    if (!integer("log2_n", 0, 40, &lg)) return "a policy's log2_n is not 0..40";
    if (!integer("loads_in_flight", 1, 8, &p.loadsInFlight) ||
        std::find(std::begin(kPolicyLoadsInFlight), std::end(kPolicyLoadsInFlight), p.loadsInFlight) ==
            std::end(kPolicyLoadsInFlight))
      return "a policy's loads_in_flight is not 1, 2, 4 or 8";
    if (!integer("ctas_per_sm", 0, 64, &p.ctasPerSM)) return "a policy's ctas_per_sm is not 0..64";
    if (r.contains("grid_cap") && !integer("grid_cap", 0, 0x7fffffff, &p.gridCap))
      return "a policy's grid_cap is not 0..2^31-1";
    if (const auto f = r.find("finish"); f != r.end()) {
      if (!f->is_string() || (*f != "atomic" && *f != "ordered")) return "a policy's finish is not \"atomic\" or \"ordered\"";
      p.atomicFinish = *f == "atomic";
    }
    const auto ms = r.find("median_us");
    if (ms != r.end()) {
      if (!ms->is_number() || !std::isfinite(ms->get<double>()) || ms->get<double>() < 0)
        return "a policy's median_us is not a time";
      p.medianUs = ms->get<double>();
    }
    (*into)[{*type, block, lg}] = p;
  }
  return {};
  };
  if (std::string e = readRows(*rows, &t.entries); !e.empty()) return e;
  if (ordered != j.end())
    if (std::string e = readRows(*ordered, &t.orderedEntries); !e.empty()) return e;
  for (const auto& [key, p] : t.orderedEntries)
    if (p.atomicFinish) return "an ordered policy takes the atomic finish";
  *out = std::move(t);
  return {};
}

std::string describePolicy(const LaunchPolicy& p) {
  std::string s = std::to_string(p.loadsInFlight) + (p.loadsInFlight == 1 ? " load" : " loads") + " in flight, ";
  if (p.gridCap == 1)
    s += "one CTA (it writes the result: no finish)";
  else
    s += p.ctasPerSM > 0 ? "at most " + std::to_string(p.ctasPerSM) + " CTAs/SM" : "a resident wave at most";
  if (p.gridCap > 1) s += ", at most " + std::to_string(p.gridCap) + " CTAs";
  if (p.atomicFinish) s += ", atomic finish";
  s += ", hint " + std::string(name(p.hint));
  return s;
}

std::vector<std::string> describePolicyTable(const PolicyTable& t) {
  std::vector<std::string> lines;
  std::map<std::pair<ElemType, int>, std::string> perTypeBlock;
  for (const auto& [key, p] : t.entries) {
    const auto& [type, block, lg] = key;
    char b[96];
    std::snprintf(b, sizeof b, " 2^%d:x%d/%s/%s%s", lg, p.loadsInFlight,
                  p.gridCap == 1 ? "1cta" : p.ctasPerSM > 0 ? (std::to_string(p.ctasPerSM) + "cta").c_str() : "wave",
                  p.hint == CacheHint::None ? "-" : std::string(name(p.hint)).c_str(), p.atomicFinish ? "/atomic" : "");
    perTypeBlock[{type, block}] += b;
  }
  for (const auto& [tb, text] : perTypeBlock)
    lines.push_back(std::string(name(tb.first)) + " block " + std::to_string(tb.second) + ":" + text);
  return lines;
}

extern const EmbeddedText kArchitecturePolicies[];
extern const int kArchitecturePolicies_count;

const PolicyTable& architecturePolicyTable(int ccMajor, int ccMinor) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, PolicyTable> tables;
  std::lock_guard lock(mutex);
  auto it = tables.find({ccMajor, ccMinor});
  if (it == tables.end()) {
    PolicyTable t;
    const std::string file = "policies-sm" + std::to_string(ccMajor) + std::to_string(ccMinor) + ".json";
    const std::string_view text = findEmbedded(kArchitecturePolicies, kArchitecturePolicies_count, file);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    // A checked-in table that does not read is a build defect (Policy.ArchitectureTablesRead).
    if (text.empty() || !policyTableFromJson(j, &t).empty()) t = {};
    it = tables.emplace(std::pair{ccMajor, ccMinor}, std::move(t)).first;
  }
  return it->second;
}

PolicyTable storedPolicyTable(const std::string& uuid, const std::string& driver) {
  std::ifstream in(userConfigDir() / "policies.json");
  if (!in || uuid.empty()) return {};
  const nlohmann::json cache = nlohmann::json::parse(in, nullptr, false);
  if (!cache.is_object() || !cache.contains(uuid)) return {};
  PolicyTable t;
  // A table of another driver, or one that does not read, is not used (tune again).
  if (!policyTableFromJson(cache[uuid], &t).empty() || t.driver != driver) return {};
  return t;
}

}  // namespace rl
