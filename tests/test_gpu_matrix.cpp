// GPU (label gpu): the matrix families (transpose, matmul). Every kernel, type and tile of its
// descriptor computes the right output on sizes that are not multiples of the tile (every element
// read back and checked here against a transpose / product computed by the test itself), and its
// traced twin records exactly the CPU model's trace (first and last, ragged, tile).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gpu_support.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/trace.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

std::vector<std::string> matrixKeys() {
  std::vector<std::string> keys = catalogueKeys(true, Family::Transpose);
  for (const std::string& k : catalogueKeys(true, Family::Matmul)) keys.push_back(k);
  return keys;
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

struct Shape {
  uint64_t rows, cols, inner;
};

// Every output element against the test's own transpose or product of the generated inputs: a
// transpose exactly, a product within K x u x sum |a b| (any order of K fused or plain adds).
// "" or the first element that differs.
std::string checkOutputHere(Engine& engine, const RunConfig& c, Family family) {
  struct {
    uint64_t rows, cols, inner;
  } const m{rl::test::param(c, "rows"), rl::test::param(c, "cols"), rl::test::param(c, "inner")};
  const std::vector<double> out = engine.readMatrixOutput(c, 0, m.rows * m.cols);
  if (out.size() != m.rows * m.cols) return "the output could not be read back";
  const DataSpec spec{c.data, c.seed, c.rangeLo, c.rangeHi};
  auto input = [&](uint64_t i) {
    return c.type == ElemType::Float32 ? double(generateElement<float>(spec, i)) : generateElement<double>(spec, i);
  };
  const long double u = c.type == ElemType::Float32 ? 0x1p-24L : 0x1p-53L;
  char where[160];
  if (family == Family::Transpose) {
    // Where the test expects input (i, j): the transpose (j, i) of a cols x rows output; the
    // copies at (i, j); the halves of seed 004 (square, whole tiles of side t) move the tile to
    // (tile col, tile row) keeping (r, c) inside it (coarse), or keep the tile and put the
    // element at (c, r) inside it (fine). Worked out here, not asked of the product.
    const KernelInfo& k = *findKernel(c.kernel);
    const uint64_t t = rl::test::param(c, "tile") ? rl::test::param(c, "tile") : uint64_t(k.tiles.front());
    const std::string key(k.key);
    for (uint64_t i = 0; i < m.rows; ++i)
      for (uint64_t j = 0; j < m.cols; ++j) {
        uint64_t at;
        if (key == "tr-copy" || key == "tr-copy-shared") at = i * m.cols + j;
        else if (key == "tr-coarse") at = ((j / t) * t + i % t) * m.cols + (i / t) * t + j % t;
        else if (key == "tr-fine") at = ((i / t) * t + j % t) * m.cols + (j / t) * t + i % t;
        else at = j * m.rows + i;
        if (out[at] != input(i * m.cols + j)) {
          std::snprintf(where, sizeof where, "out[%llu] = %.9g, in[%llu][%llu] = %.9g", (unsigned long long)at, out[at],
                        (unsigned long long)i, (unsigned long long)j, input(i * m.cols + j));
          return where;
        }
      }
    return "";
  }
  // C (rows x cols) = A (rows x inner, elements 0..) x B (inner x cols, after A).
  const uint64_t bBase = m.rows * m.inner;
  for (uint64_t i = 0; i < m.rows; ++i)
    for (uint64_t j = 0; j < m.cols; ++j) {
      long double exact = 0, magnitude = 0;
      for (uint64_t k = 0; k < m.inner; ++k) {
        const long double p = (long double)input(i * m.inner + k) * input(bBase + k * m.cols + j);
        exact += p;
        magnitude += p < 0 ? -p : p;
      }
      const long double err = std::fabs((long double)out[i * m.cols + j] - exact);
      if (!(err <= (long double)(m.inner + 1) * u * magnitude)) {
        std::snprintf(where, sizeof where, "C[%llu][%llu] = %.12g, expected %.12Lg", (unsigned long long)i,
                      (unsigned long long)j, out[i * m.cols + j], exact);
        return where;
      }
    }
  return "";
}
// Not multiples of any tile (8, 16, 29, 32), one smaller than a tile, and one square multiple.
// Seed 004's half transposes (coarse, fine) permute only square matrices of whole tiles.
std::vector<Shape> shapes(const KernelInfo& k) {
  if (k.swapsTiles != k.swapsElements) {
    if (quickTests()) return {{96, 96, 1}};
    return {{96, 96, 1}, {512, 512, 1}};
  }
  if (quickTests()) return {{1000, 777, 95}, {5, 3, 2}};
  return {{1000, 777, 95}, {5, 3, 2}, {97, 1031, 333}, {512, 512, 512}};
}

RunConfig config(const KernelInfo& k, const Shape& s, int tile, ElemType type) {
  RunConfig c;
  c.kernel = std::string(k.key);
  rl::test::setParam(c, "rows", s.rows);
  rl::test::setParam(c, "cols", s.cols);
  rl::test::setParam(c, "inner", s.inner);
  rl::test::setParam(c, "tile", uint64_t(tile));
  c.type = type;
  c.reps = 2;
  c.warmup = 1;
  normalizeConfig(c);
  return c;
}

class MatrixKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(MatrixKernel, CorrectOnSizesThatAreNotTileMultiples) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const KernelInfo& k = *findKernel(GetParam());
  int runs = 0;
  for (int tile : k.tiles)
    for (ElemType type : {ElemType::Float32, ElemType::Float64})
      for (const Shape& s : shapes(k)) {
        const RunConfig c = config(k, s, tile, type);
        MeasureOptions o;
        o.cpuBaseline = false;
        const Measurement m = engine->measure(c, o);
        ASSERT_TRUE(m.ok) << m.error;
        const std::string what = c.kernel + " tile " + std::to_string(tile) + " " + std::string(name(type)) + " " +
                                 std::to_string(s.rows) + "x" + std::to_string(s.cols) + " K " + std::to_string(s.inner);
        EXPECT_EQ(checkOutputHere(*engine, c, k.family), "") << what;
        EXPECT_TRUE(m.haveReference);
        EXPECT_TRUE(m.check.pass) << what << ": the product's check disagrees: " << m.check.note;
        EXPECT_GT(m.bandwidthGBs, 0);
        if (k.family == Family::Matmul) EXPECT_GT(m.gflops, 0);
        ++runs;
      }
  if (k.family == Family::Transpose) {  // several passes in one launch leave the same output
    RunConfig c = config(k, shapes(k).front(), k.tiles.front(), ElemType::Float32);
    rl::test::setParam(c, "repeat", 3);
    MeasureOptions o;
    o.cpuBaseline = false;
    const Measurement m = engine->measure(c, o);
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(checkOutputHere(*engine, c, k.family), "") << c.kernel << " repeat 3";
    EXPECT_TRUE(m.check.pass) << m.check.note;
    ++runs;
  }
  std::printf("%s: %d configurations correct\n", k.key.data(), runs);
}

TEST_P(MatrixKernel, GpuTraceEqualsCpuModel) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const KernelInfo& k = *findKernel(GetParam());
  int compared = 0;
  for (int tile : k.tiles)
    for (ElemType type : {ElemType::Float32, ElemType::Float64})
      for (const Shape& s : shapes(k)) {
        RunConfig c = config(k, s, tile, type);
        const Geometry g = engine->geometry(c, &err);
        ASSERT_EQ(err, "");
        for (uint64_t traced : {uint64_t(0), g.grid() / 2, g.grid() - 1}) {
          c.tracedBlock = traced;
          std::vector<uint8_t> bytes;
          TraceRun run = engine->runTracedToHost(c, &bytes);
          ASSERT_TRUE(run.ok) << run.error;
          TraceData gpu = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
          ASSERT_TRUE(gpu.valid()) << err;
          TraceData cpu = modelTrace(c, run.geometry.grid(), engine->device().ccMajor, &err);
          ASSERT_TRUE(cpu.valid()) << err;
          // Exact: both sides add with one fma per product, in the same order.
          EXPECT_EQ(compareTraces(gpu, cpu, 0.0), "")
              << c.kernel << " tile " << tile << " " << name(type) << " " << s.rows << "x" << s.cols << " K "
              << s.inner << " traced block " << traced;
          ++compared;
        }
      }
  std::printf("%s: %d GPU traces identical to the CPU model\n", k.key.data(), compared);
}

// Seed 003's Tabla 13: the end-to-end time sends the inputs, runs the kernel and reads the output
// back, so it exceeds the kernel time by at least the bytes crossing the link at 900 GB/s (above a
// PCIe 5.0 x16's 63 GB/s and a Grace-Hopper C2C link's 900); the CPU loop is timed and 'vs CPU' is
// its ratio to it.
TEST(MatrixEndToEnd, IncludesTheTransfersAndTheCpuLoop) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  RunConfig c = config(*findKernel("mm-tiled"), Shape{600, 1200, 900}, 16, ElemType::Float32);
  c.reps = 3;
  const Measurement m = engine->measure(c, MeasureOptions{});
  ASSERT_TRUE(m.ok) << m.error;
  const double bytes = (600.0 * 900 + 900.0 * 1200 + 600.0 * 1200) * 4;
  ASSERT_EQ(m.endToEndMs.size(), 3u);
  EXPECT_GT(m.endToEnd.median, m.kernel.median + bytes / 900e9 * 1e3) << "kernel " << m.kernel.median << " ms";
  ASSERT_TRUE(m.haveCpu) << m.cpu.error;
  EXPECT_GT(m.cpu.ms.median, 0);
  EXPECT_NEAR(m.speedupVsCpu, m.cpu.ms.median / m.endToEnd.median, 1e-9 * m.speedupVsCpu);
  std::printf("600x900 x 900x1200: kernel %.3f ms, with transfers %.3f ms, CPU loop %.1f ms, vs CPU %.1f\n",
              m.kernel.median, m.endToEnd.median, m.cpu.ms.median, m.speedupVsCpu);
}

INSTANTIATE_TEST_SUITE_P(Families, MatrixKernel, ::testing::ValuesIn(matrixKeys()), testName);

}  // namespace
