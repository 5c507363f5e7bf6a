// The measurement service against a fake engine: ordering of runs and traces (never a trace
// inside a timed region), cancellation inside measurements, sweeps and the peaks measurement,
// shutdown during a sweep, and continuous runs reusing the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>

#include "reducelab/measurement_service.hpp"
#include "reducelab/occupancy.hpp"

namespace rl {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct EventLog {
  std::mutex mutex;
  std::vector<std::string> events;
  void add(std::string e) {
    std::lock_guard<std::mutex> lock(mutex);
    events.push_back(std::move(e));
  }
  std::vector<std::string> snapshot() {
    std::lock_guard<std::mutex> lock(mutex);
    return events;
  }
  bool has(const std::string& e) {
    const auto s = snapshot();
    return std::find(s.begin(), s.end(), e) != s.end();
  }
};

struct FakeSettings {
  std::chrono::milliseconds repTime{2};
  std::chrono::milliseconds peaksTime{0};  // how long the peaks measurement takes uncancelled
};

// Records what the service asks of it; a repetition is a sleep inside "timed-begin/timed-end".
class FakeEngine final : public Engine {
 public:
  FakeEngine(std::shared_ptr<EventLog> log, FakeSettings s) : log_(std::move(log)), s_(s) {
    dev_ = assumedH200();
  }
  const DeviceInfo& device() const override { return dev_; }
  Peaks peaks(bool remeasure, const std::function<bool()>& cancel) override {
    log_->add(remeasure ? "peaks-remeasure" : "peaks");
    const auto end = Clock::now() + s_.peaksTime;
    while (Clock::now() < end) {
      if (cancel && cancel()) {
        log_->add("peaks-cancelled");
        return {};
      }
      std::this_thread::sleep_for(1ms);
    }
    Peaks p;
    p.readGBs = 1;
    p.source = "fake";
    return p;
  }
  ResourceUsage resources(const RunConfig& c, std::string*) override {
    log_->add("resources " + c.kernel);
    return resourceUsage(c, dev_, nullptr);
  }
  Geometry geometry(const RunConfig& c, std::string*) override { return assumedGeometry(c, dev_); }
  Measurement measure(const RunConfig& c, const MeasureOptions& o) override {
    Measurement m;
    m.config = c;
    log_->add("measure-begin " + c.kernel + " n=" + std::to_string(c.n));
    log_->add(std::string("options cpu=") + (o.cpuBaseline ? "1" : "0") + " knownRef=" + (o.knownReference ? "1" : "0"));
    for (int r = 0; r < c.reps; ++r) {
      if (o.cancel && o.cancel()) {
        log_->add("measure-cancelled");
        m.error = "cancelled";
        return m;
      }
      log_->add("timed-begin");
      std::this_thread::sleep_for(s_.repTime);
      log_->add("timed-end");
      if (o.progress) o.progress("exact reference", double(r + 1) / c.reps);  // as the CPU work reports it
      if (o.betweenRepetitions && r + 1 < c.reps) o.betweenRepetitions();
    }
    log_->add("measure-end");
    m.ok = true;
    m.haveReference = true;
    if (o.knownReference) m.reference = *o.knownReference;
    return m;
  }
  TraceRun runTraced(const RunConfig& c, void*, size_t) override {
    log_->add("trace " + c.kernel + " n=" + std::to_string(c.n));
    TraceRun t;
    t.ok = true;
    return t;
  }
  TraceRun runTracedToHost(const RunConfig& c, std::vector<uint8_t>*) override { return runTraced(c, nullptr, 0); }
  std::vector<double> readInput(const RunConfig&, uint64_t, uint64_t) override { return {}; }

 private:
  std::shared_ptr<EventLog> log_;
  FakeSettings s_;
  DeviceInfo dev_;
};

MeasurementService::EngineFactory fakeFactory(std::shared_ptr<EventLog> log, FakeSettings s = {}) {
  return [log, s](std::string*) { return std::make_unique<FakeEngine>(log, s); };
}

RunConfig smallRun(const std::string& kernel, int reps) {
  RunConfig c;
  c.kernel = kernel;
  c.n = uint64_t(1) << 12;
  c.block = 256;
  c.reps = reps;
  c.warmup = 0;
  return c;
}

// Polls until `done` says so (collecting events) or the time is up.
template <class F>
bool pollUntil(MeasurementService& s, ServiceEvents& all, F done, std::chrono::milliseconds limit = 10s) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    ServiceEvents e = s.poll();
    for (auto& m : e.measurements) all.measurements.push_back(std::move(m));
    for (auto& r : e.sweepRows) all.sweepRows.push_back(std::move(r));
    for (auto& t : e.traces) all.traces.push_back(std::move(t));
    if (e.sweep) all.sweep = e.sweep;
    if (e.resources) all.resources = e.resources;
    if (e.peaks) all.peaks = e.peaks;
    if (e.progress) all.progress = e.progress;
    for (auto& m : e.messages) all.messages.push_back(std::move(m));
    if (done()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return false;
}

size_t indexOf(const std::vector<std::string>& v, const std::string& prefix, size_t from = 0) {
  for (size_t i = from; i < v.size(); ++i)
    if (v[i].rfind(prefix, 0) == 0) return i;
  return v.size();
}

TEST(MeasurementService, RunsFinishInQueueOrderAndPeaksComeFirst) {
  auto log = std::make_shared<EventLog>();
  MeasurementService s(fakeFactory(log));
  s.queueRun(smallRun("k1", 3), "a");
  s.queueRun(smallRun("k2", 3), "b");
  s.queueRun(smallRun("k3", 3), "c");
  ServiceEvents all;
  ASSERT_TRUE(pollUntil(s, all, [&] { return all.measurements.size() == 3 && all.peaks; }));
  EXPECT_EQ(all.measurements[0].label, "a");
  EXPECT_EQ(all.measurements[1].label, "b");
  EXPECT_EQ(all.measurements[2].label, "c");
  const auto ev = log->snapshot();
  EXPECT_LT(indexOf(ev, "peaks"), indexOf(ev, "measure-begin"));
  EXPECT_FALSE(s.busy());
}

TEST(MeasurementService, TraceOfTheSameInputRunsBetweenRepetitionsNeverInsideATimedRegion) {
  auto log = std::make_shared<EventLog>();
  FakeSettings fs;
  fs.repTime = 10ms;
  MeasurementService s(fakeFactory(log, fs));
  s.queueRun(smallRun("k7", 50));
  ServiceEvents all;
  ASSERT_TRUE(pollUntil(s, all, [&] { return log->has("timed-begin"); }));
  RunConfig traced = smallRun("k1", 1);  // another kernel, the same input
  int buffer = 0;
  const uint64_t id = s.queueTrace(traced, &buffer, sizeof buffer);
  ASSERT_TRUE(pollUntil(s, all, [&] { return !all.traces.empty(); }));
  EXPECT_EQ(all.traces[0].id, id);
  EXPECT_TRUE(all.traces[0].run.ok);
  const auto ev = log->snapshot();
  const size_t t = indexOf(ev, "trace");
  ASSERT_LT(t, ev.size());
  ASSERT_GT(t, 0u);
  EXPECT_EQ(ev[t - 1], "timed-end");                       // after a repetition ...
  EXPECT_LT(t, indexOf(ev, "measure-end"));               // ... of the running measurement,
  ASSERT_LT(t + 1, ev.size());
  EXPECT_EQ(ev[t + 1], "timed-begin");                     // ... before the next
  ASSERT_TRUE(pollUntil(s, all, [&] { return all.measurements.size() == 1; }));
}

TEST(MeasurementService, TraceOfAnotherInputWaitsUntilTheMeasurementEnds) {
  auto log = std::make_shared<EventLog>();
  FakeSettings fs;
  fs.repTime = 5ms;
  MeasurementService s(fakeFactory(log, fs));
  s.queueRun(smallRun("k7", 30));
  ServiceEvents all;
  ASSERT_TRUE(pollUntil(s, all, [&] { return log->has("timed-begin"); }));
  RunConfig traced = smallRun("k1", 1);
  traced.n *= 2;  // the engine holds one input: tracing this one would replace the measured one
  int buffer = 0;
  s.queueTrace(traced, &buffer, sizeof buffer);
  ASSERT_TRUE(pollUntil(s, all, [&] { return !all.traces.empty(); }));
  const auto ev = log->snapshot();
  EXPECT_GT(indexOf(ev, "trace"), indexOf(ev, "measure-end"));
}

TEST(MeasurementService, TracesWaitBetweenSweepPointsNotUntilTheSweepEnds) {
  auto log = std::make_shared<EventLog>();
  FakeSettings fs;
  fs.repTime = 5ms;
  MeasurementService s(fakeFactory(log, fs));
  SweepSpec spec;
  spec.axis = SweepAxis::Kernel;
  spec.base = smallRun("k7", 10);
  s.queueSweep(spec);
  ServiceEvents all;
  ASSERT_TRUE(pollUntil(s, all, [&] { return log->has("timed-begin"); }));
  RunConfig traced = spec.base;
  traced.n *= 4;
  int buffer = 0;
  s.queueTrace(traced, &buffer, sizeof buffer);
  ASSERT_TRUE(pollUntil(s, all, [&] { return !all.traces.empty(); }));
  EXPECT_FALSE(all.sweep && all.sweep->finished);  // the sweep was still running
  const auto ev = log->snapshot();
  const size_t t = indexOf(ev, "trace");
  ASSERT_GT(t, 0u);
  EXPECT_EQ(ev[t - 1], "measure-end");  // between two sweep points
  s.cancelSweep();
}

TEST(MeasurementService, QuittingDuringASweepReturnsWithinASecond) {
  auto log = std::make_shared<EventLog>();
  FakeSettings fs;
  fs.repTime = 100ms;  // each point 2 s, the sweep far longer
  auto s = std::make_unique<MeasurementService>(fakeFactory(log, fs));
  SweepSpec spec;
  spec.axis = SweepAxis::Kernel;
  spec.base = smallRun("k7", 20);
  s->queueSweep(spec);
  ServiceEvents all;
  ASSERT_TRUE(pollUntil(*s, all, [&] { return log->has("timed-begin"); }));
  const auto t0 = Clock::now();
  s.reset();
  EXPECT_LT(Clock::now() - t0, 1s);
  EXPECT_TRUE(log->has("measure-cancelled"));
}

TEST(MeasurementService, CancelReachesInsideTheRunningSweepPoint) {
  auto log = std::make_shared<EventLog>();
  FakeSettings fs;
  fs.repTime = 50ms;
  MeasurementService s(fakeFactory(log, fs));
  SweepSpec spec;
  spec.axis = SweepAxis::Kernel;
  spec.base = smallRun("k7", 40);
  s.queueSweep(spec);
  ServiceEvents all;
  ASSERT_TRUE(pollUntil(s, all, [&] { return log->has("timed-begin"); }));
  const auto t0 = Clock::now();
  s.cancelSweep();
  ASSERT_TRUE(pollUntil(s, all, [&] { return all.sweep && all.sweep->finished; }, 2s));
  EXPECT_LT(Clock::now() - t0, 1s);
  EXPECT_LT(all.sweep->done, all.sweep->total);
  EXPECT_TRUE(log->has("measure-cancelled"));
  EXPECT_FALSE(s.busy());
}

// The GUI's Cancel next to Run: the running measurement stops inside its repetitions (as the
// exact reference stops between its chunks), the queued runs are dropped, nothing is appended as
// a result, and the service takes new work afterwards.
TEST(MeasurementService, CancelRunsStopsTheRunningMeasurementAndDropsTheQueue) {
  auto log = std::make_shared<EventLog>();
  FakeSettings fs;
  fs.repTime = 50ms;
  MeasurementService s(fakeFactory(log, fs));
  s.queueRun(smallRun("k7", 40));
  s.queueRun(smallRun("k8", 40));
  s.queueRun(smallRun("k9", 40));
  ServiceEvents all;
  ASSERT_TRUE(pollUntil(s, all, [&] { return all.progress.has_value(); }));
  EXPECT_EQ(all.progress->what, "exact reference");
  EXPECT_GT(all.progress->fraction, 0.0);
  const auto t0 = Clock::now();
  s.cancelRuns();
  ASSERT_TRUE(pollUntil(s, all, [&] { return !s.busy(); }, 2s));
  EXPECT_LT(Clock::now() - t0, 1s);
  EXPECT_TRUE(log->has("measure-cancelled"));
  EXPECT_FALSE(log->has("measure-begin k8 n=4096"));
  EXPECT_TRUE(all.measurements.empty());
  const auto said = [&](const std::string& m) {
    return std::find(all.messages.begin(), all.messages.end(), m) != all.messages.end();
  };
  EXPECT_TRUE(said("2 queued run(s) cancelled"));
  EXPECT_TRUE(said("Run of k7 cancelled"));
  s.queueRun(smallRun("k10", 2));  // a later run is not cancelled by the earlier Cancel
  ASSERT_TRUE(pollUntil(s, all, [&] { return !all.measurements.empty(); }));
  EXPECT_TRUE(all.measurements.front().ok);
  EXPECT_EQ(all.measurements.front().config.kernel, "k10");
}

TEST(MeasurementService, QuittingDuringThePeaksMeasurementReturnsWithinASecond) {
  auto log = std::make_shared<EventLog>();
  FakeSettings fs;
  fs.peaksTime = 20s;
  auto s = std::make_unique<MeasurementService>(fakeFactory(log, fs));
  ServiceEvents all;
  ASSERT_TRUE(pollUntil(*s, all, [&] { return log->has("peaks"); }));
  const auto t0 = Clock::now();
  s.reset();
  EXPECT_LT(Clock::now() - t0, 1s);
  EXPECT_TRUE(log->has("peaks-cancelled"));
}

TEST(MeasurementService, ContinuousRunsSkipTheCpuBaselineAndReuseTheReference) {
  auto log = std::make_shared<EventLog>();
  MeasurementService s(fakeFactory(log));
  ServiceEvents all;
  s.queueRun(smallRun("k7", 2), "", RunKind::Single);
  ASSERT_TRUE(pollUntil(s, all, [&] { return all.measurements.size() == 1; }));
  s.queueRun(smallRun("k7", 2), "", RunKind::Continuous);
  ASSERT_TRUE(pollUntil(s, all, [&] { return all.measurements.size() == 2; }));
  s.queueRun(smallRun("k7", 2), "", RunKind::Continuous);
  ASSERT_TRUE(pollUntil(s, all, [&] { return all.measurements.size() == 3; }));
  std::vector<std::string> options;
  for (const std::string& e : log->snapshot())
    if (e.rfind("options", 0) == 0) options.push_back(e);
  ASSERT_EQ(options.size(), 3u);
  EXPECT_EQ(options[0], "options cpu=1 knownRef=0");
  EXPECT_EQ(options[1], "options cpu=0 knownRef=0");  // the first continuous run computes it
  EXPECT_EQ(options[2], "options cpu=0 knownRef=1");  // the next reuse it
}

TEST(MeasurementService, ResourcesAndRemeasuredPeaksComeFromTheOneEngine) {
  auto log = std::make_shared<EventLog>();
  MeasurementService s(fakeFactory(log));
  ServiceEvents all;
  s.queueResources(smallRun("k7", 1));
  ASSERT_TRUE(pollUntil(s, all, [&] { return all.resources.has_value(); }));
  EXPECT_EQ(all.resources->config.kernel, "k7");
  EXPECT_GT(all.resources->usage.activeBlocksPerSM, 0);
  s.queuePeaks(true);
  ASSERT_TRUE(pollUntil(s, all, [&] { return log->has("peaks-remeasure"); }));
}

TEST(MeasurementService, WithoutAnEngineRunsReportWhy) {
  MeasurementService s([](std::string* err) {
    *err = "no CUDA device";
    return std::unique_ptr<Engine>();
  });
  s.queueRun(smallRun("k7", 1));
  ServiceEvents all;
  ASSERT_TRUE(pollUntil(s, all, [&] { return all.measurements.size() == 1; }));
  EXPECT_FALSE(all.measurements[0].ok);
  EXPECT_EQ(all.measurements[0].error, "no CUDA device");
}

}  // namespace
}  // namespace rl

// The results table formats each row once and draws only the visible ones: 10,000 rows cost a
// frame no more than 1,000 (before: every row copied and formatted every frame, ~4x the frame).
#include "test_support.hpp"

namespace rl {
namespace {

double frameMedianMs(int rows) {
  const test::CommandResult r =
      test::runReducelab("--headless --frames 60 --stats --dev-fill-results " + std::to_string(rows));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const size_t at = r.out.find("frame time median ");
  if (at == std::string::npos) {
    ADD_FAILURE() << r.out;
    return 0;
  }
  return std::stod(r.out.substr(at + 18));
}

TEST(ResultsPanel, FrameCostDoesNotGrowWithTheNumberOfResults) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "frame times under AddressSanitizer say nothing about the panel";
#endif
  double small = 1e9, large = 1e9;  // the best of two runs each, interleaved (the machine is shared)
  for (int i = 0; i < 2; ++i) {
    small = std::min(small, frameMedianMs(1000));
    large = std::min(large, frameMedianMs(10000));
  }
  EXPECT_LT(large, 2.0 * small) << "1,000 rows: " << small << " ms a frame, 10,000 rows: " << large << " ms";
}

}  // namespace
}  // namespace rl
