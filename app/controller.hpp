#pragma once
// Feeds the GUI's model from a Backend (reducelab/backend.hpp: this machine's GPU through the
// measurement service, a remote GPU, or the CPU model) and takes each trace from the first
// source that has it: an opened recording, then the backend, then the CPU model. The GL thread
// only maps and unmaps the trace buffers for CUDA-GL interop and hands the device pointer to the
// backend's queue; it never launches anything and never waits for a measurement or a sweep.
// Two GL trace buffers: the views draw one while the traced kernel writes the other.
#include <utility>
#include <array>
#include <memory>
#include <optional>

#include "interop.hpp"
#include "reducelab/backend.hpp"
#include "reducelab/gui/model.hpp"
#include "reducelab/sweep.hpp"
#include "remote_client.hpp"

namespace rl::app {

class Controller {
 public:
  // With `remote`, the GPU work goes to that server; else to this machine's GPU, or the CPU model
  // where there is none.
  explicit Controller(gui::Model& model, std::unique_ptr<RemoteClient> remote = nullptr);
  ~Controller();  // cancels running work: returns within a second (a remote: about three), even during a sweep
  // Once per frame, before the UI is drawn: takes what the backend finished, asks for a new
  // trace when the configuration changed. Never blocks on the backend.
  void update();
  void queueRun(const RunConfig& c, const std::string& label = "");
  void queueSweep(const SweepSpec& s);
  // A pitfall demonstration (seed 002): the backend's GPU, or the CPU model (the frame never waits).
  void queuePitfall(const PitfallRequest& r);
  void cancelSweep();
  void cancelRuns();  // Cancel next to Run: continuous runs stop too
  void clearResults();
  bool busy() const;  // measurements queued or running
  // Where runs go (the editor's check measures CUB beside the user's kernel on it, from its thread).
  Backend& backend() { return *backend_; }
  // The steps of a check that runs on the backend (a remote server's), since the last call.
  std::vector<std::shared_ptr<const usercode::CheckEvent>> takeCheckEvents() { return std::exchange(checkEvents_, {}); }
  // Start-up only: frames until the first trace has arrived (or `seconds` passed); with a
  // remote, until its hello and the first trace from it.
  void waitForTrace(double seconds);
  void remeasurePeaks();
  // The trace shown is that of the current configuration (nothing asked for or in flight).
  bool traceSettled() const;
  // Asks for the current configuration's trace again (a recording was opened: its traces now
  // come first).
  void retrace() { haveTraced_ = false; }
  // The views draw a trace of the user's kernel (the editor's Check traced a block of it through
  // the Compute Sanitizer) until the configuration changes; one in flight for the catalogue
  // kernel is let finish first, then replaced. "" or why the bytes are no trace.
  std::string showUserTrace(const std::vector<uint8_t>& bytes, const std::string& source, const RunConfig& config);

 private:
  std::vector<std::shared_ptr<const usercode::CheckEvent>> checkEvents_;
  void requestTrace();
  void showHostTrace(TraceData data, const std::string& source, bool gpuWritten);
  void takeTrace(TraceResult& r);
  void requestResources();
  void apply(BackendEvents& ev);
  bool remoteConnecting() const;

  gui::Model& model_;
  std::unique_ptr<Backend> backend_;    // where runs go
  std::unique_ptr<Backend> cpuModel_;   // the traces no other source has
  std::unique_ptr<Backend> recording_;  // the opened recording's traces (first)
  std::shared_ptr<const Recording> recordingOf_;  // which recording recording_ reads
  // Trace buffers: views draw front_, the backend writes the other while a trace is in flight.
  std::array<GLuint, 2> traceBuffers_{};
  std::array<CudaGlBuffer, 2> traceInterop_;
  int front_ = 0;
  bool gpuTraces_ = false;  // the buffers are shared with CUDA
  bool traceInFlight_ = false;
  Backend* traceFrom_ = nullptr;  // the source of the trace in flight
  bool traceMapped_ = false;      // its back buffer is mapped for CUDA
  std::string traceFallbackWhy_;  // why the CPU model answers it (the caption says so)
  std::optional<RunProgress> runProgress_;  // long CPU work of the running measurement
  uint64_t traceJob_ = 0;
  struct UserTrace {
    TraceData data;
    std::string source;
    RunConfig config;
  };
  std::optional<UserTrace> userTrace_;  // waiting for the catalogue trace in flight to land
  void showUserTraceNow();
  RunConfig traced_;  // the last configuration asked for
  bool haveTraced_ = false;
  RunConfig resourcesFor_;
  bool haveResources_ = false;
};

// Two configurations trace the same thing (the measurement-only fields may differ).
bool sameTrace(const RunConfig& a, const RunConfig& b);

// Resources are the same for both configurations (the fields they depend on are equal).
bool sameResources(const RunConfig& a, const RunConfig& b);

}  // namespace rl::app
