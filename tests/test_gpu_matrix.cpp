// GPU (label gpu): the matrix families (transpose, matmul). Every kernel, type and tile of its
// descriptor computes the right output on sizes that are not multiples of the tile, and its
// traced twin records exactly the CPU model's trace (first and last, ragged, tile).
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu_support.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/trace.hpp"

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
// Not multiples of any tile (8, 16, 29, 32), one smaller than a tile, and one square multiple.
std::vector<Shape> shapes() {
  if (quickTests()) return {{1000, 777, 95}, {5, 3, 2}};
  return {{1000, 777, 95}, {5, 3, 2}, {97, 1031, 333}, {512, 512, 512}};
}

RunConfig config(const KernelInfo& k, const Shape& s, int tile, ElemType type) {
  RunConfig c;
  c.kernel = std::string(k.key);
  c.rows = s.rows;
  c.cols = s.cols;
  c.inner = s.inner;
  c.tile = tile;
  c.type = type;
  c.reps = 2;
  c.warmup = 1;
  applyMatrixShape(c);
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
      for (const Shape& s : shapes()) {
        const RunConfig c = config(k, s, tile, type);
        MeasureOptions o;
        o.cpuBaseline = false;
        const Measurement m = engine->measure(c, o);
        ASSERT_TRUE(m.ok) << m.error;
        EXPECT_TRUE(m.haveReference);
        EXPECT_TRUE(m.check.pass) << c.kernel << " tile " << tile << " " << name(type) << " " << s.rows << "x"
                                  << s.cols << " K " << s.inner << ": " << m.check.note << " (error "
                                  << m.check.absError << ", tolerance " << m.check.tolerance << ")";
        EXPECT_GT(m.bandwidthGBs, 0);
        if (k.family == Family::Matmul) EXPECT_GT(m.gflops, 0);
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
      for (const Shape& s : shapes()) {
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

INSTANTIATE_TEST_SUITE_P(Families, MatrixKernel, ::testing::ValuesIn(matrixKeys()), testName);

}  // namespace
