// The remote protocol (docs/remote.md): the frame reader and message codecs on good, bad and
// hostile bytes, and sessions end to end through a local pipe: the real `reducelab serve
// --stdio` (CPU model here) and the real server loop over a made-up engine (remote_test_server)
// for sweeps, a server that dies mid-sweep, one that writes garbage, and quitting mid-sweep.
#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <functional>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "reducelab/formats/session_json.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/remote_protocol.hpp"
#include "reducelab/usercode/check_json.hpp"
#include "reducelab/usercode/nvrtc.hpp"
#include "test_support.hpp"

namespace rl {
namespace {

using remote::Frame;
using remote::FrameReader;
using Status = FrameReader::Status;
using Clock = std::chrono::steady_clock;

// Feeds `bytes` one at a time (the worst split a pipe can make) and collects the frames.
std::vector<Frame> readAll(const std::string& bytes, std::string* error) {
  FrameReader r;
  std::vector<Frame> out;
  for (char c : bytes) {
    r.feed(&c, 1);
    for (;;) {
      Frame f;
      const Status s = r.next(&f, error);
      if (s == Status::NeedMore) break;
      if (s == Status::Error) return out;
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::string firstError(const std::string& bytes) {
  std::string err;
  readAll(bytes, &err);
  return err;
}

RunConfig traceConfig(const std::string& kernel, ElemType type, int block) {
  RunConfig c;
  c.kernel = kernel;
  c.type = type;
  c.block = block;
  c.n = uint64_t(1) << 20;
  return c;
}

TEST(RemoteProtocol, FramesSurviveAnySplitAndDecodeToWhatWasSent) {
  remote::Hello h;
  h.version = "0.2.0";
  h.commit = "abc";
  h.host = "gpu-box";
  h.device = assumedH200();
  h.device.available = true;
  h.device.name = "NVIDIA H200";
  h.peaks.theoreticalGBs = 4800;
  h.peaks.readGBs = 4100.5;
  h.peaks.source = "cached";
  RunConfig c = traceConfig("k8", ElemType::Int32, 256);
  c.seed = 77;
  c.tracedBlock = 3;
  SweepSpec s;
  s.axis = SweepAxis::N;
  s.base = c;
  s.kernels = {"k3", "cub"};
  s.nMax = uint64_t(1) << 26;
  s.parameters = {{"rows", 500}, {"tile", 16}};  // the command line's, for every kernel's family
  std::string err;
  const TraceData t = modelTrace(c, assumedGeometry(c, assumedH200()).grid(), 9, &err);
  ASSERT_TRUE(t.valid()) << err;
  const std::string stream = remote::encodeFrame(remote::helloJson(h)) +
                             remote::encodeFrame(remote::runRequest(c, "lesson:4", RunKind::Continuous)) +
                             remote::encodeFrame(remote::sweepRequest(s)) +
                             remote::encodeFrame(remote::traceMessage(9, c, true, "", "gpu (NVIDIA H200)"), t.toBuffer());
  const std::vector<Frame> frames = readAll(stream, &err);
  ASSERT_EQ(frames.size(), 4u) << err;

  remote::Hello h2;
  ASSERT_EQ(remote::decodeHello(frames[0], &h2), "");
  EXPECT_EQ(h2.host, "gpu-box");
  EXPECT_EQ(h2.device.name, "NVIDIA H200");
  EXPECT_EQ(h2.device.smCount, h.device.smCount);
  EXPECT_EQ(h2.device.regsPerSM, h.device.regsPerSM);
  EXPECT_EQ(h2.device.smemPerBlockOptin, h.device.smemPerBlockOptin);
  EXPECT_DOUBLE_EQ(h2.peaks.readGBs, 4100.5);

  RunConfig c2;
  std::string label;
  RunKind kind = RunKind::Single;
  ASSERT_EQ(remote::decodeRunRequest(frames[1], &c2, &label, &kind), "");
  EXPECT_EQ(remote::runConfigJson(c2), remote::runConfigJson(c));
  EXPECT_EQ(label, "lesson:4");
  EXPECT_EQ(kind, RunKind::Continuous);
  EXPECT_EQ(c2.pdl, c.pdl);
  EXPECT_EQ(c2.timing, c.timing);

  // Every field a run is measured with crosses the pipe: PDL off, graph timing and a matrix run
  // (the remote server measured them with PDL on, blocked timing and the default matrix).
  RunConfig m;
  m.kernel = "mm-tiled";
  m.type = ElemType::Float64;
  rl::test::setParam(m, "rows", 1000), rl::test::setParam(m, "cols", 777);
  rl::test::setParam(m, "inner", 333), rl::test::setParam(m, "tile", 29);
  m.pdl = false;
  m.timing = TimingMode::Graph;
  normalizeConfig(m);
  RunConfig m2;
  ASSERT_EQ(remote::runConfigFromJson(remote::runConfigJson(m), &m2), "");
  EXPECT_FALSE(m2.pdl);
  EXPECT_EQ(m2.timing, TimingMode::Graph);
  EXPECT_EQ(rl::test::param(m2, "rows"), 1000u);
  EXPECT_EQ(rl::test::param(m2, "cols"), 777u);
  EXPECT_EQ(rl::test::param(m2, "inner"), 333u);
  EXPECT_EQ(rl::test::param(m2, "tile"), 29u);
  nlohmann::json old = remote::runConfigJson(c);  // a peer of an older ReduceLab: defaults
  for (const char* k : {"timing", "pdl", "rows", "cols", "inner", "tile"}) old.erase(k);
  RunConfig o;
  ASSERT_EQ(remote::runConfigFromJson(old, &o), "");
  EXPECT_TRUE(o.pdl);
  EXPECT_EQ(o.timing, TimingMode::Blocked);
  old["timing"] = "sometimes";
  EXPECT_NE(remote::runConfigFromJson(old, &o).find("timing 'sometimes'"), std::string::npos);

  SweepSpec s2;
  ASSERT_EQ(remote::decodeSweepRequest(frames[2], &s2), "");
  EXPECT_EQ(s2.axis, SweepAxis::N);
  EXPECT_EQ(s2.kernels, s.kernels);
  EXPECT_EQ(s2.nMax, s.nMax);
  EXPECT_EQ(s2.parameters, s.parameters);

  remote::TraceReply tr;
  ASSERT_EQ(remote::decodeTrace(frames[3], &tr), "");
  EXPECT_EQ(tr.id, 9u);
  EXPECT_EQ(tr.source, "gpu (NVIDIA H200)");
  EXPECT_EQ(compareTraces(tr.data, t, 0.0), "");
}

TEST(RemoteProtocol, MeasurementsTravelAsSessionJson) {
  Measurement m;
  m.config = traceConfig("k7", ElemType::Float64, 512);
  m.ok = true;
  m.label = "lesson:2";
  m.kernelMs = {0.5, 0.25, 0.75};
  m.endToEndMs = {0.6, 0.3, 0.8};
  m.kernel = Stats::of(m.kernelMs);
  m.endToEnd = Stats::of(m.endToEndMs);
  m.bandwidthGBs = 123.5;
  m.result.f = 42.25;
  m.geometry.passGrids = {1024, 1};
  std::string err;
  const std::vector<Frame> f =
      readAll(remote::encodeFrame(remote::sweepRowMessage("block", m, assumedH200(), Peaks{})), &err);
  ASSERT_EQ(f.size(), 1u) << err;
  Measurement back;
  std::string axis;
  ASSERT_EQ(remote::decodeMeasurement(f[0], &back, &axis), "");
  EXPECT_EQ(axis, "block");
  EXPECT_EQ(back.label, "lesson:2");
  EXPECT_EQ(back.kernelMs, m.kernelMs);
  EXPECT_EQ(back.endToEndMs, m.endToEndMs);
  EXPECT_DOUBLE_EQ(back.result.f, 42.25);
  EXPECT_EQ(back.geometry.passGrids, m.geometry.passGrids);
  // The same JSON a saved session holds: one encoding for both.
  EXPECT_EQ(sessionJson({assumedH200(), {}, {}, "x"}, {back})["benchmarks"][0]["states"],
            sessionJson({assumedH200(), {}, {}, "x"}, {m})["benchmarks"][0]["states"]);
}

TEST(RemoteProtocol, GarbageIsRefusedAtOnceWithOneMessage) {
  // An HTTP answer, a shell's "command not found", binary noise: refused by the first bytes.
  for (const std::string junk : {std::string("HTTP/1.1 200 OK\r\n"), std::string("bash: reducelab: command not found\n"),
                                 std::string("\x00\xff\x10\x20", 4), std::string("RLRX1 2 0\n{}")}) {
    FrameReader r;
    r.feed(junk.data(), junk.size());
    Frame f;
    std::string err;
    EXPECT_EQ(r.next(&f, &err), Status::Error) << junk;
    EXPECT_NE(err.find("not a ReduceLab remote stream"), std::string::npos) << err;
    EXPECT_EQ(r.buffered(), 0u);  // nothing kept after the refusal
    // Refused for good: more bytes, even a valid frame, are not read.
    const std::string ok = remote::encodeFrame(remote::simpleMessage("bye"));
    r.feed(ok.data(), ok.size());
    EXPECT_EQ(r.next(&f, &err), Status::Error);
  }
  EXPECT_NE(firstError("RLRP2 2 0\n{}").find("another version"), std::string::npos);
}

TEST(RemoteProtocol, SizesAndCountsAreBoundedBeforeAnythingIsAllocated) {
  // Claimed sizes over the limits: refused from the header, before any body byte arrives.
  EXPECT_NE(firstError("RLRP1 99999999999 0\n").find("JSON size"), std::string::npos);
  EXPECT_NE(firstError("RLRP1 16777217 0\n").find("JSON size"), std::string::npos);
  EXPECT_NE(firstError("RLRP1 2 " + std::to_string(remote::kMaxPayloadBytes + 1) + "\n").find("payload size"),
            std::string::npos);
  for (const char* bad : {"RLRP1 -2 0\n", "RLRP1 +2 0\n", "RLRP1 02 0\n", "RLRP1 2\n", "RLRP1 0 0\n", "RLRP1 2 0 \n",
                          "RLRP1 2 x\n", "RLRP1  2 0\n"})
    EXPECT_NE(firstError(bad), "") << bad;
  // A header line that never ends.
  EXPECT_NE(firstError("RLRP1 " + std::string(100, '1')).find("too long"), std::string::npos);
  // Bodies: not JSON, not an object, no or unknown type, a payload where none belongs.
  EXPECT_NE(firstError("RLRP1 3 0\n{x}").find("not JSON"), std::string::npos);
  EXPECT_NE(firstError("RLRP1 2 0\n[]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(firstError("RLRP1 2 0\n{}").find("no message type"), std::string::npos);
  EXPECT_NE(firstError(remote::encodeFrame({{"type", "rm -rf"}})).find("unknown message type"), std::string::npos);
  EXPECT_NE(firstError(remote::encodeFrame(remote::simpleMessage("bye"), {1, 2, 3})).find("payload"), std::string::npos);
}

TEST(RemoteProtocol, MessagesWithImpossibleFieldsAreRefused) {
  std::string err;
  auto frame = [&](nlohmann::json j, std::vector<uint8_t> payload = {}) {
    std::vector<Frame> f = readAll(remote::encodeFrame(j, payload), &err);
    EXPECT_EQ(f.size(), 1u) << err;
    return f.empty() ? Frame{} : f[0];
  };
  RunConfig c;
  std::string label;
  RunKind kind;
  nlohmann::json run = remote::runRequest(traceConfig("k3", ElemType::Int32, 256), "", RunKind::Single);
  run["config"]["block"] = 4096;
  EXPECT_NE(remote::decodeRunRequest(frame(run), &c, &label, &kind), "");
  run["config"]["block"] = 256;
  run["config"]["kernel"] = "k99";
  EXPECT_NE(remote::decodeRunRequest(frame(run), &c, &label, &kind), "");
  run["config"]["kernel"] = "k3";
  run["config"]["n"] = -1;
  EXPECT_NE(remote::decodeRunRequest(frame(run), &c, &label, &kind), "");
  run["config"]["n"] = 1.5;
  EXPECT_NE(remote::decodeRunRequest(frame(run), &c, &label, &kind), "");
  run["config"].erase("n");
  EXPECT_NE(remote::decodeRunRequest(frame(run), &c, &label, &kind).find("'n' is missing"), std::string::npos);

  // A hello of another protocol version says what to do.
  remote::Hello h;
  nlohmann::json hello = remote::helloJson(h);
  hello["protocol"] = 2;
  EXPECT_NE(remote::decodeHello(frame(hello), &h).find("same ReduceLab version"), std::string::npos);
  // A GPU whose limits the occupancy calculator would divide by.
  hello = remote::helloJson(h);
  hello["device"]["available"] = true;
  hello["device"]["name"] = "x";
  hello["device"]["regs_per_sm"] = 0;
  EXPECT_NE(remote::decodeHello(frame(hello), &h), "");
  // Peaks that are not finite numbers.
  hello = remote::helloJson(h);
  hello["peaks"]["read_gbs"] = -1;
  EXPECT_NE(remote::decodeHello(frame(hello), &h), "");

  // Sweep progress that claims more done than planned.
  SweepProgress p;
  EXPECT_NE(remote::decodeSweepProgress(frame(remote::sweepProgressMessage({"block", 7, 3, "", false})), &p), "");
  // A measurement message whose session holds two records.
  Measurement m;
  m.config = traceConfig("k3", ElemType::Int32, 256);
  nlohmann::json two = remote::measurementMessage(m, assumedH200(), {});
  two["session"] = sessionJson({}, {m, m});
  std::string axis;
  EXPECT_NE(remote::decodeMeasurement(frame(two), &m, &axis), "");
}

TEST(RemoteProtocol, TracePayloadsAreCheckedBeforeUse) {
  const RunConfig c = traceConfig("k1", ElemType::Int32, 128);
  std::string err;
  const TraceData t = modelTrace(c, assumedGeometry(c, assumedH200()).grid(), 9, &err);
  ASSERT_TRUE(t.valid()) << err;
  std::vector<uint8_t> bytes = t.toBuffer();
  remote::TraceReply r;
  auto decode = [&](const RunConfig& asked, const std::vector<uint8_t>& payload) {
    std::vector<Frame> f = readAll(remote::encodeFrame(remote::traceMessage(1, asked, true, "", "x"), payload), &err);
    EXPECT_EQ(f.size(), 1u) << err;
    return f.empty() ? std::string("no frame") : remote::decodeTrace(f[0], &r);
  };
  EXPECT_EQ(decode(c, bytes), "");
  RunConfig other = c;
  other.block = 256;  // a payload of another block size than asked
  EXPECT_NE(decode(other, bytes), "");
  EXPECT_NE(decode(c, std::vector<uint8_t>(bytes.begin(), bytes.end() - 1)), "");  // cut short
  // A hostile buffer: an active lane's shared-memory address made negative (a negative bank index
  // in the analysis) is refused by the trace reader itself, for files and pipes alike.
  std::vector<uint8_t> hostile = bytes;
  bool changed = false;
  for (int s = 0; s < t.numSteps() && !changed; ++s)
    for (int k = 0; k < trace::kMaxSlots && !changed; ++k)
      if (t.steps[size_t(s)].slots[k].space == trace::kSpaceShared)
        for (int th = 0; th < t.blockSize() && !changed; ++th) {
          const trace::LaneRecord& l = t.lane(s, th);
          if (!(l.flags & trace::kLaneActive) || !(l.flags & trace::slotBit(k))) continue;
          trace::LaneRecord bad = l;
          bad.addr[k] = -4;
          std::memcpy(hostile.data() + trace::kLanesOffset + (size_t(s) * size_t(t.blockSize()) + size_t(th)) * sizeof bad,
                      &bad, sizeof bad);
          changed = true;
        }
  ASSERT_TRUE(changed);
  EXPECT_FALSE(TraceData::fromBuffer(hostile.data(), hostile.size(), &err).valid());
  EXPECT_NE(decode(c, hostile), "");
  // Sizes the views divide by.
  std::vector<uint8_t> zeroAcc = bytes;
  const uint32_t zero = 0;
  std::memcpy(zeroAcc.data() + offsetof(trace::TraceHeader, accBytes), &zero, 4);
  EXPECT_NE(decode(c, zeroAcc), "");
}

// ---- end to end through a local pipe ----

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// The real server, with the GPU hidden (the CPU suite's paths are those of a machine without one).
const std::string kServe = [] {
  return "env REDUCELAB_HIDE_GPU=1 " + rl::test::builtFile(REDUCELAB_BINARY) + " serve --stdio";
}();
// The made-up server beside the tests ($REDUCELAB_REMOTE_TEST_SERVER where the build was copied).
const std::string kTestServer = [] {
  return rl::test::builtFile(REMOTE_TEST_SERVER);
}();

// The process has ended and been reaped (a zombie would still answer kill(pid, 0)).
bool processGone(const std::string& pidFile) {
  const std::string text = test::readFile(pidFile);
  if (text.empty()) return false;
  const pid_t pid = pid_t(std::stol(text));
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

double secondsOf(const std::function<void()>& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

TEST(RemoteEndToEnd, TraceThroughThePipeEqualsTheLocalOne) {
  for (const char* args : {"--kernel k3 --block 256", "--kernel k8 --type int32 --block 128 --format json",
                           "--kernel k10 --type float64 --n 2^22 --traced-block 5 --format json",
                           "--kernel k1 --type int64 --block 64 --op max"}) {
    const test::CommandResult local = test::runReducelab(std::string("trace ") + args);
    ASSERT_EQ(local.exitCode, 0) << local.err;
    const test::CommandResult remote =
        test::runReducelab(std::string("trace ") + args + " --remote-command " + shellQuote(kServe));
    ASSERT_EQ(remote.exitCode, 0) << remote.err;
    EXPECT_EQ(remote.out, local.out) << args;
    EXPECT_NE(remote.err.find("remote: connected to"), std::string::npos) << remote.err;
  }
}

TEST(RemoteEndToEnd, TheGuiShowsRunsAndTracesFromTheServer) {
  const std::string dump = test::tempPath("remote-gui.json");
  test::CommandResult g = test::runReducelab("--headless --size 800x450 --frames 3 --kernel k3,k7 --run --dump-layout " +
                                             dump + " --remote-command " + shellQuote(kTestServer));
  ASSERT_EQ(g.exitCode, 0) << g.err;
  nlohmann::json j = nlohmann::json::parse(test::readFile(dump));
  EXPECT_EQ(j["remote"]["link"], "connected");
  EXPECT_EQ(j["remote"]["device"], "test engine (made-up timings)");
  EXPECT_EQ(j["results"], 2);  // both runs measured there
  EXPECT_EQ(j["cpu_model"], false);
  EXPECT_NE(j["trace"]["source"].get<std::string>().find("sent through the remote pipe"), std::string::npos);
  // The real server on a machine without a GPU: its CPU model's trace, said so.
  g = test::runReducelab("--headless --size 800x450 --frames 2 --kernel k2 --dump-layout " + dump +
                         " --remote-command " + shellQuote(kServe));
  ASSERT_EQ(g.exitCode, 0) << g.err;
  j = nlohmann::json::parse(test::readFile(dump));
  EXPECT_EQ(j["remote"]["link"], "connected");
  EXPECT_EQ(j["trace"]["valid"], true);
  EXPECT_NE(j["trace"]["source"].get<std::string>().find("CPU model on"), std::string::npos);
}

std::vector<Measurement> loggedRecords(const std::string& path) {
  std::vector<Measurement> out;
  std::istringstream in(test::readFile(path));
  for (std::string line; std::getline(in, line);) {
    std::string err;
    std::vector<Measurement> m = measurementsFromJson(nlohmann::json::parse(line), &err);
    EXPECT_EQ(m.size(), 1u) << err;
    out.insert(out.end(), m.begin(), m.end());
  }
  return out;
}

void expectSameRecords(const std::vector<Measurement>& got, const std::vector<Measurement>& sent, size_t count) {
  ASSERT_GE(sent.size(), count);
  ASSERT_EQ(got.size(), count);
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(remote::runConfigJson(got[i].config)["kernel"], remote::runConfigJson(sent[i].config)["kernel"]);
    EXPECT_EQ(got[i].config.block, sent[i].config.block);
    EXPECT_EQ(got[i].config.n, sent[i].config.n);
    EXPECT_EQ(got[i].kernelMs, sent[i].kernelMs);
    EXPECT_EQ(got[i].endToEndMs, sent[i].endToEndMs);
    EXPECT_EQ(got[i].result.i, sent[i].result.i);
  }
}

TEST(RemoteEndToEnd, SweepRowsArriveAsTheServerMeasuredThem) {
  const std::string out = test::tempPath("remote-sweep"), log = test::tempPath("remote-sweep.log");
  std::remove(log.c_str());
  const test::CommandResult r = test::runReducelab(
      "sweep --kernel k3,k7 --axis block --format csv,json --out " + out + " --remote-command " +
      shellQuote(kTestServer + " --log " + log));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("[12/12]"), std::string::npos) << r.err;
  std::string err;
  const std::vector<Measurement> got =
      measurementsFromJson(nlohmann::json::parse(test::readFile(out + "/sweep-block.json")), &err);
  const std::vector<Measurement> sent = loggedRecords(log);
  ASSERT_EQ(sent.size(), 12u);
  expectSameRecords(got, sent, 12);
  // The device and peaks of the file are the server's.
  EXPECT_NE(test::readFile(out + "/sweep-block.json").find("test engine"), std::string::npos);
}

// sweep --remote --kernel-file: the kernel's source goes to the server, which compiles it and runs
// it in its own worker (here the fake one, through REDUCELAB_KERNEL_WORKER); its rows arrive as one
// more series after ours, named by the file.
TEST(RemoteEndToEnd, YourKernelIsSweptOnTheServer) {
  const std::string out = test::tempPath("remote-yours");
  const std::string worker = std::string("REDUCELAB_KERNEL_WORKER='") + test::builtFile(USERCODE_FAKE_WORKER) + " exact'";
  const std::string kernel = test::sourceDir() + "/tests/data/usercode/harris3.cu";
  const test::CommandResult r = test::runReducelab(
      "sweep --kernel k3 --axis block --type int32 --n 2^16 --format json --out " + out + " --kernel-file " + kernel +
          " --remote-command " + shellQuote(kTestServer),
      worker);
  if (!usercode::nvrtc().error.empty()) {  // the server compiles it: without NVRTC each row says so
    EXPECT_EQ(r.exitCode, 3) << r.err;
    EXPECT_NE(r.err.find("NVRTC"), std::string::npos) << r.err;
    return;
  }
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("[9/9]"), std::string::npos) << r.err;  // k3 at 6 blocks, then the 3 it claims
  std::string err;
  const std::vector<Measurement> got =
      measurementsFromJson(nlohmann::json::parse(test::readFile(out + "/sweep-block.json")), &err);
  ASSERT_EQ(err, "");
  ASSERT_EQ(got.size(), 9u);
  for (size_t i = 6; i < 9; ++i) {
    EXPECT_EQ(got[i].config.kernel, "yours");
    EXPECT_EQ(got[i].kernelName, "your kernel (harris3.cu)");
    EXPECT_TRUE(got[i].check.pass) << got[i].check.note;
  }
  EXPECT_EQ(got[6].config.block, 128);
  EXPECT_EQ(got[8].config.block, 512);
  // A kernel that does not compile: said once (not once per row), nothing of it written, exit 3.
  const std::string bad = test::sourceDir() + "/tests/data/usercode/compile_error.cu";
  const test::CommandResult b = test::runReducelab(
      "sweep --kernel k3 --axis block --type int32 --n 2^16 --format json --force --out " + out + " --kernel-file " + bad +
          " --remote-command " + shellQuote(kTestServer),
      worker);
  EXPECT_EQ(b.exitCode, 3) << b.err;
  EXPECT_NE(b.err.find("compile_error.cu:"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("yours not run: as above"), std::string::npos) << b.err;

  // trace --kernel-file --remote: the server's worker traces it (the fake one answers with k3's
  // schedule); the table is printed here.
  const std::string traced = std::string("REDUCELAB_KERNEL_WORKER='") + test::builtFile(USERCODE_FAKE_WORKER) + " traced'";
  const test::CommandResult t = test::runReducelab(
      "trace --kernel-file " + kernel + " --type int32 --block 128 --remote-command " + shellQuote(kTestServer), traced);
  ASSERT_EQ(t.exitCode, 0) << t.err;
  EXPECT_NE(t.out.find("kernel reduce3, 128 threads, sum int32"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("instrumented: your kernel " + kernel), std::string::npos) << t.out;
}

TEST(RemoteEndToEnd, SweepOnAServerWithoutGpuIsRefusedAndWritesNothing) {
  const std::string out = test::tempPath("remote-nogpu");
  const test::CommandResult r =
      test::runReducelab("sweep --kernel k3 --out " + out + " --remote-command " + shellQuote(kServe));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("needs an NVIDIA GPU"), std::string::npos) << r.err;
  EXPECT_EQ(test::commandOutput("ls " + out + " 2>/dev/null"), "");
}

TEST(RemoteEndToEnd, ServerKilledMidSweepIsReportedAndRowsSoFarAreKept) {
  const std::string out = test::tempPath("remote-killed"), log = test::tempPath("remote-killed.log");
  std::remove(log.c_str());
  const test::CommandResult r = test::runReducelab(
      "sweep --kernel k3 --axis block --format json --out " + out + " --remote-command " +
      shellQuote(kTestServer + " --die-after-runs 3 --log " + log));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("was lost (the server ended, exit status 9)"), std::string::npos) << r.err;
  std::string err;
  const std::vector<Measurement> got =
      measurementsFromJson(nlohmann::json::parse(test::readFile(out + "/sweep-block.json")), &err);
  const std::vector<Measurement> sent = loggedRecords(log);
  ASSERT_EQ(sent.size(), 3u);
  ASSERT_GE(got.size(), 1u);  // rows measured but not yet sent when it died are lost with it
  expectSameRecords(got, sent, got.size());
  EXPECT_NE(r.err.find("the files hold the " + std::to_string(got.size()) + " runs that arrived"), std::string::npos);

  // The GUI: the drop is reported and the rows stay; nothing else is lost. Headless sweep frames
  // are paced at 60 Hz: 300 of them (5 s) leave the server time to start, measure 3 runs and die
  // even under AddressSanitizer (20 frames, 0.33 s, did not: CI's asan stage failed here).
  const std::string dump = test::tempPath("remote-killed.json");
  const test::CommandResult g = test::runReducelab(
      "--headless --size 800x450 --frames 300 --kernel k3 --sweep block --dump-layout " + dump +
      " --remote-command " + shellQuote(kTestServer + " --die-after-runs 3"));
  ASSERT_EQ(g.exitCode, 0) << g.err;
  const nlohmann::json j = nlohmann::json::parse(test::readFile(dump));
  EXPECT_EQ(j["remote"]["link"], "dropped");
  EXPECT_NE(j["remote"]["detail"].get<std::string>().find("exit status 9"), std::string::npos);
  EXPECT_EQ(j["sweep"]["running"], false);
  EXPECT_GE(j["sweep"]["rows"]["block"].get<int>(), 1);
  EXPECT_LE(j["sweep"]["rows"]["block"].get<int>(), 3);
  EXPECT_EQ(j["trace"]["valid"], true);  // the trace it had is still shown
}

TEST(RemoteEndToEnd, AServerThatWritesGarbageIsRefusedWithOneMessage) {
  const std::string pid = test::tempPath("garbage.pid");
  test::CommandResult r;
  const double s = secondsOf([&] {
    r = test::runReducelab("trace --kernel k3 --remote-command " + shellQuote(kTestServer + " --garbage --pid-file " + pid));
  });
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(test::countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("refused: not a ReduceLab remote stream"), std::string::npos) << r.err;
  EXPECT_LT(s, 10.0);  // the garbage server sleeps a minute: it is ended, not waited for
  EXPECT_TRUE(processGone(pid));

  const std::string dump = test::tempPath("garbage.json");
  const test::CommandResult g = test::runReducelab("--headless --size 800x450 --frames 2 --dump-layout " + dump +
                                                   " --remote-command " + shellQuote(kTestServer + " --garbage"));
  ASSERT_EQ(g.exitCode, 0) << g.err;
  const nlohmann::json j = nlohmann::json::parse(test::readFile(dump));
  EXPECT_EQ(j["remote"]["link"], "dropped");
  EXPECT_NE(j["remote"]["detail"].get<std::string>().find("not a ReduceLab remote stream"), std::string::npos);
}

TEST(RemoteEndToEnd, RecordsNobodyAskedForAreRefused) {
  // A server cannot fill the app's results with records of its own.
  const std::string dump = test::tempPath("unsolicited.json");
  const test::CommandResult g = test::runReducelab("--headless --size 800x450 --frames 2 --dump-layout " + dump +
                                                   " --remote-command " + shellQuote(kTestServer + " --unsolicited"));
  ASSERT_EQ(g.exitCode, 0) << g.err;
  const nlohmann::json j = nlohmann::json::parse(test::readFile(dump));
  EXPECT_EQ(j["remote"]["link"], "dropped");
  EXPECT_NE(j["remote"]["detail"].get<std::string>().find("a measurement nobody asked for"), std::string::npos);
  EXPECT_EQ(j["results"], 0);
}

TEST(RemoteEndToEnd, QuittingDuringASweepEndsTheServerPromptly) {
  const std::string pid = test::tempPath("quit.pid"), dump = test::tempPath("quit.json");
  test::CommandResult g;
  // 100 ms per repetition, 20 repetitions per run: the sweep would take over ten seconds.
  const double s = secondsOf([&] {
    g = test::runReducelab("--headless --size 800x450 --frames 5 --kernel k3 --sweep block --dump-layout " + dump +
                           " --remote-command " + shellQuote(kTestServer + " --rep-ms 100 --pid-file " + pid));
  });
  ASSERT_EQ(g.exitCode, 0) << g.err;
  const nlohmann::json j = nlohmann::json::parse(test::readFile(dump));
  EXPECT_EQ(j["remote"]["link"], "connected");
  EXPECT_EQ(j["sweep"]["running"], true);  // it was quit mid-sweep
  EXPECT_LT(s, 8.0);
  EXPECT_TRUE(processGone(pid));  // ended and reaped, not left running
}

TEST(RemoteEndToEnd, CtrlCCancelsTheRemoteSweepAndWritesNothing) {
  const std::string out = test::tempPath("remote-ctrlc"), pid = test::tempPath("ctrlc.pid");
  // 50 ms per repetition, 20 per run, 6 runs: six seconds uncancelled.
  const std::string cmd = rl::test::builtFile(REDUCELAB_BINARY) + " sweep --kernel k3 --axis block --out " + out +
                          " --remote-command " + shellQuote(kTestServer + " --rep-ms 50 --pid-file " + pid);
  const auto t0 = Clock::now();
  const std::string result =
      test::commandOutput("(" + cmd + " 2>" + out + ".err & p=$!; sleep 1.5; kill -INT $p; wait $p; echo rc=$?)");
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_NE(result.find("rc=130"), std::string::npos) << result << test::readFile(out + ".err");
  EXPECT_NE(test::readFile(out + ".err").find("interrupted; nothing was written"), std::string::npos);
  // Cancelled on the server (its service says so), not cut off.
  EXPECT_NE(test::readFile(out + ".err").find("remote: Sweep cancelled"), std::string::npos);
  EXPECT_EQ(test::commandOutput("ls " + out + " 2>/dev/null"), "");
  EXPECT_LT(s, 5.0);  // cancelled between repetitions, not run to the end
  EXPECT_TRUE(processGone(pid));
}

TEST(RemoteEndToEnd, OptionsAreChecked) {
  test::CommandResult r = test::runReducelab("trace --remote=-oProxyCommand=x");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("looks like an option"), std::string::npos) << r.err;
  r = test::runReducelab("trace --remote a --remote-command b");
  EXPECT_EQ(r.exitCode, 2);
  r = test::runReducelab("trace --cpu-model --remote-command b");
  EXPECT_EQ(r.exitCode, 2);
  r = test::runReducelab("serve");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--stdio"), std::string::npos);
  // A command with shell syntax runs through /bin/sh; a server that ends before its hello is
  // reported with how it ended.
  r = test::runReducelab("trace --remote-command " + shellQuote("true && exit 7"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("exit status 7"), std::string::npos) << r.err;
  r = test::runReducelab("trace --remote-command " + shellQuote("/nonexistent/reducelab serve --stdio"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(test::countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot start /nonexistent/reducelab"), std::string::npos) << r.err;
}

}  // namespace

// check --remote: the server compiles the kernel, runs the battery in its own worker (here the
// fake one) and times it beside its engine's CUB; the client prints the cases as they arrive and
// the same JSON `check` writes here. A server that refuses (no kernel source) is one message.
TEST(RemoteEndToEnd, YourKernelIsCheckedOnTheServer) {
  if (!usercode::nvrtc().error.empty()) GTEST_SKIP() << "the server compiles with NVRTC: " << usercode::nvrtc().error;
  const std::string worker = std::string("REDUCELAB_KERNEL_WORKER='") + test::builtFile(USERCODE_FAKE_WORKER) + " exact'";
  const std::string kernel = test::sourceDir() + "/tests/data/usercode/harris3.cu";
  const std::string args = "check " + kernel + " --type int32 --op sum --block 128 --time-n 2^20 --seed 7 --remote-command " +
                           shellQuote(kTestServer);
  const test::CommandResult r = test::runReducelab(args, worker);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("PASS    int32 sum, block 128, N=33, random"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("24 of 24 cases passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CUB DeviceReduce"), std::string::npos) << r.out;  // measured by the server's engine
  EXPECT_NE(r.out.find("on fake worker (tests)"), std::string::npos) << r.out;  // the server's worker ran it
  const test::CommandResult j = test::runReducelab(args + " --format json", worker);
  ASSERT_EQ(j.exitCode, 0) << j.err;
  const nlohmann::json remoteJson = nlohmann::json::parse(j.out);
  // The same JSON as a check here (same seed, same fake worker), but for the companions' timings.
  const test::CommandResult l = test::runReducelab(
      "check " + kernel + " --type int32 --op sum --block 128 --time-n 2^20 --seed 7 --format json", worker);
  ASSERT_EQ(l.exitCode, 0) << l.err;
  nlohmann::json localJson = nlohmann::json::parse(l.out);
  EXPECT_EQ(remoteJson["cases"], localJson["cases"]);
  EXPECT_EQ(remoteJson["summary"], localJson["summary"]);
  EXPECT_EQ(remoteJson["builds"], localJson["builds"]);
  EXPECT_EQ(remoteJson["timing"]["yours"], localJson["timing"]["yours"]);
  EXPECT_EQ(remoteJson["exit_code"], 0);

  // A wrong kernel: exit 3, as here.
  const std::string wrong = std::string("REDUCELAB_KERNEL_WORKER='") + test::builtFile(USERCODE_FAKE_WORKER) + " ok'";
  const test::CommandResult w = test::runReducelab(args, wrong);
  EXPECT_EQ(w.exitCode, 3) << w.err;
  EXPECT_NE(w.out.find("FAIL"), std::string::npos) << w.out;
  // Compile errors are the server's NVRTC's, printed here as file:line: message; exit 4.
  const std::string bad = test::sourceDir() + "/tests/data/usercode/compile_error.cu";
  const test::CommandResult b = test::runReducelab("check " + bad + " --remote-command " + shellQuote(kTestServer), worker);
  EXPECT_EQ(b.exitCode, 4) << b.err;
  EXPECT_NE(b.err.find("compile_error.cu:7:39: error:"), std::string::npos) << b.err;
  // --arch is the remote GPU's: refused before connecting.
  EXPECT_EQ(test::runReducelab(args + " --arch sm_80", worker).exitCode, 2);
}

// A check the server refuses (here one asking for block 0) is answered as a check that did not
// run, a `check_event` of kind done with the reason, so the client's check ends (the window's
// editor would otherwise wait for it forever); a second request while one runs is refused in words.
TEST(RemoteEndToEnd, ARefusedCheckStillEndsTheClientsCheck) {
  usercode::CheckRequest q;
  q.file = "k.cu", q.source = "__global__ void k(const T* in, T* out, unsigned int n) {}";
  nlohmann::json bad = usercode::checkRequestMessage(q, 5);
  bad["blocks"] = nlohmann::json::array({0});
  const std::string in = test::tempPath("refused-check.in"), out = test::tempPath("refused-check.out");
  {
    std::ofstream f(in, std::ios::binary);
    f << remote::encodeFrame(bad) << remote::encodeFrame(remote::simpleMessage("bye"));
  }
  test::commandOutput(shellQuote(kTestServer) + " < " + in + " > " + out);
  std::string err;
  const std::vector<Frame> frames = readAll(test::readFile(out), &err);
  ASSERT_EQ(err, "");
  const auto done = std::find_if(frames.begin(), frames.end(), [](const Frame& f) { return f.type == "check_event"; });
  ASSERT_NE(done, frames.end()) << "no answer to the refused check";
  usercode::CheckEvent e;
  ASSERT_EQ(usercode::decodeCheckEvent(*done, &e), "");
  EXPECT_EQ(e.kind, usercode::CheckEvent::Kind::Done);
  EXPECT_EQ(e.report.status, usercode::CheckStatus::Usage);
  EXPECT_NE(e.report.error.find("a block is not 1..1024"), std::string::npos) << e.report.error;
  EXPECT_EQ(e.report.exitCode(), 2);
}

}  // namespace rl
