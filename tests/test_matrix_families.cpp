// The matrix families (transpose, matmul) on the CPU: validation of their parameters, the CPU
// model's bank-conflict degrees and coalescing (the numbers the views show), edge tiles of
// sizes that are not multiples of the tile, the output check, the peak FLOP/s, sweeps and
// sessions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "reducelab/datagen.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/matrix.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/sweep.hpp"
#include "reducelab/trace.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

RunConfig matrixConfig(const std::string& kernel, uint64_t rows, uint64_t cols, int tile = 0,
                       ElemType type = ElemType::Float32, uint64_t inner = 64) {
  RunConfig c;
  c.kernel = kernel;
  rl::test::setParam(c, "rows", rows);
  rl::test::setParam(c, "cols", cols);
  rl::test::setParam(c, "inner", inner);
  rl::test::setParam(c, "tile", uint64_t(tile));
  c.type = type;
  normalizeConfig(c);
  return c;
}

TraceData modelOf(const RunConfig& c) {
  std::string err;
  const Geometry g = planGeometry(*findKernel(c.kernel), c, 1);
  TraceData t = modelTrace(c, g.grid(), 9, &err);
  EXPECT_TRUE(t.valid()) << err;
  return t;
}

// Worst conflict degree of the steps of one kind, over every warp.
int worstDegree(const TraceData& t, uint32_t kind, bool stores) {
  int worst = 0;
  for (int s = 0; s < t.numSteps(); ++s) {
    if (t.steps[size_t(s)].kind != kind) continue;
    for (const BankAccess& a : bankAccesses(t, s, -1))
      if (a.store == stores) worst = std::max(worst, a.degree);
  }
  return worst;
}

}  // namespace

TEST(MatrixValidation, TheFamiliesOwnParametersAreChecked) {
  RunConfig ok = matrixConfig("tr-tile", 1000, 777);
  EXPECT_EQ(validate(ok, nullptr), "");
  EXPECT_EQ(ok.block, 32 * 8);  // the seed's 32 x 8 threads
  EXPECT_EQ(ok.n, 1000u * 777u);
  EXPECT_EQ(matrixConfig("mm-tiled", 10, 10, 29).block, 29 * 29);
  EXPECT_EQ(matrixConfig("tr-naive", 10, 10, 8).block, 64);

  RunConfig c = matrixConfig("tr-tile", 64, 64, 12);
  EXPECT_NE(validate(c, nullptr).find("no tile of 12"), std::string::npos) << validate(c, nullptr);
  c = matrixConfig("mm-tiled", 64, 64, 0, ElemType::Int32);
  EXPECT_NE(validate(c, nullptr).find("float32 or float64"), std::string::npos);
  c = matrixConfig("tr-padded", 0, 64);
  EXPECT_NE(validate(c, nullptr).find("rows = 0"), std::string::npos) << validate(c, nullptr);
  c = matrixConfig("tr-padded", 64, kMaxMatrixSide + 1);
  EXPECT_NE(validate(c, nullptr).find("cols"), std::string::npos);
  c = matrixConfig("tr-naive", 32768, 32768);
  EXPECT_NE(validate(c, nullptr).find("2^28"), std::string::npos) << validate(c, nullptr);
  c = matrixConfig("mm-naive", 4096, 4096, 0, ElemType::Float32, 4096);
  EXPECT_NE(validate(c, nullptr).find("above the limit"), std::string::npos) << validate(c, nullptr);
  c = matrixConfig("tr-tile", 64, 64);
  c.block = 512;  // a block that is not the tile's: refused, not silently relaunched
  EXPECT_NE(validate(c, nullptr).find("threads per block"), std::string::npos) << validate(c, nullptr);
  c = matrixConfig("tr-tile", 64, 64);
  c.op = Op::Max;
  EXPECT_NE(validate(c, nullptr).find("reductions only"), std::string::npos);
  c = matrixConfig("tr-tile", 64, 64);
  c.final = FinalStage::Cpu;
  EXPECT_NE(validate(c, nullptr), "");
  // A reduction has no matrix parameters: setting them does nothing.
  RunConfig r;
  r.kernel = "k3";
  EXPECT_EQ(ownParameter(r, "rows"), nullptr);
  rl::test::setParam(r, "rows", 0);
  rl::test::setParam(r, "tile", 7);
  EXPECT_EQ(validate(r, nullptr), "");
}

TEST(MatrixValidation, OddSizesPlanRaggedEdgeTiles) {
  const RunConfig c = matrixConfig("tr-padded", 1000, 777);
  const Geometry g = planGeometry(*findKernel(c.kernel), c, 1);
  EXPECT_EQ(g.gridX, 25u);  // ceil(777 / 32)
  EXPECT_EQ(g.gridY, 32u);  // ceil(1000 / 32)
  EXPECT_EQ(g.blockX, 32u);
  EXPECT_EQ(g.blockY, 8u);
  EXPECT_EQ(g.smemBytes, 32u * 33u * 4u);
  const RunConfig m = matrixConfig("mm-tiled", 100, 70, 29, ElemType::Float64, 33);
  const Geometry gm = planGeometry(*findKernel(m.kernel), m, 1);
  EXPECT_EQ(gm.gridX, 3u);
  EXPECT_EQ(gm.gridY, 4u);
  EXPECT_EQ(gm.smemBytes, 2u * 29u * 29u * 8u);
}

// The seed's point: the column read of an unpadded 32 x 32 float tile is a 32-way bank
// conflict; padding (TILE + 1) or an XOR swizzle removes it; the row writes never conflict.
TEST(MatrixModel, TransposeColumnReadConflicts) {
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-tile", 1024, 1024)), trace::kStepTileStore, false), 32);
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-padded", 1024, 1024)), trace::kStepTileStore, false), 1);
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-swizzle", 1024, 1024)), trace::kStepTileStore, false), 1);
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-diagonal", 1024, 1024)), trace::kStepTileStore, false), 1);
  for (const char* k : {"tr-tile", "tr-padded", "tr-swizzle"})
    EXPECT_EQ(worstDegree(modelOf(matrixConfig(k, 1024, 1024)), trace::kStepTileLoad, true), 1) << k;
  // A 16-wide tile: a warp covers two tile rows (16 lanes each), and a column of words 16 apart
  // falls in two banks: 8-way. Padding by one word leaves a 2-way conflict (lane 31 reads word
  // 17 x 15 + c + 1 = 256 + c, in lane 0's bank c); the XOR swizzle has none.
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-tile", 256, 256, 16)), trace::kStepTileStore, false), 8);
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-padded", 256, 256, 16)), trace::kStepTileStore, false), 2);
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-swizzle", 256, 256, 16)), trace::kStepTileStore, false), 1);
  // float64: the unpadded tile still conflicts, the padded and swizzled ones do not.
  EXPECT_GT(worstDegree(modelOf(matrixConfig("tr-tile", 256, 256, 32, ElemType::Float64)), trace::kStepTileStore, false), 1);
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-padded", 256, 256, 32, ElemType::Float64)), trace::kStepTileStore, false), 1);
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-swizzle", 256, 256, 32, ElemType::Float64)), trace::kStepTileStore, false), 1);
  // The summary (what `trace` prints and the ncu step compares): 31 extra wavefronts per
  // warp-wide column read of the unpadded tile.
  const TraceSummary plain = summarize(modelOf(matrixConfig("tr-tile", 1024, 1024)));
  const TraceSummary padded = summarize(modelOf(matrixConfig("tr-padded", 1024, 1024)));
  EXPECT_EQ(plain.loadConflicts(), 8 * 4 * 31);  // 8 warps x 4 row steps x 31
  EXPECT_EQ(padded.loadConflicts(), 0);
  EXPECT_EQ(plain.storeConflicts(), 0);
}

// The naive transpose reads rows (4 sectors per warp for float32) and writes columns (32
// sectors per warp: one per lane); the tiled one writes rows.
TEST(MatrixModel, NaiveTransposeWritesAreStrided) {
  const TraceSummary naive = summarize(modelOf(matrixConfig("tr-naive", 1024, 1024)));
  ASSERT_EQ(naive.steps.size(), 4u);
  for (const StepSummary& s : naive.steps) {
    EXPECT_EQ(s.globalRequests, 8);
    EXPECT_EQ(s.globalSectors, 8 * 4);
    EXPECT_EQ(s.globalStoreRequests, 8);
    EXPECT_EQ(s.globalStoreSectors, 8 * 32);
  }
  const TraceSummary tiled = summarize(modelOf(matrixConfig("tr-padded", 1024, 1024)));
  for (const StepSummary& s : tiled.steps)
    if (s.kind == trace::kStepTileStore) EXPECT_EQ(s.globalStoreSectors, 8 * 4);
}

// The tiled matmul's inner loop, term by term: As[ty][n] is one address per warp row (a
// broadcast; read 16 bytes at a time where the rows are 16-byte aligned), Bs[n][tx] consecutive
// words: neither conflicts, for every tile, the odd 29 included, with one exception the model
// finds: 29 (and 24) in float64, where a half-warp phase of Bs's read holds tx 16..28 of one row
// and tx 0..2 of the next (24: tx 16..23 and 0..7), whose words share banks: 2-way for some terms.
TEST(MatrixModel, MatmulTileReadsAreBroadcastAndConflictFree) {
  for (int tile : {8, 16, 24, 32, 29})
    for (ElemType type : {ElemType::Float32, ElemType::Float64}) {
      SCOPED_TRACE("tile " + std::to_string(tile) + " " + std::string(name(type)));
      const TraceData t = modelOf(matrixConfig("mm-tiled", 128, 128, tile, type, 128));
      const int elem = int(elemBytes(type)), vec = matmulRowVector(tile, elem);
      std::vector<int> terms;
      for (int s = 0; s < t.numSteps(); ++s)
        if (t.steps[size_t(s)].kind == trace::kStepDotTerm) terms.push_back(s);
      ASSERT_EQ(int(terms.size()), tile) << "one step per term of the loop";
      // A warp that spans two rows of the tile in double: a half-warp phase holds the end of one row
      // and the start of the next, whose words of Bs share banks (29, and the seed's other odd size 24).
      const bool oddDouble = (tile == 29 || tile == 24) && type == ElemType::Float64;
      int worstB = 0, aReads = 0;
      for (int s : terms)
        for (int w = 0; w < t.numWarps(); ++w)
          for (const BankAccess& a : bankAccesses(t, s, w)) {
            if (a.slot == 1) worstB = std::max(worstB, a.degree);
            if (a.slot == 0) {
              ++aReads;
              EXPECT_EQ(a.bytes, vec * elem) << "As is read " << vec << " elements at a time";
            }
            if (oddDouble && a.slot == 1) continue;
            EXPECT_EQ(a.degree, 1) << "step " << s << " warp " << w << " slot " << a.slot;
            EXPECT_EQ(a.wavefronts, a.idealWavefronts);
            if (a.slot == 0 && tile == 32) {  // a whole warp on one row of As: one address
              std::set<int> words;
              for (int l = 0; l < 32; ++l)
                if (a.word[l] >= 0) words.insert(a.word[l]);
              EXPECT_EQ(words.size(), 1u) << "A-tile read is a broadcast";
              EXPECT_EQ(a.wavefronts, vec > 1 ? 2 : 1) << "a packed broadcast: 2 wavefronts for 16 bytes";
            }
          }
      EXPECT_EQ(aReads, (tile / vec) * t.numWarps());
      EXPECT_EQ(worstB, oddDouble ? 2 : 1);
    }
}

// The seed's naive mapping (threadIdx.x walks rows): a warp's A reads are a column, one
// sector per lane; its B reads are one address.
TEST(MatrixModel, NaiveMatmulReadsAColumnOfA) {
  const TraceData t = modelOf(matrixConfig("mm-naive", 256, 256, 32, ElemType::Float32, 256));
  const TraceSummary s = summarize(t);
  ASSERT_EQ(s.steps.front().kind, trace::kStepDot);
  // Lane detail (first k): A slot 32 sectors per warp, B slot 1.
  EXPECT_EQ(s.steps.front().globalRequests, 2 * t.numWarps());
  EXPECT_EQ(s.steps.front().globalSectors, (32 + 1) * t.numWarps());
  // Every k of the loop: 256 x (32 + 1) sectors per warp.
  EXPECT_EQ(s.steps.front().totalLoadSectors, uint64_t(256) * 33 * t.numWarps());
  const TraceSummary tiled = summarize(modelOf(matrixConfig("mm-tiled", 256, 256, 32, ElemType::Float32, 256)));
  EXPECT_EQ(tiled.steps.front().totalLoadSectors, uint64_t(2 * 4) * t.numWarps());  // rows of A and B
}

// Edge tiles of sizes that are not multiples of the tile: only the lanes inside the matrix
// work, and their addresses stay inside it.
TEST(MatrixModel, EdgeTilesOfOddSizes) {
  for (const char* k : {"tr-naive", "tr-tile", "tr-padded", "tr-swizzle", "tr-diagonal"}) {
    RunConfig c = matrixConfig(k, 100, 70);
    const Geometry g = planGeometry(*findKernel(k), c, 1);
    uint64_t lanes = 0;
    for (uint64_t b = 0; b < g.grid(); ++b) {
      c.tracedBlock = b;
      const TraceData t = modelOf(c);
      for (int s = 0; s < t.numSteps(); ++s) {
        if (t.steps[size_t(s)].kind == trace::kStepTileStore) continue;  // counted once: the reads
        for (int th = 0; th < t.blockSize(); ++th)
          if (t.lane(s, th).flags & trace::kLaneActive) {
            ++lanes;
            const int64_t byte = t.header.globalBase + t.lane(s, th).addr[0];
            EXPECT_GE(byte, 0);
            EXPECT_LT(byte, int64_t(100 * 70 * 4));
          }
      }
    }
    EXPECT_EQ(lanes, 100u * 70u) << k << ": every element read exactly once over the blocks";
  }
  const RunConfig m = matrixConfig("mm-tiled", 45, 37, 16, ElemType::Float32, 23);
  const Geometry g = planGeometry(*findKernel(m.kernel), m, 1);
  RunConfig last = m;
  last.tracedBlock = g.grid() - 1;
  const TraceData t = modelOf(last);
  int stores = 0;
  for (int th = 0; th < t.blockSize(); ++th) stores += (t.lane(t.numSteps() - 1, th).flags & trace::kLaneActive) != 0;
  EXPECT_EQ(stores, (45 - 32) * (37 - 32));  // the corner tile's share of C
}

// Seed 004's yardsticks and halves of a transpose. The check expects each one's own permutation
// (worked out here for a 64 x 64 matrix of 32-tiles, element by element), and refuses the
// others' outputs; the column read conflicts where the transposes' do (the fine half's padded
// tile: none) and the copies and the coarse half read rows; `repeat` counts every pass's bytes.
TEST(MatrixCheck, SeedYardsticksAndHalvesMoveWhatTheySay) {
  const uint64_t n = 64, t = 32;
  auto expected = [&](const std::string& key, uint64_t i, uint64_t j) -> uint64_t {
    if (key == "tr-copy" || key == "tr-copy-shared") return i * n + j;
    if (key == "tr-coarse") return ((j / t) * t + i % t) * n + (i / t) * t + j % t;  // tile moves, inside kept
    if (key == "tr-fine") return ((i / t) * t + j % t) * n + (j / t) * t + i % t;    // tile kept, inside transposed
    return j * n + i;
  };
  const std::vector<std::string> keys = {"tr-copy", "tr-copy-shared", "tr-coarse", "tr-fine", "tr-padded"};
  for (const std::string& key : keys) {
    SCOPED_TRACE(key);
    const RunConfig c = matrixConfig(key, n, n, int(t));
    ASSERT_EQ(validate(c, nullptr), "");
    const DataSpec spec = dataSpecOf(c);
    for (const std::string& other : keys) {
      std::vector<float> out(n * n);
      for (uint64_t i = 0; i < n; ++i)
        for (uint64_t j = 0; j < n; ++j) out[expected(other, i, j)] = generateElement<float>(spec, i * n + j);
      const bool same = expected(other, 1, 34) == expected(key, 1, 34) && expected(other, 33, 2) == expected(key, 33, 2);
      EXPECT_EQ(checkMatrixOutput(c, out.data()).check.pass, same) << "the output of " << other;
    }
  }
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-copy-shared", 1024, 1024)), trace::kStepTileStore, false), 1);
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-coarse", 1024, 1024)), trace::kStepTileStore, false), 1);
  EXPECT_EQ(worstDegree(modelOf(matrixConfig("tr-fine", 1024, 1024)), trace::kStepTileStore, false), 1);
  const TraceSummary copy = summarize(modelOf(matrixConfig("tr-copy", 1024, 1024)));
  for (const StepSummary& s : copy.steps) EXPECT_EQ(s.globalStoreSectors, 8 * 4) << "a copy writes rows";
  // A square matrix of whole tiles only for the halves; the copies take any shape.
  EXPECT_NE(validate(matrixConfig("tr-fine", 96, 64), nullptr), "");
  EXPECT_NE(validate(matrixConfig("tr-coarse", 100, 100), nullptr), "");
  EXPECT_EQ(validate(matrixConfig("tr-copy", 100, 77), nullptr), "");
  RunConfig r = matrixConfig("tr-copy", 1024, 1024);
  const double once = bytesMoved(r);
  EXPECT_EQ(once, 2.0 * 1024 * 1024 * 4);
  rl::test::setParam(r, "repeat", 100);
  EXPECT_EQ(validate(r, nullptr), "");
  EXPECT_EQ(bytesMoved(r), 100 * once);
  for (uint64_t bad : {uint64_t(0), uint64_t(1001)}) {
    rl::test::setParam(r, "repeat", bad);
    EXPECT_NE(validate(r, nullptr).find("repeat = " + std::to_string(bad)), std::string::npos) << validate(r, nullptr);
  }
}

// The matrices' CPU baseline (the vs CPU column, seed 003's Tabla 12): it computes what the kernel
// does (its checksum against the test's own product and permutation), is timed, and refuses a
// product that would run for minutes.
TEST(MatrixBaseline, TheCpuLoopsComputeTheKernelsResult) {
  RunConfig m = matrixConfig("mm-tiled", 37, 29, 16, ElemType::Float64, 23);
  const DataSpec spec = dataSpecOf(m);
  double expected = 0;
  for (uint64_t i = 0; i < 37; ++i)
    for (uint64_t j = 0; j < 29; ++j) {
      double v = 0;
      for (uint64_t k = 0; k < 23; ++k) v += generateElement<double>(spec, i * 23 + k) * generateElement<double>(spec, 37 * 23 + k * 29 + j);
      expected += v;
    }
  const CpuBaseline b = cpuBaselineOf(m, 3, 1.0, CpuWork{});
  ASSERT_EQ(b.error, "");
  EXPECT_EQ(b.reps, 3);
  EXPECT_GT(b.ms.median, 0);
  EXPECT_NEAR(b.result.f, expected, 1e-9 * std::fabs(expected));
  // A transpose and a copy move every element once: the checksum is the input's sum either way.
  for (const char* key : {"tr-padded", "tr-copy", "tr-fine"}) {
    RunConfig t = matrixConfig(key, 64, 64, 32);
    double sum = 0;
    for (uint64_t i = 0; i < 64 * 64; ++i) sum += double(generateElement<float>(dataSpecOf(t), i));
    const CpuBaseline tb = cpuBaselineOf(t, 2, 1.0, CpuWork{});
    ASSERT_EQ(tb.error, "") << key;
    EXPECT_NEAR(tb.result.f, sum, 1e-6 * std::fabs(sum)) << key;
  }
  RunConfig passes = matrixConfig("tr-copy", 64, 64, 32);  // the loop makes one pass: no ratio over three
  rl::test::setParam(passes, "repeat", 3);
  EXPECT_NE(cpuBaselineOf(passes, 1, 1.0, CpuWork{}).error.find("one pass"), std::string::npos);
  RunConfig big = matrixConfig("mm-naive", 2048, 2048, 16, ElemType::Float32, 1024);  // 2^32 multiply-adds
  EXPECT_NE(cpuBaselineOf(big, 1, 1.0, CpuWork{}).error.find("2^31 multiply-adds"), std::string::npos);
}

// The output check: exact for the transpose, K x eps x sum|ab| for matmul, so an error a bit
// above the tolerance fails and one below passes; the tolerance grows with K.
TEST(MatrixCheck, TransposeExactAndMatmulWithinAToleranceThatGrowsWithK) {
  RunConfig c = matrixConfig("tr-tile", 37, 53);
  std::vector<float> out(37 * 53);
  const DataSpec spec = dataSpecOf(c);
  for (uint64_t y = 0; y < 37; ++y)
    for (uint64_t x = 0; x < 53; ++x) out[x * 37 + y] = generateElement<float>(spec, y * 53 + x);
  EXPECT_TRUE(checkMatrixOutput(c, out.data()).check.pass);
  std::swap(out[5], out[6]);
  const MatrixCheck bad = checkMatrixOutput(c, out.data());
  EXPECT_FALSE(bad.check.pass);
  EXPECT_NE(bad.check.note.find("2 of"), std::string::npos) << bad.check.note;

  double previousTolerance = 0;
  for (uint64_t k : {16u, 256u, 4096u}) {
    RunConfig m = matrixConfig("mm-tiled", 40, 35, 16, ElemType::Float32, k);
    std::vector<float> cOut(40 * 35);
    for (uint64_t r = 0; r < 40; ++r)
      for (uint64_t col = 0; col < 35; ++col) cOut[r * 35 + col] = float(matmulReference(m, r, col, nullptr));
    const MatrixCheck good = checkMatrixOutput(m, cOut.data());
    EXPECT_TRUE(good.check.pass) << "K " << k;
    // Push the last element (always sampled: the ragged corner) past its tolerance.
    long double abs = 0;
    const long double exact = matmulReference(m, 39, 34, &abs);
    const double tol = double(k) * std::numeric_limits<float>::epsilon() * double(abs);
    EXPECT_GT(tol, previousTolerance);
    previousTolerance = tol;
    cOut[39 * 35 + 34] = float(double(exact) + 3 * tol);
    EXPECT_FALSE(checkMatrixOutput(m, cOut.data()).check.pass) << "K " << k;
  }
}

// Peak FLOP/s from the device: SMs x clock x 2 x FMA units of the architecture.
TEST(MatrixRates, PeakFlopsFromDeviceInfo) {
  DeviceInfo h100;
  h100.ccMajor = 9;
  h100.smCount = 132;
  h100.smClockKHz = 1980000;
  EXPECT_NEAR(peakGflops(h100, ElemType::Float32), 132 * 1.98e9 * 2 * 128 / 1e9, 1e-6);  // ~66.9 TFLOP/s
  EXPECT_NEAR(peakGflops(h100, ElemType::Float64), 132 * 1.98e9 * 2 * 64 / 1e9, 1e-6);
  DeviceInfo unknown = h100;
  unknown.ccMajor = 3;
  EXPECT_EQ(peakGflops(unknown, ElemType::Float32), 0.0);  // no guess for an architecture not in the table
  Measurement m;
  m.config = matrixConfig("mm-tiled", 1024, 1024, 32, ElemType::Float32, 1024);
  m.kernel.median = 1.0;  // 1 ms
  fillMatrixRates(m, Peaks{3000, 2000, 2500, "test"}, h100);
  EXPECT_NEAR(m.gflops, 2.0 * 1024 * 1024 * 1024 / 1e-3 / 1e9, 1e-6);
  // The share of the peak computed here: 132 SMs x 1.98 GHz x 2 FLOP x 128 FP32 lanes.
  EXPECT_NEAR(m.pctPeakFlops, 100.0 * m.gflops / (132 * 1.98e9 * 2 * 128 / 1e9), 1e-9);
  Measurement t;
  t.config = matrixConfig("tr-padded", 1024, 1024);
  t.kernel.median = 0.01;
  fillMatrixRates(t, Peaks{3000, 2000, 2500, "test"}, h100);
  EXPECT_NEAR(t.bandwidthGBs, 2.0 * 1024 * 1024 * 4 / 1e-5 / 1e9, 1e-6);  // read + write
  EXPECT_NEAR(t.pctCopy, 100.0 * t.bandwidthGBs / 2500, 1e-9);
  EXPECT_EQ(t.gflops, 0.0);
}

TEST(MatrixSweep, TileAndSizeAxes) {
  SweepSpec s;
  s.base = matrixConfig("tr-tile", 512, 512);
  s.kernels = {"tr-tile", "mm-tiled", "k3"};
  s.axis = SweepAxis::Tile;
  std::vector<std::string> skipped;
  std::string err;
  std::vector<RunConfig> tiles = planSweep(s, DeviceInfo{}, &skipped, &err);
  ASSERT_EQ(tiles.size(), 3u + 5u) << err;  // 32, 16, 8 and 16, 8, 24, 32, 29
  for (const RunConfig& c : tiles) EXPECT_EQ(validate(c, nullptr), "");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("k3"), std::string::npos);
  s.axis = SweepAxis::Size;
  s.sizeMin = 256;
  s.sizeMax = 1024;
  skipped.clear();
  std::vector<RunConfig> sizes = planSweep(s, DeviceInfo{}, &skipped, &err);
  ASSERT_EQ(sizes.size(), 2u * 6u);  // 256, 263, 512, 519, 1024, 1031 for two kernels
  EXPECT_EQ(rl::test::param(sizes[2], "rows"), 263u);  // the transpose's sides
  EXPECT_EQ(rl::test::param(sizes[2], "cols"), 263u);
  EXPECT_EQ(sizes[3].kernel, "mm-tiled");  // the product's, K too
  EXPECT_EQ(rl::test::param(sizes[3], "rows"), 263u);
  EXPECT_EQ(rl::test::param(sizes[3], "inner"), 263u);
  s.axis = SweepAxis::Block;
  skipped.clear();
  std::vector<RunConfig> blocks = planSweep(s, DeviceInfo{}, &skipped, &err);
  for (const RunConfig& c : blocks) EXPECT_EQ(c.kernel, "k3");
  EXPECT_EQ(skipped.size(), 2u);
  s.axis = SweepAxis::Kernel;  // the ladder: reductions only
  for (const RunConfig& c : planSweep(s, DeviceInfo{}, nullptr, &err))
    EXPECT_EQ(findKernel(c.kernel)->family, Family::Reduction);
}

// The command line's family parameters reach every kernel of a sweep, whatever family its base
// configuration holds (the base is the default kernel's, a reduction).
TEST(MatrixSweep, GivenParametersReachEachFamilysKernels) {
  SweepSpec s;
  s.kernels = {"tr-tile", "mm-tiled"};
  s.axis = SweepAxis::Tile;
  s.parameters = {{"rows", 500}, {"cols", 300}, {"inner", 70}, {"tile", 0}};
  std::string err;
  const std::vector<RunConfig> runs = planSweep(s, DeviceInfo{}, nullptr, &err);
  ASSERT_EQ(runs.size(), 3u + 5u) << err;  // each kernel's tiles
  for (const RunConfig& c : runs) {
    EXPECT_EQ(rl::test::param(c, "rows"), 500u) << c.kernel;
    EXPECT_EQ(rl::test::param(c, "cols"), 300u) << c.kernel;
    EXPECT_EQ(c.n, 500u * 300u) << c.kernel;
  }
  EXPECT_EQ(rl::test::param(runs.back(), "inner"), 70u);
  EXPECT_EQ(rl::test::param(runs.back(), "tile"), 29u);  // the swept tile, set after the given ones
}

// A session with matrix records keeps their sides and tile, and its rates.
TEST(MatrixSession, RoundTripKeepsTheMatrix) {
  Measurement m;
  m.config = matrixConfig("mm-tiled", 300, 200, 29, ElemType::Float64, 77);
  m.ok = true;
  m.kernelMs = {1.0, 1.1};
  m.endToEndMs = {1.0, 1.1};
  m.kernel = Stats::of(m.kernelMs);
  m.endToEnd = Stats::of(m.endToEndMs);
  m.gflops = 12.5;
  m.peakGflops = 1000;
  m.pctPeakFlops = 1.25;
  m.pctCopy = 3;
  Measurement r;
  r.config = matrixConfig("k3", 1, 1);
  r.config.kernel = "k3";
  r.ok = true;
  r.kernelMs = {1.0};
  r.endToEndMs = {1.0};
  SessionInfo s{DeviceInfo{}, Peaks{}, {"test"}, "families"};
  std::string err;
  const std::vector<Measurement> back = measurementsFromJson(sessionJson(s, {m, r}), &err);
  ASSERT_EQ(back.size(), 2u) << err;
  EXPECT_EQ(rl::test::param(back[0].config, "rows"), 300u);
  EXPECT_EQ(rl::test::param(back[0].config, "cols"), 200u);
  EXPECT_EQ(rl::test::param(back[0].config, "inner"), 77u);
  EXPECT_EQ(rl::test::param(back[0].config, "tile"), 29u);
  EXPECT_EQ(back[0].config.block, 29 * 29);
  EXPECT_DOUBLE_EQ(back[0].gflops, 12.5);
  EXPECT_DOUBLE_EQ(back[0].pctPeakFlops, 1.25);
  EXPECT_EQ(back[0].geometry.gridX, 7u);
  EXPECT_EQ(back[1].config.kernel, "k3");
  // A tampered tile that does not match the saved block is refused with a reason.
  nlohmann::json j = sessionJson(s, {m});
  for (auto& a : j["benchmarks"][0]["states"][0]["axis_values"])
    if (a["name"] == "Tile") a["value"] = 16;
  EXPECT_TRUE(measurementsFromJson(j, &err).empty());
  EXPECT_NE(err.find("threads per block"), std::string::npos) << err;
}
