// CPU-side logic of the compute core: parsing, validation, geometry, reference, tolerance,
// statistics, occupancy, formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

#include "reducelab/family.hpp"
#include "reducelab/catalogue.hpp"
#include "reducelab/config.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/formats/table_writers.hpp"
#include "reducelab/run_tables.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/stats.hpp"
#include "test_support.hpp"

using namespace rl;

TEST(ParseCount, AcceptsTheDocumentedForms) {
  std::string e;
  EXPECT_EQ(parseCount("16777216", &e).value(), 16777216u);
  EXPECT_EQ(parseCount("16M", &e).value(), 16777216u);
  EXPECT_EQ(parseCount("16Mi", &e).value(), 16777216u);
  EXPECT_EQ(parseCount("2^24", &e).value(), 16777216u);
  EXPECT_EQ(parseCount("1K", &e).value(), 1024u);
  EXPECT_EQ(parseCount("2G", &e).value(), uint64_t(2) << 30);
  EXPECT_EQ(parseCount("1e6", &e).value(), 1000000u);
  EXPECT_EQ(parseCount("1", &e).value(), 1u);
  EXPECT_EQ(parseCount("2^40", &e).value(), uint64_t(1) << 40);
}

TEST(ParseCount, RejectsWithAReason) {
  for (const char* bad : {"", "0", "-5", "abc", "12Q", "2^", "^3", "2^41", "1.5e3x", "1.5", "2^-1",
                          "99999999999999999999", "16 M", "3e-2"}) {
    std::string e;
    EXPECT_FALSE(parseCount(bad, &e).has_value()) << bad;
    EXPECT_FALSE(e.empty()) << bad;
  }
}

TEST(FormatCount, PowersOfTwoReadAsSuch) {
  EXPECT_EQ(formatCount(16777216), "2^24");
  EXPECT_EQ(formatCount(1000), "1000");
  EXPECT_EQ(formatCount(4099), "4099");
}

// Every descriptor of kernel_list.hpp is complete and agrees with itself: notes, source, a
// schedule whose phases match the grid shape, the loads per iteration and the shared-memory rule,
// and finals that match how the schedule ends. (kernel_list.hpp already refuses unset fields at
// compile time; this names the kernel and the field.)
TEST(Catalogue, EveryDescriptorIsCompleteAndConsistent) {
  auto has = [](const KernelInfo& k, Phase p) {
    for (Phase q : k.schedule)
      if (q == p) return true;
    return false;
  };
  ASSERT_EQ(int(catalogue().size()), kKernelIdCount);
  for (int i = 0; i < kKernelIdCount; ++i) {
    const KernelInfo& k = catalogue()[size_t(i)];
    SCOPED_TRACE(std::string(k.key));
    EXPECT_EQ(int(k.id), i) << "the catalogue is in KernelId order";
    EXPECT_EQ(&kernelInfo(k.id), &k);
    EXPECT_EQ(findKernel(k.key), &k);
    EXPECT_TRUE(familyOf(k).descriptorComplete(k));
    EXPECT_FALSE(k.name.empty());
    EXPECT_FALSE(k.title.empty());
    EXPECT_FALSE(kernelNotes(k).empty()) << "assets/kernels/" << k.key << ".md is missing";
    EXPECT_FALSE(kernelSource(k).empty()) << k.sourceFile << " is not embedded";
    ASSERT_FALSE(k.finals.empty());
    EXPECT_NE(k.finals.front(), FinalStage::Default) << "Default is not a final stage";
    EXPECT_GE(k.minBlock, 32);
    if (!k.traceable) {
      EXPECT_EQ(k.shape, GridShape::Library);
      EXPECT_TRUE(k.schedule.empty());
      continue;
    }
    if (k.shape == GridShape::MatrixTiles) {
      // The matrix families: the schedule follows the tile layout, the shared rule the layout,
      // and every listed tile plans a legal launch.
      EXPECT_EQ(k.shape, GridShape::MatrixTiles);
      const bool tiled = k.tileLayout != TileLayout::None;
      EXPECT_EQ(k.sharedRule == SharedRule::NoneOwn, !tiled);
      for (Phase p : k.schedule)
        EXPECT_TRUE(p >= Phase::TransposeDirect) << "a reduction phase in a matrix schedule";
      if (k.family == Family::Transpose) {
        EXPECT_EQ(has(k, Phase::TransposeDirect), !tiled);
        EXPECT_EQ(has(k, Phase::TransposeLoadTile) && has(k, Phase::TransposeStoreTile), tiled);
        EXPECT_EQ(k.sharedRule == SharedRule::TilePadded, k.tileLayout == TileLayout::Padded);
      } else {
        EXPECT_EQ(has(k, Phase::MatmulNaiveDot), !tiled);
        EXPECT_EQ(has(k, Phase::MatmulTileLoad) && has(k, Phase::MatmulTileDot), tiled);
        EXPECT_EQ(k.schedule[k.schedule.size() - 1], Phase::MatmulStore);
        EXPECT_TRUE(!tiled || k.sharedRule == SharedRule::TwoTiles);
      }
      for (int t : k.tiles) {
        RunConfig c;
        c.kernel = std::string(k.key);
        rl::test::setParam(c, "tile", uint64_t(t));
        c.type = ElemType::Float64;
        // Seed 004's half transposes take square matrices of whole tiles only (refused below).
        const bool half = k.swapsTiles != k.swapsElements;
        const uint64_t rows = half ? 96 : 100, cols = half ? 96 : 70;
        rl::test::setParam(c, "rows", rows), rl::test::setParam(c, "cols", cols), rl::test::setParam(c, "inner", 33);
        normalizeConfig(c);
        EXPECT_EQ(validate(c, nullptr), "") << "tile " << t;
        if (half) {
          RunConfig odd = c;
          rl::test::setParam(odd, "cols", 70);
          normalizeConfig(odd);
          EXPECT_NE(validate(odd, nullptr).find("square matrix whose side is a multiple of the tile"), std::string::npos);
        }
        const Geometry g = planGeometry(k, c, 1);
        EXPECT_EQ(g.tile, t);
        EXPECT_LE(g.block, 1024u);
        EXPECT_EQ(g.block, g.blockX * g.blockY);
        EXPECT_EQ(g.grid(), ((cols + t - 1) / t) * ((rows + t - 1) / t));
        EXPECT_LE(g.smemBytes, 48u * 1024) << "tile " << t << " needs more than the default shared memory";
        // The rule of each layout, in bytes of 8-byte elements: t x t, t x (t + 1), two t x t tiles.
        const size_t tileBytes = size_t(t) * t * 8;
        const size_t expected = k.sharedRule == SharedRule::Tile         ? tileBytes
                                : k.sharedRule == SharedRule::TilePadded ? size_t(t) * (t + 1) * 8
                                : k.sharedRule == SharedRule::TwoTiles   ? 2 * tileBytes
                                                                         : 0;
        EXPECT_EQ(g.smemBytes, expected) << k.key << " tile " << t;
      }
      continue;
    }
    ASSERT_GE(k.schedule.size(), 3);
    // First the loads, as the grid shape says.
    const Phase load = k.schedule.front();
    switch (k.shape) {
      case GridShape::OnePerThread:
        EXPECT_EQ(load, Phase::LoadOne);
        EXPECT_EQ(k.loadsPerIteration, 1);
        break;
      case GridShape::PairPerThread:
        EXPECT_EQ(load, Phase::LoadPair);
        EXPECT_EQ(k.loadsPerIteration, 2);
        break;
      case GridShape::GridStride:
        EXPECT_TRUE(load == Phase::GridStridePairsToShared || load == Phase::GridStridePairs ||
                    load == Phase::VectorLoads || load == Phase::VectorGridStride || load == Phase::BulkStages);
        break;
      default: ADD_FAILURE() << "a traceable kernel needs a thread-level grid shape";
    }
    EXPECT_EQ(load == Phase::VectorLoads || load == Phase::VectorGridStride || load == Phase::BulkStages,
              k.bytesPerLoad == 16);
    // Bulk copies (k14): a ring of stages in shared memory beside the per-warp partials, Hopper only.
    EXPECT_EQ(load == Phase::BulkStages, k.sharedRule == SharedRule::BulkRing);
    EXPECT_EQ(load == Phase::BulkStages, k.minCc >= 90);
    // One vector per step of the grid: the policy (not the descriptor) sets the depth in flight.
    if (load == Phase::VectorGridStride) {
      EXPECT_EQ(k.loadsPerIteration, 1);
      EXPECT_TRUE(k.policyTuned);
    }
    if (load == Phase::GridStridePairs || load == Phase::GridStridePairsToShared)
      EXPECT_EQ(k.loadsPerIteration, 2);
    // Shared-memory trees need a slot per thread; shuffle reductions one per warp.
    const bool tree = has(k, Phase::TreeInterleavedDivergent) || has(k, Phase::TreeInterleavedStrided) ||
                      has(k, Phase::TreeSequential) || has(k, Phase::TreeSequentialAbove32) ||
                      has(k, Phase::TreeUnrolled);
    const bool shuffle = has(k, Phase::ShuffleBlockReduce) || has(k, Phase::CgBlockReduce);
    EXPECT_NE(tree, shuffle) << "a block reduces either in a shared tree or with shuffles";
    if (load != Phase::BulkStages) EXPECT_EQ(k.sharedRule, tree ? SharedRule::TreeOfBlock : SharedRule::OnePerWarp);
    EXPECT_EQ(k.schedule.front() == Phase::GridStridePairsToShared || load == Phase::LoadOne ||
                  load == Phase::LoadPair,
              tree);
    // A last warp reading sdata[tid + 32] after a tree that stops above 32 needs 64 threads.
    if (has(k, Phase::TreeSequentialAbove32)) EXPECT_GE(k.minBlock, 64);
    // The schedule ends with the block's result, as the finals say.
    const Phase last = k.schedule[k.schedule.size() - 1];
    EXPECT_TRUE(last == Phase::SharedResult || last == Phase::GlobalResult || last == Phase::AtomicResult);
    EXPECT_EQ(last == Phase::SharedResult, tree);
    EXPECT_EQ(last == Phase::AtomicResult, k.finals.front() == FinalStage::Atomic);
    for (FinalStage f : k.finals)
      if (f == FinalStage::Atomic || f == FinalStage::LastBlock) EXPECT_EQ(k.finals.size(), 1);
    // Geometry planning reads the same descriptor.
    RunConfig c;
    c.kernel = std::string(k.key);
    c.block = std::max(256, k.minBlock);
    c.type = ElemType::Float32;
    const Geometry g = planGeometry(k, c, 1 << 20);
    // Each rule in bytes, float accumulators: one per thread (at least 64), one per warp, k14's
    // 256-byte partials area and a ring of 16-byte vectors (4 stages of a 256 block fit 32 KB).
    const size_t expected = k.sharedRule == SharedRule::TreeOfBlock ? size_t(std::max(c.block, 64)) * 4
                            : k.sharedRule == SharedRule::OnePerWarp ? 32 * 4
                            : k.sharedRule == SharedRule::BulkRing   ? 256 + 4 * size_t(c.block) * 16
                                                                     : 0;
    EXPECT_EQ(g.smemBytes, expected) << k.key;
    EXPECT_EQ(g.final, k.finals.front());
  }
}

TEST(Catalogue, HasTheFourteenKernelsAndCub) {
  for (const char* k : {"k1", "k2", "k3", "k4", "k5", "k5s", "k6", "k7", "k8", "k9", "k10", "k11", "k12", "k13", "cub"}) {
    const KernelInfo* info = findKernel(k);
    ASSERT_NE(info, nullptr) << k;
    EXPECT_FALSE(kernelNotes(*info).empty()) << k;
    EXPECT_FALSE(kernelSource(*info).empty()) << k;
  }
  EXPECT_EQ(findKernel("k1")->harris, 1);
  EXPECT_EQ(findKernel("k7")->upc, "Kernel07/08");
  EXPECT_NE(kernelSource(*findKernel("k1")).find("tid % (2 * s)"), std::string_view::npos);
  EXPECT_TRUE(findKernel("k5")->unsafe);
  EXPECT_FALSE(findKernel("k11")->deterministic);
  std::string e;
  EXPECT_EQ(parseKernelList("all", &e).size(), catalogueKeys(false, Family::Reduction).size());
  EXPECT_EQ(parseKernelList("transpose", &e).size(), 9u);  // seed 004's table (8 kernels) and the swizzle
  EXPECT_EQ(parseKernelList("matmul", &e).size(), 2u);
  EXPECT_EQ(parseKernelList("k3,k7,cub", &e).size(), 3u);
  EXPECT_TRUE(parseKernelList("k3,nope", &e).empty());
  EXPECT_NE(e.find("nope"), std::string::npos);
}

TEST(Validate, RefusesBadCombinationsWithOneSentence) {
  RunConfig c;
  EXPECT_EQ(validate(c, nullptr), "");
  c.block = 100;
  EXPECT_NE(validate(c, nullptr).find("power of two"), std::string::npos);
  c.block = 2048;
  EXPECT_NE(validate(c, nullptr).find("power of two"), std::string::npos);
  c.block = 32;
  c.kernel = "k5";
  EXPECT_NE(validate(c, nullptr).find("at least 64"), std::string::npos);
  c.kernel = "k6";
  EXPECT_EQ(validate(c, nullptr), "");  // k6 works at 32
  c.kernel = "k11";
  c.final = FinalStage::Cpu;
  EXPECT_NE(validate(c, nullptr).find("does not apply"), std::string::npos);
  c.final = FinalStage::Atomic;
  EXPECT_EQ(validate(c, nullptr), "");
  c.kernel = "k3";
  EXPECT_NE(validate(c, nullptr).find("does not apply"), std::string::npos);
  c.final = FinalStage::Default;
  c.n = uint64_t(1) << 40;
  EXPECT_NE(validate(c, nullptr).find("grid limit"), std::string::npos);  // 2^35 blocks
  DeviceInfo d = assumedH200();
  d.available = true;
  d.freeMemBytes = int64_t(1) << 30;
  c.n = uint64_t(1) << 30;
  c.block = 512;
  EXPECT_NE(validate(c, &d).find("MiB of device memory"), std::string::npos);
}

TEST(Geometry, GridsAndPassesFollowTheKernelShape) {
  RunConfig c;
  c.n = uint64_t(1) << 24;
  c.block = 512;
  c.kernel = "k1";
  Geometry g = planGeometry(*findKernel("k1"), c, 528);
  EXPECT_EQ(g.grid(), 32768u);  // the seed's nBlocks
  ASSERT_EQ(g.passGrids.size(), 3u);  // 32768 -> 64 -> 1
  EXPECT_EQ(g.passGrids[1], 64u);
  EXPECT_EQ(g.passGrids[2], 1u);
  c.kernel = "k4";
  EXPECT_EQ(planGeometry(*findKernel("k4"), c, 528).grid(), 16384u);  // the seed's K05
  c.kernel = "k7";
  g = planGeometry(*findKernel("k7"), c, 528);
  EXPECT_EQ(g.grid(), 528u);  // one wave
  EXPECT_EQ(g.passGrids.back(), 1u);
  c.final = FinalStage::Cpu;
  g = planGeometry(*findKernel("k7"), c, 528);
  EXPECT_EQ(g.passGrids.size(), 1u);
  EXPECT_EQ(g.partials, 528u);
  c.kernel = "k1";
  c.n = 1;
  c.final = FinalStage::Default;
  g = planGeometry(*findKernel("k1"), c, 528);
  EXPECT_EQ(g.grid(), 1u);
  EXPECT_EQ(g.passGrids.size(), 1u);
  EXPECT_EQ(g.smemBytes, 512u * 4);
  c.block = 32;
  EXPECT_EQ(planGeometry(*findKernel("k1"), c, 528).smemBytes, 64u * 4);  // 32 threads: 64 values
}

// The UPC lecture's Kernel02 (seed 000): two launches, 32768 blocks then 64, and the CPU adds the
// last 64 (its nvprof table: 2 invocations, grids (32768) (64)); a CPU final's GPU passes stop
// early where one value is left, and apply to a CPU final of a kernel that can launch again.
TEST(Geometry, GpuPassesBeforeACpuFinalAreTheSeedsKernel02) {
  RunConfig c;
  c.n = uint64_t(1) << 24;
  c.block = 512;
  c.type = ElemType::Float64;
  c.kernel = "k1";
  c.final = FinalStage::Cpu;
  const FamilyParameter& passes = familyOf(*findKernel("k1")).parameters().at(0);
  ASSERT_EQ(passes.key, "gpu-passes");
  passes.set(c, 2);
  ASSERT_EQ(validate(c, nullptr), "");
  Geometry g = planGeometry(*findKernel("k1"), c, 528);
  EXPECT_EQ(g.passGrids, (std::vector<uint64_t>{32768, 64}));
  EXPECT_EQ(g.partials, 64u);
  EXPECT_EQ(g.final, FinalStage::Cpu);
  passes.set(c, 8);  // more than it takes: passes until one value is left
  g = planGeometry(*findKernel("k1"), c, 528);
  EXPECT_EQ(g.passGrids, (std::vector<uint64_t>{32768, 64, 1}));
  EXPECT_EQ(g.partials, 1u);
  passes.set(c, 2);
  c.final = FinalStage::Gpu;
  EXPECT_NE(validate(c, nullptr).find("--final cpu"), std::string::npos) << validate(c, nullptr);
  c.final = FinalStage::Cpu;
  c.kernel = "k11";  // one launch and atomics: nothing to launch again on
  normalizeConfig(c);
  passes.set(c, 2);
  EXPECT_NE(validate(c, nullptr), "");
  passes.set(c, 9);
  c.kernel = "k1";
  EXPECT_NE(validate(c, nullptr).find("is above 8"), std::string::npos) << validate(c, nullptr);
}

// --grid: the first launch's blocks of a grid-stride kernel (the UPC lecture's Kernel07: 4096),
// refused with a sentence where the grid is not free (one block per elements, a tuned policy) or
// larger than N needs.
TEST(Geometry, AGivenGridIsTheFirstLaunchOfAGridStrideKernel) {
  RunConfig c;
  c.n = uint64_t(1) << 24;
  c.block = 512;
  c.kernel = "k7";
  c.final = FinalStage::Cpu;
  const FamilyParameter* grid = nullptr;
  for (const FamilyParameter& p : familyOf(*findKernel("k7")).parameters())
    if (p.key == "grid") grid = &p;
  ASSERT_NE(grid, nullptr);
  grid->set(c, 4096);
  ASSERT_EQ(validate(c, nullptr), "");
  Geometry g = planGeometry(*findKernel("k7"), c, 528);
  EXPECT_EQ(g.passGrids, (std::vector<uint64_t>{4096}));
  EXPECT_EQ(g.partials, 4096u);
  EXPECT_EQ(g.maxElemsPerThread, 8u);  // 2^24 / (4096 x 512) elements per thread
  grid->set(c, 0);
  EXPECT_EQ(planGeometry(*findKernel("k7"), c, 528).grid(), 528u);  // one wave
  grid->set(c, 4096);
  c.kernel = "k1";
  EXPECT_NE(validate(c, nullptr).find("grid-stride kernels"), std::string::npos) << validate(c, nullptr);
  c.kernel = "k13";
  c.final = FinalStage::Default;
  EXPECT_NE(validate(c, nullptr).find("tuned launch policy"), std::string::npos) << validate(c, nullptr);
  c.kernel = "k7";
  c.final = FinalStage::Cpu;
  c.n = 1000;
  EXPECT_NE(validate(c, nullptr).find("more blocks than N = 1000 needs"), std::string::npos) << validate(c, nullptr);
}

// k14's bulk copies exist from sm_90 on: on an older GPU the run is refused with one sentence
// naming the kernel, what it needs and what this GPU is; on Hopper and without a device (the CPU
// model) it is planned like any kernel, with its ring of stages in shared memory.
TEST(Validate, TheBulkCopyKernelNeedsComputeCapability90) {
  RunConfig c;
  c.kernel = "k14";
  c.n = uint64_t(1) << 20;
  c.block = 256;
  DeviceInfo d = assumedH200();
  d.available = true;
  d.freeMemBytes = int64_t(64) << 30;
  EXPECT_EQ(validate(c, &d), "");
  EXPECT_EQ(validate(c, nullptr), "");
  d.ccMajor = 8;
  d.ccMinor = 9;
  const std::string err = validate(c, &d);
  EXPECT_NE(err.find("k14 needs a GPU of compute capability 9.0 or newer"), std::string::npos) << err;
  EXPECT_NE(err.find("this GPU is 8.9"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos);
  c.kernel = "k13";  // the others run anywhere
  EXPECT_EQ(validate(c, &d), "");
  // The ring: four stages of block x 16 bytes while they fit 32 KB, two at block 1024.
  const KernelInfo& k = *findKernel("k14");
  EXPECT_EQ(sharedBytes(k, 256, ElemType::Float64), size_t(kBulkRingOffset) + 4 * 256 * 16);
  EXPECT_EQ(sharedBytes(k, 1024, ElemType::Int32), size_t(kBulkRingOffset) + 2 * 1024 * 16);
  for (int block = 32; block <= 1024; block *= 2) EXPECT_LE(sharedBytes(k, block, ElemType::Float64), 48u * 1024);
}

// The launch plan's PDL decision (the engine takes it from here): on only for a GPU final of
// more than one pass on sm_90+, and off whenever --pdl off asks, whatever the kernel and device.
TEST(Geometry, ProgrammaticDependentLaunchFollowsTheSwitch) {
  RunConfig c;
  c.kernel = "k10";
  c.final = FinalStage::Gpu;
  c.n = uint64_t(1) << 20;
  c.block = 512;
  const Geometry twoPass = planGeometry(*findKernel("k10"), c, 528);
  ASSERT_GT(twoPass.passGrids.size(), 1u);
  EXPECT_TRUE(usesProgrammaticDependentLaunch(c, twoPass, 9));
  EXPECT_FALSE(usesProgrammaticDependentLaunch(c, twoPass, 8)) << "no PDL below sm_90";
  c.pdl = false;
  EXPECT_FALSE(usesProgrammaticDependentLaunch(c, twoPass, 9)) << "--pdl off";
  EXPECT_FALSE(usesProgrammaticDependentLaunch(c, twoPass, 10));
  c.pdl = true;
  c.final = FinalStage::Cpu;
  EXPECT_FALSE(usesProgrammaticDependentLaunch(c, planGeometry(*findKernel("k10"), c, 528), 9)) << "one pass";
  // Where the switch matters (the GUI shows it only there): our kernels with a second GPU pass.
  c.final = FinalStage::Gpu;
  EXPECT_TRUE(programmaticDependentLaunchApplies(c));
  c.final = FinalStage::Default;
  c.kernel = "k1";  // its default final is gpu
  EXPECT_EQ(programmaticDependentLaunchApplies(c), defaultFinal(*findKernel("k1")) == FinalStage::Gpu);
  for (const char* single : {"k11", "k12", "k13", "cub"}) {
    c.kernel = single;
    EXPECT_FALSE(programmaticDependentLaunchApplies(c)) << single;
  }
}

TEST(Reference, IntegerSumsAreExactAndOverflowIsFlagged) {
  RunConfig c;
  c.type = ElemType::Int32;
  c.n = 1 << 20;
  c.data = DataPattern::Ones;
  Reference r = computeReference(c, 2);
  EXPECT_EQ(r.expected.i, 1 << 20);
  EXPECT_FALSE(r.overflow);
  c.data = DataPattern::Uniform;  // 0..999: 2^24 of them overflow int32
  c.n = 1 << 24;
  r = computeReference(c, 2);
  EXPECT_TRUE(r.overflow);
  __int128 manual = 0;
  for (uint64_t i = 0; i < c.n; ++i) manual += generateElement<int32_t>(dataSpecOf(c), i);
  EXPECT_TRUE(r.exactInt == manual);
  EXPECT_EQ(r.expected.i, int32_t(uint32_t(uint64_t(manual))));
  c.accumulate = Accumulate::Wide;
  r = computeReference(c, 2);
  EXPECT_FALSE(r.overflow);
  EXPECT_EQ(r.expected.i, int64_t(manual));
}

TEST(Reference, MinMaxAndFloatSums) {
  RunConfig c;
  c.type = ElemType::Float32;
  c.n = 100003;
  c.op = Op::Max;
  double mx = -1;
  for (uint64_t i = 0; i < c.n; ++i) mx = std::max(mx, double(generateElement<float>(dataSpecOf(c), i)));
  EXPECT_EQ(computeReference(c, 3).expected.f, mx);
  c.op = Op::Sum;
  long double s = 0;
  for (uint64_t i = 0; i < c.n; ++i) s += generateElement<float>(dataSpecOf(c), i);
  EXPECT_NEAR(double(computeReference(c, 3).exact), double(s), 1e-6);
}

TEST(Tolerance, ScalesWithChainAndCatchesWrongSums) {
  RunConfig c;
  c.type = ElemType::Float32;
  c.n = 1 << 20;
  Reference r = computeReference(c, 2);
  Value good{false, 0, double(float(r.exact))};
  EXPECT_TRUE(checkResult(c, good, r, 64).pass);
  Value bad{false, 0, double(r.exact) * 1.01};
  EXPECT_FALSE(checkResult(c, bad, r, 64).pass);
  Value nan{false, 0, NAN};
  EXPECT_FALSE(checkResult(c, nan, r, 64).pass);
  // Larger N or chain: larger tolerance; double: far smaller.
  const double t1 = checkResult(c, good, r, 64).tolerance;
  EXPECT_GT(checkResult(c, good, r, 640).tolerance, t1);
  c.accumulate = Accumulate::Wide;
  EXPECT_LT(checkResult(c, good, r, 64).tolerance, t1 * 1e-6);
  // Integers: exact equality only.
  c.type = ElemType::Int64;
  c.accumulate = Accumulate::Same;
  Reference ri = computeReference(c, 2);
  EXPECT_TRUE(checkResult(c, ri.expected, ri, 64).pass);
  Value off = ri.expected;
  off.i += 1;
  EXPECT_FALSE(checkResult(c, off, ri, 64).pass);
}

TEST(CpuBaseline, MatchesReferenceForIntegers) {
  RunConfig c;
  c.type = ElemType::Int64;
  c.n = 1 << 18;
  CpuBaseline b = runCpuBaseline(c, 3);
  EXPECT_EQ(b.reps, 3);
  EXPECT_GT(b.ms.median, 0.0);
  EXPECT_EQ(b.result.i, computeReference(c, 2).expected.i);
}

TEST(Stats, MedianMinMax) {
  Stats s = Stats::of({5, 1, 4, 2, 3});
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(Stats::of({1, 2, 3, 4}).median, 2.5);
  EXPECT_EQ(Stats::of({}).count, 0);
}

TEST(Occupancy, MatchesTheCalculatorForKnownCases) {
  DeviceInfo d = assumedH200();
  OccupancyResult r = computeOccupancy(d, {512, 16, 2048});
  EXPECT_EQ(r.activeBlocks, 4);  // 2048 threads / 512
  EXPECT_EQ(r.limiter, "threads");
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
  r = computeOccupancy(d, {32, 16, 256});
  EXPECT_EQ(r.activeBlocks, 32);  // the 32-blocks-per-SM limit
  EXPECT_EQ(r.limiter, "blocks per SM");
  EXPECT_DOUBLE_EQ(r.occupancy, 0.5);
  r = computeOccupancy(d, {256, 128, 0});  // 128 regs: 65536 / (128*32) = 16 warps
  EXPECT_EQ(r.activeBlocks, 2);
  EXPECT_EQ(r.limiter, "registers");
  r = computeOccupancy(d, {128, 32, 100 * 1024});  // 100 KiB: two blocks fit in 228 KiB
  EXPECT_EQ(r.activeBlocks, 2);
  EXPECT_EQ(r.limiter, "shared memory");
  // 40 registers at block 64: 1280 registers a warp, 12 warps in each of the 4 sub-partitions'
  // 16384, so 48 warps = 24 blocks; the whole file's 65536 / 1280 = 51 warps would give 25. The
  // driver (cudaOccupancyMaxActiveBlocksPerMultiprocessor) said 24 for k10 on an H100.
  r = computeOccupancy(d, {64, 40, 256});
  EXPECT_EQ(r.activeBlocks, 24);
  EXPECT_EQ(r.limiter, "registers");
}

TEST(Formats, CsvRoundTripsAndOtherFormatsEscape) {
  Table t;
  t.caption = "k_1 & 100%";
  t.headers = {"kernel", "time ms", "note"};
  t.numeric = {false, true, false};
  t.rows = {{"k1", "1.5", "a, \"quoted\" note"}, {"k2", "0.7", "plain"}};
  Table back = parseCsv(csvTable(t));
  EXPECT_EQ(back.headers, t.headers);
  EXPECT_EQ(back.rows, t.rows);
  const std::string tex = latexTable(t);
  EXPECT_NE(tex.find("\\toprule"), std::string::npos);
  EXPECT_NE(tex.find("k\\_1 \\& 100\\%"), std::string::npos);
  EXPECT_NE(tex.find("\\begin{tabular}{lrl}"), std::string::npos);
  const std::string md = markdownTable(t);
  EXPECT_NE(md.find("| --- | ---: | --- |"), std::string::npos);
  const std::string txt = textTable(t);
  EXPECT_NE(txt.find("time ms"), std::string::npos);
}

TEST(Formats, SessionJsonRoundTrips) {
  Measurement m;
  m.ok = true;
  m.config.kernel = "k7";
  m.config.type = ElemType::Float64;
  m.config.op = Op::Max;
  m.config.n = 12345;
  m.config.block = 256;
  m.kernelMs = {1.0, 2.0, 3.0};
  m.endToEndMs = {1.5, 2.5, 3.5};
  m.kernel = Stats::of(m.kernelMs);
  m.result = {false, 0, 0.75};
  m.geometry.passGrids = {96, 1};
  Measurement skipped;
  skipped.config.kernel = "k5";
  skipped.error = "needs 64 threads";
  SessionInfo s;
  s.device = assumedH200();
  nlohmann::json j = sessionJson(s, {m, skipped});
  EXPECT_EQ(j["benchmarks"][0]["states"].size(), 2u);
  std::string err;
  auto back = measurementsFromJson(nlohmann::json::parse(j.dump()), &err);
  ASSERT_EQ(back.size(), 2u) << err;
  EXPECT_EQ(back[0].config.kernel, "k7");
  EXPECT_EQ(back[0].config.type, ElemType::Float64);
  EXPECT_EQ(back[0].config.op, Op::Max);
  EXPECT_EQ(back[0].config.n, 12345u);
  EXPECT_EQ(back[0].kernelMs, m.kernelMs);
  EXPECT_EQ(back[0].kernel.median, 2.0);
  EXPECT_EQ(back[0].result.f, 0.75);
  EXPECT_EQ(back[0].geometry.passGrids, m.geometry.passGrids);
  EXPECT_FALSE(back[1].ok);
  EXPECT_EQ(back[1].error, "needs 64 threads");
  EXPECT_TRUE(measurementsFromJson(nlohmann::json::parse("{\"x\":1}"), &err).empty());
  EXPECT_FALSE(err.empty());
}

TEST(DataGen, ReproducibleAndInRange) {
  DataSpec d;
  d.seed = 7;
  for (uint64_t i = 0; i < 10000; ++i) {
    float f = generateElement<float>(d, i);
    EXPECT_GE(f, 0.0f);
    EXPECT_LT(f, 1.0f);
    EXPECT_EQ(f, generateElement<float>(d, i));
    int v = generateElement<int32_t>(d, i);
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 999);
  }
  d.pattern = DataPattern::IntRange;
  d.lo = -3;
  d.hi = 3;
  for (uint64_t i = 0; i < 1000; ++i) {
    double x = generateElement<double>(d, i);
    EXPECT_GE(x, -3);
    EXPECT_LE(x, 3);
    EXPECT_EQ(x, std::floor(x));
  }
  DataSpec other = d;
  other.seed = 8;
  int differ = 0;
  for (uint64_t i = 0; i < 100; ++i) differ += generateElement<double>(d, i) != generateElement<double>(other, i);
  EXPECT_GT(differ, 50);
}

// Markdown and LaTeX tables read back into the same cells (escaping included).
namespace {
std::vector<std::vector<std::string>> cellsOfMarkdown(const std::string& md) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(md);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("|", 0) != 0 || line.find("---") != std::string::npos) continue;
    std::vector<std::string> cells;
    std::string cell;
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') cell += '|', ++i;
      else if (line[i] == '|') cells.push_back(cell.substr(1, cell.size() - 2)), cell.clear();
      else cell += line[i];
    }
    rows.push_back(cells);
  }
  return rows;
}
std::vector<std::vector<std::string>> cellsOfLatex(const std::string& tex) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(tex);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() < 3 || line.compare(line.size() - 3, 3, " \\\\") != 0) continue;
    line = line.substr(0, line.size() - 3);
    std::vector<std::string> cells;
    std::string cell;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && std::string("&%$#_{}").find(line[i + 1]) != std::string::npos)
        cell += line[++i];
      else if (line.compare(i, 3, " & ") == 0) cells.push_back(cell), cell.clear(), i += 2;
      else cell += line[i];
    }
    cells.push_back(cell);
    // Headers are wrapped as \parbox[b]{W}{\raggedright TEXT}: keep TEXT.
    static const std::regex header("^\\\\parbox\\[b\\]\\{[0-9.]+pt\\}\\{\\\\ragged(left|right) (.*)\\}$");
    for (std::string& c : cells) {
      std::smatch m;
      if (std::regex_match(c, m, header)) c = m[2].str();
    }
    rows.push_back(cells);
  }
  return rows;
}
}  // namespace

TEST(Formats, MarkdownAndLatexRoundTrip) {
  Table t;
  t.headers = {"kernel", "time ms", "note"};
  t.numeric = {false, true, false};
  t.rows = {{"k1", "1.5", "a | pipe"}, {"k_2", "0.7", "50% & more #1"}};
  auto md = cellsOfMarkdown(markdownTable(t));
  ASSERT_EQ(md.size(), 3u);
  EXPECT_EQ(md[0], t.headers);
  EXPECT_EQ(md[1], t.rows[0]);
  EXPECT_EQ(md[2], t.rows[1]);
  auto tex = cellsOfLatex(latexTable(t));
  ASSERT_EQ(tex.size(), 3u);
  EXPECT_EQ(tex[0], t.headers);
  EXPECT_EQ(tex[1], t.rows[0]);
  EXPECT_EQ(tex[2], t.rows[1]);
}

TEST(Formats, BenchTableFromJsonMatchesTheOriginal) {
  Measurement m;
  m.ok = true;
  m.config.kernel = "k3";
  m.config.n = 1 << 20;
  m.kernelMs = {0.5, 0.4, 0.6};
  m.endToEndMs = {0.7, 0.6, 0.8};
  m.kernel = Stats::of(m.kernelMs);
  m.endToEnd = Stats::of(m.endToEndMs);
  m.bytesRead = double(m.config.n) * 4;
  m.bandwidthGBs = m.bytesRead / (m.kernel.median * 1e-3) / 1e9;
  m.result = {false, 0, 524288.25};
  SessionInfo s;
  std::string err;
  auto back = measurementsFromJson(sessionJson(s, {m}), &err);
  ASSERT_EQ(back.size(), 1u) << err;
  EXPECT_EQ(csvTable(benchTable({m}, {})), csvTable(benchTable(back, {})));
}
