// Raw records of an unmodified kernel's traced block -> TraceData (instrumented_trace.hpp says
// how phases become steps and instructions become slots).
#include "reducelab/instrumented_trace.hpp"

#include "reducelab/instrumented.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace rl::instrumented {

using namespace rl::trace;

namespace {

bool isSlotSpace(uint8_t space) { return space == kRawGlobal || space == kRawShared || space == kRawShuffle; }
// Records that take part in a phase's instruction order: slot instructions and bulk copies
// (which only add to the totals).
bool isOrdered(uint8_t space) { return isSlotSpace(space) || space == kRawBulkCopy; }
bool writes(uint8_t access) { return access == kStore || access == kAtomic; }

std::string plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// One step being built: its instructions (PCs) in slot order, and those that count in the
// totals only (bulk copies).
struct StepPlan {
  std::vector<uint64_t> slots;
  std::vector<uint64_t> totalsOnly;
  bool shuffle = false, wrote = false;
  int part = 0;
};

// The phases a step stands for (more than one after merging repeated phases) and its plan.
struct StepGroup {
  int firstPhase = 0, phaseCount = 1;
  StepPlan plan;
};

double valueOf(uint64_t raw, ElemType t) {
  switch (t) {
    case ElemType::Int32: return double(int32_t(uint32_t(raw)));
    case ElemType::Int64: return double(int64_t(raw));
    case ElemType::Float32: {
      float f;
      const uint32_t bits = uint32_t(raw);
      std::memcpy(&f, &bits, sizeof f);
      return double(f);
    }
    case ElemType::Float64: {
      double d;
      std::memcpy(&d, &raw, sizeof d);
      return d;
    }
  }
  return 0;
}

}  // namespace

uint64_t clusterLocalSharedOffsets(RawTrace* raw) {
  uint64_t ranked = 0;
  for (RawAccess& r : raw->records)
    if (r.space == kRawShared && r.address >= kSharedWindowBytes) {
      r.address &= kSharedWindowBytes - 1;
      ++ranked;
    }
  return ranked;
}

std::vector<uint32_t> barrierPhases(const RawTrace& raw) {
  std::vector<uint32_t> phase(raw.records.size(), 0);
  std::unordered_map<uint32_t, uint32_t> passed;  // thread -> barriers passed so far
  // Records are sorted by (thread, sequence): a thread's barrier count only grows.
  for (size_t i = 0; i < raw.records.size(); ++i) {
    const RawAccess& r = raw.records[i];
    uint32_t& p = passed[r.thread];
    phase[i] = p;
    if (r.space == kRawBarrier) ++p;
  }
  return phase;
}

TraceData toTraceData(const RawTrace& rawIn, const ConvertOptions& o, ConversionReport* reportOut, std::string* error) {
  ConversionReport localReport;
  ConversionReport& rep = reportOut ? *reportOut : localReport;
  rep = ConversionReport{};
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return TraceData{};
  };
  const uint32_t threads = rawIn.blockThreads();
  if (threads == 0 || threads > uint32_t(kMaxBlock)) return fail("the traced launch's block has " + std::to_string(threads) + " threads; traces hold 1 to 1024");
  if (rawIn.gridBlocks() == 0 || rawIn.tracedBlock >= rawIn.gridBlocks())
    return fail("block " + std::to_string(rawIn.tracedBlock) + " is not in the launch's grid of " + std::to_string(rawIn.gridBlocks()));
  if (o.input.bytes == 0) return fail("no input array given: global offsets need one");
  if (rawIn.records.empty()) return fail("the traced block recorded nothing (was the launch patched?)");
  const uint32_t elem = uint32_t(elemBytes(o.elemType)), acc = uint32_t(elemBytes(o.accType));

  RawTrace raw = rawIn;  // sorted copy
  std::stable_sort(raw.records.begin(), raw.records.end(), [](const RawAccess& a, const RawAccess& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.sequence < b.sequence;
  });
  // Shared addresses in a thread-block cluster carry the CTA's rank above the window (sm_90 builds
  // them as rank << 24 | offset): the offset in the block's own window is the low 24 bits.
  rep.sharedWithClusterRank = clusterLocalSharedOffsets(&raw);
  for (const RawAccess& r : raw.records)
    if (r.thread >= threads) return fail("a record names thread " + std::to_string(r.thread) + " of a block of " + std::to_string(threads));
  rep.records = raw.records.size();
  if (raw.overflowed())
    rep.overflow = "the record buffer held " + std::to_string(raw.records.size()) + " of the block's " +
                   std::to_string(raw.attempted) + " records: the later ones are missing (trace again with a larger buffer)";

  const std::vector<uint32_t> phaseOf = barrierPhases(raw);
  int numPhases = 0;
  for (size_t i = 0; i < raw.records.size(); ++i) {
    const RawAccess& r = raw.records[i];
    numPhases = std::max(numPhases, int(phaseOf[i]) + 1);
    switch (r.space) {
      case kRawBarrier: ++rep.barriers; break;
      case kRawShuffle: ++rep.shuffles; break;
      case kRawSyncWarp: ++rep.syncwarps; break;
      case kRawBulkCopy: ++rep.bulkCopies; break;
      case kRawLocal: ++rep.localAccesses; break;
      case kRawRemoteShared: ++rep.remoteSharedAccesses; break;
      case kRawGlobal: case kRawShared: break;
      default: ++rep.unknownRecords; break;
    }
  }
  // A last phase holding barriers only (every thread's final record a barrier) has no steps.
  rep.phases = numPhases;

  // Records of each phase, and each phase's instruction order: first position (in a thread's
  // ordered records of the phase) at which any thread executes the PC, then the PC.
  std::vector<std::vector<size_t>> phaseRecords(static_cast<size_t>(numPhases));
  for (size_t i = 0; i < raw.records.size(); ++i) phaseRecords[phaseOf[i]].push_back(i);
  struct PcInfo {
    size_t firstPos = SIZE_MAX;
    uint8_t space = 0, access = 0;
  };
  std::vector<std::vector<uint64_t>> phaseOrder(static_cast<size_t>(numPhases));
  std::vector<std::map<uint64_t, PcInfo>> phasePcs(static_cast<size_t>(numPhases));
  for (int p = 0; p < numPhases; ++p) {
    std::map<uint64_t, PcInfo>& pcs = phasePcs[size_t(p)];
    uint32_t thread = UINT32_MAX;
    size_t pos = 0;
    for (size_t i : phaseRecords[size_t(p)]) {
      const RawAccess& r = raw.records[i];
      if (!isOrdered(r.space)) continue;
      if (r.thread != thread) thread = r.thread, pos = 0;
      PcInfo& info = pcs[r.pc];
      if (pos < info.firstPos) info.firstPos = pos;
      if (info.space == 0) info.space = r.space, info.access = r.access;
      ++pos;
    }
    std::vector<uint64_t>& order = phaseOrder[size_t(p)];
    for (const auto& [pc, info] : pcs) order.push_back(pc);
    std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
      const size_t fa = pcs.at(a).firstPos, fb = pcs.at(b).firstPos;
      return fa != fb ? fa < fb : a < b;
    });
  }

  // Each phase cut into steps.
  auto cutPhase = [&](int p) {
    std::vector<StepPlan> plans;
    for (uint64_t pc : phaseOrder[size_t(p)]) {
      const PcInfo& info = phasePcs[size_t(p)].at(pc);
      if (info.space == kRawBulkCopy) {  // totals only: joins the step it is issued in
        if (plans.empty()) plans.emplace_back();
        plans.back().totalsOnly.push_back(pc);
        continue;
      }
      const bool shuffle = info.space == kRawShuffle;
      const bool load = !shuffle && !writes(info.access);
      if (plans.empty()) plans.emplace_back();
      if (const StepPlan& cur = plans.back();
          !cur.slots.empty() && (shuffle || cur.shuffle || (load && cur.wrote) || int(cur.slots.size()) == kMaxSlots))
        plans.emplace_back();
      StepPlan& cur = plans.back();
      cur.slots.push_back(pc);
      cur.shuffle = cur.shuffle || shuffle;
      cur.wrote = cur.wrote || (!shuffle && writes(info.access));
    }
    for (size_t k = 0; k < plans.size(); ++k) plans[k].part = int(k);
    return plans;
  };
  std::vector<std::vector<StepPlan>> phasePlans(static_cast<size_t>(numPhases));
  for (int p = 0; p < numPhases; ++p) phasePlans[size_t(p)] = cutPhase(p);

  // Groups of phases: one per phase, then runs of phases with the same instructions merged while
  // the steps do not fit.
  struct PhaseGroup {
    int first = 0, count = 1;
  };
  std::vector<PhaseGroup> groups;
  for (int p = 0; p < numPhases; ++p) groups.push_back({p, 1});
  auto stepsOf = [&](const std::vector<PhaseGroup>& gs) {
    size_t total = 0;
    for (const PhaseGroup& g : gs) total += phasePlans[size_t(g.first)].size();
    return total;
  };
  const size_t unmergedSteps = stepsOf(groups);
  while (stepsOf(groups) > size_t(kMaxSteps)) {
    // The longest run of consecutive groups whose phases execute the same instructions.
    size_t bestStart = 0, bestLen = 1, bestSaving = 0;
    for (size_t i = 0; i < groups.size();) {
      size_t j = i + 1;
      while (j < groups.size() && phaseOrder[size_t(groups[j].first)] == phaseOrder[size_t(groups[i].first)]) ++j;
      const size_t saving = (j - i - 1) * phasePlans[size_t(groups[i].first)].size();
      if (j - i > 1 && saving > bestSaving) bestStart = i, bestLen = j - i, bestSaving = saving;
      i = j;
    }
    if (bestLen < 2 || bestSaving == 0) break;
    PhaseGroup merged{groups[bestStart].first, 0};
    for (size_t k = bestStart; k < bestStart + bestLen; ++k) merged.count += groups[k].count;
    groups.erase(groups.begin() + long(bestStart), groups.begin() + long(bestStart + bestLen));
    groups.insert(groups.begin() + long(bestStart), merged);
    ++rep.mergedRuns;
    rep.notes.push_back("phases " + std::to_string(merged.first) + "-" + std::to_string(merged.first + merged.count - 1) +
                        " execute the same instructions (a loop with a barrier inside): shown as one loop step "
                        "of " + std::to_string(merged.count) + " iterations, the lane detail of the first");
  }
  std::vector<StepGroup> steps;
  for (const PhaseGroup& g : groups)
    for (const StepPlan& plan : phasePlans[size_t(g.first)]) steps.push_back({g.first, g.count, plan});
  if (steps.size() > size_t(kMaxSteps)) {
    const std::string lost = "the block's " + std::to_string(numPhases) + " barrier phases need " +
                             std::to_string(steps.size()) + " steps (" + std::to_string(unmergedSteps) +
                             " before merging repeated phases); a trace holds " + std::to_string(kMaxSteps) +
                             ": phases from " + std::to_string(steps[size_t(kMaxSteps)].firstPhase) + " on are not shown";
    rep.overflow = rep.overflow.empty() ? lost : rep.overflow + "; " + lost;
    steps.resize(size_t(kMaxSteps));
  }
  rep.steps = int(steps.size());

  // Which step each record belongs to: (phase, pc) -> step.
  std::vector<int> groupOfPhase(size_t(numPhases), -1);
  for (const PhaseGroup& g : groups)
    for (int p = g.first; p < g.first + g.count; ++p) groupOfPhase[size_t(p)] = g.first;
  std::map<std::pair<int, uint64_t>, std::pair<int, int>> stepOf;  // (group's first phase, pc) -> (step, slot or -1)
  for (size_t s = 0; s < steps.size(); ++s) {
    const StepPlan& plan = steps[s].plan;
    for (size_t k = 0; k < plan.slots.size(); ++k) stepOf[{steps[s].firstPhase, plan.slots[k]}] = {int(s), int(k)};
    for (uint64_t pc : plan.totalsOnly) stepOf[{steps[s].firstPhase, pc}] = {int(s), -1};
  }

  // The traced block's share of the input: its lowest loaded input byte, unless given.
  int64_t globalBase = o.globalBase;
  if (globalBase < 0) {
    uint64_t lowest = UINT64_MAX;
    for (const RawAccess& r : raw.records)
      if (((r.space == kRawGlobal && r.access == kLoad) || r.space == kRawBulkCopy) && o.input.contains(r.address))
        lowest = std::min(lowest, r.address - o.input.address);
    globalBase = lowest == UINT64_MAX ? 0 : int64_t(lowest / elem * elem);
  }
  const uint64_t n = o.n ? o.n : o.input.bytes / elem;
  const int64_t sharedOrigin = o.sharedOrigin >= 0 ? o.sharedOrigin : int64_t(raw.reservedSharedBytes);
  constexpr int64_t kMaxShared = 256 * 1024, kMaxGlobalOffset = int64_t(1) << 30;

  TraceData t;
  TraceHeader& h = t.header;
  h.magic = kMagic;
  h.version = kVersion;
  h.numSteps = uint32_t(steps.size());
  h.blockSize = threads;
  h.tracedBlock = raw.tracedBlock;
  h.elemBytes = elem;
  h.accBytes = acc;
  h.gridSize = uint32_t(std::min<uint64_t>(raw.gridBlocks(), UINT32_MAX));
  h.n = n;
  h.globalBase = globalBase;
  h.blockX = raw.blockX;
  h.blockY = raw.blockY * raw.blockZ;
  h.gridX = raw.gridX;
  h.gridY = raw.gridY * raw.gridZ;
  h.flags = kTraceInstrumented | kTraceValuesFromStores;
  t.steps.assign(steps.size(), StepHeader{});
  t.lanes.assign(steps.size() * threads, LaneRecord{});

  // Where a global address lies: (region, offset), or region 255 when in none (or too far).
  auto placeGlobal = [&](uint64_t a, uint8_t* region, int32_t* offset) {
    int64_t off = 0;
    if (o.input.contains(a)) *region = kRegionInput, off = int64_t(a - o.input.address) - globalBase;
    else if (o.second.contains(a)) *region = kRegionSecond, off = int64_t(a - o.second.address);
    else if (o.output.contains(a)) *region = kRegionOutput, off = int64_t(a - o.output.address);
    else return false;
    if (off < -kMaxGlobalOffset || off > kMaxGlobalOffset) return false;
    *offset = int32_t(off);
    return true;
  };

  // Slot descriptions: each slot's first record; a global slot's region: where most of its lanes'
  // first executions lie.
  for (size_t s = 0; s < steps.size(); ++s) {
    StepHeader& sh = t.steps[s];
    sh.kind = kStepPhase;
    sh.param = steps[s].firstPhase;
    sh.part = uint32_t(steps[s].plan.part);
    sh.numSlots = uint32_t(steps[s].plan.slots.size());
    sh.maxIterations = 1;
  }
  std::vector<std::array<std::map<uint8_t, int>, kMaxSlots>> regionVotes(steps.size());
  std::vector<std::array<bool, kMaxSlots>> slotSeen(steps.size(), {false, false, false, false});
  for (size_t i = 0; i < raw.records.size(); ++i) {
    const RawAccess& r = raw.records[i];
    if (!isSlotSpace(r.space)) continue;
    const int group = groupOfPhase[phaseOf[i]];
    auto it = stepOf.find({group, r.pc});
    if (it == stepOf.end() || it->second.second < 0) continue;
    const int s = it->second.first, k = it->second.second;
    SlotInfo& slot = t.steps[size_t(s)].slots[k];
    if (!slotSeen[size_t(s)][size_t(k)]) {
      slotSeen[size_t(s)][size_t(k)] = true;
      slot.space = r.space == kRawShared ? kSpaceShared : r.space == kRawGlobal ? kSpaceGlobal : kSpaceShuffle;
      slot.access = r.space == kRawShuffle ? uint8_t(kLoad) : r.access;
      slot.bytes = uint8_t(r.space == kRawShuffle ? 4 : std::min<uint32_t>(r.bytes, 16));
      slot.region = kRegionInput;
    }
    uint8_t region;
    int32_t off;
    if (r.space == kRawGlobal && placeGlobal(r.address, &region, &off)) ++regionVotes[size_t(s)][size_t(k)][region];
  }
  for (size_t s = 0; s < steps.size(); ++s)
    for (int k = 0; k < kMaxSlots; ++k) {
      const auto& votes = regionVotes[s][size_t(k)];
      int best = -1;
      for (const auto& [region, count] : votes)
        if (count > best) best = count, t.steps[s].slots[k].region = region;
    }

  // Lanes: first execution's address per slot, iterations, the value of the last store.
  struct LaneState {
    std::array<uint32_t, kMaxSlots> executions{};
    uint32_t lastStoreSeq = 0;
    bool stored = false;
  };
  std::map<std::pair<int, uint32_t>, LaneState> laneState;  // (step, thread)
  uint64_t ambiguousRegion = 0;
  for (size_t i = 0; i < raw.records.size(); ++i) {
    const RawAccess& r = raw.records[i];
    if (!isSlotSpace(r.space)) continue;
    const int group = groupOfPhase[phaseOf[i]];
    auto it = stepOf.find({group, r.pc});
    if (it == stepOf.end() || it->second.second < 0) continue;
    const int s = it->second.first, k = it->second.second;
    LaneRecord& lane = t.lanes[size_t(s) * threads + r.thread];
    LaneState& st = laneState[{s, r.thread}];
    lane.flags |= kLaneActive;
    const bool first = st.executions[size_t(k)]++ == 0;
    if (first) {
      const SlotInfo& slot = t.steps[size_t(s)].slots[k];
      if (r.space == kRawShared) {
        const int64_t off = int64_t(r.address) - sharedOrigin;
        if (off < 0) ++rep.sharedBelowOrigin;
        else if (off <= kMaxShared) lane.addr[k] = int32_t(off), lane.flags |= slotBit(k);
      } else if (r.space == kRawGlobal) {
        uint8_t region;
        int32_t off;
        if (!placeGlobal(r.address, &region, &off)) ++rep.globalOutsideRegions;
        else if (region != slot.region) ++ambiguousRegion;
        else lane.addr[k] = off, lane.flags |= slotBit(k);
      }
    } else if (r.space == kRawShared && int64_t(r.address) < sharedOrigin) {
      ++rep.sharedBelowOrigin;
    } else if (r.space == kRawGlobal) {
      uint8_t region;
      int32_t off;
      if (!placeGlobal(r.address, &region, &off)) ++rep.globalOutsideRegions;
    }
    if (r.space != kRawShuffle && writes(r.access) && r.bytes == acc && (r.flags & kRawValueKnown) &&
        (!st.stored || r.sequence >= st.lastStoreSeq)) {
      st.stored = true;
      st.lastStoreSeq = r.sequence;
      lane.value = valueOf(r.value, o.accType);
      lane.flags |= kLaneValueKnown;
    }
  }
  for (auto& [key, st] : laneState) {
    LaneRecord& lane = t.lanes[size_t(key.first) * threads + key.second];
    uint32_t it = 1;
    for (uint32_t e : st.executions) it = std::max(it, e);
    lane.iterations = it;
    t.steps[size_t(key.first)].maxIterations = std::max(t.steps[size_t(key.first)].maxIterations, it);
  }
  for (LaneRecord& lane : t.lanes)
    if (lane.flags & kLaneActive && lane.iterations == 0) lane.iterations = 1;

  // Global-load totals: the k-th execution of a load PC by the lanes of a warp is one request.
  struct Instance {
    std::set<uint64_t> sectors;
    uint64_t bytes = 0;
  };
  std::map<std::tuple<int, uint64_t, uint32_t, uint32_t>, Instance> instances;  // (step, pc, warp, k)
  std::map<std::tuple<int, uint64_t, uint32_t>, uint32_t> executed;               // (step, pc, thread)
  for (size_t i = 0; i < raw.records.size(); ++i) {
    const RawAccess& r = raw.records[i];
    const int group = groupOfPhase[phaseOf[i]];
    auto it = stepOf.find({group, r.pc});
    if (it == stepOf.end()) continue;
    const int s = it->second.first;
    StepHeader& sh = t.steps[size_t(s)];
    if (r.space == kRawBulkCopy) {
      if (r.bytes == 0) continue;
      sh.totalLoadRequests += 1;
      sh.totalLoadSectors += (r.address + r.bytes - 1) / 32 - r.address / 32 + 1;
      sh.totalLoadBytes += r.bytes;
      continue;
    }
    if (r.space != kRawGlobal || r.access != kLoad || r.bytes == 0) continue;
    const uint32_t k = executed[{s, r.pc, r.thread}]++;
    Instance& inst = instances[{s, r.pc, r.thread / 32, k}];
    for (uint64_t sector = r.address / 32; sector <= (r.address + r.bytes - 1) / 32; ++sector) inst.sectors.insert(sector);
    inst.bytes += r.bytes;
  }
  for (const auto& [key, inst] : instances) {
    StepHeader& sh = t.steps[size_t(std::get<0>(key))];
    sh.totalLoadRequests += 1;
    sh.totalLoadSectors += inst.sectors.size();
    sh.totalLoadBytes += inst.bytes;
  }

  // What the trace leaves out, in words.
  if (rep.localAccesses)
    rep.notes.push_back(plural(rep.localAccesses, "local-memory access", "local-memory accesses") +
                        " (register spills or stack arrays) are not shown");
  if (rep.remoteSharedAccesses)
    rep.notes.push_back(plural(rep.remoteSharedAccesses, "access", "accesses") +
                        " to another block's shared memory (a cluster's distributed shared memory) are not shown");
  if (rep.globalOutsideRegions)
    rep.notes.push_back(plural(rep.globalOutsideRegions, "global access lies", "global accesses lie") +
                        " outside the input and output arrays (counters, scratch): they have no address in the trace");
  if (ambiguousRegion)
    rep.notes.push_back(plural(ambiguousRegion, "lane's", "lanes'") +
                        " global access of an instruction lies in another array than the rest of its warp: no address shown");
  if (rep.sharedWithClusterRank)
    rep.notes.push_back(plural(rep.sharedWithClusterRank, "shared access", "shared accesses") +
                        " carried the block's rank in its thread-block cluster (a cluster launch): read as offsets in the "
                        "block's own window");
  if (rep.sharedBelowOrigin)
    rep.notes.push_back(plural(rep.sharedBelowOrigin, "shared access lies", "shared accesses lie") +
                        " before the trace's shared origin (static __shared__ variables): no address shown");
  if (rep.bulkCopies)
    rep.notes.push_back(plural(rep.bulkCopies, "bulk copy", "bulk copies") +
                        " (cp.async.bulk) counted in the global-load totals only, as the hand-placed tracer counts them");
  if (rep.shuffles)
    rep.notes.push_back("shuffles: the API gives neither the source lane nor the value; each shfl instruction is a step "
                        "(a 64-bit value takes two)");
  if (rep.unknownRecords)
    rep.notes.push_back(plural(rep.unknownRecords, "record", "records") + " of an unknown kind were skipped");
  rep.notes.push_back("values: known where a lane stored (the stored value), unknown elsewhere");
  for (const std::string& n : raw.notes) rep.notes.push_back(n);
  return t;
}

// ---- the patch classes (instrumented.hpp) ----

namespace {
constexpr std::pair<uint32_t, const char*> kPatchClassNames[] = {
    {kPatchGlobal, "global"}, {kPatchShared, "shared"},   {kPatchBarrier, "barrier"},     {kPatchShuffle, "shfl"},
    {kPatchSyncwarp, "syncwarp"}, {kPatchLocal, "local"}, {kPatchRemoteShared, "remote"}, {kPatchBulkCopy, "bulk"},
};
}  // namespace

uint32_t parsePatchClasses(const std::string& list, std::string* error) {
  uint32_t mask = 0;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    bool known = item == "all";
    if (known) mask |= kPatchAll;
    for (const auto& [bit, name] : kPatchClassNames)
      if (item == name) mask |= bit, known = true;
    if (!known) {
      if (error) *error = "'" + item + "' is not one of: all, global, shared, barrier, shfl, syncwarp, local, remote, bulk";
      return 0;
    }
    start = comma + 1;
  }
  return mask;
}

std::string patchClassNames(uint32_t mask) {
  std::string out;
  for (const auto& [bit, name] : kPatchClassNames)
    if (mask & bit) out += std::string(out.empty() ? "" : ",") + name;
  return out;
}

// ---- comparison ----

AccessProfile accessProfile(const TraceData& t) {
  AccessProfile p;
  for (int s = 0; s < t.numSteps(); ++s) {
    const StepHeader& h = t.steps[size_t(s)];
    p.loadRequests += h.totalLoadRequests;
    p.loadSectors += h.totalLoadSectors;
    p.loadBytes += h.totalLoadBytes;
    const std::vector<BankAccess> banks = bankAccesses(t, s, -1);
    for (int k = 0; k < kMaxSlots; ++k) {
      const SlotInfo& slot = h.slots[k];
      if (slot.space == kSpaceNone) continue;
      for (int w = 0; w < t.numWarps(); ++w) {
        AccessSignature a;
        a.space = slot.space;
        a.access = slot.access;
        a.bytes = slot.bytes;
        a.region = slot.space == kSpaceGlobal ? slot.region : 0;
        a.warp = w;
        int active = 0;
        for (int l = 0; l < 32 && w * 32 + l < t.blockSize(); ++l) {
          const LaneRecord& r = t.lane(s, w * 32 + l);
          if (!(r.flags & kLaneActive)) continue;
          if (slot.space == kSpaceShuffle) {  // instrumented shuffles have no lane detail: count lanes
            ++active;
            continue;
          }
          if (r.flags & slotBit(k)) a.lanes.push_back({l, r.addr[k]});
        }
        if (slot.space == kSpaceShuffle) {
          p.shuffleLanes += uint64_t(active);
          continue;
        }
        if (a.lanes.empty()) continue;
        for (const BankAccess& b : banks)
          if (b.warp == w && b.slot == k) a.degree = b.degree, a.wavefronts = b.wavefronts;
        p.accesses.push_back(std::move(a));
      }
    }
    for (const BankAccess& b : banks) {
      p.maxDegree = std::max(p.maxDegree, b.degree);
      (b.store ? p.sharedStoreWavefronts : p.sharedLoadWavefronts) += b.wavefronts;
      (b.store ? p.idealStoreWavefronts : p.idealLoadWavefronts) += b.idealWavefronts;
    }
  }
  std::sort(p.accesses.begin(), p.accesses.end());
  return p;
}

TraceData throughTheTicketPhase(const TraceData& t, int* ticketPhaseOut) {
  int ticketPhase = -1;
  for (const StepHeader& s : t.steps)
    for (int k = 0; k < int(s.numSlots); ++k)
      if (s.kind == kStepPhase && s.slots[k].space == kSpaceGlobal && s.slots[k].access == kAtomic)
        ticketPhase = std::max(ticketPhase, int(s.param));
  if (ticketPhaseOut) *ticketPhaseOut = ticketPhase;
  if (ticketPhase < 0) return t;
  TraceData out = t;
  out.steps.clear();
  out.lanes.clear();
  for (int s = 0; s < t.numSteps(); ++s) {
    const StepHeader& h = t.steps[size_t(s)];
    if (int(h.param) > ticketPhase) break;
    if (int(h.param) == ticketPhase && h.numSlots == 1 && h.slots[0].space == kSpaceShuffle) {
      int lanes = 0;
      for (int th = 0; th < t.blockSize(); ++th) lanes += (t.lane(s, th).flags & kLaneActive) != 0;
      if (lanes == 1) continue;  // the broadcast of an aggregated atomic's result
    }
    out.steps.push_back(h);
    out.lanes.insert(out.lanes.end(), t.lanes.begin() + long(size_t(s) * t.header.blockSize),
                     t.lanes.begin() + long(size_t(s + 1) * t.header.blockSize));
  }
  out.header.numSteps = uint32_t(out.steps.size());
  return out;
}

void dropGlobalLoadDetail(AccessProfile* p) {
  std::erase_if(p->accesses, [](const AccessSignature& s) { return s.space == kSpaceGlobal && s.access == kLoad; });
}

namespace {

std::string describe(const AccessSignature& a) {
  static const char* spaces[] = {"none", "shared", "global", "shuffle"};
  static const char* kinds[] = {"?", "load", "store", "atomic"};
  std::string s = "warp " + std::to_string(a.warp) + " " + spaces[a.space < 4 ? a.space : 0] + " " +
                  kinds[a.access < 4 ? a.access : 0] + " " + std::to_string(a.bytes) + " B, " +
                  std::to_string(a.lanes.size()) + " lanes";
  if (!a.lanes.empty())
    s += " (lane " + std::to_string(a.lanes.front().first) + " at " + std::to_string(a.lanes.front().second) + ")";
  if (a.space == kSpaceShared) s += ", " + std::to_string(a.degree) + "-way, " + std::to_string(a.wavefronts) + " wavefronts";
  return s;
}

}  // namespace

std::string compareProfiles(const AccessProfile& x, const AccessProfile& y, int what, int maxLines) {
  std::vector<std::string> lines;
  auto diff = [&](const std::string& name, uint64_t a, uint64_t b) {
    if (a != b) lines.push_back(name + ": instrumented " + std::to_string(a) + ", hand-placed " + std::to_string(b));
  };
  if (what & 4) {
    diff("global load requests (every iteration)", x.loadRequests, y.loadRequests);
    diff("global load sectors (every iteration)", x.loadSectors, y.loadSectors);
    diff("global load bytes (every iteration)", x.loadBytes, y.loadBytes);
  }
  if (what & 2) {
    diff("shared load wavefronts", uint64_t(x.sharedLoadWavefronts), uint64_t(y.sharedLoadWavefronts));
    diff("shared store wavefronts", uint64_t(x.sharedStoreWavefronts), uint64_t(y.sharedStoreWavefronts));
    diff("ideal shared load wavefronts", uint64_t(x.idealLoadWavefronts), uint64_t(y.idealLoadWavefronts));
    diff("ideal shared store wavefronts", uint64_t(x.idealStoreWavefronts), uint64_t(y.idealStoreWavefronts));
    diff("worst bank-conflict degree", uint64_t(x.maxDegree), uint64_t(y.maxDegree));
  }
  if (what & 1) {
    // Multiset difference, both ways.
    std::vector<AccessSignature> onlyX, onlyY;
    std::set_difference(x.accesses.begin(), x.accesses.end(), y.accesses.begin(), y.accesses.end(), std::back_inserter(onlyX));
    std::set_difference(y.accesses.begin(), y.accesses.end(), x.accesses.begin(), x.accesses.end(), std::back_inserter(onlyY));
    if (!onlyX.empty() || !onlyY.empty())
      lines.push_back(std::to_string(onlyX.size()) + " warp-level accesses only in the instrumented trace, " +
                      std::to_string(onlyY.size()) + " only in the hand-placed one (of " + std::to_string(x.accesses.size()) +
                      " / " + std::to_string(y.accesses.size()) + ")");
    for (size_t i = 0; i < onlyX.size() && i < 3; ++i) lines.push_back("  instrumented only: " + describe(onlyX[i]));
    for (size_t i = 0; i < onlyY.size() && i < 3; ++i) lines.push_back("  hand-placed only: " + describe(onlyY[i]));
  }
  std::string out;
  for (size_t i = 0; i < lines.size() && int(i) < maxLines; ++i) out += (i ? "\n" : "") + lines[i];
  if (int(lines.size()) > maxLines) out += "\n(" + std::to_string(lines.size() - size_t(maxLines)) + " more)";
  return out;
}

}  // namespace rl::instrumented
