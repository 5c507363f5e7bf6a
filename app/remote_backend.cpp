#include "remote_backend.hpp"

#include "reducelab/occupancy.hpp"

namespace rl::app {
namespace {

class RemoteBackend final : public Backend {
 public:
  explicit RemoteBackend(std::unique_ptr<RemoteClient> c) : client_(std::move(c)) {
    device_.unavailableReason = "connecting to " + client_->target();
  }
  std::string name() const override { return (host_.empty() ? client_->target() : host_) + " (remote)"; }
  const DeviceInfo& device() const override { return device_; }
  std::string measuresNot() const override {
    return client_->dropped() ? "the connection to " + client_->target() + " was lost" : "";
  }
  std::string tracesNot(const RunConfig&) const override {
    if (client_->dropped()) return "the connection to " + client_->target() + " was lost";
    if (!client_->connected()) return "while connecting to " + client_->target();
    return {};
  }
  void queueRun(const RunConfig& c, const std::string& label, RunKind kind, const RunInputs&) override {
    // Before the hello only the device-independent rules are known; the server checks again.
    if (std::string e = measuresNot(); !e.empty()) refused_.push_back("Not run: " + e);
    else if (std::string v = validateRow(c, device_.available ? &device_ : nullptr); !v.empty())
      refused_.push_back("Not run: " + v);
    else client_->queueRun(c, label, kind);
  }
  void queueSweep(const SweepSpec& s) override {
    if (std::string e = measuresNot(); !e.empty()) refused_.push_back("No sweep: " + e);
    else client_->queueSweep(s);
  }
  void cancelSweep() override { client_->cancelSweep(); }
  std::string setUserKernel(const std::string& file, const std::string& source) override {
    if (std::string e = measuresNot(); !e.empty()) return e;
    client_->sendUserKernel(file, source);
    return {};
  }
  std::string queueCheck(const usercode::CheckRequest& q, double timeoutSeconds) override {
    if (std::string e = measuresNot(); !e.empty()) return e;
    if (!client_->connected()) return "still connecting to " + client_->target();
    if (client_->checkRunning()) return "a check is already running on " + name();
    client_->queueCheck(q, timeoutSeconds);
    return {};
  }
  void cancelCheck() override { client_->cancelCheck(); }
  void cancelRuns() override {}  // the protocol cancels sweeps; a single run ends on its own
  uint64_t queueTrace(const RunConfig& c, TraceTarget) override { return client_->queueTrace(c); }
  void queueResources(const RunConfig& c) override {
    if (client_->connected() && device_.available) client_->queueResources(c);
  }
  void queuePeaks(bool remeasure) override { client_->queuePeaks(remeasure); }
  // The pitfall demonstrations are not in the remote protocol: this machine's CPU model shows them.
  void queuePitfall(const PitfallRequest& r) override {
    if (!pitfalls_) pitfalls_ = makeCpuModelBackend(assumedH200(), "the pitfalls run here, not on " + client_->target());
    pitfalls_->queuePitfall(r);
  }
  BackendEvents poll() override {
    BackendEvents ev;
    if (pitfalls_) ev.service.pitfalls = std::move(pitfalls_->poll().service.pitfalls);
    RemoteEvents r = client_->poll();
    if (r.hello) {
      const remote::Hello& h = *r.hello;
      host_ = h.host;
      device_ = h.device;
      ev.device = h.device;
      ev.service.peaks = h.peaks;
      ev.connected = h.host + " (" + (h.device.available ? h.device.name : "no GPU there: " + h.device.unavailableReason) +
                     "; ReduceLab " + h.version + ", commit " + h.commit + ")";
    }
    ev.service.measurements = std::move(r.service.measurements);
    ev.service.sweepRows = std::move(r.service.sweepRows);
    ev.service.messages = std::move(r.service.messages);
    ev.service.sweep = r.service.sweep;
    ev.service.resources = std::move(r.service.resources);
    if (r.service.peaks) ev.service.peaks = r.service.peaks;
    for (std::string& m : refused_) ev.refusals.push_back(std::move(m));
    refused_.clear();
    const std::string where = host_.empty() ? client_->target() : host_;
    for (remote::TraceReply& t : r.traces) {
      TraceResult x;
      x.id = t.id;
      x.config = t.config;
      x.ok = t.ok;
      x.error = t.error;
      x.data = std::move(t.data);
      x.gpuWritten = t.source != "cpu-model";
      x.source = x.gpuWritten ? "GPU (" + device_.name + ") on " + where +
                                    ", written by the traced kernel and sent through the remote pipe"
                              : "CPU model on " + where + " (no NVIDIA GPU there)";
      ev.traces.push_back(std::move(x));
    }
    ev.checks = std::move(r.checks);
    if (r.dropped) ev.lost = *r.dropped;
    return ev;
  }
  bool busy() const override {
    return client_->pendingRuns() > 0 || client_->sweepRunning() || (pitfalls_ && pitfalls_->busy());
  }
  size_t pendingJobs() const override { return client_->pendingRuns() + (client_->sweepRunning() ? 1 : 0); }

 private:
  std::unique_ptr<RemoteClient> client_;
  DeviceInfo device_;
  std::string host_;
  std::vector<std::string> refused_;
  std::unique_ptr<Backend> pitfalls_;
};

}  // namespace

std::unique_ptr<Backend> makeRemoteBackend(std::unique_ptr<RemoteClient> client) {
  return std::make_unique<RemoteBackend>(std::move(client));
}

}  // namespace rl::app
