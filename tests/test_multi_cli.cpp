// `reducelab multi` without GPUs: the model's schedules, bad input, the "needs GPUs" message; and
// the multi records (JSON round trip, tables, the chart) that the GUI loads.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <nlohmann/json.hpp>

#include "reducelab/atomic_file.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/gui/multi_view.hpp"
#include "reducelab/formats/table_writers.hpp"
#include "reducelab/multi_record.hpp"
#include "test_support.hpp"

using rl::test::countLines;
using rl::test::readFile;
using rl::test::runReducelab;

namespace {

void expectUsage(const std::string& args, const std::string& mention) {
  auto r = runReducelab(args);
  EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.err;
  EXPECT_EQ(countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << r.err;
}

// A report as `reducelab multi` builds it (two GPUs, two sizes, one failed check).
rl::multi::Report sampleReport() {
  rl::multi::Report r;
  r.ok = true;
  r.gpusVisible = r.gpusUsed = 2;
  rl::DeviceInfo d;
  d.available = true;
  d.name = "Test GPU";
  r.devices = {d, d};
  r.peerAccess = {{true, true}, {true, true}};
  r.p2pGBs = {0, 321.5};
  r.hbmReadGBs = {4000, 4001};
  r.ncclVersion = "2.28.3";
  r.notMeasured = {"something that could not be"};
  for (uint64_t bytes : {uint64_t(1) << 20, uint64_t(1) << 30}) {
    rl::multi::Row w;
    w.kind = "vector";
    w.collective = "allreduce";
    w.algorithm = "nccl-ring";
    w.gpus = 2;
    w.bytes = bytes;
    w.count = bytes / 4;
    w.ok = true;
    w.ms.count = 5;
    w.ms.median = double(bytes) / 200e9 * 1e3;
    w.algbwGBs = 200;
    w.busbwGBs = 200;
    w.checked = true;
    w.pass = bytes < (uint64_t(1) << 30);
    w.check = w.pass ? "all elements" : "3 of 2^28 x 2 elements wrong";
    r.rows.push_back(w);
  }
  rl::multi::Row s;
  s.kind = "scalar";
  s.collective = "reduce";
  s.algorithm = "hand";
  s.gpus = 2;
  s.count = 1000;
  s.error = "peer access is missing between some GPUs";
  r.rows.push_back(s);
  return r;
}

}  // namespace

TEST(MultiCli, WithoutGpusSaysWhatIsNeededAndExitsOne) {
  auto r = runReducelab("multi --sizes 1K", "REDUCELAB_HIDE_GPU=1");  // hidden GPUs: the same on every machine
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("needs NVIDIA GPUs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--model"), std::string::npos) << r.err;  // what works without them
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(MultiCli, BadInputIsAUsageErrorBeforeAnyDeviceIsAsked) {
  expectUsage("multi --sizes 8G..1K", "--sizes");
  expectUsage("multi --sizes 12Q", "--sizes");
  expectUsage("multi --sizes 0", "--sizes");
  expectUsage("multi --algo ring,bogus", "bogus");
  expectUsage("multi --algo ,", "--algo");
  expectUsage("multi --type float16", "--type");
  expectUsage("multi --op mean", "--op");
  expectUsage("multi --n 0", "--n");
  expectUsage("multi --gpus 65", "--gpus");
  expectUsage("multi --gpus -1", "--gpus");
  expectUsage("multi --reps 0", "--reps");
  expectUsage("multi --format xml", "--format");
  expectUsage("multi --model --sizes none", "--sizes");
  expectUsage("multi --model --algo hand --sizes 1M", "hand");
  expectUsage("multi --model --sizes 1M --chart x.svg", "--chart");
}

TEST(MultiCli, ExistingOutputIsKeptWithoutForce) {
  const std::string path = rl::test::tempPath("multi-existing.txt");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("keep me", f);
    std::fclose(f);
  }
  auto r = runReducelab("multi --model --sizes 1M --out " + path);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(path), "keep me");
  r = runReducelab("multi --model --sizes 1M --force --out " + path);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(readFile(path).find("ring"), std::string::npos);
  // An unwritable target: one error, nothing else touched.
  r = runReducelab("multi --model --sizes 1M --out /nonexistent-dir/m.txt");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(countLines(r.err), 1) << r.err;
}

TEST(MultiCli, ModelPrintsTheRingAndTreeSchedules) {
  const std::string path = rl::test::tempPath("multi-model.json");
  std::filesystem::remove(path);
  auto r = runReducelab("multi --model --gpus 4 --sizes 1G --type float32 --format json --out " + path);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(readFile(path));
  ASSERT_EQ(j.size(), 4u);  // ring and tree, AllReduce and Reduce
  bool sawRing = false;
  for (const auto& s : j) {
    if (s["algorithm"] != "ring" || s["collective"] != "allreduce") continue;
    sawRing = true;
    EXPECT_EQ(s["steps"].size(), 6u);  // 2(G-1)
    for (const auto& st : s["steps"]) {
      EXPECT_EQ(st["transfers"].size(), 4u);
      for (const auto& t : st["transfers"]) EXPECT_EQ(t["bytes"], uint64_t(256) << 20);  // N/G
    }
    for (const auto& b : s["sent_bytes"]) EXPECT_EQ(b, uint64_t(1536) << 20);  // 2(G-1)/G x N
  }
  EXPECT_TRUE(sawRing);
  // The text form lists every step when one size is given.
  r = runReducelab("multi --model --gpus 3 --sizes 3000 --algo tree");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("tree allreduce on 3 GPUs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("step 2 (broadcast)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ring"), std::string::npos) << r.out;  // only what --algo asked for
}

TEST(MultiRecords, JsonRoundTripKeepsEveryRow) {
  const rl::multi::Report r = sampleReport();
  rl::multi::Report back;
  std::string err;
  ASSERT_TRUE(rl::multi::fromJson(nlohmann::json::parse(rl::multi::toJson(r).dump()), &back, &err)) << err;
  ASSERT_EQ(back.rows.size(), r.rows.size());
  for (size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_EQ(back.rows[i].algorithm, r.rows[i].algorithm);
    EXPECT_EQ(back.rows[i].bytes, r.rows[i].bytes);
    EXPECT_EQ(back.rows[i].pass, r.rows[i].pass);
    EXPECT_DOUBLE_EQ(back.rows[i].ms.median, r.rows[i].ms.median);
    EXPECT_EQ(back.rows[i].error, r.rows[i].error);
  }
  EXPECT_EQ(back.p2pGBs, r.p2pGBs);
  EXPECT_EQ(back.notMeasured, r.notMeasured);
  for (const char* bad : {"[]", "{}", "{\"benchmark\":\"reduce\",\"rows\":[]}", "{\"benchmark\":\"multi\"}",
                          "{\"benchmark\":\"multi\",\"rows\":[{\"kind\":\"other\"}]}",
                          "{\"benchmark\":\"multi\",\"rows\":[{\"kind\":\"vector\",\"bytes\":\"x\"}]}"}) {
    err.clear();
    EXPECT_FALSE(rl::multi::fromJson(nlohmann::json::parse(bad), &back, &err)) << bad;
    EXPECT_FALSE(err.empty()) << bad;
  }
}

TEST(MultiRecords, TablesSayWhatFailedAndWhatWasNotMeasured) {
  const rl::multi::Report r = sampleReport();
  const std::string vec = rl::textTable(rl::multi::vectorTable(r));
  EXPECT_NE(vec.find("FAIL 3 of"), std::string::npos) << vec;
  EXPECT_NE(vec.find("PASS"), std::string::npos) << vec;
  EXPECT_NE(vec.find("62.2"), std::string::npos) << vec;  // busbw 200 / peer copy 321.5
  rl::multi::Report withSpeedup = r;
  for (const char* algo : {"single-gpu", "nccl-ring"}) {
    rl::multi::Row w;
    w.kind = "scalar";
    w.collective = "allreduce";
    w.algorithm = algo;
    w.ok = true;
    w.ms.count = 3;
    w.ms.median = algo[0] == 's' ? 4.0 : 1.6;  // 2.5 times faster on the GPUs
    withSpeedup.rows.push_back(w);
  }
  const std::string sc = rl::textTable(rl::multi::scalarTable(withSpeedup));
  EXPECT_NE(sc.find("not measured: peer access"), std::string::npos) << sc;
  EXPECT_NE(sc.find("x2.50"), std::string::npos) << sc;
  EXPECT_NE(sc.find("x1.00"), std::string::npos) << sc;
  const std::string d = rl::multi::describe(r);
  EXPECT_NE(d.find("not measured: something that could not be"), std::string::npos) << d;
  EXPECT_NE(d.find("nccl issue #1455"), std::string::npos) << d;
}

TEST(MultiRecords, ChartHasBothBandwidthsAndTheRoofs) {
  const rl::gui::Figure f = rl::gui::multiFigure(sampleReport());
  ASSERT_EQ(f.spec.series.size(), 2u);  // nccl-ring busbw and algbw
  EXPECT_EQ(f.spec.series[0].x.size(), 2u);
  EXPECT_EQ(f.configs.size(), f.spec.series.size());
  std::vector<double> refs;
  for (const auto& l : f.spec.references) refs.push_back(l.value);
  EXPECT_NE(std::find(refs.begin(), refs.end(), 321.5), refs.end());  // measured peer copy
  EXPECT_NE(std::find(refs.begin(), refs.end(), 4000.0), refs.end());  // HBM read roof
  const std::string pdf = rl::test::tempPath("multi-chart.pdf");
  ASSERT_EQ(rl::writeTextAtomic(pdf, rl::gui::figureFormats().find("pdf")->render(f.spec, {}, nullptr)), "");
  REQUIRE_PDFTOTEXT();
  const std::string text = rl::test::pdfText(pdf);
  EXPECT_NE(text.find("busbw"), std::string::npos) << text;
  EXPECT_NE(text.find("peer copy"), std::string::npos) << text;
  // The measured time of a size the run has, none for one it lacks.
  EXPECT_GT(rl::gui::measuredSeconds(sampleReport(), rl::collective::Algorithm::Ring,
                                     rl::collective::Collective::AllReduce, uint64_t(1) << 20, 2), 0);
  EXPECT_EQ(rl::gui::measuredSeconds(sampleReport(), rl::collective::Algorithm::Tree,
                                     rl::collective::Collective::AllReduce, uint64_t(1) << 20, 2), 0);
}

TEST(MultiRecords, PanelLoadsASavedRunAndRefusesOtherFiles) {
  rl::gui::MultiPanelState s;
  const std::string good = rl::test::tempPath("multi-good.json"), bad = rl::test::tempPath("multi-bad.json");
  ASSERT_EQ(rl::writeTextAtomic(good, rl::multi::toJson(sampleReport()).dump()), "");
  ASSERT_EQ(rl::writeTextAtomic(bad, "{\"benchmark\": \"reduce\"}"), "");
  EXPECT_NE(rl::gui::loadMultiResults(s, bad), "");
  EXPECT_FALSE(s.haveMeasured);
  EXPECT_NE(rl::gui::loadMultiResults(s, rl::test::tempPath("no-such.json")), "");
  EXPECT_EQ(rl::gui::loadMultiResults(s, good), "");
  EXPECT_TRUE(s.haveMeasured);
  EXPECT_EQ(s.gpus, 2);  // the animation follows the measured machine
}

TEST(MultiCli, FromASavedRunWritesTablesAndTheChartWithoutAGpu) {
  const std::string json = rl::test::tempPath("multi-saved.json"), svg = rl::test::tempPath("multi-saved.svg");
  std::filesystem::remove(svg);
  ASSERT_EQ(rl::writeTextAtomic(json, rl::multi::toJson(sampleReport()).dump()), "");
  auto r = runReducelab("multi --from " + json + " --format md --chart " + svg);
  EXPECT_EQ(r.exitCode, 3) << r.err;  // the saved run has a failed check: the exit code says so
  EXPECT_NE(r.out.find("| 1 MiB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAIL 3 of"), std::string::npos) << r.out;
  EXPECT_NE(readFile(svg).find("<svg"), std::string::npos);
  r = runReducelab("multi --from " + rl::test::tempPath("nothing.json"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(countLines(r.err), 1) << r.err;
  const std::string notMulti = rl::test::tempPath("not-multi.json");
  ASSERT_EQ(rl::writeTextAtomic(notMulti, "{\"benchmark\": \"reduce\"}"), "");
  r = runReducelab("multi --from " + notMulti);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("not a `reducelab multi"), std::string::npos) << r.err;
  expectUsage("multi --model --sizes 1M --from " + json, "--from");
}

// The Multi-GPU tab on the CPU model, headless: a one-step lesson brings it to the front; the
// canvas shows four GPUs with their chunk cells and step 1's transfers (orange: added in).
TEST(MultiPanel, AnimatesTheRingFromTheCpuModelHeadless) {
  const std::string lesson = rl::test::tempPath("panel-multi.lesson"), png = rl::test::tempPath("panel-multi.png"),
                    layout = rl::test::tempPath("panel-multi.json");
  ASSERT_EQ(rl::writeTextAtomic(lesson, "title: t\nstep: ring\npanel multi\ncaption: the ring\n"), "");
  auto r = runReducelab("lesson " + lesson + " --headless --frames 3 --size 1600x900 --screenshot " + png +
                        " --dump-layout " + layout);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(readFile(layout));
  ASSERT_TRUE(j["panels"].contains("multi-canvas")) << j.dump();
  const auto rect = j["panels"]["multi-canvas"];
  const int x0 = int(rect[0].get<float>()), y0 = int(rect[1].get<float>());
  const int w = int(rect[2].get<float>()), h = int(rect[3].get<float>());
  EXPECT_GT(w, 200);
  EXPECT_GT(h, 200);
  const rl::test::Image img = rl::test::loadPng(png);
  ASSERT_TRUE(img.ok());
  int orange = 0;
  std::set<uint32_t> hues;
  for (int y = std::max(0, y0); y < std::min(img.height, y0 + h); ++y)
    for (int x = std::max(0, x0); x < std::min(img.width, x0 + w); ++x) {
      const uint8_t* p = img.at(x, y);
      if (p[0] == 235 && p[1] == 140 && p[2] == 40) ++orange;  // a transfer being added in
      hues.insert(uint32_t(p[0] >> 3) << 10 | uint32_t(p[1] >> 3) << 5 | uint32_t(p[2] >> 3));
    }
  EXPECT_GT(orange, 40);           // four arrows of the first reduce-scatter step
  EXPECT_GT(hues.size(), 20u);     // chunk colours, boxes, labels
}

TEST(MultiCli, FramesRecordEveryStepOfTheAnimationAsSvg) {
  const std::string dir = rl::test::tempPath("multi-frames");
  std::filesystem::remove_all(dir);
  auto r = runReducelab("multi --model --gpus 4 --sizes 1G --algo ring --frames " + dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // Ring AllReduce: 6 steps + the end state; ring Reduce: 6 steps + the end state.
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) count += e.path().extension() == ".svg";
  EXPECT_EQ(count, 14);
  const std::string first = readFile(dir + "/ring-allreduce-g4-step-01.svg");
  EXPECT_NE(first.find("step 1 of 6: reduce-scatter"), std::string::npos) << first.substr(0, 600);
  EXPECT_NE(first.find("256 MiB"), std::string::npos);
  EXPECT_NE(first.find("#eb8c28"), std::string::npos);  // chunks being added in
  const std::string gather = readFile(dir + "/ring-allreduce-g4-step-05.svg");
  EXPECT_NE(gather.find("all-gather"), std::string::npos);
  EXPECT_NE(gather.find("#468ceb"), std::string::npos);  // copied
  EXPECT_NE(readFile(dir + "/ring-allreduce-g4-step-07.svg").find("done after 6 steps"), std::string::npos);
  // Again without --force: refused, nothing rewritten.
  r = runReducelab("multi --model --gpus 4 --sizes 1G --algo ring --frames " + dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  expectUsage("multi --model --sizes 1K,2K --frames " + dir, "--frames");
  expectUsage("multi --frames " + dir, "--frames");
}
