// The CPU algorithm model of Reduce / AllReduce across GPUs: ring and tree schedules, their byte
// counts, the contribution sets that prove them, step timing and the size list parser.
#include <gtest/gtest.h>

#include <numeric>

#include "reducelab/collective.hpp"

using namespace rl::collective;

namespace {

Schedule make(Algorithm a, Collective c, int g, uint64_t n, uint64_t eb = 1) {
  std::string e;
  auto s = makeSchedule(a, c, g, n, eb, &e);
  EXPECT_TRUE(s.has_value()) << e;
  return s ? *s : Schedule{};
}

// The element-wise simulation of a schedule on real numbers: GPU g starts with value
// (g + 1) * 1000 + i at element i; the end must hold the sum over GPUs at every element.
std::vector<std::vector<int64_t>> simulate(const Schedule& s) {
  std::vector<std::vector<int64_t>> buf(size_t(s.gpus), std::vector<int64_t>(s.elements));
  for (int g = 0; g < s.gpus; ++g)
    for (uint64_t i = 0; i < s.elements; ++i) buf[size_t(g)][i] = int64_t(g + 1) * 1000 + int64_t(i);
  for (const Step& st : s.steps) {
    const auto before = buf;
    for (const Transfer& t : st.transfers) {
      const Chunk& c = s.chunks[size_t(t.chunk)];
      for (uint64_t i = c.first; i < c.first + c.count; ++i) {
        if (t.kind == TransferKind::Reduce) buf[size_t(t.to)][i] += before[size_t(t.from)][i];
        else buf[size_t(t.to)][i] = before[size_t(t.from)][i];
      }
    }
  }
  return buf;
}

int64_t expectedSum(int g, uint64_t i) { return int64_t(g) * (g + 1) / 2 * 1000 + int64_t(g) * int64_t(i); }

}  // namespace

TEST(CollectiveModel, RingAllReduceHasTwoGMinusOneStepsOfOneChunkPerGpu) {
  for (int g = 1; g <= 8; ++g)
    for (uint64_t n : {uint64_t(1), uint64_t(7), uint64_t(64), uint64_t(1000), uint64_t(1) << 20, uint64_t(1000003)}) {
      const Schedule s = make(Algorithm::Ring, Collective::AllReduce, g, n, 4);
      SCOPED_TRACE("G=" + std::to_string(g) + " N=" + std::to_string(n));
      ASSERT_EQ(s.steps.size(), size_t(2 * (g - 1)));
      ASSERT_EQ(s.chunks.size(), size_t(g));
      for (const Step& st : s.steps) {
        ASSERT_EQ(st.transfers.size(), size_t(g));  // every GPU sends once per step
        std::vector<int> sends(size_t(g), 0);
        for (const Transfer& t : st.transfers) {
          ++sends[size_t(t.from)];
          EXPECT_EQ(t.to, (t.from + 1) % g);  // to its ring successor
          // N/G per step: the chunk is floor or ceil of N/G elements.
          EXPECT_GE(t.bytes, n / uint64_t(g) * 4);
          EXPECT_LE(t.bytes, (n + uint64_t(g) - 1) / uint64_t(g) * 4);
        }
        for (int x : sends) EXPECT_EQ(x, 1);
      }
      // In all: 2(G-1)/G x N per GPU (exact when G divides N), 2(G-1) x N over all GPUs.
      const auto sent = s.sentBytes();
      EXPECT_EQ(std::accumulate(sent.begin(), sent.end(), uint64_t(0)), 2 * uint64_t(g - 1) * n * 4);
      if (n % uint64_t(g) == 0)
        for (uint64_t b : sent) EXPECT_EQ(b, 2 * uint64_t(g - 1) * n * 4 / uint64_t(g));
      for (int r = 0; r < g; ++r)  // a ring: each GPU receives what its predecessor sent
        EXPECT_EQ(s.receivedBytes()[size_t((r + 1) % g)], sent[size_t(r)]);
      EXPECT_EQ(verifySchedule(s), "");
      if (n > 100000) continue;  // the element-wise run: small buffers are enough
      const auto buf = simulate(s);
      for (int r = 0; r < g; ++r)
        for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(buf[size_t(r)][i], expectedSum(g, i)) << "GPU " << r << " i " << i;
    }
}

TEST(CollectiveModel, RingPhasesAreReduceScatterThenAllGather) {
  const Schedule s = make(Algorithm::Ring, Collective::AllReduce, 4, 4096, 4);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(s.steps[size_t(k)].phase, "reduce-scatter");
  for (int k = 3; k < 6; ++k) EXPECT_EQ(s.steps[size_t(k)].phase, "all-gather");
  // After the reduce-scatter each GPU owns exactly one finished chunk, a different one each.
  Contributions st = initialContributions(s);
  for (int k = 0; k < 3; ++k) ASSERT_EQ(applyStep(s, k, &st), "");
  std::vector<int> owner(4, -1);
  for (int g = 0; g < 4; ++g)
    for (int c = 0; c < 4; ++c)
      if (st[size_t(g)][size_t(c)] == 0xF) {
        EXPECT_EQ(owner[size_t(c)], -1);
        owner[size_t(c)] = g;
      }
  for (int c = 0; c < 4; ++c) EXPECT_NE(owner[size_t(c)], -1) << "chunk " << c;
}

TEST(CollectiveModel, RingReduceIsAPipelinedChainToTheRoot) {
  for (int g = 1; g <= 8; ++g)
    for (uint64_t n : {uint64_t(1), uint64_t(5), uint64_t(999), uint64_t(4096)}) {
      const Schedule s = make(Algorithm::Ring, Collective::Reduce, g, n, 8);
      SCOPED_TRACE("G=" + std::to_string(g) + " N=" + std::to_string(n));
      EXPECT_EQ(s.steps.size(), size_t(g == 1 ? 0 : 2 * g - 2));  // G pieces over G-1 links
      const auto sent = s.sentBytes();
      for (int r = 0; r < g; ++r) EXPECT_EQ(sent[size_t(r)], r == s.root ? 0 : n * 8) << r;
      EXPECT_EQ(s.receivedBytes()[size_t((s.root + 1) % g)], 0u);  // the chain starts there
      EXPECT_EQ(verifySchedule(s), "");
      const auto buf = simulate(s);
      for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(buf[size_t(s.root)][i], expectedSum(g, i));
    }
}

TEST(CollectiveModel, TreeGoesUpThenDownOneLevelPerStep) {
  for (int g = 1; g <= 8; ++g)
    for (uint64_t n : {uint64_t(1), uint64_t(3), uint64_t(1000)}) {
      SCOPED_TRACE("G=" + std::to_string(g) + " N=" + std::to_string(n));
      int depth = 0;
      while ((1 << (depth + 1)) <= g) ++depth;  // floor(log2 G)
      const Schedule all = make(Algorithm::Tree, Collective::AllReduce, g, n, 4);
      const Schedule red = make(Algorithm::Tree, Collective::Reduce, g, n, 4);
      EXPECT_EQ(all.steps.size(), size_t(2 * depth));
      EXPECT_EQ(red.steps.size(), size_t(depth));
      // Every GPU but the root sends its whole buffer up once; the broadcast sends it down
      // once to every GPU but the root.
      const auto up = red.sentBytes();
      for (int r = 0; r < g; ++r) EXPECT_EQ(up[size_t(r)], r == 0 ? 0 : n * 4);
      EXPECT_EQ(all.totalBytesMoved(), 2 * uint64_t(g - 1) * n * 4);
      // Down: every GPU but the root receives the buffer once; up: a parent receives one per child.
      std::vector<uint64_t> down(size_t(g), 0), upIn(size_t(g), 0);
      for (const Step& st : all.steps)
        for (const Transfer& t : st.transfers) (st.phase == "broadcast" ? down : upIn)[size_t(t.to)] += t.bytes;
      for (int r = 0; r < g; ++r) {
        EXPECT_EQ(down[size_t(r)], r == 0 ? 0 : n * 4);
        const uint64_t children = uint64_t(2 * r + 1 < g) + uint64_t(2 * r + 2 < g);
        EXPECT_EQ(upIn[size_t(r)], children * n * 4);
      }
      for (const Step& st : all.steps)
        for (const Transfer& t : st.transfers) {
          EXPECT_EQ(t.bytes, n * 4);
          const int child = st.phase == "reduce" ? t.from : t.to, parent = st.phase == "reduce" ? t.to : t.from;
          EXPECT_EQ(parent, (child - 1) / 2);
        }
      EXPECT_EQ(verifySchedule(all), "");
      EXPECT_EQ(verifySchedule(red), "");
      const auto buf = simulate(all);
      for (int r = 0; r < g; ++r)
        for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(buf[size_t(r)][i], expectedSum(g, i));
    }
}

TEST(CollectiveModel, TreeInnerGpusCarryTwoBuffersInOneStep) {
  // G=4: GPU 1 receives from GPU 3 only; GPU 0 from 1 and 2 in the last step up: 2N.
  const Schedule s = make(Algorithm::Tree, Collective::AllReduce, 4, 1000, 1);
  ASSERT_EQ(s.steps.size(), 4u);
  EXPECT_EQ(s.busiestGpuBytes(0), 1000u);
  EXPECT_EQ(s.busiestGpuBytes(1), 2000u);
  EXPECT_EQ(s.linkBytes(1)[1][0], 1000u);
  EXPECT_EQ(s.linkBytes(1)[2][0], 1000u);
  EXPECT_EQ(s.linkBytes(1)[0][1], 0u);
  // The ring's busiest GPU moves N/G per step.
  const Schedule r = make(Algorithm::Ring, Collective::AllReduce, 4, 1000, 1);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(r.busiestGpuBytes(k), 250u);
}

TEST(CollectiveModel, VerifyCatchesAWrongSchedule) {
  Schedule s = make(Algorithm::Ring, Collective::AllReduce, 4, 64, 4);
  Schedule twice = s;
  twice.steps.insert(twice.steps.begin(), s.steps.front());  // the first step repeated: double counting
  EXPECT_NE(verifySchedule(twice), "");
  Schedule missing = s;
  missing.steps.pop_back();  // one all-gather step short
  EXPECT_NE(verifySchedule(missing), "");
  Schedule wrongChunk = s;
  wrongChunk.steps[0].transfers[0].chunk = 1;  // GPU 0 sends chunk 1 where chunk 0 is due
  EXPECT_NE(verifySchedule(wrongChunk), "");
  Schedule copyInsteadOfAdd = s;
  copyInsteadOfAdd.steps[1].transfers[2].kind = TransferKind::Copy;  // a partial sum overwritten
  EXPECT_NE(verifySchedule(copyInsteadOfAdd), "");
}

TEST(CollectiveModel, RejectsBadShapes) {
  std::string e;
  EXPECT_FALSE(makeSchedule(Algorithm::Ring, Collective::AllReduce, 0, 10, 4, &e));
  EXPECT_FALSE(e.empty());
  EXPECT_FALSE(makeSchedule(Algorithm::Ring, Collective::AllReduce, 65, 10, 4, &e));
  EXPECT_FALSE(makeSchedule(Algorithm::Tree, Collective::AllReduce, 4, 0, 4, &e));
  // Fewer elements than GPUs: some chunks are empty, the schedule still verifies.
  auto s = makeSchedule(Algorithm::Ring, Collective::AllReduce, 8, 3, 4, &e);
  ASSERT_TRUE(s);
  EXPECT_EQ(verifySchedule(*s), "");
  EXPECT_EQ(s->totalBytesMoved(), 2u * 7u * 3u * 4u);
}

TEST(CollectiveModel, StepTimesFollowTheMeasurementWhenThereIsOne) {
  const Schedule s = make(Algorithm::Tree, Collective::AllReduce, 4, 1 << 20, 4);
  const StepTiming model = timeSteps(s, 100.0, 0.0);
  EXPECT_FALSE(model.measured);
  EXPECT_NEAR(model.seconds[0], double(1 << 22) / 100e9, 1e-12);
  EXPECT_NEAR(model.seconds[1], 2.0 * double(1 << 22) / 100e9, 1e-12);  // the root takes two
  const StepTiming measured = timeSteps(s, 100.0, 0.0, 1e-3);
  EXPECT_TRUE(measured.measured);
  EXPECT_NEAR(measured.total, 1e-3, 1e-15);
  double sum = 0;
  for (double x : measured.seconds) sum += x;
  EXPECT_NEAR(sum, 1e-3, 1e-12);
  EXPECT_NEAR(measured.seconds[1] / measured.seconds[0], 2.0, 1e-9);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::Reduce, 8), 1.0);
}

TEST(CollectiveModel, SizeLists) {
  std::string e;
  auto r = parseSizeList("1K..8G", &e);
  ASSERT_TRUE(r) << e;
  EXPECT_EQ(r->size(), 24u);  // 2^10 .. 2^33
  EXPECT_EQ(r->front(), 1024u);
  EXPECT_EQ(r->back(), uint64_t(8) << 30);
  r = parseSizeList("4K,1MiB, 3000", &e);
  ASSERT_TRUE(r) << e;
  EXPECT_EQ(*r, (std::vector<uint64_t>{4096, 1 << 20, 3000}));
  r = parseSizeList("1K..3K", &e);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (std::vector<uint64_t>{1024, 2048, 3072}));  // the last size asked for is kept
  for (const char* bad : {"", "0", "1Q", "8G..1K", "65G", "1K..", "x", "-1K", "1K,,2K"}) {
    e.clear();
    EXPECT_FALSE(parseSizeList(bad, &e)) << bad;
    EXPECT_FALSE(e.empty()) << bad;
  }
  EXPECT_EQ(formatBytes(1024), "1 KiB");
  EXPECT_EQ(formatBytes(uint64_t(8) << 30), "8 GiB");
  EXPECT_EQ(formatBytes(1000), "1000 B");
}

TEST(CollectiveModel, BytesReadAsTheLargestUnit) {
  EXPECT_EQ(formatBytes(1536u << 20), "1.5 GiB");
  EXPECT_EQ(formatBytes(1368), "1.3 KiB");
  EXPECT_EQ(formatBytes(1023), "1023 B");
  EXPECT_EQ(formatBytes(uint64_t(256) << 20), "256 MiB");
}
