// A stand-in for `reducelab check-worker` on machines without a GPU, to test the parent's side
// (watchdog, restart, a worker that dies): the real frames, a device named "fake worker (tests)",
// and answers chosen by the first argument. It runs no kernel: an "ok" answer is the sum of N
// ones (the value N), which the tests compare with nothing but N.
//   usercode_fake_worker ok              every run answers Ok
//   usercode_fake_worker hang-once FILE  the first worker (FILE absent: it creates it) never
//                                        answers; later ones answer Ok
//   usercode_fake_worker crash-once FILE the first worker aborts on its run; later ones answer Ok
//   usercode_fake_worker silent          never says hello
//   usercode_fake_worker exact           every run answers the exact reference (a right kernel)
//   usercode_fake_worker traced          as exact, and traces (k3's CPU-model trace of the request)
//   usercode_fake_worker traced-wrong    as ok (wrong but for ones), and traces
// A timing request gets repetitions as if the input streamed at 2 TB/s.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "reducelab/occupancy.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/trace.hpp"
#include "reducelab/usercode/worker.hpp"

namespace uc = rl::usercode;

namespace {

bool writeAll(const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, s.data() + done, s.size() - done);
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

[[noreturn]] void waitForever() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ok";
  const std::string marker = argc > 2 ? argv[2] : "";
  if (mode == "silent") waitForever();
  bool first = false;
  if (!marker.empty()) {
    FILE* f = std::fopen(marker.c_str(), "wx");  // exclusive: only the first worker creates it
    first = f != nullptr;
    if (f) std::fclose(f);
  }
  rl::DeviceInfo d = rl::assumedH200();
  d.available = true;
  d.name = "fake worker (tests)";
  // "traced": answers like "exact", and a trace request with the CPU model's trace of k3 at the
  // request's type, block and N, marked as recorded by instrumentation (the GUI's views draw it).
  const bool traces = mode == "traced" || mode == "traced-wrong";
  if (!writeAll(rl::remote::encodeFrame(uc::workerHelloJson(d, traces ? "" : "the fake worker does not trace")))) return 1;
  rl::remote::FrameReader reader;
  char buffer[1 << 16];
  for (;;) {
    rl::remote::Frame f;
    std::string error;
    const auto st = reader.next(&f, &error);
    if (st == rl::remote::FrameReader::Status::Error) return 2;
    if (st == rl::remote::FrameReader::Status::NeedMore) {
      const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n <= 0) return 0;
      reader.feed(buffer, size_t(n));
      continue;
    }
    if (f.type == "bye") return 0;
    uc::RunRequest r;
    std::vector<uint8_t> cubin;
    if (!uc::decodeRunRequest(f, &r, &cubin).empty()) return 3;
    if (first && mode == "hang-once") waitForever();
    if (first && mode == "crash-once") {
      std::fprintf(stderr, "fake worker: aborting as asked\n");
      std::abort();
    }
    uc::RunOutcome o;
    o.status = uc::RunOutcome::Status::Ok;
    const int32_t sum = int32_t(r.n);
    std::memcpy(&o.resultBits, &sum, sizeof sum);
    if (mode == "exact" || mode == "traced") {  // the value a right kernel gives, from the CPU's exact reference
      rl::RunConfig c;
      c.type = r.type, c.op = r.op, c.accumulate = rl::Accumulate::Same, c.n = r.n;
      c.data = r.data.pattern, c.seed = r.data.seed, c.rangeLo = r.data.lo, c.rangeHi = r.data.hi;
      const rl::Reference ref = rl::computeReference(c);
      o.resultBits = 0;
      auto put = [&](auto v) { std::memcpy(&o.resultBits, &v, sizeof v); };
      switch (r.type) {
        case rl::ElemType::Int32: put(int32_t(ref.expected.i)); break;
        case rl::ElemType::Int64: put(int64_t(ref.expected.i)); break;
        case rl::ElemType::Float32: put(float(ref.exact)); break;
        case rl::ElemType::Float64: put(double(ref.exact)); break;
      }
    }
    if (traces && r.traceBlock >= 0) {
      rl::RunConfig c;
      c.kernel = "k3", c.type = r.type, c.op = r.op, c.n = r.n, c.block = r.plan.block, c.tracedBlock = uint64_t(r.traceBlock);
      std::string error;
      rl::TraceData t = rl::modelTrace(c, (r.n + uint64_t(c.block) - 1) / uint64_t(c.block), 9, &error);
      if (!t.valid()) {
        o.traceError = "the fake worker's model trace: " + error;
      } else {
        t.header.flags |= rl::trace::kTraceInstrumented;
        o.trace = t.toBuffer();
        o.tracedFunction = "fake";
        o.tracePhases = t.numSteps();
      }
    }
    // A timing request: as if the input streamed at 2 TB/s (repetition k a nanosecond slower).
    for (int k = 0; k < r.timedReps; ++k) {
      o.repMs.push_back(double(r.n) * rl::elemBytes(r.type) / 2e9 + k * 1e-6);
      o.repEndToEndMs.push_back(o.repMs.back() + 0.01);  // and 10 us for the copy of the result
    }
    if (!writeAll(rl::remote::encodeFrame(uc::runOutcomeJson(r.id, o)))) return 1;
  }
}
