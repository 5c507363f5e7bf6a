// The remote protocol's reader (what `reducelab --remote` reads from the server and the server
// reads from the app): any bytes, split anywhere, give frames or one error, never a crash, a hang
// or an allocation beyond one frame's limits. Every frame goes through every decoder of its
// side; what a decoder accepts holds what it promised: a validated configuration, a trace of
// the asked block size that summarize() can read, a device the occupancy calculator can use.
#include <algorithm>
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/remote_protocol.hpp"
#include "reducelab/usercode/check_json.hpp"
#include "reducelab/usercode/worker.hpp"

namespace {

void decodeEverything(const rl::remote::Frame& f) {
  using namespace rl::remote;
  {
    Hello h;
    if (decodeHello(f, &h).empty() && h.device.available) {
      RL_FUZZ_CHECK(h.device.smCount > 0 && h.device.regsPerSM > 0 && h.device.maxThreadsPerSM > 0);
      rl::RunConfig c;
      (void)rl::resourceUsage(c, h.device, nullptr);  // must not divide by zero
    }
  }
  rl::RunConfig c;
  std::string label;
  rl::RunKind kind;
  auto valid = rlFuzzValidConfig;  // the catalogue's, or a row of the user's own kernel
  if (decodeRunRequest(f, &c, &label, &kind).empty()) RL_FUZZ_CHECK(valid(c));
  rl::SweepSpec s;
  if (decodeSweepRequest(f, &s).empty()) {
    RL_FUZZ_CHECK(valid(s.base));
    RL_FUZZ_CHECK(s.kernels.size() <= kMaxSweepKernels);
  }
  std::string file, source;
  if (decodeUserKernelRequest(f, &file, &source).empty())
    RL_FUZZ_CHECK(!file.empty() && !source.empty() && source.size() <= kMaxUserKernelBytes);
  uint64_t id = 0;
  if (decodeTraceRequest(f, &id, &c).empty()) RL_FUZZ_CHECK(valid(c));
  (void)decodeResourcesRequest(f, &c);
  bool remeasure = false;
  (void)decodePeaksRequest(f, &remeasure);
  rl::Measurement m;
  std::string axis;
  if (decodeMeasurement(f, &m, &axis).empty() && m.ok) RL_FUZZ_CHECK(rlFuzzValidConfig(m.config));
  rl::SweepProgress p;
  if (decodeSweepProgress(f, &p).empty()) RL_FUZZ_CHECK(p.done <= p.total);
  std::string text;
  if (decodeText(f, &text).empty()) RL_FUZZ_CHECK(text.size() <= kMaxTextBytes);
  rl::ResourcesDone r;
  (void)decodeResources(f, &r);
  rl::Peaks peaks;
  (void)decodePeaks(f, &peaks);
  {  // the worker's run request (the same frames): a run it accepts has a launch it can make
    rl::usercode::RunRequest run;
    std::vector<uint8_t> cubin;
    if (rl::usercode::decodeRunRequest(f, &run, &cubin).empty())
      RL_FUZZ_CHECK(!run.plan.passes.empty() && run.plan.block >= 1 && !run.symbol.empty());
  }
  rl::usercode::CheckRequest q;
  double timeout = 0;
  if (rl::usercode::decodeCheckRequest(f, &q, &timeout).empty())
    RL_FUZZ_CHECK(!q.source.empty() && q.source.size() <= kMaxUserKernelBytes && timeout >= 0.5 && timeout <= 3600 &&
                  q.timing.n > 0);
  rl::usercode::CheckEvent e;
  if (rl::usercode::decodeCheckEvent(f, &e).empty()) {
    // What the app then does with it: the texts it prints, the exit code, the traces' summaries.
    (void)e.caseResult.text(), (void)e.hazards.text(), (void)e.timing.text();
    (void)e.report.summaryText(), (void)e.report.exitCode();
    for (const std::vector<uint8_t>* bytes : {&e.hazards.trace, &e.report.failureTrace.trace}) {
      if (bytes->empty()) continue;
      std::string err;
      const rl::TraceData td = rl::TraceData::fromBuffer(bytes->data(), bytes->size(), &err);
      RL_FUZZ_CHECK(td.valid());
      RL_FUZZ_CHECK(int(rl::summarize(td).steps.size()) == td.numSteps());
    }
  }
  TraceReply t;
  if (decodeTrace(f, &t).empty() && t.ok) {
    RL_FUZZ_CHECK(t.data.blockSize() == t.config.block);
    const rl::TraceSummary sum = rl::summarize(t.data);  // what the views and `trace` compute
    RL_FUZZ_CHECK(int(sum.steps.size()) == t.data.numSteps());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The length picks how the stream is cut (all at once, or in chunks of 1 to 61 bytes), so
  // every byte stays the stream's.
  const size_t chunk = size % 5 == 0 ? std::max<size_t>(size, 1) : 1 + size % 61;
  rl::remote::FrameReader reader;
  for (size_t at = 0; at < size; at += chunk) {
    reader.feed(data + at, std::min(chunk, size - at));
    for (;;) {
      rl::remote::Frame f;
      std::string error;
      const auto st = reader.next(&f, &error);
      if (st == rl::remote::FrameReader::Status::NeedMore) break;
      if (st == rl::remote::FrameReader::Status::Error) {
        RL_FUZZ_CHECK(!error.empty() && reader.buffered() == 0);
        return 0;
      }
      RL_FUZZ_CHECK(f.body.is_object() && f.payload.size() <= rl::remote::kMaxPayloadBytes);
      decodeEverything(f);
    }
    RL_FUZZ_CHECK(reader.buffered() <= rl::remote::kMaxHeaderLine + rl::remote::kMaxJsonBytes + rl::remote::kMaxPayloadBytes);
  }
  return 0;
}
