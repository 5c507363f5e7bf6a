// The CPU trace model and the analyses the views draw: the seed's tables, divergence, bank
// conflicts, coalescing, and a model result equal to the reference for one-block inputs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "reducelab/reference.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/trace.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

TraceData model(const std::string& kernel, int block, ElemType type = ElemType::Int32,
                uint64_t n = 1 << 20, uint64_t grid = 0) {
  RunConfig c;
  c.kernel = kernel;
  c.block = block;
  c.type = type;
  c.n = n;
  if (grid == 0) grid = blocksToCover(*findKernel(kernel), n, block, type);
  std::string err;
  TraceData t = modelTrace(c, grid, 9, &err);
  EXPECT_TRUE(t.valid()) << err;
  return t;
}

std::vector<int> warpsWithWork(const TraceSummary& s) {
  std::vector<int> v;
  for (const auto& st : s.steps) v.push_back(st.warpsWithWork);
  return v;
}

}  // namespace

// Seed 000's table for Kernel04 (our k3) at 512 threads: warps with work per step and useful
// threads per warp: "16 8 4 2 1 1 1 1 1 1 / 32 32 32 32 32 16 8 4 2 1".
TEST(TraceModel, SeedTableOfSequentialAddressing) {
  TraceSummary s = summarize(model("k3", 512));
  ASSERT_EQ(s.steps.size(), 11u);  // load, 9 levels, result
  const std::vector<int> warps = {16, 8, 4, 2, 1, 1, 1, 1, 1, 1};
  const std::vector<int> lanes = {32, 32, 32, 32, 32, 16, 8, 4, 2, 1};
  for (size_t i = 0; i < warps.size(); ++i) {
    EXPECT_EQ(s.steps[i].warpsWithWork, warps[i]) << "step " << i;
    for (int a : s.steps[i].activeLanes)
      if (a) EXPECT_EQ(a, lanes[i]) << "step " << i;
  }
}

TEST(TraceModel, Kernel1DivergesEveryWarp) {
  TraceSummary s = summarize(model("k1", 256));
  // s = 1: all 8 warps have work, each with only 16 of 32 lanes.
  EXPECT_EQ(s.steps[1].label, "s = 1");
  EXPECT_EQ(s.steps[1].warpsWithWork, 8);
  for (int a : s.steps[1].activeLanes) EXPECT_EQ(a, 16);
  EXPECT_EQ(s.steps[4].warpsWithWork, 8);  // s = 8: still every warp, 2 lanes each
  for (int a : s.steps[4].activeLanes) EXPECT_EQ(a, 2);
  EXPECT_EQ(s.loadConflicts(), 0);
}

TEST(TraceModel, Kernel2HasBankConflictsKernel3None) {
  TraceSummary s2 = summarize(model("k2", 256));
  EXPECT_EQ(s2.steps[1].maxDegree, 2);  // index = 2*tid: two lanes per bank
  EXPECT_EQ(s2.steps[2].maxDegree, 4);
  EXPECT_EQ(s2.steps[3].maxDegree, 8);
  EXPECT_GT(s2.loadConflicts(), 0);
  EXPECT_GT(s2.storeConflicts(), 0);
  TraceSummary s3 = summarize(model("k3", 256));
  for (const auto& st : s3.steps) EXPECT_LE(st.maxDegree, 1) << st.label;
  EXPECT_EQ(s3.loadConflicts(), 0);
  EXPECT_EQ(s3.storeConflicts(), 0);
}

TEST(TraceModel, EightByteAccessesUseTwoPhasesWithoutConflict) {
  TraceData t = model("k3", 256, ElemType::Float64);
  auto acc = bankAccesses(t, 1, 0);  // s = 128, warp 0: three accesses of 8 bytes
  ASSERT_EQ(acc.size(), 3u);
  for (const BankAccess& a : acc) {
    EXPECT_EQ(a.bytes, 8);
    EXPECT_EQ(a.wavefronts, 2);
    EXPECT_EQ(a.idealWavefronts, 2);
    EXPECT_EQ(a.degree, 1);
  }
  // Kernel 2 with doubles at s = 1: lanes 16 bytes apart, 2-way within each half-warp.
  TraceData t2 = model("k2", 256, ElemType::Float64);
  auto acc2 = bankAccesses(t2, 1, 0);
  ASSERT_FALSE(acc2.empty());
  EXPECT_EQ(acc2[0].degree, 2);
  EXPECT_EQ(acc2[0].wavefronts, 4);
}

TEST(TraceModel, BroadcastIsNotAConflict) {
  // Warp-sum reads of k8: lanes past the number of warps all read word 0.
  TraceData t = model("k8", 128, ElemType::Int32, 1 << 16, 16);
  int step = -1;
  for (int s = 0; s < t.numSteps(); ++s)
    if (t.steps[size_t(s)].kind == trace::kStepWarpLoad) step = s;
  ASSERT_GE(step, 0);
  auto acc = bankAccesses(t, step, 0);
  ASSERT_EQ(acc.size(), 1u);
  EXPECT_EQ(acc[0].degree, 1);
  EXPECT_EQ(acc[0].wavefronts, 1);
}

TEST(TraceModel, CoalescingOfLoads) {
  // One float per lane: a warp touches 4 sectors; 16-byte loads: 16 sectors per request.
  TraceSummary s3 = summarize(model("k3", 256, ElemType::Float32));
  EXPECT_EQ(s3.steps[0].globalRequests, 8);
  EXPECT_EQ(s3.steps[0].globalSectors, 32);
  TraceSummary s10 = summarize(model("k10", 256, ElemType::Float32, 1 << 22, 64));
  EXPECT_EQ(s10.steps[0].globalRequests, 32);  // 8 warps x 4 loads
  EXPECT_EQ(s10.steps[0].globalSectors, 32 * 16);
}

TEST(TraceModel, SingleBlockResultEqualsTheReference) {
  for (const std::string& k : catalogueKeys(true))
    for (ElemType type : {ElemType::Int32, ElemType::Float64}) {
      RunConfig c;
      c.kernel = k;
      c.block = 128;
      c.type = type;
      c.n = 100;  // one block covers it
      c.data = DataPattern::IntRange;
      std::string err;
      TraceData t = modelTrace(c, 1, 9, &err);
      ASSERT_TRUE(t.valid()) << k << ": " << err;
      const trace::LaneRecord& r = t.lane(t.numSteps() - 1, 0);
      EXPECT_EQ(t.steps.back().kind, trace::kStepBlockResult) << k;
      EXPECT_EQ(r.value, double(computeReference(c, 1).exact)) << k << " " << name(type);
    }
}

TEST(TraceModel, StepsFitTheBufferAtEveryBlockSize) {
  for (const std::string& k : catalogueKeys(true))
    for (int b : {32, 64, 128, 256, 512, 1024}) {
      if (b < findKernel(k)->minBlock) continue;
      TraceData t = model(k, b, ElemType::Float32, 1 << 20);
      EXPECT_LE(t.numSteps(), trace::kMaxSteps);
      std::string err;
      std::vector<uint8_t> bytes = t.toBuffer();
      TraceData back = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
      EXPECT_EQ(compareTraces(t, back, 0), "") << k << " " << b;
    }
}

TEST(TraceModel, RefusesWhatTheKernelsRefuse) {
  RunConfig c;
  c.kernel = "k5";
  c.block = 32;
  std::string err;
  EXPECT_FALSE(modelTrace(c, 1, 9, &err).valid());
  EXPECT_NE(err.find("64"), std::string::npos);
  c.kernel = "cub";
  c.block = 256;
  EXPECT_FALSE(modelTrace(c, 1, 9, &err).valid());
  c.kernel = "k3";
  c.tracedBlock = 5;
  EXPECT_FALSE(modelTrace(c, 2, 9, &err).valid());
  EXPECT_NE(err.find("does not exist"), std::string::npos);
}

TEST(TraceModel, CompareReportsTheFirstDifference) {
  TraceData a = model("k3", 64), b = a;
  EXPECT_EQ(compareTraces(a, b, 0), "");
  b.lanes[70].value += 1;
  EXPECT_NE(compareTraces(a, b, 0), "");
  EXPECT_EQ(compareTraces(a, b, 1.0), "");
  b = a;
  b.lanes[70].flags ^= trace::kLaneActive;
  EXPECT_NE(compareTraces(a, b, 1.0).find("thread"), std::string::npos);
}

// Grid-stride steps: the lane records hold the first iteration, the step's totals every
// iteration's loads, so the totals equal what the block reads.
TEST(TraceModel, GridStrideTotalsCountEveryIteration) {
  // k7, block 512, N = 2^24 float32, grid 512: stride 2 x 512 x 512 = 2^19 elements, so 32
  // iterations. Per iteration a block loads 1024 floats = 4096 B = 128 sectors in 16 warps x 2
  // loads = 32 requests; over 32 iterations 4096 sectors, 1024 requests, 131072 B = N / grid x 4 B.
  TraceData t = model("k7", 512, ElemType::Float32, 1 << 24, 512);
  ASSERT_EQ(t.steps[0].kind, trace::kStepGridStride);
  EXPECT_EQ(t.steps[0].maxIterations, 32u);
  TraceSummary s = summarize(t);
  EXPECT_EQ(s.steps[0].globalSectors, 128);  // the first iteration (the lane detail)
  EXPECT_EQ(s.steps[0].globalRequests, 32);
  EXPECT_EQ(s.steps[0].totalLoadSectors, 4096u);
  EXPECT_EQ(s.steps[0].totalLoadRequests, 1024u);
  EXPECT_EQ(s.steps[0].totalLoadBytes, 131072u);
  EXPECT_EQ(s.totalLoadBytes, uint64_t(1 << 24) / 512 * 4);

  // A ragged end: k7, block 256, N = 1000, one block (stride 512). Iteration 0 loads elements
  // 0..255 and 256..511 (8 + 8 requests, 32 + 32 sectors); iteration 1 loads 512..767 (8
  // requests, 32 sectors) and 768..999 (lanes 0..231: warps 0-6 whole, 4 sectors each, warp 7
  // lanes 224..231 = bytes 3968..3999, 1 sector: 8 requests, 29 sectors). 125 sectors =
  // ceil(4000 / 32), 32 requests, 4000 bytes.
  s = summarize(model("k7", 256, ElemType::Float32, 1000, 1));
  EXPECT_EQ(s.steps[0].totalLoadSectors, 125u);
  EXPECT_EQ(s.steps[0].totalLoadRequests, 32u);
  EXPECT_EQ(s.steps[0].totalLoadBytes, 4000u);

  // k10, block 256, N = 2^20 + 3 float32, one block: 2^18 vectors of 16 B, 1024 per iteration
  // (256 threads x 4 loads), so 256 iterations of 8 warps x 4 loads = 32 requests of 16 sectors
  // (32 lanes x 16 B = 512 B); then the scalar tail, 3 floats (lanes 0-2 of warp 0): 1 request,
  // 1 sector, 12 B. Totals: 8193 requests, 131073 sectors = ceil((2^22 + 12) / 32), 2^22 + 12 B.
  s = summarize(model("k10", 256, ElemType::Float32, (1 << 20) + 3, 1));
  EXPECT_EQ(s.steps[0].totalLoadRequests, 8193u);
  EXPECT_EQ(s.steps[0].totalLoadSectors, 131073u);
  EXPECT_EQ(s.steps[0].totalLoadBytes, uint64_t(1 << 22) + 12);

  // Without a loop the totals are the lane detail: k3, block 256, float32: 8 requests, 32 sectors.
  s = summarize(model("k3", 256, ElemType::Float32));
  EXPECT_EQ(s.steps[0].totalLoadRequests, uint64_t(s.steps[0].globalRequests));
  EXPECT_EQ(s.steps[0].totalLoadSectors, uint64_t(s.steps[0].globalSectors));
  EXPECT_EQ(s.steps[0].totalLoadSectors, 32u);
}

// k14 (bulk copies): block 128 float32, N = 5 tiles of 128 x 16 B + 3 floats, grid 2. Block 0
// copies tiles 0, 2, 4 (3 bulk copies of 2048 B = 64 sectors each), then 3 floats of the tail in
// warp 0 (1 request, 1 sector, 12 B). Each thread reads its vector of each tile from the ring at
// 256 + 16 t (the first tile's stage): 16 B a lane, 4 wavefronts a warp, no conflict.
TEST(TraceModel, BulkCopiesCountOneRequestPerTileAndTheStageReadsAreConflictFree) {
  const uint64_t n = 5 * 128 * 4 + 3;
  TraceData t = model("k14", 128, ElemType::Float32, n, 2);
  ASSERT_EQ(t.steps[0].kind, trace::kStepGridStride);
  EXPECT_EQ(t.steps[0].slots[0].space, trace::kSpaceShared);
  EXPECT_EQ(t.steps[0].slots[0].bytes, 16);
  EXPECT_EQ(t.steps[0].maxIterations, 3u);
  EXPECT_EQ(t.lane(0, 5).addr[0], kBulkRingOffset + 5 * 16);
  EXPECT_EQ(t.lane(0, 5).iterations, 3u);
  TraceSummary s = summarize(t);
  EXPECT_EQ(s.steps[0].totalLoadRequests, 3u + 1u);
  EXPECT_EQ(s.steps[0].totalLoadSectors, 3u * 64u + 1u);
  EXPECT_EQ(s.steps[0].totalLoadBytes, 3u * 2048u + 12u);
  EXPECT_EQ(s.steps[0].maxDegree, 1);
  EXPECT_EQ(s.steps[0].loadWavefronts, 4 * 4);  // 4 warps x 4 quarter-warp phases
  EXPECT_EQ(s.steps[0].loadWavefronts, s.steps[0].idealLoadWavefronts);
  // Block 1: tiles 1 and 3, no tail.
  RunConfig c;
  c.kernel = "k14";
  c.block = 128;
  c.type = ElemType::Float32;
  c.n = n;
  c.tracedBlock = 1;
  std::string err;
  s = summarize(modelTrace(c, 2, 9, &err));
  EXPECT_EQ(s.steps[0].totalLoadRequests, 2u);
  EXPECT_EQ(s.steps[0].totalLoadBytes, 2u * 2048u);
}

// Every global load of the block is in some step's totals: for each traceable kernel the totals
// over all steps are the block's share of the input, in bytes.
TEST(TraceModel, TotalsEqualTheBytesEachBlockReads) {
  for (const std::string& k : catalogueKeys(true))
    for (ElemType type : {ElemType::Int32, ElemType::Float64}) {
      const uint64_t n = (1 << 20) + 5;
      const int block = 128;
      const uint64_t grid = 3;
      RunConfig c;
      c.kernel = k;
      c.block = block;
      c.type = type;
      c.n = n;
      uint64_t bytes = 0;
      const uint64_t blocks = std::min<uint64_t>(grid, blocksToCover(*findKernel(k), n, block, type));
      for (uint64_t b = 0; b < blocks; ++b) {
        c.tracedBlock = b;
        std::string err;
        TraceData t = modelTrace(c, blocks, 9, &err);
        ASSERT_TRUE(t.valid()) << k << ": " << err;
        bytes += summarize(t).totalLoadBytes;
      }
      // One-pass kernels cover only their grid's share: compare what `blocks` blocks cover.
      const KernelInfo& info = *findKernel(k);
      const uint64_t covered = info.shape == GridShape::GridStride
                                   ? n
                                   : std::min<uint64_t>(n, blocks * block * elemsPerIteration(info, type));
      EXPECT_EQ(bytes, covered * elemBytes(type)) << k << " " << name(type);
    }
}

namespace rl {
namespace {

// Every kernel's CPU-model trace, as bytes, is read back by the readers that take traces from
// files and pipes (TraceData::fromBuffer, checkTraceContent): they refused the matrix families'
// step kinds (10-14) once the families came, so the GPU's transpose traces failed to load.
TEST(TraceModel, EveryKernelsTraceReadsBackThroughTheFileAndPipeReaders) {
  const DeviceInfo d = assumedH200();
  for (const KernelInfo& k : catalogue()) {
    if (!k.traceable) continue;
    RunConfig c;
    c.kernel = std::string(k.key);
    c.block = 256;
    c.n = 100003;
    if (k.family != Family::Reduction) {
      c.type = ElemType::Float32;
      const bool half = k.swapsTiles != k.swapsElements;  // seed 004's halves: square, whole tiles
      rl::test::setParam(c, "rows", half ? 96 : 100);
      rl::test::setParam(c, "cols", half ? 96 : 77);
      rl::test::setParam(c, "inner", 33);
      normalizeConfig(c);
    }
    ASSERT_EQ(validate(c, &d), "") << k.key;
    std::string err;
    const TraceData t = modelTrace(c, assumedGeometry(c, d).grid(), d.ccMajor, &err);
    ASSERT_TRUE(t.valid()) << k.key << ": " << err;
    const std::vector<uint8_t> bytes = t.toBuffer();
    const TraceData back = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
    EXPECT_TRUE(back.valid()) << k.key << ": " << err;
    if (back.valid()) EXPECT_EQ(checkTraceContent(back), "") << k.key;
  }
}

}  // namespace
}  // namespace rl

// The bank model against the H200 itself: 1,438 one-warp shared loads of 4, 8 and 16 bytes
// (plain, broadcasts, pairs, strides, partial warps, random, every tiled-matmul read), each
// measured alone under Nsight Compute (scripts/bank_probe.py). The model must give the
// hardware's wavefront count for every one.
TEST(TraceModel, BankModelGivesTheH200sWavefrontsForEveryProbedPattern) {
  std::ifstream in(rl::test::sourceDir() + "/tests/data/bank-probe-h200.txt");
  ASSERT_TRUE(in) << "missing tests/data/bank-probe-h200.txt";
  TraceData t;
  t.header.magic = trace::kMagic;
  t.header.blockSize = 32;
  t.steps.resize(1);
  t.lanes.resize(32);
  std::string line;
  int patterns = 0, wrong = 0;
  int byWidth[17] = {};
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    int width = 0, l1 = 0, sass = 0;
    row >> width >> l1 >> sass;
    t.steps[0] = trace::StepHeader{};
    t.steps[0].kind = trace::kStepDotTerm;
    t.steps[0].slots[0] = {trace::kSpaceShared, trace::kLoad, uint8_t(width), 0};
    t.steps[0].numSlots = 1;
    for (int l = 0; l < 32; ++l) {
      int offset = -1;
      row >> offset;
      t.lanes[size_t(l)] = trace::LaneRecord{};
      if (offset >= 0) {
        t.lanes[size_t(l)].flags = trace::kLaneActive | trace::slotBit(0);
        t.lanes[size_t(l)].addr[0] = offset;
      }
    }
    ASSERT_TRUE(row) << "bad line: " << line;
    const auto acc = bankAccesses(t, 0, 0);
    const int model = acc.empty() ? 0 : acc[0].wavefronts;
    if (model != l1 && ++wrong <= 10) ADD_FAILURE() << width << "-byte pattern: model " << model << ", H200 " << l1 << ": " << line;
    ++patterns;
    ++byWidth[width];
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_GE(patterns, 1438);
  EXPECT_GE(byWidth[4], 300);
  EXPECT_GE(byWidth[8], 900);
  EXPECT_GE(byWidth[16], 70);
}

// A slot of 12 bytes once gave 10-lane phases whose loop read past the warp's 32 lanes: traces from
// files and pipes refuse sizes other than 1, 2, 4, 8, 16 bytes, and the analysis keeps every phase
// inside the warp whatever it is handed.
TEST(TraceModel, OddAccessSizesAreRefusedAndPhasesStayInsideTheWarp) {
  TraceData t = model("k3", 256, ElemType::Float32);
  ASSERT_GE(t.numSteps(), 2);
  t.steps[1].slots[0].bytes = 12;
  std::string err;
  const std::vector<uint8_t> bytes = t.toBuffer();
  EXPECT_FALSE(TraceData::fromBuffer(bytes.data(), bytes.size(), &err).valid());
  EXPECT_NE(err.find("bad access slot"), std::string::npos) << err;
  for (const BankAccess& a : bankAccesses(t, 1, 0)) {
    EXPECT_EQ(32 % std::min(a.phaseLanes, 32), 0) << a.phaseLanes;
    EXPECT_GE(a.wavefronts, 1);
    EXPECT_LE(a.wavefronts, 128);
  }
}
