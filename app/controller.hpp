#pragma once
// Feeds the GUI's model: measurements on a worker thread (its own engine and stream), traces
// of the traced kernels written straight into a GL buffer through CUDA-GL interop (or by the
// CPU model without a GPU), re-traced whenever the configuration changes.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "interop.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/gui/model.hpp"
#include "reducelab/sweep.hpp"

namespace rl::app {

class Controller {
 public:
  explicit Controller(gui::Model& model);
  ~Controller();
  // Once per frame, before the UI is drawn: takes finished measurements, re-traces if the
  // configuration changed.
  void update();
  void queueRun(const RunConfig& c, const std::string& label = "");
  void queueSweep(const SweepSpec& s);
  void cancelSweep();
  void clearResults();
  bool busy() const;  // measurements queued or running

 private:
  void retrace();
  void updateResources();
  void workerLoop();

  struct Job {
    bool sweep = false;
    RunConfig run;
    SweepSpec spec;
    std::string label;
  };

  gui::Model& model_;
  std::unique_ptr<Engine> traceEngine_;
  CudaGlBuffer traceInterop_;
  GLuint traceBuffer_ = 0;
  RunConfig traced_;
  bool haveTraced_ = false;

  std::thread worker_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  std::vector<Measurement> finished_;
  std::vector<std::pair<std::string, Measurement>> sweepRows_;  // axis, row
  std::vector<std::string> workerMessages_;
  gui::SweepState sweepProgress_;
  bool sweepProgressChanged_ = false;
  bool sweepFinished_ = false;
  RunConfig resourcesFor_;
  bool haveResources_ = false;
  std::vector<std::string> workerLog_;
  Peaks workerPeaks_;
  bool peaksReady_ = false;
  int running_ = 0;
  bool stop_ = false;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> cancelSweep_{false};
};

// Two configurations trace the same thing (the measurement-only fields may differ).
bool sameTrace(const RunConfig& a, const RunConfig& b);

}  // namespace rl::app
