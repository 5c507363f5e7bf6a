// An opened recording: the traces it holds (the GPU's own, when it was made on one); it
// measures nothing new (its measurements are replayed by the caller into the results).
#include "reducelab/backend.hpp"
#include "reducelab/recording.hpp"

namespace rl {
namespace {

class RecordingBackend final : public Backend {
 public:
  explicit RecordingBackend(std::shared_ptr<const Recording> r) : rec_(std::move(r)) {}
  std::string name() const override { return "recording of " + rec_->device.name; }
  const DeviceInfo& device() const override { return rec_->device; }
  std::string measuresNot() const override { return "a recording replays what was measured; it measures nothing new"; }
  std::string tracesNot(const RunConfig& c) const override {
    return rec_->findTrace(c) ? "" : "this configuration is not in the recording";
  }
  void queueRun(const RunConfig&, const std::string&, RunKind, const RunInputs&) override {}
  void queueSweep(const SweepSpec&) override {}
  void cancelSweep() override {}
  void cancelRuns() override {}
  uint64_t queueTrace(const RunConfig& c, TraceTarget) override {
    TraceResult r;
    r.id = nextId_++;
    r.config = c;
    if (const RecordedTrace* t = rec_->findTrace(c)) {
      std::string err;
      r.data = TraceData::fromBuffer(t->bytes.data(), t->bytes.size(), &err);  // checked when the file was read
      r.ok = r.data.valid();
      r.error = err;
      r.gpuWritten = t->fromGpu;
      const std::string date = rec_->createdUtc.substr(0, 10);
      r.source = t->fromGpu ? "GPU (" + rec_->device.name + "), recorded " + date + ": written by the traced kernel"
                            : "CPU model, recorded " + date;
    } else {
      r.error = tracesNot(c);
    }
    done_.push_back(std::move(r));
    return done_.back().id;
  }
  void queueResources(const RunConfig&) override {}
  void queuePeaks(bool) override {}
  void queuePitfall(const PitfallRequest&) override {}
  BackendEvents poll() override {
    BackendEvents ev;
    ev.traces = std::move(done_);
    done_.clear();
    return ev;
  }
  bool busy() const override { return false; }
  size_t pendingJobs() const override { return 0; }

 private:
  std::shared_ptr<const Recording> rec_;
  std::vector<TraceResult> done_;
  uint64_t nextId_ = 1;
};

}  // namespace

std::unique_ptr<Backend> makeRecordingBackend(std::shared_ptr<const Recording> recording) {
  return std::make_unique<RecordingBackend>(std::move(recording));
}

}  // namespace rl
