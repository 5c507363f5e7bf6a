// Reading traces, shared-memory bank conflicts, and the per-step summary.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "reducelab/trace.hpp"

namespace rl {

using namespace rl::trace;

TraceData TraceData::fromBuffer(const void* bytes, size_t size, std::string* error) {
  TraceData t;
  auto fail = [&](const char* why) {
    if (error) *error = why;
    return TraceData{};
  };
  if (size < kLanesOffset) return fail("trace buffer too small");
  std::memcpy(&t.header, bytes, sizeof t.header);
  if (t.header.magic != kMagic) return fail("no trace was written (magic missing)");
  if (t.header.version != kVersion) {  // e.g. a recording made by another ReduceLab: say which
    if (error)
      *error = "trace format " + std::to_string(t.header.version) + ", but this ReduceLab reads format " +
               std::to_string(kVersion) + " (record it again with this version)";
    return TraceData{};
  }
  if (t.header.blockSize == 0 || t.header.blockSize > kMaxBlock) return fail("bad block size in trace");
  if (t.header.numSteps > uint32_t(kMaxSteps)) return fail("bad step count in trace");
  if (size < bufferBytes(t.header.blockSize)) return fail("trace buffer smaller than its block");
  const char* base = static_cast<const char*>(bytes);
  t.steps.resize(t.header.numSteps);
  std::memcpy(t.steps.data(), base + kStepsOffset, t.steps.size() * sizeof(StepHeader));
  t.lanes.resize(size_t(t.header.numSteps) * t.header.blockSize);
  std::memcpy(t.lanes.data(), base + kLanesOffset, t.lanes.size() * sizeof(LaneRecord));
  // What the analysis and the views index or divide by must be sane: a trace read from a file or
  // a pipe is outside input (a negative shared address would be a negative bank index).
  const TraceHeader& h = t.header;
  if ((h.elemBytes != 4 && h.elemBytes != 8) || (h.accBytes != 4 && h.accBytes != 8))
    return fail("bad element or accumulator size in trace");
  if (h.gridSize == 0 || h.tracedBlock >= h.gridSize) return fail("bad grid or traced block in trace");
  if (h.globalBase < 0 || h.globalBase > (int64_t(1) << 50)) return fail("bad global base in trace");
  if (h.flags & ~kTraceKnownFlags) return fail("unknown trace flags (made by a newer ReduceLab?)");
  for (uint32_t s = 0; s < h.numSteps; ++s) {
    const StepHeader& st = t.steps[s];
    if (st.kind < kStepLoad || st.kind > kStepLastKind || st.numSlots > uint32_t(kMaxSlots))
      return fail("bad step kind or slot count in trace");
    for (int k = 0; k < kMaxSlots; ++k)
      if (st.slots[k].space > kSpaceShuffle || st.slots[k].access > kAtomic ||
          (st.slots[k].bytes & (st.slots[k].bytes - 1)) != 0 || st.slots[k].bytes > 16)  // 0, 1, 2, 4, 8 or 16
        return fail("bad access slot in trace");
    for (uint32_t th = 0; th < h.blockSize; ++th) {
      const LaneRecord& r = t.lanes[size_t(s) * h.blockSize + th];
      if (!(r.flags & kLaneActive)) continue;
      for (int k = 0; k < kMaxSlots; ++k)
        if ((r.flags & slotBit(k)) && st.slots[k].space == kSpaceShared && (r.addr[k] < 0 || r.addr[k] >= (1 << 20)))
          return fail("shared-memory address out of range in trace");
    }
  }
  return t;
}

std::vector<uint8_t> TraceData::toBuffer() const {
  std::vector<uint8_t> out(bufferBytes(header.blockSize ? header.blockSize : 1), 0);
  std::memcpy(out.data(), &header, sizeof header);
  std::memcpy(out.data() + kStepsOffset, steps.data(), steps.size() * sizeof(StepHeader));
  std::memcpy(out.data() + kLanesOffset, lanes.data(), lanes.size() * sizeof(LaneRecord));
  return out;
}

// How a warp's shared-memory access is served (measured on the H200: scripts/bank_probe.py runs
// 1,438 one-warp patterns of 4-, 8- and 16-byte loads under Nsight Compute, and this rule gives
// its wavefront count for every one of them; tests/data/bank-probe-h200.txt keeps them):
// - 32 banks of 4-byte words (CUDA C++ Programming Guide, "Shared Memory", compute capability
//   5.x and later); a phase needs one wavefront per distinct word in its busiest bank; lanes
//   reading the same word share it (broadcast, not a conflict).
// - A wavefront returns at most 128 bytes: one register per lane. So a warp is served in phases
//   of 128 bytes of lanes: half-warps for 8-byte accesses (lanes 0-15, then 16-31), quarter-warps
//   for 16-byte ones, and conflicts only arise between lanes of one phase. 32 lanes reading
//   8 consecutive bytes each need 2 wavefronts: that is the ideal, not a conflict.
// - Except for loads where lanes come in pairs with one address (for every active lane n, lane
//   n^1 idle or at the same address; or the same with n^2; measured: an idle partner counts): then
//   two lanes share each returned register and the phases are twice as wide (an 8-byte broadcast needs 1 wavefront, a 16-byte one 2). NVIDIA describes this
//   "uniform packing" for LDS on Volta and later; on the H200 it explains the tiled matmul's
//   A-tile reads, whose cost depends on whether a warp's row change falls between a lane pair.
//   Stores keep the plain phases (k1-k4 and the transposes match Nsight Compute exactly).
std::vector<BankAccess> bankAccesses(const TraceData& t, int step, int warp) {
  std::vector<BankAccess> out;
  if (step < 0 || step >= t.numSteps()) return out;
  const StepHeader& h = t.steps[size_t(step)];
  const int w0 = warp < 0 ? 0 : warp, w1 = warp < 0 ? t.numWarps() : std::min(warp + 1, t.numWarps());
  for (int w = w0; w < w1; ++w)
    for (int s = 0; s < kMaxSlots; ++s) {
      if (h.slots[s].space != kSpaceShared) continue;
      BankAccess a;
      a.step = step;
      a.warp = w;
      a.slot = s;
      a.bytes = std::max<int>(4, h.slots[s].bytes);
      a.store = h.slots[s].access == kStore;
      // 1, 2 or 4 words (fromBuffer refuses other sizes; a power of two keeps every phase inside the warp).
      const int wordsPerLane = a.bytes <= 4 ? 1 : a.bytes <= 8 ? 2 : 4;
      for (int l = 0; l < 32; ++l) {
        a.bank[l] = a.word[l] = -1;
        const int thread = w * 32 + l;
        if (thread >= t.blockSize()) continue;
        const LaneRecord& r = t.lane(step, thread);
        if (!(r.flags & kLaneActive) || !(r.flags & slotBit(s))) continue;
        a.word[l] = r.addr[s] / 4;
        a.bank[l] = a.word[l] % 32;
        ++a.activeLanes;
      }
      if (a.activeLanes == 0) continue;
      auto pairsShare = [&](int mask) {
        for (int l = 0; l < 32; ++l)
          if (a.word[l] >= 0 && a.word[l ^ mask] >= 0 && a.word[l ^ mask] != a.word[l]) return false;
        return true;
      };
      int phaseLanes = std::max(1, 32 / wordsPerLane);
      if (!a.store && wordsPerLane > 1 && (pairsShare(1) || pairsShare(2))) phaseLanes *= 2;
      a.phaseLanes = phaseLanes;
      for (int p0 = 0; p0 < 32; p0 += phaseLanes) {
        std::set<int> phaseBankWords[32];
        bool active = false;
        for (int l = p0; l < p0 + phaseLanes && l < 32; ++l) {
          if (a.word[l] < 0) continue;
          active = true;
          for (int k = 0; k < wordsPerLane; ++k) phaseBankWords[(a.word[l] + k) % 32].insert(a.word[l] + k);
        }
        if (!active) continue;
        size_t worst = 1;
        for (auto& b : phaseBankWords) worst = std::max(worst, b.size());
        a.wavefronts += int(worst);
        a.idealWavefronts += 1;
        a.degree = std::max(a.degree, int(worst));
      }
      // Lanes in conflict: their bank holds more than one distinct word within their phase.
      for (int l = 0; l < 32; ++l) {
        if (a.word[l] < 0) continue;
        const int p0 = (l / phaseLanes) * phaseLanes;
        for (int m = p0; m < p0 + phaseLanes && m < 32; ++m) {
          if (m == l || a.word[m] < 0) continue;
          bool clash = false;
          for (int k = 0; k < wordsPerLane && !clash; ++k)
            for (int q = 0; q < wordsPerLane && !clash; ++q)
              clash = (a.word[l] + k) % 32 == (a.word[m] + q) % 32 && a.word[l] + k != a.word[m] + q;
          if (clash) {
            ++a.conflictLanes;
            break;
          }
        }
      }
      out.push_back(a);
    }
  return out;
}

int64_t regionBase(const TraceHeader& h, uint8_t region) {
  switch (region) {
    case kRegionSecond: return h.secondBase;
    case kRegionOutput: return h.outputBase;
    default: return h.globalBase;
  }
}

std::string stepLabel(const StepHeader& s) {
  char b[64];
  switch (s.kind) {
    case kStepLoad: return s.param == 2 ? "load 2 + add" : "load";
    case kStepGridStride:
      std::snprintf(b, sizeof b, "grid-stride (%u it.)", s.maxIterations);  // detail: iteration 1
      return b;
    case kStepTreeLevel: std::snprintf(b, sizeof b, "s = %d", s.param); return b;
    case kStepWarpSync: std::snprintf(b, sizeof b, "warp +%d", s.param); return b;
    case kStepShuffle: std::snprintf(b, sizeof b, "shfl %d", s.param); return b;
    case kStepWarpReduce: return "warp reduce";
    case kStepWarpStore: return "warp sums";
    case kStepWarpLoad: return "read sums";
    case kStepBlockResult: return "result";
    case kStepCopyRow: std::snprintf(b, sizeof b, "copy row +%d", s.param); return b;
    case kStepTileLoad:
      if (s.numSlots == 4) std::snprintf(b, sizeof b, "tiles in (1 of %d)", s.param);  // matmul: K-tiles
      else std::snprintf(b, sizeof b, "tile in +%d", s.param);
      return b;
    case kStepTileStore: std::snprintf(b, sizeof b, "tile out +%d", s.param); return b;
    case kStepDot: std::snprintf(b, sizeof b, "dot (%d terms)", s.param); return b;
    case kStepDotTerm: std::snprintf(b, sizeof b, "dot n = %d", s.param); return b;
    case kStepOutput: return "store C";
    case kStepPhase: {
      // "phase 3", the later parts of a cut phase "phase 3b", "phase 3c" ...; what is special.
      std::string l = "phase " + std::to_string(s.param);
      if (s.part > 0) l += s.part < 26 ? std::string(1, char('a' + s.part)) : "." + std::to_string(s.part + 1);
      if (s.numSlots > 0 && s.slots[0].space == kSpaceShuffle) l += " shfl";
      if (s.maxIterations > 1) l += " (" + std::to_string(s.maxIterations) + " it.)";
      return l;
    }
  }
  return "?";
}

TraceSummary summarize(const TraceData& t) {
  TraceSummary sum;
  for (int s = 0; s < t.numSteps(); ++s) {
    const StepHeader& h = t.steps[size_t(s)];
    StepSummary st;
    st.step = s;
    st.kind = h.kind;
    st.param = h.param;
    st.label = stepLabel(h);
    st.maxIterations = h.maxIterations;
    st.totalLoadRequests = h.totalLoadRequests;
    st.totalLoadSectors = h.totalLoadSectors;
    st.totalLoadBytes = h.totalLoadBytes;
    st.activeLanes.assign(size_t(t.numWarps()), 0);
    for (int th = 0; th < t.blockSize(); ++th)
      if (t.lane(s, th).flags & kLaneActive) ++st.activeLanes[size_t(th / 32)];
    for (int a : st.activeLanes) st.warpsWithWork += a > 0;
    for (const BankAccess& a : bankAccesses(t, s, -1)) {
      st.maxDegree = std::max(st.maxDegree, a.degree);
      st.wavefronts += a.wavefronts;
      st.idealWavefronts += a.idealWavefronts;
      (a.store ? st.storeWavefronts : st.loadWavefronts) += a.wavefronts;
      (a.store ? st.idealStoreWavefronts : st.idealLoadWavefronts) += a.idealWavefronts;
    }
    for (int slot = 0; slot < kMaxSlots; ++slot) {
      if (h.slots[slot].space != kSpaceGlobal || h.slots[slot].access == kAtomic) continue;
      const bool store = h.slots[slot].access == kStore;
      if (store && h.slots[slot].region != kRegionOutput) continue;
      for (int w = 0; w < t.numWarps(); ++w) {
        std::set<int64_t> sectors;
        for (int l = 0; l < 32 && w * 32 + l < t.blockSize(); ++l) {
          const LaneRecord& r = t.lane(s, w * 32 + l);
          if (!(r.flags & kLaneActive) || !(r.flags & slotBit(slot))) continue;
          const int64_t first = regionBase(t.header, h.slots[slot].region) + r.addr[slot];
          for (int64_t byte = first; byte < first + h.slots[slot].bytes; byte += 32) sectors.insert(byte / 32);
          sectors.insert((first + h.slots[slot].bytes - 1) / 32);
        }
        if (sectors.empty()) continue;
        if (store) {
          ++st.globalStoreRequests;
          st.globalStoreSectors += int(sectors.size());
        } else {
          ++st.globalRequests;
          st.globalSectors += int(sectors.size());
        }
      }
    }
    sum.totalWavefronts += st.wavefronts;
    sum.totalIdealWavefronts += st.idealWavefronts;
    sum.loadWavefronts += st.loadWavefronts;
    sum.storeWavefronts += st.storeWavefronts;
    sum.idealLoadWavefronts += st.idealLoadWavefronts;
    sum.idealStoreWavefronts += st.idealStoreWavefronts;
    sum.totalLoadRequests += st.totalLoadRequests;
    sum.totalLoadSectors += st.totalLoadSectors;
    sum.totalLoadBytes += st.totalLoadBytes;
    sum.steps.push_back(std::move(st));
  }
  return sum;
}

std::string checkTraceContent(const TraceData& t) {
  const TraceHeader& h = t.header;
  auto oneOf = [](uint32_t v, std::initializer_list<uint32_t> allowed) {
    for (uint32_t a : allowed)
      if (v == a) return true;
    return false;
  };
  if (!t.valid()) return "not a trace";
  if (h.numSteps == 0 || t.steps.size() != h.numSteps || t.lanes.size() != size_t(h.numSteps) * h.blockSize)
    return "the trace holds no steps, or fewer than its header says";
  if (!oneOf(h.elemBytes, {1, 2, 4, 8}) || !oneOf(h.accBytes, {1, 2, 4, 8})) return "the trace's element sizes are impossible";
  if (h.n == 0 || h.n > (uint64_t(1) << 40) || h.gridSize == 0 || h.tracedBlock >= h.gridSize)
    return "the trace's N, grid or traced block is impossible";
  if (h.flags & ~kTraceKnownFlags) return "the trace has flags this ReduceLab does not know";
  const int64_t inputBytes = int64_t(h.n) * int64_t(h.elemBytes);
  if (h.globalBase < 0 || h.globalBase > inputBytes) return "the traced block starts outside the input";
  // Shared memory of a block is at most 227 KiB on any GPU so far; global offsets stay far from
  // int overflow when views add the access size.
  constexpr int32_t kMaxShared = 256 * 1024, kMaxGlobalOffset = 1 << 30;
  for (uint32_t si = 0; si < h.numSteps; ++si) {
    const StepHeader& st = t.steps[si];
    const std::string where = "step " + std::to_string(si);
    if (st.kind < kStepLoad || st.kind > kStepLastKind) return where + " has an unknown kind";
    if (st.numSlots > uint32_t(kMaxSlots)) return where + " has too many access slots";
    for (const SlotInfo& slot : st.slots)
      if (slot.space > kSpaceShuffle || slot.access > kAtomic || !oneOf(slot.bytes, {0, 1, 2, 4, 8, 16}))
        return where + " has an impossible access slot";
    for (uint32_t th = 0; th < h.blockSize; ++th) {
      const LaneRecord& r = t.lane(int(si), int(th));
      for (int k = 0; k < kMaxSlots; ++k) {
        if (!(r.flags & slotBit(k))) continue;
        const int32_t a = r.addr[k];
        const uint8_t space = st.slots[k].space;
        const bool ok = space == kSpaceShared    ? a >= 0 && a <= kMaxShared
                        : space == kSpaceShuffle ? a >= 0 && a < 32
                        : space == kSpaceGlobal  ? a >= -kMaxGlobalOffset && a <= kMaxGlobalOffset
                                                 : false;
        if (!ok)
          return where + ", thread " + std::to_string(th) + ": address " + std::to_string(a) + " is outside its " +
                 (space == kSpaceShared ? "shared memory" : space == kSpaceShuffle ? "warp" : space == kSpaceGlobal ? "input" : "slot");
      }
    }
  }
  return {};
}

std::string compareTraces(const TraceData& a, const TraceData& b, double relTol) {
  char msg[256];
  const TraceHeader &x = a.header, &y = b.header;
  if (x.numSteps != y.numSteps || x.blockSize != y.blockSize || x.tracedBlock != y.tracedBlock ||
      x.elemBytes != y.elemBytes || x.accBytes != y.accBytes || x.gridSize != y.gridSize ||
      x.n != y.n || x.globalBase != y.globalBase || x.secondBase != y.secondBase ||
      x.outputBase != y.outputBase || x.blockX != y.blockX || x.blockY != y.blockY || x.gridX != y.gridX ||
      x.gridY != y.gridY || x.tile != y.tile || x.flags != y.flags) {
    std::snprintf(msg, sizeof msg,
                  "headers differ: steps %u/%u block %u/%u grid %u/%u base %lld/%lld",
                  x.numSteps, y.numSteps, x.blockSize, y.blockSize, x.gridSize, y.gridSize,
                  (long long)x.globalBase, (long long)y.globalBase);
    return msg;
  }
  for (size_t s = 0; s < a.steps.size(); ++s)
    if (std::memcmp(&a.steps[s], &b.steps[s], sizeof(StepHeader)) != 0) {
      std::snprintf(msg, sizeof msg, "step %zu header differs (%s / %s, iterations %u/%u)", s,
                    stepLabel(a.steps[s]).c_str(), stepLabel(b.steps[s]).c_str(),
                    a.steps[s].maxIterations, b.steps[s].maxIterations);
      return msg;
    }
  for (size_t s = 0; s < a.steps.size(); ++s)
    for (uint32_t th = 0; th < x.blockSize; ++th) {
      const LaneRecord& p = a.lane(int(s), int(th));
      const LaneRecord& q = b.lane(int(s), int(th));
      bool same = p.flags == q.flags && p.iterations == q.iterations;
      for (int k = 0; k < kMaxSlots && same; ++k)
        if (p.flags & slotBit(k)) same = p.addr[k] == q.addr[k];
      const double scale = std::max(std::fabs(p.value), std::fabs(q.value));
      const bool valueOk = p.value == q.value || (std::isnan(p.value) && std::isnan(q.value)) ||
                           std::fabs(p.value - q.value) <= relTol * scale;
      if (!same || !valueOk) {
        std::snprintf(msg, sizeof msg,
                      "step %zu (%s) thread %u: flags %x/%x addr0 %d/%d iterations %u/%u value %.17g/%.17g",
                      s, stepLabel(a.steps[s]).c_str(), th, p.flags, q.flags, p.addr[0], q.addr[0],
                      p.iterations, q.iterations, p.value, q.value);
        return msg;
      }
    }
  return {};
}

}  // namespace rl

namespace rl {

int tellingStep(const TraceData& t, const TraceSummary& sum, ViewId view) {
  const int steps = int(sum.steps.size());
  if (steps == 0) return 0;
  const int lanes = t.blockSize();
  auto mostConflicted = [&]() -> int {  // the step with the most wavefronts beyond the ideal
    int best = -1, worst = 0;
    for (const StepSummary& s : sum.steps)
      if (s.wavefronts - s.idealWavefronts > worst) worst = s.wavefronts - s.idealWavefronts, best = s.step;
    return best;
  };
  auto firstShared = [&]() -> int {
    for (const StepSummary& s : sum.steps)
      if (s.wavefronts > 0) return s.step;
    return -1;
  };
  auto firstIdle = [&]() -> int {  // the first step where some lanes work and others wait
    for (const StepSummary& s : sum.steps) {
      int active = 0;
      for (int a : s.activeLanes) active += a;
      if (active > 0 && active < lanes) return s.step;
    }
    return -1;
  };
  auto firstGlobal = [&]() -> int {
    for (const StepSummary& s : sum.steps)
      if (s.globalRequests > 0 || s.globalStoreRequests > 0) return s.step;
    return -1;
  };
  int step = -1;
  switch (view) {
    case ViewId::BankConflicts:
      step = mostConflicted();
      if (step < 0) step = firstShared();
      break;
    case ViewId::WarpActivity:
      step = firstIdle();
      break;
    case ViewId::Coalescing:
      step = firstGlobal();
      break;
    case ViewId::All:
      step = mostConflicted();
      if (step < 0) step = firstIdle();
      break;
    default:
      break;  // the tree, the source: the whole reduction, its last step
  }
  return step < 0 ? steps - 1 : step;
}

int requestedStep(const TraceData& t, const TraceSummary& sum, ViewId view, int request) {
  const int last = std::max(0, t.numSteps() - 1);
  if (request == kTellingStep) return std::clamp(tellingStep(t, sum, view), 0, last);
  return request < 0 ? last : std::min(request, last);
}

}  // namespace rl
