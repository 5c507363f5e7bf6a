// This machine's GPU: the measurement service and its one engine (created on the service's
// thread), the only place in ReduceLab that launches a kernel.
#include "reducelab/backend.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/engine.hpp"

namespace rl {
namespace {

class LocalGpuBackend final : public Backend {
 public:
  explicit LocalGpuBackend(int ordinal) : device_(queryDevice(ordinal)) {
    if (device_.available)
      service_ = std::make_unique<MeasurementService>([ordinal](std::string* err) { return Engine::create(ordinal, err); });
  }
  std::string name() const override {
    return device_.available ? device_.name + " (this machine)" : "no GPU on this machine";
  }
  const DeviceInfo& device() const override { return device_; }
  bool writesDeviceBuffers() const override { return true; }
  std::string measuresNot() const override {
    if (!device_.available) return "measurements need an NVIDIA GPU (" + device_.unavailableReason + ")";
    return service_->engineError();
  }
  std::string tracesNot(const RunConfig& c) const override {
    if (!device_.available) return "no NVIDIA GPU";
    if (!service_->engineError().empty()) return service_->engineError();
    const KernelInfo* k = findKernel(c.kernel);
    if (k && !k->traceable) return std::string(k->key) + " has no traced twin";
    return {};
  }
  void queueRun(const RunConfig& c, const std::string& label, RunKind kind, const RunInputs& inputs) override {
    if (service_) service_->queueRun(c, label, kind, inputs);
    else refused_.push_back("Not run: " + measuresNot());
  }
  void queueSweep(const SweepSpec& s) override {
    if (service_) service_->queueSweep(s);
    else refused_.push_back("No sweep: " + measuresNot());
  }
  void cancelSweep() override {
    if (service_) service_->cancelSweep();
  }
  void cancelRuns() override {
    if (service_) service_->cancelRuns();
  }
  uint64_t queueTrace(const RunConfig& c, TraceTarget target) override {
    if (!service_) {
      TraceResult r;
      r.id = nextRefusedId_--;
      r.config = c;
      r.error = tracesNot(c);
      refusedTraces_.push_back(std::move(r));
      return refusedTraces_.back().id;
    }
    return service_->queueTrace(c, target.deviceBuffer, target.bytes);
  }
  void queueResources(const RunConfig& c) override {
    if (service_) service_->queueResources(c);
  }
  void queuePeaks(bool remeasure) override {
    if (service_) service_->queuePeaks(remeasure);
  }
  void queuePitfall(const PitfallRequest& r) override {
    if (service_) service_->queuePitfall(r);
  }
  std::string onEngine(const std::function<void(Engine&)>& fn) override {
    if (!service_) return measuresNot();
    std::string why;
    service_->callOnEngine([&](Engine* e) {
      if (e) fn(*e);
      else why = service_->engineError();
    });
    return why;
  }
  BackendEvents poll() override {
    BackendEvents ev;
    if (service_) ev.service = service_->poll();
    for (std::string& m : refused_) ev.refusals.push_back(std::move(m));
    refused_.clear();
    for (TraceDone& t : ev.service.traces) {
      TraceResult r;
      r.id = t.id;
      r.config = t.config;
      r.ok = t.run.ok;
      r.error = t.run.error;
      r.gpuWritten = true;
      if (r.ok && !t.hostBytes.empty()) {
        std::string err;
        r.data = TraceData::fromBuffer(t.hostBytes.data(), t.hostBytes.size(), &err);
        if (!r.data.valid()) r.ok = false, r.error = err.empty() ? "no trace recorded" : err;
      } else {
        r.writtenInPlace = r.ok;  // the caller's device buffer holds it: the caller reads it back
      }
      r.source = "GPU (" + device_.name + "), written by the traced kernel";
      ev.traces.push_back(std::move(r));
    }
    ev.service.traces.clear();
    for (TraceResult& r : refusedTraces_) ev.traces.push_back(std::move(r));
    refusedTraces_.clear();
    return ev;
  }
  bool busy() const override { return service_ && service_->busy(); }
  size_t pendingJobs() const override { return service_ ? service_->pendingJobs() : 0; }

 private:
  DeviceInfo device_;
  std::unique_ptr<MeasurementService> service_;
  std::vector<std::string> refused_;
  std::vector<TraceResult> refusedTraces_;
  uint64_t nextRefusedId_ = ~uint64_t(0);  // refused traces' ids count down, clear of the service's
};

}  // namespace

std::unique_ptr<Backend> makeLocalGpuBackend(int ordinal) { return std::make_unique<LocalGpuBackend>(ordinal); }

}  // namespace rl
