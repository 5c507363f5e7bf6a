// The CPU model's trace summaries against the ones the traced kernels recorded on the H200
// (tests/data/gpu_trace_summaries.json, written there by `reducelab trace --format json`).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "reducelab/trace.hpp"
#include "test_support.hpp"

using namespace rl;

TEST(TraceSummaries, CpuModelMatchesTheH200Recording) {
  std::ifstream in(rl::test::sourceDir() + "/tests/data/gpu_trace_summaries.json");
  ASSERT_TRUE(in) << "missing tests/data/gpu_trace_summaries.json";
  const nlohmann::json all = nlohmann::json::parse(in);
  ASSERT_GE(all.size(), 20u);
  int compared = 0, skippedSteps = 0;
  for (const auto& g : all) {
    ASSERT_NE(g["source"].get<std::string>().find("gpu"), std::string::npos) << "not a GPU recording";
    RunConfig c;
    c.kernel = g["kernel"];
    c.type = *parseElemType(g["type"].get<std::string>());
    c.op = *parseOp(g["op"].get<std::string>());
    c.n = g["n"];
    c.block = g["block"];
    c.tracedBlock = g["traced_block"];
    std::string err;
    const TraceData t = modelTrace(c, g["grid"].get<uint64_t>(), 9, &err);
    ASSERT_TRUE(t.valid()) << err;
    const TraceSummary s = summarize(t);
    const std::string what = c.kernel + " " + std::string(name(c.type)) + " block " + std::to_string(c.block);
    ASSERT_EQ(s.steps.size(), g["steps"].size()) << what;
    // Trace format 1 (recordings without "trace_version") recorded every lane of warp 0 as
    // reading the per-warp sums, lanes past the last warp at sums[0]; the kernels' SASS loads them
    // predicated (@!P0 LDS: lanes past the warps load nothing), which format 2 records. Those
    // steps' shared-memory counts are compared only against format-2 recordings.
    const int version = g.value("trace_version", 1);
    for (size_t i = 0; i < s.steps.size(); ++i) {
      const auto& gs = g["steps"][i];
      const StepSummary& m = s.steps[i];
      const bool sharedComparable = version >= 2 || m.kind != trace::kStepWarpLoad;
      skippedSteps += !sharedComparable;
      EXPECT_EQ(m.label, gs["label"].get<std::string>()) << what << " step " << i;
      EXPECT_EQ(m.warpsWithWork, gs["warps_with_work"].get<int>()) << what << " step " << i;
      EXPECT_EQ(m.activeLanes, gs["active_lanes"].get<std::vector<int>>()) << what << " step " << i;
      if (sharedComparable) {
        EXPECT_EQ(m.maxDegree, gs["max_degree"].get<int>()) << what << " step " << i;
        EXPECT_EQ(m.wavefronts, gs["wavefronts"].get<int>()) << what << " step " << i;
        EXPECT_EQ(m.idealWavefronts, gs["ideal_wavefronts"].get<int>()) << what << " step " << i;
      }
      EXPECT_EQ(m.globalSectors, gs["global_sectors"].get<int>()) << what << " step " << i;
      EXPECT_EQ(m.globalRequests, gs["global_requests"].get<int>()) << what << " step " << i;
      EXPECT_EQ(m.maxIterations, gs["max_iterations"].get<uint32_t>()) << what << " step " << i;
      if (gs.contains("total_load_sectors")) {  // recordings of trace format 2 and later
        EXPECT_EQ(m.totalLoadSectors, gs["total_load_sectors"].get<uint64_t>()) << what << " step " << i;
        EXPECT_EQ(m.totalLoadRequests, gs["total_load_requests"].get<uint64_t>()) << what << " step " << i;
        EXPECT_EQ(m.totalLoadBytes, gs["total_load_bytes"].get<uint64_t>()) << what << " step " << i;
      }
    }
    EXPECT_EQ(s.loadConflicts(), g["totals"]["load_conflicts"].get<int>()) << what;
    EXPECT_EQ(s.storeConflicts(), g["totals"]["store_conflicts"].get<int>()) << what;
    ++compared;
  }
  std::printf("%d recorded GPU trace summaries reproduced by the CPU model (%d read-sums steps of "
              "format-1 recordings not compared: regenerate with scripts/gpu-run.sh summaries)\n",
              compared, skippedSteps);
}
