// Lesson flow: a lesson opened, its steps entered (configuration, view, runs, pitfalls, sweeps),
// closed, and rendered headless step by step into a folder (reducelab lesson NAME --out DIR).
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "application.hpp"
#include "figure_export.hpp"
#include "png_writer.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/formats/output_formats.hpp"
#include "reducelab/gui/lesson_view.hpp"
#include "reducelab/pitfalls.hpp"
#include "reducelab/recording.hpp"

namespace rl::app {

void Application::openLesson(const Lesson& lesson, const std::string& source) {
  gui::LessonState& l = model_.lesson;
  l = gui::LessonState{};
  l.active = true;
  l.lesson = lesson;
  l.source = source;
  for (const LessonStep& st : lesson.steps) {
    l.firstRowOfStep.push_back(int(l.rows.size()));
    for (const LessonRun& r : st.runs) l.rows.push_back({r.label, r.config, r.times, r.reference, {}, false});
    l.firstPitfallOfStep.push_back(int(l.pitfalls.size()));
    for (const PitfallRequest& p : st.pitfalls) l.pitfalls.push_back({p, std::nullopt, false});
  }
  l.sweepQueued.assign(lesson.steps.size(), false);
  model_.addLog(gui::LogLevel::Info, "Lesson: " + lesson.title + " (" + std::to_string(lesson.steps.size()) + " steps)");
  enterLessonStep(0);
}

void Application::enterLessonStep(int step) {
  gui::LessonState& l = model_.lesson;
  if (!l.active || l.lesson.steps.empty()) return;
  // Next on the last step (Back on the first) must not re-apply it: the user's changes stay.
  if (step < 0 || step >= int(l.lesson.steps.size()) || step == l.appliedStep) return;
  l.step = step;
  const LessonStep& st = l.lesson.steps[size_t(step)];
  model_.config = st.config;
  const ViewInfo* view = findView(st.view);  // checked by the lesson parser
  model_.view = view ? view->id : kDefaultView;
  model_.trace.pendingSelection = true;
  model_.trace.pendingStep = st.viewStep;
  model_.trace.pendingWarp = st.warp;
  model_.trace.pendingSlot = st.slot;  // with the step's trace, as the step and the warp
  model_.trace.playing = false;
  if (!st.panel.empty()) model_.focusPanel = st.panel;
  // Presentation mode shows one panel at a time: the one the step points at, else the views.
  using P = gui::Model::Presenting;
  const std::string& p = st.panel;
  // (`panel lesson` beside a `view` line only brings the table's tab forward: the view is the point.)
  model_.presenting = p == "live" || p == "ladder" || p == "block" || p == "n" || p == "types" ? P::Plots
                      : p == "results" || p == "occupancy" || (p == "lesson" && !st.viewGiven) ? P::Results
                                                                                                 : P::Views;
  if (!st.exercise.empty()) loadExercise(st.exercise);
  // Measure what the step asks for, once (going back does not measure again).
  for (int r = l.firstRowOfStep[size_t(step)], i = 0; i < int(st.runs.size()); ++r, ++i) {
    gui::LessonRow& row = l.rows[size_t(r)];
    if (row.queued || !model_.device.available) continue;
    row.queued = true;
    for (int t = 0; t < row.times; ++t) controller_->queueRun(row.config, "lesson:" + std::to_string(r));
    // Measured again the way the seed measured (warm L2, its repetitions) when that differs.
    if (const auto& like = st.runs[size_t(i)].seedMethodConfig) controller_->queueRun(*like, "lesson:" + std::to_string(r));
  }
  // Seed 002's pitfalls: on the GPU, or in the CPU model without one (once each, like runs).
  for (int k = l.firstPitfallOfStep[size_t(step)], i = 0; i < int(st.pitfalls.size()); ++k, ++i) {
    gui::LessonPitfall& p = l.pitfalls[size_t(k)];
    if (p.queued) continue;
    p.queued = true;
    PitfallRequest r = p.request;
    r.label = "lesson-pitfall:" + std::to_string(k);
    controller_->queuePitfall(r);
  }
  if (st.sweep && !l.sweepQueued[size_t(step)] && model_.device.available) {
    l.sweepQueued[size_t(step)] = true;
    requestSweep(st.sweep->axis, st.sweep->kernels, st.sweep->nMax);
  }
  l.appliedStep = step;
}

void Application::requestLessonStep(int step) { enterLessonStep(step); }

void Application::requestCloseLesson() {
  if (!model_.lesson.active) return;
  model_.addLog(gui::LogLevel::Info, "Lesson closed: " + model_.lesson.lesson.title);
  model_.lesson = gui::LessonState{};
}

void Application::requestOpenLesson(const std::string& name) {
  std::string err;
  const std::optional<std::string> text = lessonText(name, &err);
  std::optional<Lesson> l;
  if (text) l = loadLesson(name, &err);
  if (l) openLesson(*l, *text);
  else model_.addLog(gui::LogLevel::Error, err);
}

int Application::exportLesson() {
  namespace fs = std::filesystem;
  const std::string& dir = opt_.lessonOut;
  if (std::string e = prepareFolder(dir); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  gui::LessonState& l = model_.lesson;
  // The lesson's page in the document format, its table in the other table files, its runs as records.
  std::vector<std::string> names = {"lesson" + std::string(documentFormat().extension)};
  for (const OutputFormat* f : tableFileFormats()) if (!f->document) names.push_back("lesson" + std::string(f->extension));
  for (const OutputFormat* f : recordFormats()) names.push_back("lesson" + std::string(f->extension));
  const std::vector<std::string> pitfallFiles = gui::lessonPitfallFiles(l);
  names.insert(names.end(), pitfallFiles.begin(), pitfallFiles.end());
  for (size_t i = 0; i < l.lesson.steps.size(); ++i) {
    char n[32];
    std::snprintf(n, sizeof n, "step-%02zu%s", i + 1, std::string(screenshotFormat().extension).c_str());
    names.push_back(n);
  }
  if (std::string e = checkOverwrite(dir, names, opt_.force); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  std::ostringstream md;
  md << "# " << l.lesson.title << "\n\n" << l.lesson.description << "\n\n";
  for (size_t i = 0; i < l.lesson.steps.size(); ++i) {
    enterLessonStep(int(i));
    waitForIdle();
    for (int f = 0; f < 3; ++f) renderFrame();
    char n[32];
    std::snprintf(n, sizeof n, "step-%02zu%s", i + 1, std::string(screenshotFormat().extension).c_str());
    if (std::string e = saveScreenshot((fs::path(dir) / n).string()); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
    std::printf("wrote %s\n", (fs::path(dir) / n).string().c_str());
    const LessonStep& st = l.lesson.steps[i];
    md << "## " << i + 1 << ". " << st.title << "\n\n" << st.caption << "\n\n![step " << i + 1 << "](" << n << ")\n\n";
    for (int k = l.firstPitfallOfStep[i]; k < l.firstPitfallOfStep[i] + int(st.pitfalls.size()); ++k) {
      const gui::LessonPitfall& p = l.pitfalls[size_t(k)];
      md << gui::pitfallMarkdown(p);
      if (!p.result || !p.result->ok) continue;
      const std::string path = (fs::path(dir) / pitfallFiles[size_t(k)]).string();
      if (std::string e = writeTextAtomic(path, dataFormat().table(pitfallTable(*p.result))); !e.empty()) {
        std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
        return 1;
      }
      std::printf("wrote %s\n", path.c_str());
      std::fputs(terminalFormat().table(pitfallTable(*p.result)).c_str(), stdout);
      for (const std::string& f : pitfallFindings(*p.result)) std::printf("  %s\n", f.c_str());
    }
  }
  const Table t = gui::lessonTable(l, model_.peaks, measuredDevice().available);
  // A lesson of demonstrations only (pitfalls, transfers) has no runs: no empty table on its page.
  if (!t.rows.empty()) md << "## Table\n\n" << documentFormat().table(t) << "\n";
  if (!l.lesson.notes.empty()) {  // seed figures above their GPU's peak (docs/lessons.md)
    md << "Seed figures that fail the check against their GPU's peak:\n\n";
    for (const std::string& note : l.lesson.notes) md << "- " << note << "\n";
    md << "\n";
  }
  if (model_.replay.active())
    md << model_.replay.banner << " (" << model_.replay.path << ").\n";
  else if (!model_.device.available)
    md << "Measurements need an NVIDIA GPU; this run used the CPU model (" << model_.device.unavailableReason << ").\n";
  std::vector<Measurement> all;
  for (const gui::LessonRow& r : l.rows) all.insert(all.end(), r.runs.begin(), r.runs.end());
  SessionInfo info{measuredDevice(), model_.peaks, {"reducelab", "lesson", l.lesson.name}, "lesson-" + l.lesson.name};
  std::vector<std::pair<std::string, std::string>> files;  // name, text: the page last
  for (const OutputFormat* f : tableFileFormats()) if (!f->document) files.push_back({"lesson" + std::string(f->extension), f->table(t)});
  for (const OutputFormat* f : recordFormats()) files.push_back({"lesson" + std::string(f->extension), f->records(sessionJson(info, all))});
  files.push_back({"lesson" + std::string(documentFormat().extension), md.str()});
  for (auto& [name, text] : files) {
    const std::string path = (fs::path(dir) / name).string();
    if (std::string e = writeTextAtomic(path, text); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
    std::printf("wrote %s\n", path.c_str());
  }
  if (!t.rows.empty()) std::fputs(terminalFormat().table(t).c_str(), stdout);
  return 0;
}

}  // namespace rl::app
