// GPU (label gpu): the traces the traced kernels record are identical to the CPU model's for
// every kernel x block size x a few N (values within float tolerance), and tracing changes
// neither the result nor the grid.
#include <gtest/gtest.h>

#include "gpu_checks.hpp"
#include "gpu_support.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/recording.hpp"
#include "reducelab/trace.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

class TraceEquality : public ::testing::TestWithParam<std::string> {};

// Types, accumulators and operators the traces are compared for: min and max (their identities
// pad idle lanes), int64, and the wide accumulators (int32 -> int64, float32 -> float64).
struct TraceCase {
  ElemType type;
  Accumulate acc;
  Op op;
};
const TraceCase kTraceCases[] = {
    {ElemType::Int32, Accumulate::Same, Op::Sum},    {ElemType::Int32, Accumulate::Same, Op::Max},
    {ElemType::Int32, Accumulate::Wide, Op::Sum},    {ElemType::Int64, Accumulate::Same, Op::Min},
    {ElemType::Float32, Accumulate::Same, Op::Sum},  {ElemType::Float32, Accumulate::Same, Op::Min},
    {ElemType::Float32, Accumulate::Wide, Op::Sum},  {ElemType::Float64, Accumulate::Same, Op::Sum},
    {ElemType::Float64, Accumulate::Same, Op::Max}};

TEST_P(TraceEquality, GpuTraceEqualsCpuModel) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const KernelInfo& k = *findKernel(GetParam());
  const std::vector<uint64_t> sizes = quickTests() ? std::vector<uint64_t>{1000, (1u << 20) + 1}
                                                   : std::vector<uint64_t>{1, 33, 1000, 4099, (1u << 20) + 1, 1u << 24};
  int compared = 0;
  for (int block : {32, 64, 128, 256, 512, 1024}) {
    if (block < k.minBlock) continue;
    for (uint64_t n : sizes)
      for (const TraceCase& tc : kTraceCases) {
          RunConfig c;
          c.kernel = std::string(k.key);
          c.block = block;
          c.n = n;
          c.type = tc.type;
          c.accumulate = tc.acc;
          c.op = tc.op;
          const ElemType type = tc.type;
          const Op op = tc.op;
          Geometry g = engine->geometry(c, &err);
          ASSERT_EQ(err, "");
          for (uint64_t traced : {uint64_t(0), g.grid() - 1}) {
            c.tracedBlock = traced;
            std::vector<uint8_t> bytes;
            TraceRun run = engine->runTracedToHost(c, &bytes);
            ASSERT_TRUE(run.ok) << run.error;
            TraceData gpu = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
            ASSERT_TRUE(gpu.valid()) << err;
            RunConfig ran = c;  // auto: the block its dispatch chose (every other kernel: the block asked)
            ran.block = int(run.geometry.block);
            TraceData cpu = modelTrace(ran, run.geometry.grid(), engine->device().ccMajor, &err);
            ASSERT_TRUE(cpu.valid()) << err;
            // Values: exact for integers; floats within the rounding of a different combination
            // order (cg::reduce): float32 1e-5, float64 1e-12 relative.
            const double tol = !isFloat(c.accType()) ? 0.0 : c.accType() == ElemType::Float64 ? 1e-12 : 1e-5;
            const std::string diff = compareTraces(gpu, cpu, tol);
            EXPECT_EQ(diff, "") << c.kernel << " block " << block << " n " << n << " "
                                << name(type) << "->" << name(c.accType()) << " " << name(op)
                                << " traced block " << traced;
            ++compared;
            if (traced == g.grid() - 1 || g.grid() == 1) break;
          }
        }
  }
  std::printf("%s: %d GPU traces identical to the CPU model\n", k.key.data(), compared);
}

// Every traceable kernel of kernel_list.hpp, through its descriptor.
INSTANTIATE_TEST_SUITE_P(Catalogue, TraceEquality, ::testing::ValuesIn(catalogueKeys(true)),
                         [](const auto& info) { return info.param; });

TEST(TracedTwin, SameResultAsTheUntracedKernel) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  for (const KernelInfo& k : catalogue()) {
    // Reductions: the matrix families' twins are compared in test_gpu_matrix.cpp (float only).
    if (!k.traceable || k.family != Family::Reduction) continue;
    RunConfig c;
    c.kernel = std::string(k.key);
    c.n = (1u << 22) + 7;
    c.type = ElemType::Int64;
    c.reps = 1;
    c.warmup = 0;
    MeasureOptions o;
    o.cpuBaseline = false;
    Measurement m = engine->measure(c, o);
    ASSERT_TRUE(m.ok) << m.error;
    std::vector<uint8_t> bytes;
    TraceRun t = engine->runTracedToHost(c, &bytes);
    ASSERT_TRUE(t.ok) << t.error;
    EXPECT_EQ(t.result.i, m.result.i) << c.kernel;
    EXPECT_EQ(t.geometry.passGrids, m.geometry.passGrids) << c.kernel;
  }
}

}  // namespace

// `reducelab record` on the GPU: one file with the GPU's measurements (their samples), the
// device and driver in the banner, and the traces the traced kernels wrote (equal to the CPU
// model's); the GUI opened on it draws the recorded GPU trace.
TEST(GpuRecording, RecordWritesTheGpusRunsAndTracesAndTheGuiShowsThem) {
  REQUIRE_GPU();
  const DeviceInfo d = queryDevice(0);
  const std::string path = rl::test::tempPath("gpu.reducelab");
  const auto r = rl::test::runReducelab("record --kernel k3,k8,k10 --type int32 --n 2^22 --out " + path);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  Recording rec;
  ASSERT_EQ(readRecording(path, &rec), "");
  EXPECT_TRUE(rec.fromGpu());
  EXPECT_EQ(rec.device.name, d.name);
  EXPECT_EQ(rec.banner().rfind("Recorded on " + d.name + ", driver " + cudaVersionString(d.driverVersion), 0), 0u)
      << rec.banner();
  EXPECT_GT(rec.peaks.readGBs, 0);
  ASSERT_EQ(rec.measurements.size(), 3u);
  for (const Measurement& m : rec.measurements) {
    EXPECT_TRUE(m.ok) << m.error;
    EXPECT_EQ(int(m.kernelMs.size()), m.config.reps);
    EXPECT_GT(m.bandwidthGBs, 0);
    EXPECT_EQ(test::resultAgainstExact(m, d.smCount), "") << m.config.kernel;
  }
  ASSERT_EQ(rec.traces.size(), 3u);
  for (const RecordedTrace& t : rec.traces) {
    EXPECT_TRUE(t.fromGpu);
    std::string err;
    const TraceData gpu = TraceData::fromBuffer(t.bytes.data(), t.bytes.size(), &err);
    ASSERT_TRUE(gpu.valid()) << err;
    const TraceData model = modelTrace(t.config, gpu.header.gridSize, d.ccMajor, &err);
    EXPECT_EQ(compareTraces(gpu, model, 0.0), "") << t.config.kernel;
  }
  const std::string layout = rl::test::tempPath("gpu-recording.json");
  const auto g = rl::test::runReducelab("--headless --frames 3 --dump-layout " + layout + " " + path);
  ASSERT_EQ(g.exitCode, 0) << g.err;
  const std::string text = rl::test::readFile(layout);
  EXPECT_NE(text.find("GPU (" + d.name + "), recorded"), std::string::npos);
}
