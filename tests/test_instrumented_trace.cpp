// Instrumented traces without a GPU: hand-built raw records (what the Compute Sanitizer patches
// write for an unmodified kernel) turned into traces. Every expected number below is derived by
// hand in the comment beside it, not by the code under test.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "reducelab/instrumented_trace.hpp"
#include "reducelab/trace.hpp"
#include "test_support.hpp"

using namespace rl;
using namespace rl::instrumented;
using namespace rl::trace;

namespace {

constexpr uint64_t kIn = 0x7f0000000000ull;   // input array (256-byte aligned, as cudaMalloc's)
constexpr uint64_t kOut = 0x7f0010000000ull;  // output array
constexpr uint64_t kWin = 0x400;              // first usable shared offset (sm_90 reserves 1 KiB)

// Builds a block's records as the patches would write them: per thread in execution order.
struct Block {
  RawTrace raw;
  std::vector<uint32_t> seq;
  Block(uint32_t threads, uint32_t grid, uint32_t traced) : seq(threads, 0) {
    raw.function = "handmade";
    raw.blockX = threads;
    raw.gridX = grid;
    raw.tracedBlock = traced;
    raw.reservedSharedBytes = uint32_t(kWin);
  }
  void add(uint32_t t, uint8_t space, uint8_t access, uint64_t pc, uint64_t address, uint32_t bytes,
           std::optional<uint64_t> value = std::nullopt) {
    RawAccess r{};
    r.pc = pc;
    r.address = address;
    r.thread = t;
    r.sequence = seq[t]++;
    r.bytes = bytes;
    r.space = space;
    r.access = access;
    if (value) r.value = *value, r.flags = kRawValueKnown;
    raw.records.push_back(r);
  }
  void barrier(uint32_t t, uint64_t pc) { add(t, kRawBarrier, 0, pc, 0, raw.blockThreads()); }
  void finish() { raw.attempted = raw.capacity = raw.records.size(); }
};

uint64_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

ConvertOptions options(uint64_t inputBytes, ElemType type = ElemType::Int32) {
  ConvertOptions o;
  o.input = {kIn, inputBytes};
  o.output = {kOut, 4096};
  o.elemType = o.accType = type;
  return o;
}

// Harris's kernel 1 or 2 (interleaved addressing) on block `b` of 64 threads, int32: load one
// element each, the tree s = 1 .. 32 with a barrier per level, thread 0 stores the block's sum.
// Values: element i holds i + 1, so every stored value is a sum the test can state.
Block harris(bool strided, uint32_t b = 1) {
  const uint32_t B = 64;
  Block k(B, 4, b);
  std::vector<int64_t> sdata(B);
  for (uint32_t t = 0; t < B; ++t) {
    const uint64_t i = uint64_t(b) * B + t;
    sdata[t] = int64_t(i + 1);
    k.add(t, kRawGlobal, kLoad, 0x100, kIn + i * 4, 4);
    k.add(t, kRawShared, kStore, 0x110, kWin + t * 4, 4, uint64_t(sdata[t]));
    k.barrier(t, 0x120);
  }
  for (uint32_t s = 1; s < B; s *= 2) {
    for (uint32_t t = 0; t < B; ++t) {
      const uint32_t index = strided ? 2 * s * t : t;
      const bool active = strided ? index < B : t % (2 * s) == 0;
      if (active) {
        k.add(t, kRawShared, kLoad, 0x200, kWin + index * 4, 4);
        k.add(t, kRawShared, kLoad, 0x210, kWin + (index + s) * 4, 4);
        sdata[index] += sdata[index + s];
        k.add(t, kRawShared, kStore, 0x220, kWin + index * 4, 4, uint64_t(sdata[index]));
      }
      k.barrier(t, 0x230);
    }
  }
  k.add(0, kRawShared, kLoad, 0x300, kWin, 4);
  k.add(0, kRawGlobal, kStore, 0x310, kOut + b * 4, 4, uint64_t(sdata[0]));
  k.finish();
  return k;
}

TraceData convert(const Block& k, const ConvertOptions& o, ConversionReport* rep = nullptr) {
  std::string err;
  TraceData t = toTraceData(k.raw, o, rep, &err);
  EXPECT_TRUE(t.valid()) << err;
  return t;
}

}  // namespace

TEST(InstrumentedTrace, HarrisKernel1TreeBecomesOnePhaseStepPerBarrier) {
  const Block k = harris(false);
  ConversionReport rep;
  const TraceData t = convert(k, options(4 * 256), &rep);
  ASSERT_TRUE(t.valid());
  EXPECT_EQ(checkTraceContent(t), "");
  // 1 load phase + 6 tree levels (s = 1..32) + the result after the last barrier = 8 phases,
  // one step each: the load phase stores, the levels load-load-store, the result load-store.
  EXPECT_EQ(rep.phases, 8);
  ASSERT_EQ(t.numSteps(), 8);
  EXPECT_EQ(rep.barriers, 7u * 64);
  EXPECT_EQ(rep.overflow, "");
  for (int s = 0; s < 8; ++s) {
    EXPECT_EQ(t.steps[s].kind, kStepPhase);
    EXPECT_EQ(t.steps[s].param, s);
    EXPECT_EQ(t.steps[s].part, 0u);
  }
  EXPECT_EQ(stepLabel(t.steps[0]), "phase 0");
  EXPECT_EQ(t.steps[0].numSlots, 2u);
  EXPECT_EQ(t.steps[1].numSlots, 3u);
  EXPECT_EQ(t.steps[7].numSlots, 2u);
  // Header: block 1 of 4, its share starts at element 64 = byte 256.
  EXPECT_EQ(t.header.blockSize, 64u);
  EXPECT_EQ(t.header.tracedBlock, 1u);
  EXPECT_EQ(t.header.gridSize, 4u);
  EXPECT_EQ(t.header.globalBase, 256);
  EXPECT_EQ(t.header.n, 256u);
  EXPECT_EQ(t.header.flags, kTraceInstrumented | kTraceValuesFromStores);
  // Lane detail: thread 5 loads element 64 + 5 (offset 20 from the block's base) and stores
  // sdata[5] (offset 20 from the window's first usable byte).
  const LaneRecord& l5 = t.lane(0, 5);
  EXPECT_TRUE(l5.flags & kLaneActive);
  EXPECT_EQ(t.steps[0].slots[0].space, kSpaceGlobal);
  EXPECT_EQ(t.steps[0].slots[1].space, kSpaceShared);
  EXPECT_EQ(l5.addr[0], 20);
  EXPECT_EQ(l5.addr[1], 20);
  EXPECT_TRUE(l5.flags & kLaneValueKnown);
  EXPECT_EQ(l5.value, 70.0);  // element 69 holds 70
  // Level s = 4 (step 3): threads 0, 8, 16 ... active; thread 8 reads sdata[8] and sdata[12].
  EXPECT_TRUE(t.lane(3, 8).flags & kLaneActive);
  EXPECT_FALSE(t.lane(3, 4).flags & kLaneActive);
  EXPECT_EQ(t.lane(3, 8).addr[0], 32);
  EXPECT_EQ(t.lane(3, 8).addr[1], 48);
  // The result: thread 0 stores the sum of elements 64..127, holding 65..128: (65 + 128) x 64 / 2
  // = 6176, at out[1].
  const LaneRecord& r = t.lane(7, 0);
  EXPECT_EQ(t.steps[7].slots[1].region, kRegionOutput);
  EXPECT_EQ(r.addr[1], 4);
  EXPECT_EQ(r.value, 6176.0);
  // Banks: kernel 1's active lanes read distinct words: no conflict anywhere. Wavefronts: the
  // load phase's store 1 per warp (2); levels s = 1..16 have lanes in both warps (3 slots x 2
  // warps = 6 each, 30), s = 32 only thread 0 (3); the result 1 load. Loads 5x4 + 2 + 1 = 23,
  // stores 2 + 5x2 + 1 = 13.
  const TraceSummary sum = summarize(t);
  EXPECT_EQ(sum.loadWavefronts, 23);
  EXPECT_EQ(sum.storeWavefronts, 13);
  EXPECT_EQ(sum.loadConflicts(), 0);
  EXPECT_EQ(sum.storeConflicts(), 0);
  // Global loads: 2 warps x 1 request, each 32 lanes x 4 contiguous bytes from a 32-byte
  // boundary (byte 256) = 4 sectors: 2 requests, 8 sectors, 256 bytes.
  EXPECT_EQ(sum.totalLoadRequests, 2u);
  EXPECT_EQ(sum.totalLoadSectors, 8u);
  EXPECT_EQ(sum.totalLoadBytes, 256u);
  EXPECT_EQ(sum.steps[0].globalSectors, 8);
  EXPECT_EQ(sum.steps[0].globalRequests, 2);
  // Lanes that only loaded have no known value (level s=1, thread 1 is idle; thread 0 stored).
  EXPECT_TRUE(t.lane(1, 0).flags & kLaneValueKnown);
  EXPECT_EQ(t.lane(1, 0).value, 65.0 + 66.0);
}

TEST(InstrumentedTrace, HarrisKernel2BankConflictsPerLevel) {
  const TraceData t = convert(harris(true), options(4 * 256));
  ASSERT_EQ(t.numSteps(), 8);
  // Strided index 2*s*tid (64 threads): at s = 1 lanes 0..31 of warp 0 touch words 0, 2, ..., 62:
  // banks 0, 2, ..., 30 twice each -> 2-way, 2 wavefronts per slot. s = 2: 16 lanes, words 0, 4,
  // ..., 60: 8 banks twice -> 2-way. s = 4: words 0, 8, ..., 56 -> banks 0, 8, 16, 24 twice ->
  // 2-way. s = 8: words 0, 16, 32, 48 -> banks 0, 16 twice -> 2-way. s = 16: words 0 and 32 ->
  // bank 0 twice -> 2-way. s = 32: one lane -> none. (The +s operand shifts every word by s:
  // the same degrees.)
  const int expectedDegree[8] = {1, 2, 2, 2, 2, 2, 1, 1};
  const int expectedWavefronts[8] = {2, 6, 6, 6, 6, 6, 3, 1};  // load phase: 1 per warp, 2 warps
  const TraceSummary sum = summarize(t);
  for (int s = 0; s < 8; ++s) {
    EXPECT_EQ(sum.steps[s].maxDegree, expectedDegree[s]) << "step " << s;
    EXPECT_EQ(sum.steps[s].wavefronts, expectedWavefronts[s]) << "step " << s;
  }
  // Only warp 0 has work in the tree of kernel 2 (tid < 32 at s = 1).
  EXPECT_EQ(sum.steps[1].warpsWithWork, 1);
  EXPECT_EQ(sum.steps[1].activeLanes[0], 32);
  // Conflicts: levels 1..5, 3 slots each, 1 wavefront beyond ideal per slot: 10 load + 5 store.
  EXPECT_EQ(sum.loadConflicts(), 10);
  EXPECT_EQ(sum.storeConflicts(), 5);
}

TEST(InstrumentedTrace, GridStrideLoopKeepsTheFirstIterationAndCountsEvery) {
  // One warp of block 0 (grid 2) reads float64 elements t, t + 64, t + 128 (stride: 2 blocks x
  // 32 threads) while below N = 144: lanes 0..15 make 3 iterations, lanes 16..31 make 2.
  Block k(32, 2, 0);
  for (uint32_t t = 0; t < 32; ++t) {
    for (uint64_t i = t; i < 144; i += 64) k.add(t, kRawGlobal, kLoad, 0x100, kIn + i * 8, 8);
    k.add(t, kRawShared, kStore, 0x140, kWin + t * 8, 8, 0x3ff0000000000000ull);  // 1.0
    k.barrier(t, 0x150);
  }
  k.finish();
  ConversionReport rep;
  const TraceData t = convert(k, options(144 * 8, ElemType::Float64), &rep);
  ASSERT_EQ(t.numSteps(), 1);
  EXPECT_EQ(t.steps[0].maxIterations, 3u);
  EXPECT_EQ(stepLabel(t.steps[0]), "phase 0 (3 it.)");
  EXPECT_EQ(t.lane(0, 3).iterations, 3u);
  EXPECT_EQ(t.lane(0, 20).iterations, 2u);
  EXPECT_EQ(t.lane(0, 20).addr[0], 20 * 8);  // first iteration
  EXPECT_EQ(t.lane(0, 20).value, 1.0);
  // Requests: iteration 0 and 1 of the warp, 32 lanes each, iteration 2 with 16 lanes = 3.
  // Sectors: 32 x 8 contiguous bytes = 8 sectors, twice, then 16 x 8 = 4: 20. Bytes: 80 x 8.
  EXPECT_EQ(t.steps[0].totalLoadRequests, 3u);
  EXPECT_EQ(t.steps[0].totalLoadSectors, 20u);
  EXPECT_EQ(t.steps[0].totalLoadBytes, 640u);
  // The lane detail's sectors (first iteration): 8; 8-byte shared stores of 32 lanes: 2
  // wavefronts (half-warps), no conflict.
  const TraceSummary sum = summarize(t);
  EXPECT_EQ(sum.steps[0].globalSectors, 8);
  EXPECT_EQ(sum.steps[0].storeWavefronts, 2);
  EXPECT_EQ(sum.steps[0].maxDegree, 1);
}

TEST(InstrumentedTrace, ShufflesAndWarpStagesAreTheirOwnSteps) {
  // Kernel 8's shape, block 64: phase 0 = a load, 5 shuffles, lane 0 of each warp stores its
  // warp's sum; phase 1 = warp 0 reads the 2 sums, 5 shuffles, thread 0 stores the result.
  Block k(64, 1, 0);
  for (uint32_t t = 0; t < 64; ++t) {
    k.add(t, kRawGlobal, kLoad, 0x100, kIn + t * 4, 4);
    for (int s = 0; s < 5; ++s) k.add(t, kRawShuffle, 0, 0x200 + 0x10 * s, 0, 0);
    if (t % 32 == 0) k.add(t, kRawShared, kStore, 0x300, kWin + (t / 32) * 4, 4, 7);
    k.barrier(t, 0x310);
  }
  for (uint32_t t = 0; t < 32; ++t) {
    if (t < 2) k.add(t, kRawShared, kLoad, 0x400, kWin + t * 4, 4);
    for (int s = 0; s < 5; ++s) k.add(t, kRawShuffle, 0, 0x500 + 0x10 * s, 0, 0);
    if (t == 0) k.add(t, kRawGlobal, kStore, 0x600, kOut, 4, 14);
  }
  k.finish();
  ConversionReport rep;
  const TraceData t = convert(k, options(64 * 4), &rep);
  // Phase 0: load | 5 shuffle steps | store; phase 1: load | 5 shuffles | store = 14 steps.
  ASSERT_EQ(t.numSteps(), 14);
  EXPECT_EQ(rep.shuffles, 64u * 5 + 32 * 5);
  EXPECT_EQ(stepLabel(t.steps[0]), "phase 0");
  EXPECT_EQ(stepLabel(t.steps[1]), "phase 0b shfl");
  EXPECT_EQ(stepLabel(t.steps[5]), "phase 0f shfl");
  EXPECT_EQ(stepLabel(t.steps[6]), "phase 0g");
  EXPECT_EQ(stepLabel(t.steps[7]), "phase 1");
  EXPECT_EQ(stepLabel(t.steps[13]), "phase 1g");
  EXPECT_EQ(t.steps[1].slots[0].space, kSpaceShuffle);
  // A shuffle has no source lane: the lane is active, its slot carries no address.
  EXPECT_TRUE(t.lane(1, 3).flags & kLaneActive);
  EXPECT_FALSE(t.lane(1, 3).flags & slotBit(0));
  EXPECT_FALSE(t.lane(1, 3).flags & kLaneValueKnown);
  // Warp sums: lanes 0 and 32 store words 0 and 1.
  EXPECT_EQ(t.lane(6, 32).addr[0], 4);
  EXPECT_EQ(t.lane(6, 32).value, 7.0);
  const AccessProfile p = accessProfile(t);
  EXPECT_EQ(p.shuffleLanes, 64u * 5 + 32 * 5);
}

TEST(InstrumentedTrace, UnrolledLastWarpStagesAreCutWhereALoadFollowsAStore) {
  // Kernel 5's historical last warp: no barrier between stages, each stage loads what the one
  // before stored. Stages 32, 16 (lanes 0..31 run all stages).
  Block k(32, 1, 0);
  for (uint32_t t = 0; t < 32; ++t) {
    uint64_t pc = 0x100;
    for (uint32_t off : {32u, 16u}) {
      k.add(t, kRawShared, kLoad, pc, kWin + t * 4, 4);
      k.add(t, kRawShared, kLoad, pc + 0x10, kWin + (t + off) * 4, 4);
      k.add(t, kRawSyncWarp, 0, pc + 0x18, 0xffffffffu, 0);  // a __syncwarp cuts nothing
      k.add(t, kRawShared, kStore, pc + 0x20, kWin + t * 4, 4, t);
      pc += 0x100;
    }
  }
  k.finish();
  ConversionReport rep;
  const TraceData t = convert(k, options(64 * 4), &rep);
  ASSERT_EQ(t.numSteps(), 2);
  EXPECT_EQ(t.steps[0].numSlots, 3u);
  EXPECT_EQ(t.steps[1].numSlots, 3u);
  EXPECT_EQ(stepLabel(t.steps[1]), "phase 0b");
  EXPECT_EQ(rep.syncwarps, 64u);
  EXPECT_EQ(t.lane(1, 5).addr[1], (5 + 16) * 4);
}

TEST(InstrumentedTrace, RepeatedPhasesMergeOnlyWhenTheStepsDoNotFit) {
  // A loop with a barrier inside: 60 iterations, each one shared load + barrier, same PCs.
  auto loop = [](bool samePcs) {
    Block k(32, 1, 0);
    for (uint32_t t = 0; t < 32; ++t) {
      k.add(t, kRawGlobal, kLoad, 0x10, kIn + t * 4, 4);
      k.barrier(t, 0x20);
      for (uint64_t it = 0; it < 60; ++it) {
        k.add(t, kRawShared, kLoad, samePcs ? 0x100 : 0x100 + it * 0x10, kWin + ((t + it) % 32) * 4, 4);
        k.barrier(t, samePcs ? 0x1000 : 0x1000 + it * 0x10);
      }
    }
    k.finish();
    return k;
  };
  ConversionReport rep;
  const TraceData merged = convert(loop(true), options(32 * 4), &rep);
  // 1 + 60 phases with a load each (nothing follows the 60th barrier): 61 > 48 steps, the 60
  // repeated phases become one loop step: 2 steps, iterations 60.
  EXPECT_EQ(rep.phases, 61);
  EXPECT_EQ(rep.overflow, "");
  EXPECT_EQ(rep.mergedRuns, 1);
  ASSERT_EQ(merged.numSteps(), 2);
  EXPECT_EQ(merged.steps[1].maxIterations, 60u);
  EXPECT_EQ(merged.steps[1].param, 1);
  EXPECT_EQ(merged.lane(1, 7).addr[0], 7 * 4);  // the first iteration's word
  ASSERT_FALSE(rep.notes.empty());
  EXPECT_NE(rep.notes[0].find("phases 1-60"), std::string::npos) << rep.notes[0];

  // Different instructions in every phase cannot merge: cut at 48 steps and said so.
  ConversionReport cut;
  const TraceData truncated = convert(loop(false), options(32 * 4), &cut);
  EXPECT_EQ(truncated.numSteps(), kMaxSteps);
  EXPECT_NE(cut.overflow.find("need 61 steps"), std::string::npos) << cut.overflow;
  EXPECT_NE(cut.overflow.find("phases from 48 on"), std::string::npos) << cut.overflow;
}

TEST(InstrumentedTrace, OverflowOfTheRecordBufferIsReported) {
  Block k = harris(false);
  k.raw.attempted = k.raw.records.size() + 100;  // the device tried 100 more than it held
  ConversionReport rep;
  const TraceData t = convert(k, options(4 * 256), &rep);
  EXPECT_TRUE(t.valid());
  EXPECT_NE(rep.overflow.find("the later ones are missing"), std::string::npos) << rep.overflow;
}

TEST(InstrumentedTrace, AddressesOutsideWhatTheTraceCanShowAreCountedNotInvented) {
  Block k(32, 1, 0);
  for (uint32_t t = 0; t < 32; ++t) {
    k.add(t, kRawShared, kStore, 0x100, kWin - 16, 1, 1);               // a static __shared__ flag
    k.add(t, kRawGlobal, kAtomic, 0x110, 0x7e0000000000ull, 4);           // a counter elsewhere
    k.add(t, kRawLocal, kStore, 0x120, 0x10, 4, 0);                       // a spill
    k.add(t, kRawRemoteShared, kLoad, 0x130, 0x20, 4);                    // a cluster peer's shared memory
  }
  k.finish();
  ConversionReport rep;
  ConvertOptions o = options(32 * 4);
  const TraceData t = convert(k, o, &rep);
  ASSERT_EQ(t.numSteps(), 1);
  EXPECT_EQ(rep.sharedBelowOrigin, 32u);
  EXPECT_EQ(rep.globalOutsideRegions, 32u);
  EXPECT_EQ(rep.localAccesses, 32u);
  EXPECT_EQ(rep.remoteSharedAccesses, 32u);
  EXPECT_TRUE(t.lane(0, 0).flags & kLaneActive);
  EXPECT_FALSE(t.lane(0, 0).flags & slotBit(0));
  EXPECT_FALSE(t.lane(0, 0).flags & slotBit(1));
  EXPECT_EQ(checkTraceContent(t), "");
  EXPECT_GE(rep.notes.size(), 4u);
}

// Block 1 of a 16-CTA cluster (k13 at small N): its shared addresses carry its rank in bits 24+
// (rank << 24 | offset, as the SASS forms them). They are offsets in its own window: warp 0 storing
// 32 consecutive words there is one conflict-free wavefront, not an access the trace cannot place.
TEST(InstrumentedTrace, SharedAddressesOfAClusterBlockAreOffsetsInItsOwnWindow) {
  Block k(32, 16, 1);
  for (uint32_t t = 0; t < 32; ++t) k.add(t, kRawShared, kStore, 0x100, (uint64_t(1) << 24) + kWin + 4 * t, 4, t);
  k.finish();
  ConversionReport rep;
  const TraceData t = convert(k, options(32 * 4), &rep);
  ASSERT_EQ(t.numSteps(), 1);
  EXPECT_EQ(rep.sharedWithClusterRank, 32u);
  EXPECT_EQ(rep.sharedBelowOrigin, 0u);
  for (uint32_t th = 0; th < 32; ++th) {
    ASSERT_TRUE(t.lane(0, int(th)).flags & slotBit(0)) << th;
    EXPECT_EQ(t.lane(0, int(th)).addr[0], int32_t(4 * th));
  }
  const TraceSummary sum = summarize(t);
  EXPECT_EQ(sum.storeWavefronts, 1);
  EXPECT_EQ(sum.storeConflicts(), 0);
}

// k12's patched block that drew the last ticket: phase 0 (its loads), phase 1 (the warp sums, a
// 64-bit shuffle = two full-warp shfl, then thread 0's partial, ticket atomic and the compiler's
// one-lane shfl.idx broadcasting the ticket), phase 2 (the finish: every partial read). The
// comparison keeps phases 0 and 1 without the one-lane shuffle.
TEST(InstrumentedTrace, ThroughTheTicketPhaseDropsTheFinishAndTheTicketBroadcast) {
  Block k(32, 4, 3);
  for (uint32_t t = 0; t < 32; ++t) {
    k.add(t, kRawGlobal, kLoad, 0x10, kIn + 8 * t, 8);
    k.add(t, kRawBarrier, 0, 0x20, 0, 32);
    k.add(t, kRawShuffle, 0, 0x30, 0, 0);
    k.add(t, kRawShuffle, 0, 0x40, 0, 0);
    if (t == 0) {
      k.add(t, kRawGlobal, kStore, 0x50, kOut, 8, 5);
      k.add(t, kRawGlobal, kAtomic, 0x60, 0x7e0000000000ull, 4);
      k.add(t, kRawShuffle, 0, 0x70, 0, 0);
    }
    k.add(t, kRawBarrier, 0, 0x80, 0, 32);
    if (t < 4) k.add(t, kRawGlobal, kLoad, 0x90, kOut + 8 * t, 8);
  }
  k.finish();
  const TraceData t = convert(k, options(32 * 8, ElemType::Float64));
  // Steps: phase 0; phase 1: shfl, shfl, (store, atomic), shfl; phase 2: the partials' load.
  ASSERT_EQ(t.numSteps(), 6);
  int ticketPhase = -2;
  const TraceData c = throughTheTicketPhase(t, &ticketPhase);
  EXPECT_EQ(ticketPhase, 1);
  ASSERT_EQ(c.numSteps(), 4);
  EXPECT_EQ(c.header.numSteps, 4u);
  EXPECT_EQ(c.lanes.size(), 4u * 32);
  EXPECT_EQ(c.steps[3].slots[1].access, kAtomic);
  EXPECT_EQ(accessProfile(c).shuffleLanes, 64u);  // the two full-warp shuffles only
  EXPECT_EQ(checkTraceContent(c), "");
  // No atomic: unchanged.
  const TraceData noTicket = convert(harris(true), options(4 * 256));
  ASSERT_EQ(noTicket.numSteps(), 8);  // 1 load phase + 6 levels + the result (harris(): 64 threads)
  EXPECT_EQ(compareTraces(throughTheTicketPhase(noTicket), noTicket, 0), "");
}

// The patch functions run between any two instructions of the patched kernel, its convergence
// barriers and registers live: they hold no branch (whence no BSSY/BSYNC convergence barrier in
// their SASS), no atomic and no barrier. The first ones (branches, an atomic per record) faulted the
// patched launches of k12-k14 on the H100 (docs/instrumented-traces.md). Read from the PTX the build
// makes of kernels/instrumented/patches.cu (ptxas adds no branch to straight-line PTX).
TEST(InstrumentedPatches, HaveNoBranchNoAtomicNoBarrier) {
  const std::string path = rl::test::builtFile(REDUCELAB_INSTRUMENT_PATCHES_PTX);
  if (path.empty()) GTEST_SKIP() << "built without the Compute Sanitizer SDK: no patch functions";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  const std::string ptx = text.str();
  const std::regex function(R"(\.visible \.func\s+\([^)]*\)\s+(rl_patch_\w+)\()");
  const std::regex forbidden(R"(^\s*(@!?%\w+\s+)?(bra|brx|atom|red|bar|barrier|membar|call)\b)");
  int functions = 0;
  for (std::sregex_iterator f(ptx.begin(), ptx.end(), function), end; f != end; ++f) {
    ++functions;
    const size_t open = ptx.find("\n{", size_t(f->position()));
    const size_t close = ptx.find("\n}", open);
    ASSERT_NE(close, std::string::npos);
    std::istringstream body(ptx.substr(open, close - open));
    for (std::string line; std::getline(body, line);)
      EXPECT_FALSE(std::regex_search(line, forbidden)) << (*f)[1] << ": " << line;
  }
  // global, shared, local, remote shared, barrier, syncwarp, shfl, bulk copy
  EXPECT_EQ(functions, 8);
}

TEST(InstrumentedTrace, BadRecordsGiveOneClearError) {
  std::string err;
  Block empty(32, 1, 0);
  EXPECT_FALSE(toTraceData(empty.raw, options(128), nullptr, &err).valid());
  EXPECT_NE(err.find("recorded nothing"), std::string::npos) << err;
  Block k(32, 1, 0);
  k.seq.resize(64);
  k.add(40, kRawShared, kLoad, 0x10, kWin, 4);  // thread 40 of a 32-thread block
  k.finish();
  EXPECT_FALSE(toTraceData(k.raw, options(128), nullptr, &err).valid());
  EXPECT_NE(err.find("thread 40"), std::string::npos) << err;
  Block big(32, 1, 0);
  big.raw.blockX = 2048;
  big.add(0, kRawShared, kLoad, 0x10, kWin, 4);
  EXPECT_FALSE(toTraceData(big.raw, options(128), nullptr, &err).valid());
  EXPECT_NE(err.find("2048 threads"), std::string::npos) << err;
  Block outside(32, 2, 2);
  outside.add(0, kRawShared, kLoad, 0x10, kWin, 4);
  EXPECT_FALSE(toTraceData(outside.raw, options(128), nullptr, &err).valid());
  EXPECT_NE(err.find("not in the launch's grid"), std::string::npos) << err;
}

TEST(InstrumentedTrace, RoundTripsThroughTheTraceBufferAndReaders) {
  const TraceData t = convert(harris(true), options(4 * 256));
  const std::vector<uint8_t> bytes = t.toBuffer();
  std::string err;
  const TraceData back = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
  ASSERT_TRUE(back.valid()) << err;
  EXPECT_EQ(compareTraces(t, back, 0), "");
  EXPECT_EQ(checkTraceContent(back), "");
  // A flag this version does not know is refused.
  std::vector<uint8_t> bad = bytes;
  TraceHeader h;
  std::memcpy(&h, bad.data(), sizeof h);
  h.flags |= 0x80;
  std::memcpy(bad.data(), &h, sizeof h);
  EXPECT_FALSE(TraceData::fromBuffer(bad.data(), bad.size(), &err).valid());
  EXPECT_NE(err.find("flags"), std::string::npos);
}

TEST(InstrumentedTrace, ProfilesOfTheSameAccessesAgreeAndDifferencesAreNamed) {
  const TraceData a = convert(harris(false), options(4 * 256));
  // The same kernel's accesses laid out as a hand-placed tracer's steps would be (other kinds,
  // the same slots): equal profiles.
  TraceData b = a;
  for (StepHeader& s : b.steps) s.kind = kStepTreeLevel, s.part = 0;
  EXPECT_EQ(compareProfiles(accessProfile(a), accessProfile(b), 7), "");
  // One lane's address moved: named.
  b.lanes[size_t(3) * 64 + 8].addr[1] += 4;
  const std::string diff = compareProfiles(accessProfile(a), accessProfile(b), 7);
  EXPECT_NE(diff.find("only in the instrumented trace"), std::string::npos) << diff;
  EXPECT_NE(diff.find("warp 0 shared load"), std::string::npos) << diff;
}
