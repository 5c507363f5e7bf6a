// A `reducelab serve --stdio` for tests on machines without a GPU: the real server loop
// (serveRemote, the measurement service, the protocol) over an engine whose measurements are
// made up from the configuration (labelled so: the device is "test engine", and tests never
// compare these numbers with anything but themselves). Traces come from the CPU model.
//   remote_test_server [--rep-ms MS] [--die-after-runs K] [--garbage] [--pid-file FILE]
//                      [--log FILE]
// --die-after-runs: the process ends abruptly (_exit) when measurement K+1 starts.
// --garbage: writes bytes that are not the protocol instead of a hello, then waits.
// --unsolicited: a valid hello, then a measurement nobody asked for, then waits.
// --log: every record the server measured, as session JSON, one line each (what the client
//        must receive).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "reducelab/engine.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/remote_protocol.hpp"
#include "reducelab/trace.hpp"
#include "remote_server.hpp"

namespace {

struct Settings {
  int repMs = 1;
  int dieAfterRuns = -1;
  std::string log;
};

rl::DeviceInfo testDevice() {
  rl::DeviceInfo d = rl::assumedH200();
  d.available = true;
  d.name = "test engine (made-up timings)";
  return d;
}

class TestEngine final : public rl::Engine {
 public:
  explicit TestEngine(Settings s) : s_(std::move(s)), dev_(testDevice()) {}
  const rl::DeviceInfo& device() const override { return dev_; }
  rl::Peaks peaks(bool, const std::function<bool()>&) override {
    rl::Peaks p;
    p.theoreticalGBs = dev_.theoreticalPeakGBs();
    p.readGBs = 4000;
    p.copyGBs = 3800;
    p.source = "test engine";
    return p;
  }
  rl::ResourceUsage resources(const rl::RunConfig& c, std::string*) override { return rl::resourceUsage(c, dev_, nullptr); }
  rl::Geometry geometry(const rl::RunConfig& c, std::string*) override { return rl::assumedGeometry(c, dev_); }
  rl::Measurement measure(const rl::RunConfig& c, const rl::MeasureOptions& o) override {
    if (s_.dieAfterRuns >= 0 && runs_ >= s_.dieAfterRuns) _exit(9);  // as if killed mid-sweep
    ++runs_;
    rl::Measurement m;
    m.config = c;
    m.geometry = rl::assumedGeometry(c, dev_);
    m.resources = rl::resourceUsage(c, dev_, nullptr);
    for (int r = 0; r < c.reps; ++r) {
      if (o.cancel && o.cancel()) {
        m.error = "cancelled";
        return m;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(s_.repMs));
      // Deterministic, distinct per configuration and repetition.
      const double ms = 0.001 * double(c.n >> 10) / double(c.block) + 0.0001 * r;
      m.kernelMs.push_back(ms);
      m.endToEndMs.push_back(ms + 0.01);
      if (o.betweenRepetitions && r + 1 < c.reps) o.betweenRepetitions();
    }
    m.kernel = rl::Stats::of(m.kernelMs);
    m.endToEnd = rl::Stats::of(m.endToEndMs);
    m.bytesRead = double(c.n) * double(rl::elemBytes(c.type));
    m.bandwidthGBs = m.bytesRead / (m.kernel.median * 1e-3) / 1e9;
    m.result.isInt = true;
    m.result.i = int64_t(c.n);
    m.ok = true;
    if (!s_.log.empty()) {
      std::lock_guard<std::mutex> lock(logMutex_);
      std::ofstream(s_.log, std::ios::app) << rl::sessionJson(rl::SessionInfo{dev_, peaks(false, {}), {}, "remote"}, {m}).dump() << "\n";
    }
    return m;
  }
  rl::TraceRun runTraced(const rl::RunConfig&, void*, size_t) override { return {false, "no device buffers here", {}, {}}; }
  rl::TraceRun runTracedToHost(const rl::RunConfig& c, std::vector<uint8_t>* bytes) override {
    rl::TraceRun run;
    run.geometry = rl::assumedGeometry(c, dev_);
    const rl::TraceData t = rl::modelTrace(c, run.geometry.grid(), dev_.ccMajor, &run.error);
    if (!t.valid()) return run;
    *bytes = t.toBuffer();
    run.ok = true;
    return run;
  }
  std::vector<double> readInput(const rl::RunConfig&, uint64_t, uint64_t) override { return {}; }

 private:
  Settings s_;
  rl::DeviceInfo dev_;
  int runs_ = 0;
  std::mutex logMutex_;
};

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  bool garbage = false, unsolicited = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) std::exit(2);
      return argv[++i];
    };
    if (a == "--rep-ms") s.repMs = std::atoi(value().c_str());
    else if (a == "--die-after-runs") s.dieAfterRuns = std::atoi(value().c_str());
    else if (a == "--garbage") garbage = true;
    else if (a == "--unsolicited") unsolicited = true;
    else if (a == "--log") s.log = value();
    else if (a == "--pid-file") std::ofstream(value()) << getpid() << "\n";
    else return 2;
  }
  if (garbage) {
    const char junk[] = "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n\x01\x02\x03";
    (void)!write(STDOUT_FILENO, junk, sizeof junk - 1);
    std::this_thread::sleep_for(std::chrono::seconds(60));  // the client must not wait for us
    return 0;
  }
  if (unsolicited) {
    rl::remote::Hello h;
    h.device = testDevice();
    rl::Measurement m;
    m.config.kernel = "k3";
    m.ok = true;
    m.kernelMs = {1.0};
    const std::string bytes = rl::remote::encodeFrame(rl::remote::helloJson(h)) +
                              rl::remote::encodeFrame(rl::remote::measurementMessage(m, h.device, {}));
    (void)!write(STDOUT_FILENO, bytes.data(), bytes.size());
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 0;
  }
  signal(SIGPIPE, SIG_IGN);
  return rl::app::serveRemote(STDIN_FILENO, STDOUT_FILENO,
                              [s](std::string*) { return std::make_unique<TestEngine>(s); }, testDevice());
}
