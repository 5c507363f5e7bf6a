// GPU (label gpu): one launch plan. For every kernel x block x class of N x type the CPU model
// plans exactly the launch the engine makes on this device (grids of every pass, shared memory,
// loads in flight, cache hint, cluster, PDL), and the registers the CPU model plans residency
// with are the driver's.
#include <gtest/gtest.h>

#include <sstream>

#include "gpu_support.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/launch_plan.hpp"
#include "test_support.hpp"

using namespace rl;

namespace {

std::string difference(const Geometry& gpu, const Geometry& model) {
  std::ostringstream d;
  auto field = [&](const char* name, auto a, auto b) {
    if (a != b) d << name << ": engine " << a << ", CPU model " << b << "; ";
  };
  if (gpu.passGrids != model.passGrids) {
    d << "pass grids: engine";
    for (uint64_t g : gpu.passGrids) d << " " << g;
    d << ", CPU model";
    for (uint64_t g : model.passGrids) d << " " << g;
    d << "; ";
  }
  field("block", gpu.block, model.block);
  field("shared bytes", gpu.smemBytes, model.smemBytes);
  field("partials", gpu.partials, model.partials);
  field("elements per thread", gpu.maxElemsPerThread, model.maxElemsPerThread);
  field("grid x", gpu.gridX, model.gridX);
  field("grid y", gpu.gridY, model.gridY);
  field("tile", gpu.tile, model.tile);
  field("loads in flight", gpu.loadsInFlight, model.loadsInFlight);
  field("cache hint", int(gpu.cacheHint), int(model.cacheHint));
  field("cluster", gpu.clusterCtas, model.clusterCtas);
  field("PDL", gpu.programmaticDependentLaunch, model.programmaticDependentLaunch);
  field("final", int(gpu.final), int(model.final));
  return d.str();
}

struct Pair {
  ElemType in;
  Accumulate acc;
};
constexpr Pair kPairs[] = {{ElemType::Int32, Accumulate::Same},   {ElemType::Int32, Accumulate::Wide},
                           {ElemType::Int64, Accumulate::Same},   {ElemType::Float32, Accumulate::Same},
                           {ElemType::Float32, Accumulate::Wide}, {ElemType::Float64, Accumulate::Same}};

}  // namespace

TEST(LaunchPlan, TheCpuModelPlansWhatTheEngineLaunches) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const DeviceInfo& d = engine->device();
  // Classes of N: one element, a ragged block, a cluster's worth, just past it, one wave, many.
  const uint64_t sizes[] = {1, 33, 4099, uint64_t(1) << 16, (uint64_t(1) << 16) + 5, uint64_t(1) << 18,
                            (uint64_t(1) << 20) + 1, uint64_t(1) << 24, uint64_t(1) << 28};
  int compared = 0;
  for (const KernelInfo& k : catalogue()) {
    if (k.family != Family::Reduction) continue;
    for (int block = 32; block <= 1024; block *= 2)
      for (uint64_t n : sizes)
        for (const Pair& p : kPairs)
          for (FinalStage f : k.finals) {
            RunConfig c;
            c.kernel = std::string(k.key);
            c.block = block;
            c.n = n;
            c.type = p.in;
            c.accumulate = p.acc;
            c.final = f;
            if (!validate(c, &d).empty()) continue;
            const Geometry gpu = engine->geometry(c, &err);
            ASSERT_EQ(err, "") << c.kernel;
            const Geometry model = modelGeometry(c, d, &err);
            ASSERT_EQ(err, "") << c.kernel;
            EXPECT_EQ(difference(gpu, model), "") << c.kernel << " block " << block << " N " << n << " "
                                                  << name(p.in) << "->" << name(c.accType()) << " final "
                                                  << name(f) << " (" << gpu.policySource << ")";
            ++compared;
          }
  }
  for (const KernelInfo& k : catalogue()) {
    if (k.shape != GridShape::MatrixTiles) continue;
    for (int tile : k.tiles)
      for (ElemType t : {ElemType::Float32, ElemType::Float64})
        for (uint64_t side : {uint64_t(5), uint64_t(1000), uint64_t(4096)}) {
          RunConfig c;
          c.kernel = std::string(k.key);
          rl::test::setParam(c, "tile", uint64_t(tile));
          c.type = t;
          rl::test::setParam(c, "rows", side);
          rl::test::setParam(c, "cols", side + 3);
          rl::test::setParam(c, "inner", 97);
          normalizeConfig(c);
          if (!validate(c, &d).empty()) continue;
          const Geometry gpu = engine->geometry(c, &err);
          ASSERT_EQ(err, "");
          EXPECT_EQ(difference(gpu, modelGeometry(c, d)), "") << c.kernel << " tile " << tile << " side " << side;
          ++compared;
        }
  }
  std::printf("%d launch plans compared, engine against CPU model\n", compared);
  EXPECT_GT(compared, 1000);
}

// The CPU model plans residency with the registers recorded in assets/kernels/resources-sm90.json;
// they must be the ones this binary's kernels were compiled to. When a kernel changes, record the
// table again on the GPU: reducelab info --kernel-resources > assets/kernels/resources-sm90.json
TEST(LaunchPlan, TheRecordedRegistersAreTheDrivers) {
  REQUIRE_GPU();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const DeviceInfo& d = engine->device();
  if ("sm_" + d.ccString().replace(1, 1, "") != recordedResourcesArch())
    GTEST_SKIP() << "the table is recorded for " << recordedResourcesArch() << ", this GPU is sm_" << d.ccMajor << d.ccMinor;
  int checked = 0;
  for (const KernelInfo& k : catalogue()) {
    if (k.family != Family::Reduction || k.shape == GridShape::Library) continue;
    for (const Pair& p : kPairs)
      for (Op op : {Op::Sum, Op::Min, Op::Max})
        for (int block = 32; block <= 1024; block *= 2) {
          if (!k.blockTemplated && block != 256) continue;
          RunConfig c;
          c.kernel = std::string(k.key);
          c.type = p.in;
          c.accumulate = p.acc;
          c.op = op;
          c.block = std::max(block, k.minBlock);
          if (!validate(c, &d).empty()) continue;
          const ResourceUsage r = engine->resources(c, &err);
          ASSERT_EQ(err, "") << resourceKey(c);
          const std::optional<RecordedResources> rec = recordedResources(c, d.ccMajor, d.ccMinor);
          ASSERT_TRUE(rec.has_value()) << resourceKey(c) << " is not in the recorded table: record it again "
                                       << "(reducelab info --kernel-resources)";
          EXPECT_EQ(rec->registers, r.registers) << resourceKey(c);
          EXPECT_EQ(rec->staticSmemBytes, r.staticSmemBytes) << resourceKey(c);
          EXPECT_EQ(rec->localBytes, r.localBytes) << resourceKey(c);
          ++checked;
        }
  }
  std::printf("%d kernel variants: recorded registers = the driver's\n", checked);
}
