// Shared-memory hazards from hand-built instrumented records (instrumented_hazards.hpp): Harris's
// kernel 1 with and without the barrier inside its loop, a barrier inside a branch, warp stages
// with and without __syncwarp, atomics. Every expected number is derived by hand beside it.
#include <gtest/gtest.h>

#include "reducelab/instrumented_hazards.hpp"
#include "reducelab/trace_format.hpp"

using namespace rl;
using namespace rl::instrumented;

namespace {

constexpr uint64_t kIn = 0x7f0000000000ull;
constexpr uint64_t kWin = 0x400;  // first usable shared offset (sm_90)
// The SASS offsets of the hand-made kernel's instructions.
constexpr uint64_t kLoadIn = 0x80, kStoreLoad = 0x90, kBarLoad = 0xa0, kLoadMine = 0x100, kLoadOther = 0x110,
                   kStoreSum = 0x120, kBarLoop = 0x130, kLoadResult = 0x200, kStoreOut = 0x210;

struct Block {
  RawTrace raw;
  std::vector<uint32_t> seq;
  explicit Block(uint32_t threads) : seq(threads, 0) {
    raw.blockX = threads;
    raw.gridX = 4;
    raw.reservedSharedBytes = uint32_t(kWin);
  }
  void add(uint32_t t, uint8_t space, uint8_t access, uint64_t pc, uint64_t address, uint32_t bytes = 4) {
    RawAccess r{};
    r.pc = pc;
    r.address = address;
    r.thread = t;
    r.sequence = seq[t]++;
    r.bytes = bytes;
    r.space = space;
    r.access = access;
    raw.records.push_back(r);
  }
  void shared(uint32_t t, uint8_t access, uint64_t pc, uint32_t word) { add(t, kRawShared, access, pc, kWin + 4 * word); }
  void barrier(uint32_t t, uint64_t pc) { add(t, kRawBarrier, 0, pc, 0, raw.blockThreads()); }
  void finish() { raw.attempted = raw.capacity = raw.records.size(); }
};

// Harris's kernel 1 (interleaved addressing, `if (t % (2 s) == 0) partial[t] += partial[t + s]`),
// `threads` threads; loopBarrier false: the __syncthreads() inside the loop removed.
Block harris1(uint32_t threads, bool loopBarrier) {
  Block b(threads);
  for (uint32_t t = 0; t < threads; ++t) {
    b.add(t, kRawGlobal, trace::kLoad, kLoadIn, kIn + 4 * t);
    b.shared(t, trace::kStore, kStoreLoad, t);
    b.barrier(t, kBarLoad);
    for (uint32_t s = 1; s < threads; s *= 2) {
      if (t % (2 * s) == 0) {
        b.shared(t, trace::kLoad, kLoadMine, t);
        b.shared(t, trace::kLoad, kLoadOther, t + s);
        b.shared(t, trace::kStore, kStoreSum, t);
      }
      if (loopBarrier) b.barrier(t, kBarLoop);
    }
    if (t == 0) {
      b.shared(t, trace::kLoad, kLoadResult, 0);
      b.add(t, kRawGlobal, trace::kStore, kStoreOut, kIn + 0x100000);
    }
  }
  b.finish();
  return b;
}

TEST(InstrumentedHazards, CorrectHarrisKernelHasNone) {
  const HazardReport r = findSharedHazards(harris1(64, true).raw);
  EXPECT_TRUE(r.hazards.empty()) << r.hazards.front().message;
  // 1 barrier after the load, 6 in the loop (s = 1 ... 32): 8 phases.
  EXPECT_EQ(r.phases, 8);
  // Stores: 64 (load) + 32 + 16 + 8 + 4 + 2 + 1 = 127; loads: 2 x 63 + 1 = 127.
  EXPECT_EQ(r.sharedAccesses, 254u);
}

TEST(InstrumentedHazards, HarrisKernelWithoutTheLoopBarrierIsFlagged) {
  const HazardReport r = findSharedHazards(harris1(64, false).raw);
  ASSERT_EQ(r.failures(), 1) << (r.hazards.empty() ? "" : r.hazards.front().message);
  const Hazard& h = r.hazards.front();
  // Across warps: thread 32 (warp 1) writes partial[32] at s = 1 ... 16; thread 0 (warp 0) reads
  // partial[0 + 32] at s = 32, all in phase 1 now. No other word is touched by two warps.
  EXPECT_EQ(h.kind, Hazard::Kind::CrossWarp);
  EXPECT_EQ(h.phase, 1u);
  EXPECT_EQ(h.wordOffset, 32 * 4);
  EXPECT_EQ(h.first.thread, 32u);
  EXPECT_TRUE(h.first.write);
  EXPECT_EQ(h.first.pc, kStoreSum);
  EXPECT_EQ(h.second.thread, 0u);
  EXPECT_FALSE(h.second.write);
  EXPECT_EQ(h.second.pc, kLoadOther);
  EXPECT_EQ(h.occurrences, 1u);
  EXPECT_NE(h.message.find("no __syncthreads()"), std::string::npos) << h.message;
  EXPECT_NE(h.message.find("SASS +0x120"), std::string::npos) << h.message;
  // Within each warp: at s = 2, 4, 8, 16 lane t reads partial[t + s], which lane t + s wrote at
  // s / 2: 8 + 4 + 2 + 1 = 15 words per warp, 30 in all, one instruction pair.
  ASSERT_EQ(r.warnings(), 1);
  EXPECT_EQ(r.hazards[1].kind, Hazard::Kind::IntraWarp);
  EXPECT_EQ(r.hazards[1].occurrences, 30u);
  EXPECT_EQ(r.hazards[1].phase, 1u);
}

// Harris's kernel 3/4 with the barrier inside `if (tid < s)` (seed 001's exercise): thread 0
// reaches it log2(64) = 6 times, threads 32-63 never.
TEST(InstrumentedHazards, BarrierInsideABranchIsDivergence) {
  Block b(64);
  for (uint32_t t = 0; t < 64; ++t) {
    b.shared(t, trace::kStore, kStoreLoad, t);
    b.barrier(t, kBarLoad);
    for (uint32_t s = 32; s > 0; s >>= 1)
      if (t < s) {
        b.shared(t, trace::kLoad, kLoadMine, t);
        b.shared(t, trace::kLoad, kLoadOther, t + s);
        b.shared(t, trace::kStore, kStoreSum, t);
        b.barrier(t, kBarLoop);
      }
  }
  b.finish();
  const HazardReport r = findSharedHazards(b.raw);
  const Hazard* d = nullptr;
  for (const Hazard& h : r.hazards)
    if (h.kind == Hazard::Kind::BarrierDivergence) d = &h;
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->first.pc, kBarLoop);
  EXPECT_EQ(d->first.thread, 0u);
  EXPECT_EQ(d->first.sequence, 6u);
  EXPECT_EQ(d->second.thread, 32u);
  EXPECT_EQ(d->second.sequence, 0u);
  EXPECT_NE(d->message.find("reached 6 times by thread 0 but 0 times by thread 32"), std::string::npos) << d->message;
  EXPECT_GE(r.failures(), 1);
}

// The unrolled last warp: 32 lanes, stages off = 16, 8, 4, 2, 1 of `v = s[t] + s[t + off]; s[t] = v`.
Block warpStages(bool syncwarp) {
  Block b(32);
  for (uint32_t t = 0; t < 32; ++t) {
    for (uint32_t off = 16; off > 0; off >>= 1) {
      b.shared(t, trace::kLoad, kLoadMine, t);
      b.shared(t, trace::kLoad, kLoadOther, t + off);
      if (syncwarp) b.add(t, kRawSyncWarp, 0, 0x300, 0xffffffff, 0);
      b.shared(t, trace::kStore, kStoreSum, t);
      if (syncwarp) b.add(t, kRawSyncWarp, 0, 0x310, 0xffffffff, 0);
    }
  }
  b.finish();
  return b;
}

TEST(InstrumentedHazards, WarpStagesNeedSyncwarp) {
  const HazardReport with = findSharedHazards(warpStages(true).raw);
  EXPECT_TRUE(with.hazards.empty()) << with.hazards.front().message;
  const HazardReport without = findSharedHazards(warpStages(false).raw);
  EXPECT_EQ(without.failures(), 0);  // one warp: never a cross-warp race
  // Word w (1 ... 31) is stored by lane w and read as s[t + off] by lane w - off (w - 1 at least):
  // one instruction pair (store, the other lane's load), 31 words; s[0] only lane 0 touches.
  ASSERT_EQ(without.warnings(), 1);
  EXPECT_EQ(without.hazards.front().first.pc, kStoreSum);
  EXPECT_EQ(without.hazards.front().second.pc, kLoadOther);
  EXPECT_EQ(without.hazards.front().occurrences, 31u);
  EXPECT_NE(without.hazards.front().message.find("__syncwarp()"), std::string::npos);
}

TEST(InstrumentedHazards, AtomicsAndOwnAccessesAreNoHazard) {
  Block b(64);
  for (uint32_t t = 0; t < 64; ++t) {
    b.shared(t, trace::kAtomic, 0x500, 0);  // atomicAdd(&count, 1) from both warps
    b.shared(t, trace::kStore, 0x510, 1 + t);
    b.shared(t, trace::kLoad, 0x520, 1 + t);  // its own word back
  }
  b.finish();
  const HazardReport r = findSharedHazards(b.raw);
  EXPECT_TRUE(r.hazards.empty()) << r.hazards.front().message;
  EXPECT_EQ(r.sharedAccesses, 192u);
}

}  // namespace
