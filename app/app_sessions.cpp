// Session and recording files: a recording or session JSON opened (its runs replayed into the
// live plot, its lesson reopened), and this session saved as a recording.
#include <algorithm>
#include <unistd.h>

#include "application.hpp"
#include "figure_export.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/recording.hpp"
#include "reducelab/version.hpp"

namespace rl::app {

std::string Application::openRecording(const std::string& path) {
  auto rec = std::make_shared<Recording>();
  // "" opens the recording shipped in the binary (File > Open the shipped H200 recording).
  std::string err = path.empty() ? readShippedRecording(rec.get()) : readRecording(path, rec.get());
  std::optional<Lesson> lesson;
  if (err.empty() && !rec->lessonName.empty()) {
    lesson = parseLesson(rec->lessonText, rec->lessonName + ".lesson", &err);
    if (!lesson) err = path + ": its lesson: " + err;
  }
  if (!err.empty()) {  // nothing changes: what was shown stays
    model_.addLog(gui::LogLevel::Error, "Not opened: " + err);
    return err;
  }
  controller_->cancelSweep();
  model_.results.clear();
  model_.sweep.rows = rec->sweeps;
  if (rec->peaks.theoreticalGBs > 0 || !rec->device.available) model_.peaks = rec->peaks;
  model_.replay.recording = rec;
  model_.replay.path = path.empty() ? kShippedRecordingName : path;
  model_.replay.banner = rec->banner();
  model_.replay.replayed = 0;
  if (lesson) {
    openLesson(*lesson, rec->lessonText);
    // Its runs come from the recording: none is measured again, here or on a GPU.
    for (gui::LessonRow& row : model_.lesson.rows) row.queued = true;
    model_.lesson.sweepQueued.assign(model_.lesson.sweepQueued.size(), true);
  } else {
    if (model_.lesson.active) requestCloseLesson();
    const auto ourTrace = std::find_if(rec->traces.begin(), rec->traces.end(),
                                       [](const RecordedTrace& t) { return findKernel(t.config.kernel) != nullptr; });
    if (ourTrace != rec->traces.end()) model_.config = ourTrace->config;
    else if (!rec->measurements.empty()) {
      // The first row of a kernel of the catalogue; a row of the user's own kernel (bench
      // --kernel-file) gives only its type, operation, N and block: its kernel is in its file,
      // not in the catalogue to pick.
      const auto ours = std::find_if(rec->measurements.begin(), rec->measurements.end(),
                                     [](const Measurement& m) { return findKernel(m.config.kernel) != nullptr; });
      const std::string kernel = model_.config.kernel;
      model_.config = ours != rec->measurements.end() ? ours->config : rec->measurements.front().config;
      if (!findKernel(model_.config.kernel)) model_.config.kernel = kernel;
    }
  }
  if (!rec->sweeps.empty()) model_.focusPanel = rec->sweeps.begin()->first == "kernel" ? "ladder" : rec->sweeps.begin()->first == "type" ? "types" : rec->sweeps.begin()->first;
  else if (!rec->measurements.empty() && !lesson) model_.focusPanel = "live";
  loadRecordedKernel(*rec);
  controller_->retrace();
  size_t sweepRows = 0;
  for (const auto& [axis, rows] : rec->sweeps) sweepRows += rows.size();
  model_.addLog(gui::LogLevel::Info, "Opened " + path + ": " + model_.replay.banner + "; " +
                                         std::to_string(rec->measurements.size()) + " runs, " + std::to_string(sweepRows) +
                                         " sweep points, " + std::to_string(rec->traces.size()) + " traces");
  return {};
}

// One recorded run a frame into the results (and its lesson row): the live plot replays them.
void Application::replayStep() {
  gui::ReplayState& r = model_.replay;
  if (!r.replaying()) return;
  const Measurement& m = r.recording->measurements[r.replayed++];
  if (m.label.rfind("lesson:", 0) == 0 && model_.lesson.active) {
    const size_t row = std::stoul(m.label.substr(7));  // checked by the reader
    if (row < model_.lesson.rows.size()) model_.lesson.rows[row].runs.push_back(m);
  }
  model_.results.append(Measurement(m));
}

const DeviceInfo& Application::measuredDevice() const {
  return model_.replay.active() ? model_.replay.recording->device : model_.device;
}

Recording Application::sessionRecording() const {
  Recording r;
  const Recording* opened = model_.replay.recording.get();
  r.device = opened ? opened->device : model_.device;
  r.peaks = model_.peaks;
  r.createdUtc = opened ? opened->createdUtc : utcNow();
  r.host = opened ? opened->host : "";
  if (!opened) {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) r.host = host;
  }
  r.reducelabVersion = std::string(versionString()) + " (commit " + gitCommit() + ")";
  r.argv = {"reducelab (GUI session)"};
  if (model_.lesson.active && !model_.lesson.source.empty()) {
    r.lessonName = model_.lesson.lesson.name;
    r.lessonText = model_.lesson.source;
  }
  r.measurements.assign(model_.results.begin(), model_.results.end());
  if (r.lessonName.empty())  // lesson rows need their lesson: without it they are plain runs
    for (Measurement& m : r.measurements)
      if (m.label.rfind("lesson:", 0) == 0) m.label.clear();
  for (const auto& [axis, rows] : model_.sweep.rows)
    if (!rows.empty()) r.sweeps[axis] = rows;
  if (opened) r.traces = opened->traces;
  const gui::TraceState& t = model_.trace;
  if (t.valid && !r.findTrace(t.config) && t.data.numSteps() > 0)
    r.traces.push_back({t.config, t.gpuWritten && r.device.available, t.data.toBuffer()});
  return r;
}

std::string Application::saveSession(const std::string& path, bool overwrite) {
  std::string e = checkOutputTarget(path, overwrite);
  if (e.empty()) e = writeRecording(path, sessionRecording());
  model_.addLog(e.empty() ? gui::LogLevel::Info : gui::LogLevel::Error, e.empty() ? "Saved " + path : e);
  return e;
}

void Application::requestSaveSession() {
  if (std::string e = prepareFolder(model_.exportDir); !e.empty()) {
    model_.addLog(gui::LogLevel::Error, e);
    return;
  }
  saveSession(freePath("session", ".reducelab"), false);
}

}  // namespace rl::app
