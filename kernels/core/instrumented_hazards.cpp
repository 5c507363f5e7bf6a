// Shared-memory hazards from the raw records of an instrumented trace (instrumented_hazards.hpp).
#include "reducelab/instrumented_hazards.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <unordered_map>

namespace rl::instrumented {

std::string_view name(Hazard::Kind k) {
  switch (k) {
    case Hazard::Kind::CrossWarp: return "cross-warp";
    case Hazard::Kind::IntraWarp: return "intra-warp";
    case Hazard::Kind::BarrierDivergence: return "barrier-divergence";
  }
  return "?";
}

int HazardReport::failures() const {
  return int(std::count_if(hazards.begin(), hazards.end(), [](const Hazard& h) { return h.severity == Hazard::Severity::Failure; }));
}
int HazardReport::warnings() const { return int(hazards.size()) - failures(); }

namespace {

std::string hex(uint64_t pc) {
  char b[32];
  std::snprintf(b, sizeof b, "+0x%llx", (unsigned long long)pc);
  return b;
}

std::string who(const HazardAccess& a) {
  return "warp " + std::to_string(a.warp) + " lane " + std::to_string(a.lane) + " (thread " + std::to_string(a.thread) +
         ", SASS " + hex(a.pc) + ")";
}

// One shared access as the analysis sees it.
struct Touch {
  HazardAccess access;
  bool atomic = false;
};

// The first conflicting pair among the touches of one word: a plain write by one group and a
// plain access by another (groups: warps across warps, lanes within one). One representative per
// group keeps this linear in the touches.
template <class GroupOf>
bool conflict(const std::vector<Touch>& touches, GroupOf groupOf, Touch* writer, Touch* other) {
  std::map<int, const Touch*> writers, accessors;  // group -> its first plain write / access
  for (const Touch& t : touches) {
    if (t.atomic) continue;
    if (t.access.write) writers.emplace(groupOf(t), &t);
    accessors.emplace(groupOf(t), &t);
  }
  for (const auto& [g, w] : writers)
    for (const auto& [h, x] : accessors) {
      if (h == g) continue;
      *writer = *w;
      *other = *x;
      return true;
    }
  return false;
}

}  // namespace

HazardReport findSharedHazards(const RawTrace& rawIn, const HazardOptions& o) {
  HazardReport rep;
  RawTrace raw = rawIn;
  std::stable_sort(raw.records.begin(), raw.records.end(), [](const RawAccess& a, const RawAccess& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.sequence < b.sequence;
  });
  clusterLocalSharedOffsets(&raw);  // a cluster launch: offsets in the block's own window
  const std::vector<uint32_t> phaseOf = barrierPhases(raw);
  const int64_t origin = o.sharedOrigin >= 0 ? o.sharedOrigin : int64_t(raw.reservedSharedBytes);

  // Per record: its barrier phase and, within it, the lane's count of __syncwarp and shuffles
  // (each orders the lanes of the warp it names).
  std::unordered_map<uint64_t, std::vector<Touch>> acrossWarps;   // (phase, word) -> touches
  std::map<std::tuple<uint32_t, int, uint32_t, int64_t>, std::vector<Touch>> withinWarps;  // (phase, warp, step, word)
  std::map<uint64_t, std::map<uint32_t, uint32_t>> barrierCounts;  // barrier pc -> thread -> times
  uint32_t thread = UINT32_MAX, warpStep = 0, lastPhase = 0;
  for (size_t i = 0; i < raw.records.size(); ++i) {
    const RawAccess& r = raw.records[i];
    if (r.thread != thread || phaseOf[i] != lastPhase) warpStep = 0;
    thread = r.thread;
    lastPhase = phaseOf[i];
    rep.phases = std::max(rep.phases, int(phaseOf[i]) + 1);
    if (r.space == kRawBarrier) {
      ++barrierCounts[r.pc][r.thread];
      continue;
    }
    if (r.space == kRawSyncWarp || r.space == kRawShuffle) {
      ++warpStep;
      continue;
    }
    if (r.space != kRawShared || r.bytes == 0) continue;
    ++rep.sharedAccesses;
    Touch t;
    t.access.thread = r.thread;
    t.access.warp = int(r.thread / 32);
    t.access.lane = int(r.thread % 32);
    t.access.write = r.access == trace::kStore || r.access == trace::kAtomic;
    t.access.pc = r.pc;
    t.access.sequence = r.sequence;
    t.atomic = r.access == trace::kAtomic;
    const int64_t first = (int64_t(r.address) - origin) >> 2, last = (int64_t(r.address) + r.bytes - 1 - origin) >> 2;
    for (int64_t w = first; w <= last; ++w) {
      acrossWarps[(uint64_t(phaseOf[i]) << 40) ^ uint64_t(w & 0xffffffffffll)].push_back(t);
      if (o.intraWarp) withinWarps[{phaseOf[i], t.access.warp, warpStep, w}].push_back(t);
    }
  }

  // Each distinct (kind, writer instruction, other instruction) once, with the words it covers.
  std::map<std::tuple<int, uint64_t, uint64_t, bool>, size_t> seen;
  std::vector<Hazard> found;
  auto add = [&](Hazard::Kind kind, uint32_t phase, int64_t word, const Touch& w, const Touch& x) {
    const auto key = std::make_tuple(int(kind), w.access.pc, x.access.pc, x.access.write);
    if (auto it = seen.find(key); it != seen.end()) {
      Hazard& h = found[it->second];
      ++h.occurrences;
      if (phase < h.phase || (phase == h.phase && word * 4 < h.wordOffset)) h.phase = phase, h.wordOffset = word * 4, h.first = w.access, h.second = x.access;
      return;
    }
    Hazard h;
    h.kind = kind;
    h.severity = kind == Hazard::Kind::IntraWarp ? Hazard::Severity::Warning : Hazard::Severity::Failure;
    h.phase = phase;
    h.wordOffset = word * 4;
    h.first = w.access;
    h.second = x.access;
    h.occurrences = 1;
    seen[key] = found.size();
    found.push_back(h);
  };
  std::vector<std::pair<uint64_t, const std::vector<Touch>*>> words(acrossWarps.size());
  size_t k = 0;
  for (const auto& [key, touches] : acrossWarps) words[k++] = {key, &touches};
  std::sort(words.begin(), words.end());  // the report does not depend on hashing
  for (const auto& [key, touches] : words) {
    Touch w, x;
    if (!conflict(*touches, [](const Touch& t) { return t.access.warp; }, &w, &x)) continue;
    int64_t word = int64_t(key & 0xffffffffffull);
    if (word & (int64_t(1) << 39)) word -= int64_t(1) << 40;  // offsets below the origin
    add(Hazard::Kind::CrossWarp, uint32_t(key >> 40), word, w, x);
  }
  for (const auto& [key, touches] : withinWarps) {
    Touch w, x;
    if (!conflict(touches, [](const Touch& t) { return t.access.lane; }, &w, &x)) continue;
    // A pair the cross-warp rule already reports (the same word, another warp too) stays one.
    add(Hazard::Kind::IntraWarp, std::get<0>(key), std::get<3>(key), w, x);
  }

  // Barrier divergence: among the threads that reach barriers at all, one barrier instruction
  // reached a different number of times.
  std::map<uint32_t, bool> inBarriers;
  for (const auto& [pc, counts] : barrierCounts)
    for (const auto& [t, n] : counts) inBarriers[t] = true;
  for (const auto& [pc, counts] : barrierCounts) {
    uint32_t loThread = 0, hiThread = 0, lo = UINT32_MAX, hi = 0;
    for (const auto& [t, any] : inBarriers) {
      const auto it = counts.find(t);
      const uint32_t n = it == counts.end() ? 0 : it->second;
      if (n < lo) lo = n, loThread = t;
      if (n > hi) hi = n, hiThread = t;
    }
    if (lo == hi) continue;
    Hazard h;
    h.kind = Hazard::Kind::BarrierDivergence;
    h.severity = Hazard::Severity::Failure;
    h.first = {hiThread, int(hiThread / 32), int(hiThread % 32), false, pc, hi};
    h.second = {loThread, int(loThread / 32), int(loThread % 32), false, pc, lo};
    h.occurrences = 1;
    h.message = "barrier divergence: the __syncthreads() at SASS " + hex(pc) + " was reached " + std::to_string(hi) +
                " times by thread " + std::to_string(hiThread) + " but " + std::to_string(lo) + " times by thread " +
                std::to_string(loThread) +
                ": a barrier inside a branch or loop that not every thread of the block takes (the launch may hang, "
                "or go on with threads at different barriers and a wrong result)";
    found.push_back(h);
  }

  for (Hazard& h : found) {
    if (h.kind == Hazard::Kind::BarrierDivergence) continue;
    const std::string more = h.occurrences > 1 ? "; " + std::to_string(h.occurrences - 1) + " more word" +
                                                     (h.occurrences > 2 ? "s" : "") + " by the same two instructions"
                                               : "";
    const std::string phase = h.phase == 0 ? "before the first barrier" : "after barrier " + std::to_string(h.phase);
    if (h.kind == Hazard::Kind::CrossWarp)
      h.message = "shared-memory race in barrier phase " + std::to_string(h.phase) + " (" + phase + "): the word at byte " +
                  std::to_string(h.wordOffset) + " is written by " + who(h.first) + " and " +
                  (h.second.write ? "written" : "read") + " by " + who(h.second) +
                  " with no __syncthreads() between them" + more;
    else
      h.message = "warp-synchronous race in barrier phase " + std::to_string(h.phase) + ": the word at byte " +
                  std::to_string(h.wordOffset) + " is written by " + who(h.first) + " and " +
                  (h.second.write ? "written" : "read") + " by " + who(h.second) +
                  ", lanes of one warp with no __syncwarp() between them (since Volta a warp's lanes need not run in "
                  "step)" + more;
  }
  std::stable_sort(found.begin(), found.end(), [](const Hazard& a, const Hazard& b) {
    return a.severity != b.severity ? a.severity == Hazard::Severity::Failure : false;
  });
  if (found.size() > o.maxHazards) {
    rep.suppressed = found.size() - o.maxHazards;
    found.resize(o.maxHazards);
  }
  rep.hazards = std::move(found);
  if (raw.overflowed())
    rep.notes.push_back("the record buffer overflowed: accesses after the first " + std::to_string(raw.records.size()) +
                        " records were not analysed");
  if (rep.sharedAccesses == 0) rep.notes.push_back("the traced block made no shared-memory access");
  for (const std::string& n : raw.notes)
    if (n.find("barriers") != std::string::npos || n.find("shared") != std::string::npos ||
        n.find("__syncwarp") != std::string::npos || n.find("shuffles") != std::string::npos)
      rep.notes.push_back(n);
  return rep;
}

}  // namespace rl::instrumented
