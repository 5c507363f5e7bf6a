// The CPU model: traces of every traceable kernel computed on the host, the pitfalls' CPU
// versions; no measurement (it says why).
#include "reducelab/backend.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/launch_plan.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/platform.hpp"

#include <chrono>
#include <future>

namespace rl {
namespace {

class CpuModelBackend final : public Backend {
 public:
  CpuModelBackend(const DeviceInfo& shape, std::string why) : shape_(shape), why_(std::move(why)) {}
  std::string name() const override { return "CPU model"; }
  const DeviceInfo& device() const override { return shape_; }
  std::string measuresNot() const override {
    return "measurements need an NVIDIA GPU; this machine runs the CPU model only" + (why_.empty() ? "" : " (" + why_ + ")");
  }
  std::string tracesNot(const RunConfig& c) const override {
    const KernelInfo* k = findKernel(c.kernel);
    if (!k) return "unknown kernel " + c.kernel;
    if (!k->traceable) return std::string(k->key) + " has no traced twin";
    return {};
  }
  void queueRun(const RunConfig&, const std::string&, RunKind, const RunInputs&) override { messages_.push_back(measuresNot()); }
  void queueSweep(const SweepSpec&) override { messages_.push_back("sweeps measure kernels: " + measuresNot()); }
  void cancelSweep() override {}
  void cancelRuns() override {}
  uint64_t queueTrace(const RunConfig& c, TraceTarget) override {
    const uint64_t id = nextId_++;
    if (platform::kBrowser) {  // on a Web Worker: the page keeps drawing while a large block is modelled
      inFlight_.push_back(std::async(std::launch::async, [this, c, id] { return trace(c, id); }));
      return id;
    }
    done_.push_back(trace(c, id));
    return id;
  }
  void queueResources(const RunConfig&) override {}  // the calculator answers at once (resourceUsage)
  void queuePeaks(bool) override {}
  void queuePitfall(const PitfallRequest& r) override {
    if (!pitfalls_)  // the pitfalls' CPU versions, on a service of their own so the frame never waits
      pitfalls_ = std::make_unique<MeasurementService>([why = measuresNot()](std::string* err) {
        *err = why;
        return std::unique_ptr<Engine>();
      });
    pitfalls_->queuePitfall(r);
  }
  BackendEvents poll() override {
    BackendEvents ev;
    for (auto f = inFlight_.begin(); f != inFlight_.end();)
      if (f->wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        done_.push_back(f->get());
        f = inFlight_.erase(f);
      } else {
        ++f;
      }
    if (pitfalls_) ev.service = pitfalls_->poll();
    for (std::string& m : messages_) ev.refusals.push_back(std::move(m));
    messages_.clear();
    ev.traces = std::move(done_);
    done_.clear();
    return ev;
  }
  bool busy() const override { return pitfalls_ && pitfalls_->busy(); }
  size_t pendingJobs() const override { return pitfalls_ ? pitfalls_->pendingJobs() : 0; }

 private:
  DeviceInfo shape_;
  std::string why_;
  std::vector<std::string> messages_;
  std::vector<TraceResult> done_;
  std::vector<std::future<TraceResult>> inFlight_;  // the browser's traces, modelled on a worker
  TraceResult trace(const RunConfig& asked, uint64_t id) const {
    TraceResult r;
    r.id = id;
    const DeviceInfo& d = shape_;
    const RunConfig c = modelDispatchedConfig(asked, d);  // auto: the block its dispatch chose
    r.config = c;
    std::string err;
    r.data = modelTrace(c, assumedGeometry(c, d).grid(), d.ccMajor, &err);
    r.ok = r.data.valid();
    r.error = r.ok ? "" : (err.empty() ? "no trace recorded" : err);
    r.source = "CPU model" + (why_.empty() ? "" : " (" + why_ + ")");
    return r;
  }
  uint64_t nextId_ = 1;
  std::unique_ptr<MeasurementService> pitfalls_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuModelBackend(const DeviceInfo& shape, std::string why) {
  return std::make_unique<CpuModelBackend>(shape, std::move(why));
}

}  // namespace rl
