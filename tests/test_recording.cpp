// Recordings (docs/recording-format.md): `reducelab record` on the CPU model, read back to the
// same records and the same trace bytes; strict refusal of newer versions, truncated, damaged
// and hostile files; the GUI opening one (banner, lesson rows, recorded traces) and keeping what
// it had when a bad one is opened; Save session in the same format; the file chooser through
// zenity (a fake one on PATH) and its fallback.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <zlib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "application.hpp"
#include "file_dialog.hpp"
#include "reducelab/gui/layout_check.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/recording.hpp"
#include "test_support.hpp"

using namespace rl;
using rl::test::runReducelab;

namespace {

using rl::test::sourceDir;

// The recording the project ships (made on the H200 with `reducelab record --lesson upc`; until
// then one made here with the CPU model). The GUI test opens whatever file sits here.
std::string shippedRecording() { return sourceDir() + "/assets/recordings/upc.reducelab"; }

std::string bytesOf(const std::string& path) { return rl::test::readFile(path); }

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A small lesson (N = 2^16) so the CPU loop of each row takes milliseconds.
std::string smallLesson() {
  const std::string path = rl::test::tempPath("small.lesson");
  std::ofstream(path) << "title: Small\ndescription: two steps\n\n"
                         "step: first\nset kernel=k1 n=2^16 block=256 type=int32\nrun label=k1_int\nview warp step=1\n"
                         "caption: k1\n\n"
                         "step: second\nset kernel=k3\nrun label=k3_int\nrun label=k3_float type=float32\n"
                         "view bank step=2\ncaption: k3\n";
  return path;
}

// The container by hand (the layout docs/recording-format.md describes), for files the writer
// would never produce: any header JSON and blob bytes, any version.
// (version: the preamble's; the recordings of these tests hold no kernel of the user's, so 1)
std::string container(const std::string& header, const std::string& blobs, uint32_t version = 1) {
  const std::string payload = header + blobs;
  uLongf bound = compressBound(uLong(payload.size()));
  std::string z(bound, '\0');
  EXPECT_EQ(compress(reinterpret_cast<Bytef*>(z.data()), &bound, reinterpret_cast<const Bytef*>(payload.data()),
                     uLong(payload.size())),
            Z_OK);
  z.resize(bound);
  std::string out(kRecordingMagic, 8);
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(char(v >> (8 * i)));
  };
  auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(char(v >> (8 * i)));
  };
  u32(version);
  u32(0);
  u64(header.size());
  u64(blobs.size());
  u64(z.size());
  u32(uint32_t(crc32(0, reinterpret_cast<const Bytef*>(payload.data()), uInt(payload.size()))));
  u32(0);
  return out + z;
}

// Splits a recording into its header JSON and trace bytes (through the same zlib).
void splitRecording(const std::string& file, nlohmann::json* header, std::string* blobs) {
  ASSERT_GE(file.size(), kRecordingPreambleBytes);
  uint64_t headerBytes = 0, traceBytes = 0;
  for (int i = 7; i >= 0; --i) headerBytes = (headerBytes << 8) | uint8_t(file[16 + size_t(i)]);
  for (int i = 7; i >= 0; --i) traceBytes = (traceBytes << 8) | uint8_t(file[24 + size_t(i)]);
  std::string payload(headerBytes + traceBytes, '\0');
  uLongf size = uLongf(payload.size());
  ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(payload.data()), &size,
                       reinterpret_cast<const Bytef*>(file.data() + kRecordingPreambleBytes),
                       uLong(file.size() - kRecordingPreambleBytes)),
            Z_OK);
  *header = nlohmann::json::parse(payload.substr(0, headerBytes));
  *blobs = payload.substr(headerBytes);
}

// A recording of the CPU model made by the CLI (once per process).
const std::string& cpuRecording() {
  static const std::string path = [] {
    const std::string p = rl::test::tempPath("small.reducelab");
    const auto r = runReducelab("record --cpu-model --lesson " + smallLesson() + " --out " + p);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return p;
  }();
  return path;
}

Measurement measuredRow(const std::string& kernel, double base, const std::string& label) {
  Measurement m;
  m.config.kernel = kernel;
  m.config.n = uint64_t(1) << 20;
  m.config.type = ElemType::Int32;
  m.config.reps = 4;
  m.kernelName = kernel;
  m.label = label;
  m.ok = true;
  m.kernelMs = {base, base * 1.25, base * 0.75, base * 1.5};
  m.endToEndMs = {base * 2, base * 2.5, base * 1.75, base * 3};
  m.kernel = Stats::of(m.kernelMs);
  m.endToEnd = Stats::of(m.endToEndMs);
  m.bytesRead = double(m.config.n) * 4;
  m.bandwidthGBs = m.bytesRead / (m.kernel.median * 1e-3) / 1e9;
  m.result.isInt = true;
  m.result.i = 123456;
  m.distinctResults = {"123456"};
  m.haveReference = true;
  m.check.pass = true;
  m.haveCpu = true;
  m.cpu.ms = Stats::of({base * 40, base * 41, base * 39});
  m.cpu.reps = 3;
  m.cpu.result = m.result;
  m.speedupVsCpu = m.cpu.ms.median / m.endToEnd.median;
  m.geometry.final = FinalStage::Gpu;
  m.geometry.passGrids = {2048, 4};
  return m;
}

// A recording as a GPU machine writes one (device and samples made up by the test).
Recording gpuLikeRecording() {
  Recording r;
  r.device.available = true;
  r.device.name = "NVIDIA H200";
  r.device.ccMajor = 9;
  r.device.smCount = 132;
  r.device.driverVersion = 13000;
  r.device.runtimeVersion = 13000;
  r.device.memClockKHz = 3201000;
  r.device.busWidthBits = 6144;
  r.peaks.theoreticalGBs = 4915.0;
  r.peaks.readGBs = 4500.25;
  r.peaks.copyGBs = 4100.25;
  r.peaks.source = "measured now";
  r.createdUtc = "2026-11-21T09:30:00Z";
  r.host = "gpu-host";
  r.reducelabVersion = "test";
  r.argv = {"reducelab", "record"};
  r.measurements = {measuredRow("k3", 0.05, ""), measuredRow("k7", 0.03, "")};
  r.sweeps["block"] = {measuredRow("k7", 0.04, "")};
  RunConfig c;
  c.kernel = "k3";
  c.n = uint64_t(1) << 20;
  c.type = ElemType::Int32;
  std::string err;
  RecordedTrace t;
  t.config = c;
  t.fromGpu = true;
  t.bytes = modelTrace(c, assumedGeometry(c, assumedH200()).grid(), 9, &err).toBuffer();
  r.traces.push_back(t);
  return r;
}

std::string decodeError(const std::string& bytes) {
  Recording r;
  return decodeRecording(bytes.data(), bytes.size(), &r);
}

}  // namespace

TEST(Recording, CpuModelRecordReadsBackToTheSameRowsAndTraceBytes) {
  const std::string file = bytesOf(cpuRecording());
  ASSERT_FALSE(file.empty());
  Recording r;
  ASSERT_EQ(decodeRecording(file.data(), file.size(), &r), "");
  EXPECT_FALSE(r.fromGpu());
  EXPECT_NE(r.banner().find("Recorded with the CPU model (no NVIDIA GPU)"), std::string::npos) << r.banner();
  EXPECT_EQ(r.lessonName, "small");
  // One record per lesson run, labelled with its row, with the CPU loop measured here.
  ASSERT_EQ(r.measurements.size(), 3u);
  for (size_t i = 0; i < r.measurements.size(); ++i) {
    const Measurement& m = r.measurements[i];
    EXPECT_EQ(m.label, "lesson:" + std::to_string(i));
    EXPECT_FALSE(m.ok);
    EXPECT_NE(m.error.find("CPU model"), std::string::npos);
    EXPECT_TRUE(m.haveCpu);
    EXPECT_GT(m.cpu.ms.median, 0);
    EXPECT_EQ(m.config.n, uint64_t(1) << 16);
  }
  EXPECT_EQ(r.measurements[2].config.type, ElemType::Float32);
  // The traces are the CPU model's bytes, as the GUI computes them without a recording.
  ASSERT_EQ(r.traces.size(), 3u);  // k1 int32, k3 int32, k3 float32
  for (const RecordedTrace& t : r.traces) {
    std::string err;
    const TraceData model = modelTrace(t.config, assumedGeometry(t.config, assumedH200()).grid(), 9, &err);
    EXPECT_EQ(t.bytes, model.toBuffer()) << t.config.kernel;
    EXPECT_FALSE(t.fromGpu);
  }
  // Everything read is what was written: writing it again gives the same bytes.
  EXPECT_EQ(encodeRecording(r), file);
}

TEST(Recording, GpuRecordRoundTripsSamplesPeaksAndBanner) {
  const Recording r = gpuLikeRecording();
  const std::string bytes = encodeRecording(r);
  Recording back;
  ASSERT_EQ(decodeRecording(bytes.data(), bytes.size(), &back), "");
  EXPECT_EQ(back.banner(), "Recorded on NVIDIA H200, driver 13.0, 2026-11-21 09:30 UTC");
  EXPECT_EQ(back.device.name, "NVIDIA H200");
  EXPECT_EQ(back.device.driverVersion, 13000);
  EXPECT_EQ(back.peaks.readGBs, 4500.25);
  EXPECT_EQ(back.peaks.copyGBs, 4100.25);
  ASSERT_EQ(back.measurements.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Measurement &a = r.measurements[i], &b = back.measurements[i];
    EXPECT_EQ(b.kernelMs, a.kernelMs);
    EXPECT_EQ(b.endToEndMs, a.endToEndMs);
    EXPECT_EQ(b.config.reps, 4);
    EXPECT_EQ(b.cpu.ms.median, a.cpu.ms.median);
    EXPECT_EQ(b.speedupVsCpu, a.speedupVsCpu);
    EXPECT_EQ(b.result.i, a.result.i);
    EXPECT_DOUBLE_EQ(b.endToEndGBs, a.bytesRead / (a.endToEnd.median * 1e-3) / 1e9);
  }
  ASSERT_EQ(back.sweeps.count("block"), 1u);
  ASSERT_EQ(back.traces.size(), 1u);
  EXPECT_TRUE(back.traces[0].fromGpu);
  EXPECT_EQ(back.traces[0].bytes, r.traces[0].bytes);
  EXPECT_EQ(encodeRecording(back), bytes);
}

TEST(Recording, NewerOrUnknownVersionsAreRefused) {
  std::string bytes = encodeRecording(gpuLikeRecording());
  bytes[8] = char(kRecordingVersion + 1);
  EXPECT_NE(decodeError(bytes).find("newer ReduceLab"), std::string::npos) << decodeError(bytes);
  bytes[8] = 0;
  EXPECT_NE(decodeError(bytes).find("version 0"), std::string::npos);
  // The header's version must agree with the preamble's.
  nlohmann::json h;
  std::string blobs;
  splitRecording(encodeRecording(gpuLikeRecording()), &h, &blobs);
  h["version"] = 2;
  EXPECT_NE(decodeError(container(h.dump(), blobs, 1)).find("does not match its preamble"), std::string::npos);
  // Unknown preamble flags are refused rather than ignored.
  bytes = encodeRecording(gpuLikeRecording());
  bytes[12] = 1;
  EXPECT_NE(decodeError(bytes).find("flags"), std::string::npos);
}

// A recording made with `record --kernel-file`: the kernel's source, the compiler's messages and
// its traced block travel with the rows; such a file is version 2 (older readers refuse it as
// newer), one without a kernel stays version 1; a trace of "yours" needs the kernel beside it.
TEST(Recording, YourKernelTravelsWithItsSourceMessagesAndTrace) {
  Recording r = gpuLikeRecording();
  EXPECT_EQ(encodeRecording(r)[8], char(1));
  r.userKernel = UserKernelRecord{"mine.cu", "__global__ void mine(const T* in, T* out, unsigned int n) {}\n",
                                  "mine.cu:3:7: warning: variable \"x\" was declared but never referenced\n", "sm_90"};
  Measurement row = measuredRow("yours", 0.02, "");
  row.kernelName = "your kernel (mine.cu)";
  r.measurements.push_back(row);
  RecordedTrace t = r.traces.front();
  t.config.kernel = std::string(kUserKernelKey);
  r.traces.push_back(t);
  const std::string bytes = encodeRecording(r);
  EXPECT_EQ(bytes[8], char(2));
  Recording back;
  ASSERT_EQ(decodeRecording(bytes.data(), bytes.size(), &back), "");
  ASSERT_TRUE(back.userKernel.has_value());
  EXPECT_EQ(back.userKernel->file, "mine.cu");
  EXPECT_EQ(back.userKernel->source, r.userKernel->source);
  EXPECT_EQ(back.userKernel->compileLog, r.userKernel->compileLog);
  EXPECT_EQ(back.userKernel->arch, "sm_90");
  ASSERT_EQ(back.measurements.size(), 3u);
  EXPECT_EQ(back.measurements[2].kernelName, "your kernel (mine.cu)");
  ASSERT_NE(back.findTrace(t.config), nullptr);
  EXPECT_EQ(back.findTrace(t.config)->bytes, t.bytes);
  EXPECT_EQ(encodeRecording(back), bytes);

  nlohmann::json h;
  std::string blobs;
  splitRecording(bytes, &h, &blobs);
  nlohmann::json noKernel = h;
  noKernel.erase("user_kernel");
  EXPECT_NE(decodeError(container(noKernel.dump(), blobs, 2)).find("a trace of your kernel, in a recording that holds none"),
            std::string::npos) << decodeError(container(noKernel.dump(), blobs, 2));
  nlohmann::json noSource = h;
  noSource["user_kernel"]["source"] = "";
  EXPECT_NE(decodeError(container(noSource.dump(), blobs, 2)).find("no file name or no source"), std::string::npos);
  nlohmann::json asOne = h;
  asOne["version"] = 1;
  EXPECT_NE(decodeError(container(asOne.dump(), blobs, 1)).find("holds your kernel but says it is version 1"),
            std::string::npos) << decodeError(container(asOne.dump(), blobs, 1));
}

TEST(Recording, TruncatedOrDamagedFilesAreRefused) {
  const std::string bytes = encodeRecording(gpuLikeRecording());
  for (size_t cut = 0; cut < bytes.size(); cut += cut < 64 ? 1 : 97) {
    const std::string e = decodeError(bytes.substr(0, cut));
    EXPECT_FALSE(e.empty()) << "cut at " << cut;
    if (cut >= kRecordingPreambleBytes) EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  }
  EXPECT_NE(decodeError(bytes + "x").find("after its end"), std::string::npos);
  // Any changed byte of the content is refused as damaged, or inflates to exactly the recorded
  // content: a deflate stream can carry bits that change nothing it inflates to (the code length
  // of a symbol no code uses), and the checksums cover the content, so such a file reads back
  // whole and right. Never a changed number.
  Recording original;
  ASSERT_EQ(decodeRecording(bytes.data(), bytes.size(), &original), "");
  ASSERT_EQ(encodeRecording(original), bytes) << "decoding and encoding again is the identity";
  for (size_t at = kRecordingPreambleBytes; at < bytes.size(); at += 53) {
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x5a);
    Recording back;
    const std::string e = decodeRecording(damaged.data(), damaged.size(), &back);
    if (e.empty()) EXPECT_EQ(encodeRecording(back), bytes) << "byte " << at << " read back as other content";
    else EXPECT_NE(e.find("damaged"), std::string::npos) << "byte " << at << ": " << e;
  }
  EXPECT_NE(decodeError("{\"benchmarks\": []}").find("not a ReduceLab recording"), std::string::npos);
}

TEST(Recording, HostileContentIsRefusedBeforeUse) {
  nlohmann::json h;
  std::string blobs;
  splitRecording(encodeRecording(gpuLikeRecording()), &h, &blobs);
  ASSERT_EQ(decodeError(container(h.dump(), blobs)), "");  // the hand-made container itself is fine
  auto refusedWith = [&](const nlohmann::json& header, const std::string& b, const std::string& what) {
    const std::string e = decodeError(container(header.dump(), b));
    EXPECT_NE(e.find(what), std::string::npos) << "expected '" << what << "', got '" << e << "'";
  };
  // A shared-memory address below 0 (a view would index a bank with it).
  {
    std::string b = blobs;
    trace::LaneRecord lane;
    const size_t at = trace::kLanesOffset + sizeof(trace::LaneRecord) * 5;  // step 0 (load), thread 5
    std::memcpy(&lane, b.data() + at, sizeof lane);
    lane.flags |= trace::slotBit(0);
    lane.addr[0] = -4096;
    std::memcpy(b.data() + at, &lane, sizeof lane);
    trace::StepHeader st;
    std::memcpy(&st, b.data() + trace::kStepsOffset, sizeof st);
    st.slots[0].space = trace::kSpaceShared;
    std::memcpy(b.data() + trace::kStepsOffset, &st, sizeof st);
    refusedWith(h, b, "shared-memory address out of range");
  }
  // A trace header that is not the configuration's (block size, then zero accumulator bytes).
  {
    std::string b = blobs;
    trace::TraceHeader th;
    std::memcpy(&th, b.data(), sizeof th);
    th.accBytes = 0;
    std::memcpy(b.data(), &th, sizeof th);
    refusedWith(h, b, "bad element or accumulator size");
    nlohmann::json other = h;
    other["traces"][0]["config"]["block"] = 256;
    refusedWith(other, blobs, "has " + std::to_string(blobs.size()) + " bytes");
  }
  // Sizes and offsets that do not add up, a trace too long for the blob bytes.
  {
    nlohmann::json x = h;
    x["traces"][0]["offset"] = 8;
    refusedWith(x, blobs, "outside the recording's trace bytes");
    refusedWith(h, blobs + std::string(256, '\0'), "do not cover");
  }
  // A label naming a lesson row that does not exist; a measurement that cannot be a run.
  {
    nlohmann::json x = h;
    x["session"]["benchmarks"][0]["states"][0]["reducelab"]["label"] = "lesson:7";
    refusedWith(x, blobs, "lesson:7");
    x["session"]["benchmarks"][0]["states"][0]["reducelab"]["label"] = "lesson:x";
    refusedWith(x, blobs, "does not name a lesson row");
    nlohmann::json y = h;
    y["session"]["benchmarks"][0]["states"][0]["reducelab"]["gpu_time_ms"] = {1.0, -3.0};
    refusedWith(y, blobs, "negative");
  }
  // A GPU trace in a CPU-model recording; a device that contradicts the source.
  {
    nlohmann::json x = h;
    x["source"] = "cpu-model";
    refusedWith(x, blobs, "its device is NVIDIA H200");
  }
  // A lesson that does not parse.
  {
    nlohmann::json x = h;
    x["lesson"] = {{"name", "bad"}, {"text", "step: no title line\nset kernel=k99\n"}};
    refusedWith(x, blobs, "lesson does not load");
  }
  // Sizes far beyond what the file holds are refused before anything is allocated.
  {
    std::string bytes = encodeRecording(gpuLikeRecording());
    for (int i = 0; i < 8; ++i) bytes[16 + size_t(i)] = char(0xff);
    EXPECT_NE(decodeError(bytes).find("header size"), std::string::npos);
  }
}

TEST(TraceContent, EveryCpuModelTracePasses) {
  int checked = 0;
  for (const KernelInfo& k : catalogue()) {
    if (!k.traceable) continue;
    for (ElemType type : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64})
      for (int block : {32, 64, 128, 256, 512, 1024}) {
        RunConfig c;
        c.kernel = std::string(k.key);
        c.type = type;
        c.block = block;
        c.accumulate = block == 256 ? Accumulate::Wide : Accumulate::Same;  // int32 -> int64, float32 -> float64
        c.op = block == 64 ? Op::Min : block == 128 ? Op::Max : Op::Sum;
        c.n = (uint64_t(1) << 20) + 3;  // a tail block too
        if (!validate(c, nullptr).empty()) continue;
        for (uint64_t traced : {uint64_t(0), uint64_t(1)}) {
          c.tracedBlock = traced;
          std::string err;
          const TraceData t = modelTrace(c, assumedGeometry(c, assumedH200()).grid(), 9, &err);
          ASSERT_TRUE(t.valid()) << err;
          EXPECT_EQ(checkTraceContent(t), "") << c.kernel << " block " << block << " " << name(type);
          ++checked;
        }
      }
  }
  EXPECT_GT(checked, 100);
}

TEST(Recording, OldSessionJsonStillOpens) {
  Recording r;
  ASSERT_EQ(readRecording(sourceDir() + "/docs/data/h200-bench-r3-a.json", &r), "");
  EXPECT_TRUE(r.fromGpu());
  EXPECT_NE(r.banner().find("Recorded on NVIDIA H200, driver 13."), std::string::npos) << r.banner();
  EXPECT_FALSE(r.measurements.empty());
  EXPECT_TRUE(r.traces.empty());
}

TEST(Recording, RecordCommandRefusesBadOutputsAndArguments) {
  // Refused like every other output: a folder, a device, an existing file without --force.
  for (const std::string& out : {std::string("/dev/null"), rl::test::tempPath("")}) {
    const auto r = runReducelab("record --cpu-model --kernel k3 --n 2^12 --out " + out + " --force");
    EXPECT_EQ(r.exitCode, 1) << out;
    EXPECT_EQ(rl::test::countLines(r.err), 1) << r.err;
  }
  const std::string existing = rl::test::tempPath("existing.reducelab");
  writeBytes(existing, "keep me");
  EXPECT_EQ(runReducelab("record --cpu-model --kernel k3 --n 2^12 --out " + existing).exitCode, 1);
  EXPECT_EQ(bytesOf(existing), "keep me");
  EXPECT_EQ(runReducelab("record --cpu-model --kernel k99 --out " + rl::test::tempPath("x.reducelab")).exitCode, 2);
  EXPECT_EQ(runReducelab("record --cpu-model --lesson no-such-lesson --out " + rl::test::tempPath("x.reducelab")).exitCode, 2);
  EXPECT_FALSE(std::filesystem::exists(rl::test::tempPath("x.reducelab")));
}

TEST(RecordingGui, OpensOnTheCommandLineWithBannerLessonAndRecordedTraces) {
  const std::string png = rl::test::tempPath("open.png"), layout = rl::test::tempPath("open.json");
  const auto r = runReducelab("--headless --frames 3 --screenshot " + png + " --dump-layout " + layout + " " + cpuRecording(),
                              "timeout 120 ");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(bytesOf(layout));
  EXPECT_TRUE(j["lesson_active"].get<bool>());
  EXPECT_TRUE(j["panels"].contains("banner"));
  EXPECT_NE(j["trace"]["source"].get<std::string>().find("recorded"), std::string::npos) << j["trace"];
  std::string text;
  for (const auto& t : j["text"]) text += t["text"].get<std::string>() + "\n";
  for (const char* s : {"Recorded with the CPU model", "CPU loop"}) EXPECT_NE(text.find(s), std::string::npos) << s;
  EXPECT_EQ(text.find("CPU model mode"), std::string::npos);  // the recording's banner replaces it
}

TEST(RecordingGui, BadFileOnTheCommandLineIsOneLine) {
  const std::string bad = rl::test::tempPath("bad.reducelab");
  const std::string good = bytesOf(cpuRecording());
  writeBytes(bad, good.substr(0, good.size() / 2));
  const auto r = runReducelab("--headless --frames 1 " + bad, "timeout 60 ");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(rl::test::countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  const auto missing = runReducelab("--headless --frames 1 " + rl::test::tempPath("no-such.reducelab"), "timeout 60 ");
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_EQ(rl::test::countLines(missing.err), 1) << missing.err;
  EXPECT_NE(missing.err.find("no file"), std::string::npos) << missing.err;
}

// The shipped recording (the H200's once the coordinator adds it) opens and renders here.
TEST(RecordingGui, ShippedRecordingOpensAndRenders) {
  Recording rec;
  ASSERT_EQ(readRecording(shippedRecording(), &rec), "");
  EXPECT_EQ(rec.lessonName, "upc");
  const std::string png = rl::test::tempPath("shipped.png"), layout = rl::test::tempPath("shipped.json");
  const auto r = runReducelab("--headless --frames 3 --screenshot " + png + " --dump-layout " + layout + " " +
                                  shippedRecording(),
                              "timeout 120 ");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(bytesOf(layout));
  std::string text;
  for (const auto& t : j["text"]) text += t["text"].get<std::string>() + "\n";
  // ImGui's text runs split words at punctuation: compare without spaces.
  auto squash = [](std::string s) {
    std::erase(s, ' ');
    return s;
  };
  EXPECT_NE(squash(text).find(squash(rec.banner())), std::string::npos) << rec.banner();
  EXPECT_TRUE(j["lesson_active"].get<bool>());
  const std::string source = j["trace"]["source"];
  if (rec.fromGpu()) {
    EXPECT_NE(source.find("GPU (" + rec.device.name + "), recorded"), std::string::npos) << source;
    EXPECT_NE(text.find("GB/s"), std::string::npos);
  } else {
    EXPECT_NE(source.find("CPU model, recorded"), std::string::npos) << source;
  }
  const rl::test::Image img = rl::test::loadPng(png);
  ASSERT_TRUE(img.ok());
  EXPECT_GT(rl::test::distinctColours(img), 20);
}

namespace {

struct HeadlessApp {
  std::unique_ptr<rl::app::GlContext> ctx;
  std::unique_ptr<rl::app::Application> app;
  std::string error;
  explicit HeadlessApp(int width = 1280, int height = 720) {
    ctx = rl::app::createHeadlessContext(width, height, &error);
    if (!ctx) return;
    rl::app::GuiOptions o;
    o.headless = true;
    o.width = width;
    o.height = height;
    app = std::make_unique<rl::app::Application>(*ctx, o);
  }
  void frames(int n) {
    for (int i = 0; i < n; ++i) app->drawFrame();
  }
  // Frames until the views hold the trace of the configuration's kernel (it arrives from the
  // backend's thread: on a loaded machine later than a fixed count of frames), at most 20 s.
  bool traceShown() {
    const rl::gui::Model& m = app->model();
    for (int i = 0; i < 2000; ++i) {
      app->drawFrame();
      if (m.trace.valid && m.trace.config.kernel == m.config.kernel) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

// A fake zenity: waits a little (the UI must not wait with it), records its arguments, then
// prints `answer` and exits with `code`.
std::string fakeZenity(const std::string& dir, const std::string& answer, int code, double seconds = 0.3) {
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/zenity";
  std::ofstream(path) << "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" << dir << "/args'\nsleep " << seconds << "\n"
                      << "printf '%s\\n' '" << answer << "'\nexit " << code << "\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

}  // namespace

// Nothing lost by a click: Clear results on a loaded recording's runs can be undone, the cleared
// runs coming back before any measured since.
TEST(RecordingGui, ClearResultsCanBeUndone) {
  HeadlessApp h(1920, 1080);  // the Parameters panel's Run row in view (REDUCELAB_EDITOR_SHOTS: look at it)
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::Model& m = h.app->model();
  ASSERT_EQ(h.app->openRecording(cpuRecording()), "");
  h.frames(10);
  ASSERT_EQ(m.results.size(), 3u);
  const std::string firstKernel = m.results[0].config.kernel;
  h.app->requestClearResults();
  h.frames(2);
  EXPECT_TRUE(m.results.empty());
  EXPECT_EQ(m.results.restorable(), 3u);
  h.frames(2);
  if (const char* shots = std::getenv("REDUCELAB_EDITOR_SHOTS")) h.app->saveScreenshot(std::string(shots) + "/undo-clear.png");
  m.results.append(rl::Measurement{});  // a run measured since
  h.app->requestRestoreResults();
  h.frames(2);
  ASSERT_EQ(m.results.size(), 4u);
  EXPECT_EQ(m.results[0].config.kernel, firstKernel);
  EXPECT_EQ(m.results.restorable(), 0u);
  h.app->requestClearResults();  // and a Clear of nothing keeps what the last one removed
  h.app->requestClearResults();
  EXPECT_EQ(m.results.restorable(), 4u);
}

TEST(RecordingGui, BadFileKeepsWhatWasOpenAndSaveSessionWritesARecording) {
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::Model& m = h.app->model();
  ASSERT_EQ(h.app->openRecording(cpuRecording()), "");
  h.frames(10);  // the runs are replayed one a frame
  ASSERT_FALSE(m.replay.replaying());
  EXPECT_EQ(m.results.size(), 3u);
  const size_t rowsWithRuns = std::count_if(m.lesson.rows.begin(), m.lesson.rows.end(), [](const gui::LessonRow& r) { return !r.runs.empty(); });
  EXPECT_EQ(rowsWithRuns, 3u);
  // A damaged file: one message, and what was open stays open.
  const std::string bad = rl::test::tempPath("damaged.reducelab");
  std::string bytes = bytesOf(cpuRecording());
  bytes[bytes.size() - 5] ^= 0x11;
  writeBytes(bad, bytes);
  const size_t logBefore = m.log.size();
  EXPECT_NE(h.app->openRecording(bad), "");
  EXPECT_EQ(m.log.size(), logBefore + 1);
  EXPECT_EQ(m.log.back().level, gui::LogLevel::Error);
  EXPECT_EQ(m.replay.path, cpuRecording());
  EXPECT_EQ(m.results.size(), 3u);
  EXPECT_TRUE(m.lesson.active);
  h.frames(2);
  // Save session: the same format, with the lesson, the runs and the traces shown.
  const std::string saved = rl::test::tempPath("saved.reducelab");
  ASSERT_EQ(h.app->saveSession(saved, false), "");
  Recording back;
  ASSERT_EQ(readRecording(saved, &back), "");
  EXPECT_EQ(back.lessonName, "small");
  EXPECT_EQ(back.measurements.size(), 3u);
  EXPECT_EQ(back.measurements[0].label, "lesson:0");
  Recording original;
  ASSERT_EQ(readRecording(cpuRecording(), &original), "");
  EXPECT_EQ(back.traces.size(), original.traces.size());
  EXPECT_NE(h.app->saveSession(saved, false), "");  // typed path: an existing file is not replaced
}

TEST(FileDialog, ZenityRunsWithoutBlockingAndItsChoiceOpensTheRecording) {
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  const std::string dir = rl::test::tempPath("fake-zenity");
  h.app->setFileDialogProgram(fakeZenity(dir, cpuRecording(), 0, 1.5));
  gui::Model& m = h.app->model();
  h.frames(3);  // the first frames compile shaders
  const auto t0 = std::chrono::steady_clock::now();
  h.app->requestFileChoice(gui::FileChoice::OpenRecording);
  h.frames(1);
  // The dialog answers after 1.5 s; the frame loop went on meanwhile.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1000));
  EXPECT_TRUE(m.fileDialogOpen);
  EXPECT_FALSE(m.replay.active());
  for (int i = 0; i < 400 && !m.replay.active(); ++i) {
    h.frames(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(m.replay.active());
  EXPECT_FALSE(m.fileDialogOpen);
  EXPECT_FALSE(m.pathPrompt.open);
  const std::string args = bytesOf(dir + "/args");
  EXPECT_NE(args.find("--file-selection"), std::string::npos);
  EXPECT_NE(args.find("*.reducelab"), std::string::npos);
}

TEST(FileDialog, MissingOrFailingZenityFallsBackToThePathField) {
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  gui::Model& m = h.app->model();
  h.app->setFileDialogProgram(rl::test::tempPath("no-such-dir/zenity-absent"));
  h.app->requestFileChoice(gui::FileChoice::OpenRecording);
  EXPECT_TRUE(m.pathPrompt.open);
  EXPECT_NE(m.pathPrompt.why.find("zenity-absent is not installed"), std::string::npos) << m.pathPrompt.why;
  // The path typed there opens the recording.
  h.app->requestPathChosen(m.pathPrompt.purpose, cpuRecording());
  EXPECT_TRUE(m.replay.active());
  // A zenity that fails (no display, say) also ends in the path field, for the export folder here.
  m.pathPrompt = {};
  h.app->setFileDialogProgram(fakeZenity(rl::test::tempPath("failing-zenity"), "", 5));
  h.app->requestFileChoice(gui::FileChoice::ExportFolder);
  for (int i = 0; i < 400 && !m.pathPrompt.open; ++i) {
    h.frames(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(m.pathPrompt.open);
  EXPECT_EQ(m.pathPrompt.purpose, gui::FileChoice::ExportFolder);
  EXPECT_NE(m.pathPrompt.why.find("exit 5"), std::string::npos) << m.pathPrompt.why;
}

TEST(FileDialog, CancelChangesNothingAndPlainNamesAreLookedUpOnPath) {
  const std::string dir = rl::test::tempPath("cancel-zenity");
  fakeZenity(dir, "", 1);
  rl::app::FileDialog d;
  // "zenity" found through PATH, as the app starts it.
  const std::string oldPath = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (dir + ":" + oldPath).c_str(), 1);
  const std::string e = d.start(rl::app::FileDialogKind::Save, "Save", "/tmp/x.reducelab");
  setenv("PATH", oldPath.c_str(), 1);
  ASSERT_EQ(e, "");
  std::optional<rl::app::FileDialogResult> r;
  for (int i = 0; i < 400 && !r; ++i) {
    r = d.poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, rl::app::FileDialogResult::Cancelled);
  const std::string args = bytesOf(dir + "/args");
  for (const char* a : {"--save", "--confirm-overwrite", "--filename=/tmp/x.reducelab"})
    EXPECT_NE(args.find(a), std::string::npos) << a;
  rl::app::FileDialog absent;
  EXPECT_NE(absent.start(rl::app::FileDialogKind::Open, "Open", "", "reducelab-no-such-program").find("not installed"),
            std::string::npos);
}

// The fuzzer's seed recordings read back (they are what `reducelab record` writes), and every
// cut of them is refused with one line.
TEST(Recording, FuzzCorpusSeedsDecodeAndTheirCutsAreRefused) {
  int seeds = 0;
  for (const auto& e : std::filesystem::directory_iterator(sourceDir() + "/tests/fuzz/corpus/recording")) {
    if (e.path().extension() != ".reducelab") continue;
    const std::string bytes = bytesOf(e.path().string());
    Recording r;
    ASSERT_EQ(decodeRecording(bytes.data(), bytes.size(), &r), "") << e.path();
    EXPECT_GE(r.traces.size(), 1u);
    // The H200 recording of a student's racing kernel (record --kernel-file): version 2, its source and trace.
    if (e.path().filename().string().starts_with("user-kernel")) {
      ASSERT_TRUE(r.userKernel.has_value());
      EXPECT_EQ(bytes[8], char(2));
      EXPECT_NE(r.findTrace(r.measurements.back().config), nullptr);
    }
    for (size_t cut = 1; cut < bytes.size(); cut += 7) {
      const std::string err = decodeError(bytes.substr(0, cut));
      EXPECT_FALSE(err.empty());
      EXPECT_EQ(err.find('\n'), std::string::npos);
    }
    ++seeds;
  }
  EXPECT_GE(seeds, 3);
}

// Exports from a recording name the GPU it was measured on and hold its runs, not this machine's.
// Two Applications in one process (the tests keep a shared one): ending the second leaves the
// first with its own GL and ImGui contexts (before, the first's next frame found no ImGui context
// and aborted, and the EGL display was terminated under it).
TEST(RecordingGui, AnApplicationEndingBesideAnotherLeavesItWorking) {
  HeadlessApp outer;
  if (!outer.app) GTEST_SKIP() << "no headless GL: " << outer.error;
  outer.frames(2);
  {
    HeadlessApp inner;
    ASSERT_TRUE(inner.app) << inner.error;
    inner.frames(2);
  }
  outer.frames(2);
  EXPECT_TRUE(outer.app->model().trace.valid);
}

TEST(RecordingGui, ReportFromARecordingNamesItsGpu) {
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  const std::string file = rl::test::tempPath("gpu-like.reducelab");
  ASSERT_EQ(writeRecording(file, gpuLikeRecording()), "");
  gui::Model& m = h.app->model();
  ASSERT_EQ(h.app->openRecording(file), "");
  h.frames(5);
  EXPECT_EQ(m.results.size(), 2u);
  EXPECT_EQ(m.sweep.rows["block"].size(), 1u);
  EXPECT_NE(m.trace.source.find("GPU (NVIDIA H200), recorded 2026-11-21"), std::string::npos) << m.trace.source;
  m.exportDir = rl::test::tempPath("recording-export");
  h.app->requestReport();
  ASSERT_EQ(h.app->run(), 0);  // exports are written between the frames of the loop
  std::string report;
  for (const auto& e : std::filesystem::recursive_directory_iterator(m.exportDir))
    if (e.path().filename() == "report.md") report = bytesOf(e.path().string());
  ASSERT_FALSE(report.empty());
  EXPECT_NE(report.find("**Device:** NVIDIA H200"), std::string::npos);
  EXPECT_NE(report.find("measured read 4500 GB/s"), std::string::npos);
}

namespace {
// What the Live tab's headline must say for the lesson's rows [0, rows): the latest ok run of
// those rows, on the lesson's basis (end to end: the UPC lesson mixes CPU and GPU finals).
std::string headlineOf(const Recording& rec, size_t fromRow, size_t toRow) {
  const Measurement* last = nullptr;
  for (const Measurement& m : rec.measurements) {
    if (m.label.rfind("lesson:", 0) != 0 || !m.ok) continue;
    const size_t row = std::stoul(m.label.substr(7));
    if (row >= fromRow && row < toRow) last = &m;
  }
  if (!last) return "";
  char b[48];
  std::snprintf(b, sizeof b, "%.0f GB/s", last->endToEndGBs);
  return b;
}
}  // namespace

// A recording with a lesson: on step 1 the Live tab shows step 1 only (the whole recording's runs
// once gave the ending away), its headline is step 1's run, and Next moves both on.
TEST(RecordingGui, TheLiveTabFollowsTheLessonStepNotTheWholeRecording) {
  Recording rec;
  ASSERT_EQ(readRecording(shippedRecording(), &rec), "");
  if (!rec.fromGpu()) GTEST_SKIP() << "the shipped recording holds no GPU runs";
  HeadlessApp h(1600, 900);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  ASSERT_EQ(h.app->openRecording(shippedRecording()), "");
  for (int i = 0; i < 2000 && h.app->model().replay.replaying(); ++i) h.frames(1);
  h.frames(3);
  const rl::gui::LessonState& l = h.app->model().lesson;
  ASSERT_TRUE(l.active);
  ASSERT_GE(l.firstRowOfStep.size(), 3u);
  auto shownText = [&] {
    std::string text;
    for (const auto& t : rl::gui::collectTextRuns()) text += t.text + "\n";
    return text;
  };
  std::string text = shownText();
  const std::string step1 = headlineOf(rec, 0, size_t(l.firstRowOfStep[1]));
  const std::string last = headlineOf(rec, size_t(l.firstRowOfStep.back()), l.rows.size());
  ASSERT_FALSE(step1.empty());
  EXPECT_NE(text.find(step1), std::string::npos) << "step 1's headline " << step1 << " is not shown";
  if (last != step1) EXPECT_EQ(text.find(last), std::string::npos) << "the last step's " << last << " is shown on step 1";
  EXPECT_NE(text.find("The lesson so far: steps 1 to 1"), std::string::npos);
  h.app->requestLessonStep(1);
  h.frames(3);
  text = shownText();
  const std::string step2 = headlineOf(rec, size_t(l.firstRowOfStep[1]), size_t(l.firstRowOfStep[2]));
  EXPECT_NE(text.find(step2), std::string::npos) << "step 2's headline " << step2 << " is not shown";
  EXPECT_NE(text.find("The lesson so far: steps 1 to 2"), std::string::npos);
}

// Without a GPU the occupancy calculator answers for the GPU shown (the CPU model's H200, or the
// recording's): it once said 0 active blocks and 0 % for every kernel.
TEST(RecordingGui, WithoutAGpuTheOccupancyIsComputedForTheShownDevice) {
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  if (!h.app->model().cpuModel()) GTEST_SKIP() << "a GPU answers for itself here";
  h.app->model().config.kernel = "k3";
  h.app->model().config.block = 256;
  h.frames(3);
  const ResourceUsage& r = h.app->model().resources;
  EXPECT_GT(r.activeBlocksPerSM, 0);
  EXPECT_GT(r.occupancy, 0.0);
  EXPECT_GT(r.waves, 0.0);
  EXPECT_EQ(h.app->model().shownDevice().name, assumedH200().name);
}

// A sweep's file (`reducelab sweep ... --out`) opens as a sweep: its rows in the sweep of its axis,
// drawn against N in the N tab, not as runs against the run index.
TEST(Recording, ASweepFileOpensAsTheSweepOfItsAxis) {
  Recording rec;
  ASSERT_EQ(readRecording(sourceDir() + "/docs/data/h200-sweep-n.json", &rec), "");
  EXPECT_TRUE(rec.measurements.empty());
  ASSERT_EQ(rec.sweeps.count("n"), 1u);
  EXPECT_GT(rec.sweeps["n"].size(), 10u);
  // A tile or size sweep (the matrix families) has no tab of its own: its rows stay runs.
  nlohmann::json j = nlohmann::json::parse(bytesOf(sourceDir() + "/docs/data/h200-sweep-n.json"));
  j["benchmarks"][0]["name"] = "sweep-tile";
  const std::string tile = rl::test::tempPath("sweep-tile.json");
  std::ofstream(tile) << j.dump();
  Recording tiles;
  ASSERT_EQ(readRecording(tile, &tiles), "");
  EXPECT_TRUE(tiles.sweeps.empty());
  EXPECT_EQ(tiles.measurements.size(), rec.sweeps["n"].size());
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  ASSERT_EQ(h.app->openRecording(sourceDir() + "/docs/data/h200-sweep-n.json"), "");
  h.frames(2);
  EXPECT_EQ(h.app->model().sweep.rows["n"].size(), rec.sweeps["n"].size());
  EXPECT_TRUE(h.app->model().results.empty());
}

// Without a GPU the shipped H200 recording is one click away (File and Lessons menus), read from
// the binary itself: no assets folder needed.
TEST(RecordingGui, TheShippedRecordingOpensFromTheBinary) {
  Recording embedded, file;
  ASSERT_EQ(readShippedRecording(&embedded), "");
  ASSERT_EQ(readRecording(shippedRecording(), &file), "");
  EXPECT_EQ(embedded.measurements.size(), file.measurements.size());
  EXPECT_EQ(embedded.lessonName, "upc");
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  h.app->requestOpenShippedRecording();
  h.frames(2);
  EXPECT_TRUE(h.app->model().replay.active());
  EXPECT_TRUE(h.app->model().lesson.active);
  EXPECT_EQ(h.app->model().replay.path, kShippedRecordingName);
}

// The results table follows the newest row while it shows the last one (the runs of a replayed
// recording, or a sweep, arrived below the fold and stayed out of sight).
TEST(RecordingGui, TheResultsTableFollowsTheNewestRow) {
  HeadlessApp h(1280, 720);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  ASSERT_EQ(h.app->openRecording(""), "");
  h.app->requestCloseLesson();
  h.app->model().focusPanel = "results";
  for (int i = 0; i < 2000 && h.app->model().replay.replaying(); ++i) h.frames(1);
  h.frames(3);
  ImGuiWindow* table = nullptr;
  for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
    if (std::string(w->Name).find("/results_") != std::string::npos && w->WasActive) table = w;
  ASSERT_NE(table, nullptr) << "no results table drawn";
  ASSERT_GT(table->ScrollMax.y, 0.0f) << "the case needs more rows than the table shows";
  EXPECT_GE(table->Scroll.y, table->ScrollMax.y - 1.0f) << "the newest rows are out of sight";
}

// The trace views export like the plots (PNG, SVG, PDF): the view as drawn, cropped from the
// frame, in the export folder; the saved path is said beside the buttons, not only in the Log.
TEST(RecordingGui, ATraceViewExportsAsDrawnAndSaysWhereItWent) {
  HeadlessApp h(1600, 900);
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  rl::gui::Model& m = h.app->model();
  const std::string dir = rl::test::tempPath("view-export");
  std::filesystem::remove_all(dir);
  m.exportDir = dir;
  m.view = rl::ViewId::BankConflicts;
  m.config.kernel = "k2";
  ASSERT_TRUE(h.traceShown());  // the stem below names its step: the trace the view draws
  // A caption as long as a GPU's ("trace from the GPU (NVIDIA H200), recorded ...: written by the
  // traced kernel"): the notice once wrapped below it, out of the view's strip, on GPU machines.
  m.trace.source = "GPU (NVIDIA H200), recorded 2026-11-26: written by the traced kernel, a caption long enough to fill the strip";
  h.frames(2);
  ASSERT_GT(m.viewRect.w, 100.0f);
  ASSERT_GT(m.viewRect.h, 100.0f);
  for (const char* name : {"png", "pdf", "svg"}) {
    const rl::gui::FigureWriter* f = rl::gui::figureFormats().find(name);
    ASSERT_NE(f, nullptr);
    ASSERT_NE(f->renderImage, nullptr) << name;
    const std::string stem = "view-bank-k2-step" + std::to_string(m.trace.step);  // as the view's buttons name it
    h.app->requestExportView(m.viewRect, stem, *f);
    h.frames(1);
    EXPECT_EQ(m.saved.key, stem);
    EXPECT_FALSE(m.saved.error) << m.saved.text;
    const std::string path = m.saved.text.substr(m.saved.text.find(' ') + 1);
    ASSERT_TRUE(std::filesystem::exists(path)) << m.saved.text;
    const std::string bytes = bytesOf(path);
    if (std::string(name) == "png") {
      const rl::test::Image img = rl::test::loadPng(path);
      ASSERT_TRUE(img.ok());
      EXPECT_EQ(img.width, int(std::lround(m.viewRect.w)));
      EXPECT_EQ(img.height, int(std::lround(m.viewRect.h)));
      EXPECT_GT(rl::test::distinctColours(img), 8) << "a blank picture";
    } else if (std::string(name) == "pdf") {
      EXPECT_EQ(bytes.rfind("%PDF-", 0), 0u);
    } else {
      EXPECT_NE(bytes.find("<svg"), std::string::npos);
    }
  }
  // The notice is drawn beside the buttons in the next frames (a trace landing meanwhile, as on a
  // loaded GPU machine, may take the views for a frame or two: a few frames are allowed).
  bool shown = false;
  std::string texts;
  for (int frame = 0; frame < 100 && !shown; ++frame) {
    h.frames(1);
    texts.clear();
    for (const auto& t : rl::gui::collectTextRuns()) {
      // Shown whole: not cut by the strip's edge (drawn below it, it was half visible or not at all).
      shown = shown || (t.text.find("Saved") != std::string::npos && !t.cutY);
      if (t.text.find("Block") != std::string::npos || t.text.find("Saved") != std::string::npos)
        texts += t.text + (t.cutY ? " (cut)" : "") + "\n";
    }
    if (!shown) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!shown) {  // what the strip held instead
    for (const auto& t : rl::gui::collectTextRuns())
      if (t.window.find("Views") != std::string::npos) texts += "[" + t.window + "] " + t.text + "\n";
    texts += "trace valid " + std::to_string(m.trace.valid) + ", version " + std::to_string(m.trace.version) + ", source " +
             m.trace.source + ", error " + m.trace.error + ", saved " + m.saved.key + " / " + m.saved.text;
  }
  EXPECT_TRUE(shown) << "the saved path is not shown whole where the user clicked\n" << texts;
}

// The window's warp view saved as a PNG into `dir` as STEM (the path it was saved to; "" and a
// failure when the save says it failed).
std::string exportWarpView(HeadlessApp& h, const std::string& dir, const std::string& stem) {
  rl::gui::Model& m = h.app->model();
  m.exportDir = dir;
  m.view = rl::ViewId::WarpActivity;
  if (!h.traceShown()) {
    ADD_FAILURE() << "no trace of " << m.config.kernel << " in the views";
    return "";
  }
  h.frames(2);
  h.app->requestExportView(m.viewRect, stem, *rl::gui::figureFormats().find("png"));
  h.frames(1);
  if (m.saved.error) {
    ADD_FAILURE() << m.saved.text;
    return "";
  }
  return m.saved.text.substr(m.saved.text.find(' ') + 1);
}

// Two windows in one process (each its own GL and ImGui context): the second draws its views with
// its own GL programs and vertex array (process-wide statics handed it the first's, which do not
// exist in its context), and the panels' fields are each window's own.
TEST(RecordingGui, ASecondWindowDrawsItsViewsWithItsOwnGlObjectsAndFields) {
  HeadlessApp a(1280, 720);
  if (!a.app) GTEST_SKIP() << "no headless GL: " << a.error;
  HeadlessApp b(1280, 720);
  if (!b.app) GTEST_SKIP() << "no second headless GL context: " << b.error;
  const std::string dir = rl::test::tempPath("two-windows");
  std::filesystem::remove_all(dir);
  std::vector<std::string> pictures;
  for (HeadlessApp* h : {&a, &b}) {
    pictures.push_back(exportWarpView(*h, dir, h == &a ? "first" : "second"));
    ASSERT_FALSE(pictures.back().empty());
  }
  a.frames(1);  // the first window still draws after the second was made
  const rl::test::Image first = rl::test::loadPng(pictures[0]), second = rl::test::loadPng(pictures[1]);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_EQ(first.width, second.width);
  ASSERT_EQ(first.height, second.height);
  EXPECT_EQ(first.rgba, second.rgba) << "the second window's warp view is not the first's picture";
  std::snprintf(a.app->model().fields.nKernels, sizeof a.app->model().fields.nKernels, "%s", "k1");
  a.app->model().fields.whatIf = true;
  EXPECT_STREQ(b.app->model().fields.nKernels, "k3,k7,k10,cub");
  EXPECT_FALSE(b.app->model().fields.whatIf);
}

// A display smaller than the framebuffer (setDisplaySize: the layout tests' shared 4K app) lies in
// its lower left: a view's export crops there, at scale 1, and matches a window of that size.
TEST(RecordingGui, AViewExportFromADisplaySmallerThanTheFramebufferCropsTheView) {
  HeadlessApp exact(1280, 720);
  if (!exact.app) GTEST_SKIP() << "no headless GL: " << exact.error;
  HeadlessApp large(1600, 900);
  if (!large.app) GTEST_SKIP() << "no second headless GL context: " << large.error;
  large.app->setDisplaySize(1280, 720);
  const std::string dir = rl::test::tempPath("view-crop");
  std::filesystem::remove_all(dir);
  std::vector<std::string> pictures;
  for (HeadlessApp* h : {&exact, &large}) {
    pictures.push_back(exportWarpView(*h, dir, h == &exact ? "exact" : "large"));
    ASSERT_FALSE(pictures.back().empty());
  }
  const rl::test::Image a = rl::test::loadPng(pictures[0]), b = rl::test::loadPng(pictures[1]);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  EXPECT_EQ(a.rgba, b.rgba) << "the smaller display's export is not the view";
}

// Presenting, a lesson step with `panel lesson` and no `view` line shows the lesson table (the
// parser's default view name made the step look as if it had one).
TEST(RecordingGui, PresentingAStepThatPointsAtTheLessonTableShowsIt) {
  std::string err;
  const std::optional<rl::Lesson> l =
      rl::parseLesson("title: t\ndescription: d\n\nstep: a\nset kernel=k3\npanel lesson\n\nstep: b\nview bank\npanel lesson\n", "t.lesson", &err);
  ASSERT_TRUE(l) << err;
  EXPECT_FALSE(l->steps[0].viewGiven);
  EXPECT_TRUE(l->steps[1].viewGiven);
  HeadlessApp h;
  if (!h.app) GTEST_SKIP() << "no headless GL: " << h.error;
  h.app->requestOpenLesson("small");  // its first step: `panel lesson`, no view line
  h.frames(2);
  ASSERT_TRUE(h.app->model().lesson.active);
  const rl::LessonStep& first = h.app->model().lesson.lesson.steps.front();
  ASSERT_EQ(first.panel, "lesson");
  ASSERT_FALSE(first.viewGiven);
  EXPECT_EQ(h.app->model().presenting, rl::gui::Model::Presenting::Results);
}
