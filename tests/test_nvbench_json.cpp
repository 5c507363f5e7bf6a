// ReduceLab's JSON in the layout nvbench 1.0.0 writes, so that nvbench's own tools (PyPI cuda-bench[tools]:
// nvbench-json-summary, nvbench-compare-legacy, the bandwidth plot) read it; and ReduceLab still reads its
// files, the unversioned ones in docs/data included. scripts/check-nvbench-json.sh runs the tools themselves.
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "reducelab/config.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/stats.hpp"

using namespace rl;
using nlohmann::json;

namespace {

std::string sourceDir() {
  return rl::test::sourceDir();
}

json readJson(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return json::parse(ss.str());
}

Measurement measured(const std::string& kernel, uint64_t n, int block, bool warmL2) {
  Measurement m;
  m.ok = true;
  m.config.kernel = kernel;
  m.config.type = ElemType::Int32;
  m.config.n = n;
  m.config.block = block;
  m.config.warmL2 = warmL2;
  m.kernelMs = {0.02, 0.03, 0.025, 0.04};
  m.endToEndMs = {0.05, 0.06, 0.055, 0.07};
  m.kernel = Stats::of(m.kernelMs);
  m.endToEnd = Stats::of(m.endToEndMs);
  m.bandwidthGBs = double(n) * 4 / (m.kernel.median * 1e-3) / 1e9;
  m.pctTheoretical = 100 * m.bandwidthGBs / 4814.3;
  m.pctMeasuredRead = 100 * m.bandwidthGBs / 4630.9;
  m.result = {true, int64_t(n) * 3, 0};
  m.distinctResults = {std::to_string(n * 3)};
  m.haveReference = true;
  m.check.pass = true;
  m.check.absError = 0;
  m.check.relError = 0;
  m.check.tolerance = 0.5;
  m.geometry.passGrids = {n / uint64_t(block) / 2, 1};
  m.geometry.smemBytes = size_t(block) * 4;
  m.resources.registers = 18;
  m.resources.occupancy = 1.0;
  m.resources.activeBlocksPerSM = 4;
  m.resources.limiter = "threads";
  m.resources.waves = 2.5;
  return m;
}

SessionInfo h200Session() {
  SessionInfo s;
  s.device = assumedH200();
  s.peaks.theoreticalGBs = 4814.3;
  s.peaks.readGBs = 4630.9;
  s.peaks.copyGBs = 4230.8;
  s.peaks.source = "test";
  s.argv = {"reducelab", "bench"};
  return s;
}

const json* summaryNamed(const json& state, const std::string& tag) {
  for (const json& s : state["summaries"])
    if (s["tag"] == tag) return &s;
  return nullptr;
}

}  // namespace

TEST(NvbenchJson, WritesTheVersionNvbenchReadersCheck) {
  const json j = sessionJson(h200Session(), {measured("k7", 1 << 20, 256, false)});
  const json& v = j.at("meta").at("version").at("json");
  EXPECT_EQ(v.at("string"), "1.0.0");
  EXPECT_EQ(v.at("major"), 1);
  EXPECT_EQ(v.at("minor"), 0);
  EXPECT_EQ(v.at("patch"), 0);
  EXPECT_EQ(j["meta"]["version"].at("json_schema"), 2);
}

// nvbench-compare-legacy and nvbench-json-summary look every axis value up in benchmarks[].axes.
TEST(NvbenchJson, DeclaresEveryAxisAStateUsesWithItsValues) {
  const json j = sessionJson(h200Session(), {measured("k7", 1 << 20, 256, false), measured("k8", 1 << 22, 512, false),
                                             measured("k8", 3000, 512, true)});
  const json& bench = j["benchmarks"][0];
  ASSERT_FALSE(bench["axes"].empty());
  std::map<std::string, json> axes;
  for (const json& a : bench["axes"]) {
    for (const char* key : {"name", "type", "flags", "values"}) ASSERT_TRUE(a.contains(key)) << a.dump();
    for (const json& v : a["values"])
      for (const char* key : {"input_string", "description", "value"}) ASSERT_TRUE(v.contains(key)) << v.dump();
    axes[a["name"]] = a;
  }
  for (const json& st : bench["states"])
    for (const json& av : st["axis_values"]) {
      ASSERT_TRUE(axes.count(av["name"])) << av.dump();
      const json& axis = axes[av["name"]];
      EXPECT_EQ(axis["type"], av["type"]);
      // The readers match str(value) of the state against str(value) of the axis.
      const std::string stateValue = av["value"].is_string() ? av["value"].get<std::string>() : av["value"].dump();
      bool found = false;
      for (const json& v : axis["values"])
        found = found || (v["value"].is_string() ? v["value"].get<std::string>() : v["value"].dump()) == stateValue;
      EXPECT_TRUE(found) << av.dump() << " not among " << axis.dump();
    }
  EXPECT_EQ(axes["Kernel"]["values"].size(), 2u);
  EXPECT_EQ(axes["Elements"]["flags"], "");  // 3000 is not a power of two
  EXPECT_EQ(axes["Block"]["flags"], "pow2");
  EXPECT_EQ(axes["Block"]["values"][0]["input_string"], "8");
  EXPECT_EQ(axes["Block"]["values"][0]["value"], 256);
}

// The tools pair states of two files by name: two states may not share one.
TEST(NvbenchJson, StateNamesAreUniqueWhenOnlyL2Differs) {
  const json j = sessionJson(h200Session(), {measured("k7", 1 << 20, 256, false), measured("k7", 1 << 20, 256, true)});
  const json& states = j["benchmarks"][0]["states"];
  ASSERT_EQ(states.size(), 2u);
  EXPECT_NE(states[0]["name"], states[1]["name"]);
}

TEST(NvbenchJson, SummariesUseNvbenchTagsAndScalarTypes) {
  const Measurement m = measured("k7", 1 << 20, 256, true);
  const json j = sessionJson(h200Session(), {m});
  const json& st = j["benchmarks"][0]["states"][0];
  for (const json& s : st["summaries"]) {
    ASSERT_TRUE(s.contains("tag"));
    for (const json& d : s["data"]) {
      const std::string type = d["type"];
      EXPECT_TRUE(type == "int64" || type == "float64" || type == "string") << s.dump();
    }
    if (s["tag"].get<std::string>().rfind("reducelab/", 0) == 0) EXPECT_TRUE(s.contains("hide")) << s.dump();
  }
  // nvbench's cold measurement (isolated launches), whether or not L2 was flushed.
  const json* mean = summaryNamed(st, "nv/cold/time/gpu/mean");
  ASSERT_NE(mean, nullptr);
  EXPECT_DOUBLE_EQ(mean->at("data")[0]["value"].get<double>(), m.kernel.mean * 1e-3);
  const json* noise = summaryNamed(st, "nv/cold/time/gpu/stdev/relative");
  ASSERT_NE(noise, nullptr);
  EXPECT_DOUBLE_EQ(noise->at("data")[0]["value"].get<double>(), m.kernel.stddev / m.kernel.mean);
  EXPECT_EQ((*noise)["hint"], "percentage");
  const json* samples = summaryNamed(st, "nv/cold/sample_size");
  ASSERT_NE(samples, nullptr);
  EXPECT_EQ(samples->at("data")[0]["value"], 4);
  const json* bytes = summaryNamed(st, "nv/gmem/reads/Input");
  ASSERT_NE(bytes, nullptr);
  EXPECT_EQ(bytes->at("data")[0]["value"], (1 << 20) * 4);
  const json* bw = summaryNamed(st, "nv/cold/bw/global/bytes_per_second");
  ASSERT_NE(bw, nullptr);
  EXPECT_DOUBLE_EQ(bw->at("data")[0]["value"].get<double>(), m.bandwidthGBs * 1e9);
  const json* util = summaryNamed(st, "nv/cold/bw/global/utilization");
  ASSERT_NE(util, nullptr);
  EXPECT_DOUBLE_EQ(util->at("data")[0]["value"].get<double>(), m.pctTheoretical / 100);
}

// Without a known peak (CPU model) there is no utilisation to write, rather than a made-up 0 %.
TEST(NvbenchJson, NoUtilisationWithoutAPeak) {
  SessionInfo s = h200Session();
  s.peaks = Peaks{};
  const json j = sessionJson(s, {measured("k7", 1 << 20, 256, false)});
  const json& st = j["benchmarks"][0]["states"][0];
  EXPECT_NE(summaryNamed(st, "nv/cold/bw/global/bytes_per_second"), nullptr);
  for (const json& x : st["summaries"]) {
    const std::string tag = x["tag"];
    EXPECT_EQ(tag.find("utilization"), std::string::npos) << tag;
    EXPECT_EQ(tag.find("peak_fraction"), std::string::npos) << tag;
  }
}

TEST(NvbenchJson, RoundTripKeepsEveryFieldReduceLabReads) {
  Measurement m = measured("k12", 1 << 24, 512, true);
  m.geometry.final = FinalStage::LastBlock;  // what the engine plans for k12
  m.config.data = DataPattern::Ones;
  m.config.seed = 7;
  m.distinctResults = {"1", "2"};
  m.check.pass = false;
  m.check.absError = 1.5;
  Measurement skipped;
  skipped.config.kernel = "k5";
  skipped.config.block = 32;
  skipped.error = "needs 64 threads";
  std::string err;
  const auto back = measurementsFromJson(json::parse(sessionJson(h200Session(), {m, skipped}).dump()), &err);
  ASSERT_EQ(back.size(), 2u) << err;
  const Measurement& b = back[0];
  EXPECT_EQ(b.config.kernel, "k12");
  EXPECT_EQ(b.config.type, ElemType::Int32);
  EXPECT_EQ(b.config.n, uint64_t(1) << 24);
  EXPECT_EQ(b.config.block, 512);
  EXPECT_TRUE(b.config.warmL2);
  EXPECT_EQ(b.config.data, DataPattern::Ones);
  EXPECT_EQ(b.config.seed, 7u);
  EXPECT_EQ(b.kernelMs, m.kernelMs);
  EXPECT_EQ(b.endToEndMs, m.endToEndMs);
  EXPECT_EQ(b.distinctResults, m.distinctResults);
  EXPECT_EQ(b.geometry.passGrids, m.geometry.passGrids);
  EXPECT_EQ(b.geometry.smemBytes, m.geometry.smemBytes);
  EXPECT_DOUBLE_EQ(b.bandwidthGBs, m.bandwidthGBs);
  EXPECT_DOUBLE_EQ(b.pctTheoretical, m.pctTheoretical);
  EXPECT_DOUBLE_EQ(b.pctMeasuredRead, m.pctMeasuredRead);
  EXPECT_TRUE(b.result.isInt);
  EXPECT_EQ(b.result.i, m.result.i);
  EXPECT_TRUE(b.haveReference);
  EXPECT_FALSE(b.check.pass);
  EXPECT_DOUBLE_EQ(b.check.absError, 1.5);
  EXPECT_EQ(b.resources.registers, 18);
  EXPECT_EQ(b.resources.limiter, "threads");
  EXPECT_DOUBLE_EQ(b.resources.waves, 2.5);
  EXPECT_FALSE(back[1].ok);
  EXPECT_EQ(back[1].error, "needs 64 threads");
  EXPECT_EQ(back[1].config.block, 32);
}

// A file from a later layout is refused with a message, not half-read.
TEST(NvbenchJson, RefusesALaterSchema) {
  json j = sessionJson(h200Session(), {measured("k7", 1 << 20, 256, false)});
  std::string err;
  EXPECT_EQ(measurementsFromJson(j, &err).size(), 1u) << err;
  j["meta"]["version"]["json_schema"] = 3;
  EXPECT_TRUE(measurementsFromJson(j, &err).empty());
  EXPECT_NE(err.find("newer ReduceLab"), std::string::npos) << err;
}

// The unversioned files measured on the H200 still load, and say the same once rewritten in the new layout.
TEST(NvbenchJson, OldH200FilesLoadAndSurviveTheNewLayout) {
  for (const char* file : {"h200-sweep-n.json", "h200-sweep-block.json", "h200-sweep-type.json"}) {
    SCOPED_TRACE(file);
    const json old = readJson(sourceDir() + "/docs/data/" + file);
    ASSERT_FALSE(old["meta"]["version"].contains("json"));  // really the old layout
    std::string err;
    const auto rows = measurementsFromJson(old, &err);
    ASSERT_FALSE(rows.empty()) << err;
    size_t withUtilisation = 0;
    for (const Measurement& m : rows)
      if (m.ok) {
        EXPECT_FALSE(m.kernelMs.empty());
        EXPECT_GT(m.bandwidthGBs, 0);
        withUtilisation += m.pctTheoretical > 0;
      }
    EXPECT_GT(withUtilisation, 0u);
    SessionInfo s{deviceFromJson(old), peaksFromJson(old), {}, "sweep"};
    EXPECT_GT(s.peaks.theoreticalGBs, 0);
    const json rewritten = json::parse(sessionJson(s, rows).dump());
    const auto again = measurementsFromJson(rewritten, &err);
    ASSERT_EQ(again.size(), rows.size()) << err;
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(again[i].ok, rows[i].ok);
      EXPECT_EQ(again[i].config.kernel, rows[i].config.kernel);
      EXPECT_EQ(again[i].config.type, rows[i].config.type);
      EXPECT_EQ(again[i].config.n, rows[i].config.n);
      EXPECT_EQ(again[i].config.block, rows[i].config.block);
      EXPECT_EQ(again[i].config.warmL2, rows[i].config.warmL2);
      EXPECT_EQ(again[i].kernelMs, rows[i].kernelMs);
      EXPECT_EQ(again[i].geometry.passGrids, rows[i].geometry.passGrids);
      EXPECT_EQ(again[i].distinctResults, rows[i].distinctResults);
      EXPECT_DOUBLE_EQ(again[i].pctTheoretical, rows[i].pctTheoretical);
      EXPECT_EQ(again[i].result.isInt, rows[i].result.isInt);
      EXPECT_EQ(again[i].result.i, rows[i].result.i);
      EXPECT_EQ(again[i].check.pass, rows[i].check.pass);
    }
    const DeviceInfo d = deviceFromJson(rewritten);
    EXPECT_EQ(d.name, s.device.name);
    EXPECT_EQ(d.smCount, s.device.smCount);
    EXPECT_DOUBLE_EQ(peaksFromJson(rewritten).theoreticalGBs, s.peaks.theoreticalGBs);
  }
}

// Writes a bench-shaped and a session-shaped file for scripts/check-nvbench-json.sh to feed to nvbench's
// tools (no GPU here: the measurements are the H200's, from docs/data). Skips unless asked for a folder.
TEST(NvbenchJsonTools, WritesBenchAndSessionFiles) {
  const char* dir = std::getenv("REDUCELAB_NVBENCH_JSON_DIR");
  if (!dir || !*dir) GTEST_SKIP() << "set REDUCELAB_NVBENCH_JSON_DIR to write the files";
  const json old = readJson(sourceDir() + "/docs/data/h200-sweep-type.json");
  std::string err;
  const auto rows = measurementsFromJson(old, &err);
  ASSERT_FALSE(rows.empty()) << err;
  SessionInfo bench{deviceFromJson(old), peaksFromJson(old), {"reducelab", "bench"}, "reduce"};
  std::vector<Measurement> session = rows;
  Measurement skipped;
  skipped.config.kernel = "k5";
  skipped.config.block = 32;
  skipped.error = "k5 needs at least 64 threads per block";
  session.push_back(skipped);
  SessionInfo gui{deviceFromJson(old), peaksFromJson(old), {}, "session"};
  for (const auto& [name, text] : {std::pair{"bench.json", sessionJson(bench, rows).dump(2)},
                                   std::pair{"session.json", sessionJson(gui, session).dump(2)}}) {
    const std::string path = std::string(dir) + "/" + name;
    std::ofstream(path) << text << "\n";
    const auto back = measurementsFromJson(readJson(path), &err);
    EXPECT_FALSE(back.empty()) << path << ": " << err;
  }
}
