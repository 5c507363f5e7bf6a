// Your own kernel in the window (docs/your-kernel.md, "The editor"): the document put back from the
// autosave or opened from --kernel-file, compiled in the background a moment after typing stops
// (NVRTC: no GPU needed), checked in the worker process on request, its file watched (saved in
// another editor: reloaded, recompiled and, after a check, checked again) and autosaved.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "application.hpp"
#include "cmd_usercode.hpp"
#include "reducelab/family.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/check_json.hpp"
#include "reducelab/usercode/compiler.hpp"
#include "reducelab/usercode/contract.hpp"
#include "reducelab/usercode/measure.hpp"
#include "reducelab/recording.hpp"
#include "reducelab/usercode/starters.hpp"

namespace rl::app {

namespace uc = rl::usercode;
namespace fs = std::filesystem;

namespace {

double nowSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// What a finished compile tells the editor.
struct BuildOutcome {
  uint64_t version = 0;
  gui::EditorState::Build build = gui::EditorState::Build::None;
  std::vector<uc::Diagnostic> diagnostics;
  std::string summary;
  std::vector<std::string> resources;
};

BuildOutcome compileDocument(uint64_t version, const std::string& source, const std::string& file, int sm,
                             const DeviceInfo& device) {
  BuildOutcome out;
  out.version = version;
  const uc::ContractResult contract = uc::parseContract(source, file);
  if (!contract.ok()) {
    out.build = gui::EditorState::Build::Errors;
    out.diagnostics = contract.diagnostics;
    int errors = 0;
    for (const uc::Diagnostic& d : out.diagnostics) errors += d.severity == uc::Severity::Error;
    out.summary = std::to_string(errors) + (errors == 1 ? " error" : " errors") + " in the kernel's contract: nothing was built";
    return out;
  }
  const std::vector<uc::CompileResult> builds =
      uc::compileClaims(source, file, sm, contract.contract.types, contract.contract.ops, "", true);
  out.diagnostics = uc::mergedDiagnostics(builds);
  for (const uc::CompileResult& b : builds)
    if (b.status == uc::CompileStatus::Environment) {
      out.build = gui::EditorState::Build::Environment;
      out.summary = b.environmentError;
      return out;
    }
  int errors = 0, warnings = 0;
  for (const uc::Diagnostic& d : out.diagnostics)
    (d.severity == uc::Severity::Error ? errors : warnings) += d.severity != uc::Severity::Note;
  if (errors > 0 || builds.empty() || !std::all_of(builds.begin(), builds.end(), [](const auto& b) { return b.ok(); })) {
    out.build = gui::EditorState::Build::Errors;
    out.summary = std::to_string(errors) + (errors == 1 ? " error" : " errors") + ": nothing was built";
    return out;
  }
  // Resources over every build and instantiation: the range a student compares with ours.
  int regLo = 1 << 30, regHi = 0, sharedHi = 0, spills = 0;
  for (const uc::CompileResult& b : builds)
    for (const uc::KernelBuild& k : b.kernels) {
      regLo = std::min(regLo, k.resources.registers), regHi = std::max(regHi, k.resources.registers);
      sharedHi = std::max(sharedHi, k.resources.staticSharedBytes);
      spills += k.resources.spillStoreBytes + k.resources.spillLoadBytes;
    }
  char text[256];
  std::snprintf(text, sizeof text, "Compiled for %s: %zu build%s (%s), %d%s registers, %d B static shared, %s%s",
                uc::archName(sm).c_str(), builds.size(), builds.size() == 1 ? "" : "s",
                contract.contract.kernel.c_str(), regLo,
                regHi != regLo ? ("-" + std::to_string(regHi)).c_str() : "", sharedHi,
                spills ? "spills" : "no spills",
                warnings ? (", " + std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings")).c_str() : "");
  out.build = gui::EditorState::Build::Ok;
  out.summary = text;
  // Registers, shared memory and occupancy of each build and claimed block, as `reducelab compile`
  // gives them: on this GPU, or on the H200 ReduceLab assumes without one (or for another arch).
  const bool assumed = !device.available || device.ccMajor * 10 + device.ccMinor != sm;
  const DeviceInfo target = assumed ? assumedH200() : device;
  out.resources.push_back("Occupancy on " + target.name + (assumed ? " (assumed: no GPU of this architecture here)" : ""));
  for (const uc::CompileResult& b : builds)
    for (const uc::KernelBuild& k : b.kernels) {
      std::string line = std::string(name(b.type)) + " " + std::string(name(b.op)) + ", " + k.nameExpression + ": " +
                         k.resources.text() + ";";
      for (int block : b.contract.blocks) {
        if (k.block && k.block != block) continue;
        const int shared = k.resources.staticSharedBytes + int(b.contract.dynamicSharedBytes(block, b.type));
        const OccupancyResult occ = computeOccupancy(target, {block, k.resources.registers, shared});
        char part[96];
        std::snprintf(part, sizeof part, " block %d: %.0f %% (%s)", block, occ.occupancy * 100, occ.limiter.c_str());
        line += part;
      }
      out.resources.push_back(line);
    }
  return out;
}

}  // namespace

struct Application::EditorJobs {
  uc::AutosaveOwner autosave;  // the shared autosave file, or this window's own beside it
  fs::path autosavePath;
  bool autosaveOn = true;
  // Compiling.
  std::future<BuildOutcome> compile;
  uint64_t compileQueuedFor = 0;   // the version a compile was started for
  uint64_t versionSeen = 0;
  double changedAt = 0;            // when versionSeen was first seen
  // Checking: one thread at a time, with the worker process it owns while it runs.
  std::thread check;
  std::mutex mutex;
  std::vector<uc::CaseResult> newCases;
  int total = 0;
  std::optional<uc::CheckReport> report;
  std::optional<uc::HazardCheck> hazards;
  std::string hazardsGpu;  // the worker's GPU, which traced it
  std::optional<uc::TimingCheck> timing;
  std::optional<Measurement> runRow;  // Run as a row: its measurement (ok or why not)
  std::unique_ptr<Backend> runBackend;  // Run as a row here: the user-kernel backend of the text run
  bool remoteCheck = false;  // the check in flight runs on the remote server (its steps come through the controller)
  std::atomic<bool> cancel{false};
  std::unique_ptr<uc::KernelWorker> worker;
  // The check's traced block of the kernel, kept for "Show in the views" (a configuration change
  // puts the catalogue kernel's trace back).
  std::vector<uint8_t> trace;
  std::string traceSource;
  RunConfig traceConfig;
  bool checkAgainOnChange = false; // the last thing asked was a check: a change on disk reruns it
  bool checkAgainWhenDone = false; // the file changed during a check: that one is stopped, a new one follows
  // The file on disk and the autosave.
  double nextWatch = 0;
  uint64_t autosavedVersion = 0;
  double autosaveDue = 0;

  ~EditorJobs() {
    cancel = true;
    runBackend.reset();  // its worker's callback reads `cancel`: gone before it
    if (worker) worker->cancel();
    if (check.joinable()) check.join();
  }
};

void Application::EditorJobsDeleter::operator()(EditorJobs* jobs) const { delete jobs; }

void Application::initEditor() {
  editor_.reset(new EditorJobs);
  gui::EditorState& e = model_.editor;
  for (const uc::Starter& s : uc::starters()) e.starters.push_back({s.key, s.key + ": " + s.title});
  // Headless runs (tests, lesson exports) keep no autosave unless a path is given: a test must not
  // find or leave a user's editor text.
  const fs::path wanted = !opt_.editorAutosave.empty() ? fs::path(opt_.editorAutosave)
                          : ctx_.headless()            ? fs::path()
                                                       : uc::defaultAutosavePath();
  if (!wanted.empty()) {  // a second window autosaves beside the first's file, never over it
    std::string note;
    editor_->autosave = uc::AutosaveOwner::claim(wanted, &note);
    editor_->autosavePath = editor_->autosave.path();
    if (!note.empty()) model_.addLog(gui::LogLevel::Info, note);
  }
  editor_->autosaveOn = !editor_->autosavePath.empty();
  std::string why;
  const std::optional<uc::Autosave> saved =
      editor_->autosaveOn && editor_->autosave.owner() ? uc::readAutosave(editor_->autosavePath, &why) : std::nullopt;
  if (!why.empty()) {
    editor_->autosaveOn = false;  // never overwrite an autosave that could not be read: the user's text may be in it
    model_.addLog(gui::LogLevel::Warn, why);
  }
  std::string error;
  const std::string note = uc::restoreDocument(&e.doc, saved, opt_.kernelFile, &error);
  // Unsaved text the autosave holds for another file (--kernel-file named this one): kept aside
  // under its own name, never written over by this session's autosave.
  if (saved && saved->modified && note.empty() && editor_->autosaveOn) {
    std::string stamp = saved->writtenAt.empty() ? std::to_string(std::time(nullptr)) : saved->writtenAt;
    for (char& c : stamp)
      if (c == ' ' || c == ':') c = '-';
    const std::string aside = (editor_->autosavePath.parent_path() / ("editor-autosave-" + stamp + ".json")).string();
    std::error_code ec;
    fs::rename(editor_->autosavePath, aside, ec);
    if (ec) {
      editor_->autosaveOn = false;
      model_.addLog(gui::LogLevel::Warn, "The editor's autosave holds unsaved text of " +
                                             (saved->file.empty() ? saved->suggestedName : saved->file) +
                                             " and could not be kept aside (" + ec.message() + "): this session does not autosave");
    } else {
      model_.addLog(gui::LogLevel::Warn, "Unsaved text of " + (saved->file.empty() ? saved->suggestedName : saved->file) +
                                             " from the last session is kept in " + aside);
    }
  }
  if (!error.empty()) {
    e.notice = error, e.noticeIsError = true;
    model_.addLog(gui::LogLevel::Error, "--kernel-file: " + error);
  } else if (!note.empty()) {
    e.notice = note;
    model_.addLog(gui::LogLevel::Info, note);
  }
  editor_->autosavedVersion = e.doc.version();
  if (!opt_.kernelFile.empty()) model_.view = ViewId::Editor;
  if (!e.doc.empty()) startEditorCompile();
}

int Application::editorArchitecture() const {
  return model_.device.available ? model_.device.ccMajor * 10 + model_.device.ccMinor : 90;
}

void Application::startEditorCompile() {
  gui::EditorState& e = model_.editor;
  if (editor_->compile.valid() || e.doc.empty()) return;  // one at a time; the newer text follows
  editor_->compileQueuedFor = e.doc.version();
  e.build = gui::EditorState::Build::Compiling;
  const std::string file = e.doc.hasFile() ? e.doc.path() : e.doc.suggestedName().empty() ? "kernel.cu" : e.doc.suggestedName();
  editor_->compile =
      std::async(std::launch::async, compileDocument, e.doc.version(), e.doc.text(), file, editorArchitecture(), model_.device);
}

// The worker process the editor's check and runs go to (one at a time), started on first use.
void Application::ensureEditorWorker() {
  if (editor_->check.joinable()) editor_->check.join();
  if (editor_->worker) return;
  editor_->worker = std::make_unique<uc::KernelWorker>(editorWorkerOptions());
}

uc::WorkerOptions Application::editorWorkerOptions() {
  uc::WorkerOptions w;
  if (!opt_.checkWorker.empty()) w.executable = opt_.checkWorker, w.args = opt_.checkWorkerArgs;
  EditorJobs* jobs = editor_.get();
  w.cancelled = [jobs] { return jobs->cancel.load(); };  // Stop and the app's exit reach a run in flight
  return w;
}

// Run as a row: the kernel measured at the Parameters panel's configuration like bench
// --kernel-file's row (usercode/measure.hpp), into Results and the plot beside ours.
void Application::startEditorRun() {
  gui::EditorState& e = model_.editor;
  if (e.checking || e.running || e.doc.empty()) return;
  if (model_.measuring) {  // two processes timing on one GPU would skew both
    e.notice = "Run as a row waits for the measurements in progress (Results) to finish", e.noticeIsError = true;
    return;
  }
  RunConfig config = model_.config;
  config.kernel = std::string(kUserKernelKey);
  const std::string file = e.doc.hasFile() ? e.doc.path() : e.doc.suggestedName().empty() ? "kernel.cu" : e.doc.suggestedName();
  const std::string what = e.doc.displayName() + " at " + std::string(name(config.type)) + " " + std::string(name(config.op)) +
                           ", N=" + formatCount(config.n) + ", block " + std::to_string(config.block);
  editor_->cancel = false;
  e.noticeIsError = false;
  if (model_.remote.active) {  // the remote server compiles and runs it; the row arrives in Results as any of its runs
    Backend& remote = controller_->backend();
    if (std::string no = remote.setUserKernel(fs::path(file).filename().string(), e.doc.text()); !no.empty()) {
      e.notice = "Not run: " + no, e.noticeIsError = true;
      return;
    }
    remote.queueRun(config, "", RunKind::Single);
    e.notice = "Sent " + what + " to " + remote.name() + ": the row arrives in Results";
    return;
  }
  // Here: the user-kernel backend (its own worker process), as bench --kernel-file's row.
  uc::UserKernelSource src;
  src.source = e.doc.text();
  src.file = file;
  src.sm = model_.device.available ? editorArchitecture() : 0;
  src.peaks = model_.peaks;
  src.worker = editorWorkerOptions();
  editor_->runBackend = uc::makeUserKernelBackend(std::move(src));
  editor_->runBackend->queueRun(config, "", RunKind::Single);
  e.running = true;
  e.notice = "Running " + what + "...";
}

void Application::startEditorCheck() {
  gui::EditorState& e = model_.editor;
  if (e.checking || e.running || e.doc.empty()) return;
  e.checking = true;
  e.checkedVersion = e.doc.version();
  e.cases.clear();
  e.casesDone = 0, e.casesTotal = 0;
  e.checkSummary.clear(), e.hazards.clear(), e.timing.reset();
  e.tracedCase.clear(), e.traceInViews = false, editor_->trace.clear();
  e.goalResults.clear();
  // The goals of the lesson step on screen, when it is an exercise: ReduceLab judges them after the check.
  e.goals.clear();
  if (const gui::LessonState& l = model_.lesson; l.active && l.step >= 0 && l.step < int(l.lesson.steps.size()))
    if (const LessonStep& st = l.lesson.steps[size_t(l.step)]; !st.exercise.empty()) e.goals = st.requirements;
  e.checkExit = -1;
  e.showChecks = true;
  editor_->cancel = false;
  editor_->checkAgainOnChange = true;
  uc::CheckRequest request;
  request.source = e.doc.text();
  request.file = e.doc.hasFile() ? e.doc.path() : e.doc.suggestedName().empty() ? "kernel.cu" : e.doc.suggestedName();
  request.battery.seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) | 1;  // fresh data
  request.sm = model_.device.available ? editorArchitecture() : 0;
  request.timing.n = uc::timingSizeFor(e.goals, request.timing.n);
  editor_->remoteCheck = model_.remote.active;
  if (editor_->remoteCheck) {  // on the remote server's GPU: compiled, run and timed there
    request.sm = 0;            // the server's GPU
    if (std::string no = controller_->backend().queueCheck(request, 10); !no.empty()) {
      std::lock_guard<std::mutex> lock(editor_->mutex);
      uc::CheckReport refused;
      refused.error = "Not checked: " + no;
      editor_->report = std::move(refused);
    }
    return;
  }
  ensureEditorWorker();
  EditorJobs* jobs = editor_.get();
  Backend* backend = &controller_->backend();  // CUB and our kernels beside it, on the GUI's own GPU service
  jobs->check = std::thread([jobs, request, backend] {
    uc::CheckHooks hooks;
    hooks.onCompiled = [jobs, &request](const uc::CheckReport& r) {  // the cases to come
      std::string ignored;
      const size_t planned = uc::planBattery(r.contract, request.battery, &ignored).size();
      std::lock_guard<std::mutex> lock(jobs->mutex);
      jobs->total = int(planned);
      jobs->hazardsGpu = r.device.name;  // the worker's GPU, which will trace it
    };
    hooks.onCase = [jobs](const uc::CaseResult& c) {
      std::lock_guard<std::mutex> lock(jobs->mutex);
      jobs->newCases.push_back(c);
    };
    hooks.onHazards = [jobs](const uc::HazardCheck& h) {
      std::lock_guard<std::mutex> lock(jobs->mutex);
      jobs->hazards = h;
    };
    hooks.onTiming = [jobs](const uc::TimingCheck& t) {
      std::lock_guard<std::mutex> lock(jobs->mutex);
      jobs->timing = t;
    };
    hooks.measureOthers = [backend, jobs](const RunConfig& base) {
      return measureCompanions(*backend, base, [jobs] { return jobs->cancel.load(); });
    };
    hooks.cancelled = [jobs] { return jobs->cancel.load(); };
    uc::CheckReport report;
    try {
      report = uc::runCheck(request, *jobs->worker, hooks);
    } catch (const std::exception& e) {  // never std::terminate from this thread: say it
      report.status = uc::CheckStatus::Environment;
      report.error = std::string("the check stopped: ") + e.what();
    }
    std::lock_guard<std::mutex> lock(jobs->mutex);
    jobs->report = std::move(report);
  });
}

// Frames are drawn while this holds (the loop otherwise waits for input): a compile or check in
// flight, a compile still to start after typing, an autosave still to write. Nothing else: an idle
// editor must leave the CPU idle.
bool Application::editorBusy() const {
  const gui::EditorState& e = model_.editor;
  if (!editor_) return false;
  const bool compileDue = !e.doc.empty() && e.builtVersion != e.doc.version() && editor_->compileQueuedFor != e.doc.version();
  const bool autosaveDue = editor_->autosaveOn && editor_->autosavedVersion != e.doc.version();
  return e.checking || e.running || e.build == gui::EditorState::Build::Compiling || compileDue || autosaveDue;
}

bool Application::watchKernelFile() {
  gui::EditorState& e = model_.editor;
  const double now = nowSeconds();
  if (now < editor_->nextWatch) return false;
  editor_->nextWatch = now + 0.5;
  std::string why;
  switch (e.doc.checkDisk(&why)) {
    case uc::KernelDocument::DiskChange::None: return false;
    case uc::KernelDocument::DiskChange::Reloaded:
      e.notice = e.doc.displayName() + " changed on disk: reloaded" +
                 (editor_->checkAgainOnChange ? ", compiled and checked again" : " and compiled again");
      e.noticeIsError = false;
      e.conflict = false;
      startEditorCompile();
      if (editor_->checkAgainOnChange && !e.checking && !e.running) startEditorCheck();
      else if (editor_->checkAgainOnChange && e.running) editor_->checkAgainWhenDone = true;  // after the run
      else if (editor_->checkAgainOnChange) {  // the running check is of the old text: stop it, check the new one
        editor_->checkAgainWhenDone = true;
        editor_->cancel = true;
        if (editor_->worker) editor_->worker->cancel();
        if (editor_->remoteCheck) controller_->backend().cancelCheck();
      }
      break;
    case uc::KernelDocument::DiskChange::Conflict:
      e.conflict = true;
      break;
    case uc::KernelDocument::DiskChange::Vanished:
      e.notice = e.doc.displayName() + " was deleted or moved on disk: the editor keeps its text; Save writes it back";
      e.noticeIsError = true;
      break;
    case uc::KernelDocument::DiskChange::Unreadable:
      e.notice = why + ": the editor keeps its text";
      e.noticeIsError = true;
      break;
  }
  model_.addLog(e.noticeIsError ? gui::LogLevel::Warn : gui::LogLevel::Info, e.conflict ? e.doc.displayName() + " changed on disk while the editor has changes of its own" : e.notice);
  return true;
}

void Application::updateEditor() {
  gui::EditorState& e = model_.editor;
  const double now = nowSeconds();
  // A compile that finished.
  if (editor_->compile.valid() && editor_->compile.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    BuildOutcome b;
    try {
      b = editor_->compile.get();
    } catch (const std::exception& ex) {
      b.version = editor_->compileQueuedFor;
      b.build = gui::EditorState::Build::Environment;
      b.summary = std::string("The compile stopped: ") + ex.what();
    }
    e.build = b.build;
    e.builtVersion = b.version;
    e.diagnostics = std::move(b.diagnostics);
    e.buildSummary = std::move(b.summary);
    e.resources = std::move(b.resources);
  }
  // Typing: compile once the text has been still for a moment (the cache answers repeats).
  if (editor_->versionSeen != e.doc.version()) editor_->versionSeen = e.doc.version(), editor_->changedAt = now;
  if (!editor_->compile.valid() && !e.doc.empty() && e.builtVersion != e.doc.version() &&
      editor_->compileQueuedFor != e.doc.version() && now - editor_->changedAt > 0.8)
    startEditorCompile();
  if (e.build == gui::EditorState::Build::Compiling && !editor_->compile.valid()) e.build = gui::EditorState::Build::None;
  // Run as a row: done.
  if (e.running) {
    std::optional<Measurement> row;
    if (editor_->runBackend) {
      BackendEvents ev = editor_->runBackend->poll();
      for (Measurement& m : ev.service.measurements) row = std::move(m);
      for (const std::string& r : ev.refusals) {  // a configuration it does not take: said as the row's error
        Measurement m;
        m.config = model_.config;
        m.config.kernel = std::string(kUserKernelKey);
        m.error = r;
        row = std::move(m);
      }
      for (const std::string& msg : ev.service.messages) model_.addLog(gui::LogLevel::Info, e.doc.displayName() + ": " + msg);
    }
    if (row) editor_->runBackend.reset();
    if (row) {
      e.running = false;
      if (row->ok) {
        char line[160];
        std::snprintf(line, sizeof line, "Run: %.1f GB/s (kernel), %.4f ms median%s: a row in Results", row->bandwidthGBs,
                      row->kernel.median, row->haveReference && !row->check.pass ? ", WRONG result" : "");
        e.notice = line, e.noticeIsError = row->haveReference && !row->check.pass;
        model_.addLog(gui::LogLevel::Info, e.doc.displayName() + ": " + line);
        model_.results.append(std::move(*row));
      } else {
        e.notice = "Not run: " + row->error, e.noticeIsError = true;
        model_.addLog(gui::LogLevel::Warn, e.doc.displayName() + ": " + e.notice);
      }
    }
  }
  // The views show the user's kernel until the configuration changes (the controller then traces it).
  e.traceInViews = !editor_->trace.empty() && model_.trace.valid && runsUserSource(model_.trace.config.kernel);
  // A check on the remote server: its steps, as the local check's hooks would have given them.
  for (const std::shared_ptr<const uc::CheckEvent>& ev : controller_->takeCheckEvents()) {
    if (!e.checking || !editor_->remoteCheck) continue;  // a Done after Stop was handled already
    std::lock_guard<std::mutex> lock(editor_->mutex);
    switch (ev->kind) {
      case uc::CheckEvent::Kind::Compiled: editor_->total = ev->total, editor_->hazardsGpu = ev->device; break;
      case uc::CheckEvent::Kind::Case: editor_->newCases.push_back(ev->caseResult); break;
      case uc::CheckEvent::Kind::Hazards: editor_->hazards = ev->hazards; break;
      case uc::CheckEvent::Kind::Timing: editor_->timing = ev->timing; break;
      case uc::CheckEvent::Kind::Done: editor_->report = ev->report; break;
    }
  }
  if (e.checking && editor_->remoteCheck && model_.remote.link == gui::RemoteState::Link::Dropped) {
    std::lock_guard<std::mutex> lock(editor_->mutex);
    if (!editor_->report) {
      uc::CheckReport lost;
      lost.error = "Not finished: " + (model_.remote.detail.empty() ? "the connection was lost" : model_.remote.detail);
      editor_->report = std::move(lost);
    }
  }
  // The check's progress and end.
  if (e.checking) {
    std::lock_guard<std::mutex> lock(editor_->mutex);
    e.casesTotal = editor_->total;
    for (uc::CaseResult& c : editor_->newCases) e.cases.push_back(std::move(c));
    editor_->newCases.clear();
    e.casesDone = int(e.cases.size());
    if (editor_->hazards) {
      e.hazards = editor_->hazards->text();
      if (const uc::HazardCheck& h = *editor_->hazards; h.ran && !h.trace.empty()) {
        RunConfig c = model_.config;
        c.kernel = std::string(kUserKernelKey);
        c.type = h.c.type, c.op = h.c.op, c.block = h.c.block, c.n = h.c.n;
        editor_->trace = h.trace;
        editor_->traceConfig = c;
        // Read after "trace from the" in the views' caption.
        editor_->traceSource = "GPU (" + editor_->hazardsGpu + "): your kernel " + e.doc.displayName() + ", " + h.c.label() +
                               ", recorded by the Compute Sanitizer's patches of the unmodified kernel (the check's traced case)";
        e.tracedCase = "block 0 of " + h.c.label();
        showEditorTrace(false);
      }
      editor_->hazards.reset();
    }
    if (editor_->timing) e.timing = std::move(editor_->timing), editor_->timing.reset();
    if (editor_->report) {
      const uc::CheckReport& r = *editor_->report;
      e.checking = false;
      e.checkExit = r.exitCode();
      e.checkSummary = r.status == uc::CheckStatus::Ran ? r.summaryText() : r.error;
      e.goalResults = uc::judgeGoals(e.goals, r);
      if (e.checkExit == 0)
        for (const uc::GoalResult& g : e.goalResults) e.checkExit = g.met ? e.checkExit : 3;
      if (r.status == uc::CheckStatus::CompileError) {
        e.checkSummary = "The kernel does not compile: see Messages";
        if (e.checkedVersion >= e.builtVersion)  // never over a newer build's messages
          e.diagnostics = r.diagnostics, e.builtVersion = e.checkedVersion, e.build = gui::EditorState::Build::Errors;
      }
      if (r.status == uc::CheckStatus::Cancelled) e.checkSummary = "Check stopped";
      // A wrong case traced as it ran: the views open on it (the first thing to look at).
      if (const uc::FailureTrace& f = r.failureTrace; f.ran && !f.trace.empty()) {
        RunConfig c = model_.config;
        c.kernel = std::string(kUserKernelKey);
        c.type = f.c.type, c.op = f.c.op, c.block = f.c.block, c.n = f.c.n, c.tracedBlock = uint64_t(f.block);
        editor_->trace = f.trace;
        editor_->traceConfig = c;
        editor_->traceSource = "GPU (" + r.device.name + "): your kernel " + e.doc.displayName() + ", the first wrong case (" +
                               f.c.label() + "), block " + std::to_string(f.block) + " of " + std::to_string(f.grid) +
                               ", recorded by the Compute Sanitizer's patches of the unmodified kernel";
        e.tracedCase = "block " + std::to_string(f.block) + " of the first wrong case, " + f.c.label();
        showEditorTrace(true);
      }
      model_.addLog(e.checkExit == 0 ? gui::LogLevel::Info : gui::LogLevel::Warn, "Check of " + e.doc.displayName() + ": " + e.checkSummary);
      editor_->report.reset();
    }
  }
  if (!e.checking && !e.running && editor_->checkAgainWhenDone) {
    editor_->checkAgainWhenDone = false;
    startEditorCheck();
  }
  watchKernelFile();
  // The autosave, a moment after each change (and at exit: saveEditorAutosave).
  if (editor_->autosaveOn && editor_->autosavedVersion != e.doc.version()) {
    if (editor_->autosaveDue == 0) editor_->autosaveDue = now + 1.5;
    if (now >= editor_->autosaveDue) saveEditorAutosave();
  }
}

// At exit: a second window's own autosave goes when nothing in it is unsaved (no litter of them).
void Application::closeEditorAutosave() {
  if (!editor_ || editor_->autosave.owner() || editor_->autosavePath.empty() || model_.editor.doc.unsavedWork()) return;
  std::error_code ec;
  fs::remove(editor_->autosavePath, ec);
}

void Application::saveEditorAutosave() {
  if (!editor_ || !editor_->autosaveOn) return;
  const gui::EditorState& e = model_.editor;
  editor_->autosaveDue = 0;
  if (editor_->autosavedVersion == e.doc.version()) return;
  if (std::string err = uc::writeAutosave(editor_->autosavePath, e.doc); !err.empty()) {
    model_.addLog(gui::LogLevel::Warn, "Editor autosave: " + err);
    editor_->autosaveOn = false;  // said once; Save still works
    return;
  }
  editor_->autosavedVersion = e.doc.version();
}

void Application::saveKernel(const std::string& path) {
  gui::EditorState& e = model_.editor;
  const std::string target = path.empty() ? e.doc.path() : path;
  if (target.empty()) {  // never saved: ask where
    requestFileChoice(gui::FileChoice::SaveKernelAs);
    return;
  }
  if (std::string err = e.doc.save(target); !err.empty()) {
    e.notice = "Not saved: " + err, e.noticeIsError = true;
    model_.addLog(gui::LogLevel::Error, e.notice);
    return;
  }
  e.conflict = false;
  e.notice = "Saved " + target, e.noticeIsError = false;
  model_.addLog(gui::LogLevel::Info, e.notice);
  saveEditorAutosave();
}

void Application::requestEditor(gui::EditorRequest r) {
  gui::EditorState& e = model_.editor;
  switch (r) {
    case gui::EditorRequest::Compile:
      if (editor_->compile.valid()) break;
      editor_->compileQueuedFor = 0;
      startEditorCompile();
      break;
    case gui::EditorRequest::Check: startEditorCheck(); break;
    case gui::EditorRequest::CancelCheck:
      editor_->checkAgainWhenDone = false;
      editor_->cancel = true;
      if (editor_->worker) editor_->worker->cancel();
      if (editor_->remoteCheck && e.checking) controller_->backend().cancelCheck();
      break;
    case gui::EditorRequest::Save: saveKernel(""); break;
    case gui::EditorRequest::ReloadFromDisk:
      if (std::string err = e.doc.reloadFromDisk(); !err.empty()) {
        e.notice = "Not reloaded: " + err, e.noticeIsError = true;
      } else {
        e.conflict = false;
        e.notice = e.doc.displayName() + " reloaded from disk (your text is one Undo away)", e.noticeIsError = false;
        startEditorCompile();
      }
      break;
    case gui::EditorRequest::ShowTrace: showEditorTrace(true); break;
    case gui::EditorRequest::Run: startEditorRun(); break;
    case gui::EditorRequest::KeepMine:
      e.doc.keepMine();
      e.conflict = false;
      e.notice = "Kept the editor's text: Save writes it over " + e.doc.displayName(), e.noticeIsError = false;
      break;
  }
}

void Application::showEditorTrace(bool bringViewsToFront) {
  gui::EditorState& e = model_.editor;
  if (editor_->trace.empty()) return;
  if (std::string err = controller_->showUserTrace(editor_->trace, editor_->traceSource, editor_->traceConfig); !err.empty()) {
    model_.addLog(gui::LogLevel::Warn, "The check's trace of " + e.doc.displayName() + " cannot be shown: " + err);
    e.traceInViews = false;
    return;
  }
  e.traceInViews = true;
  if (bringViewsToFront) {
    model_.view = ViewId::WarpActivity;
    model_.trace.step = requestedStep(model_.trace.data, model_.trace.summary, model_.view, kTellingStep);
  }
}

void Application::requestEditCopy(const std::string& key) {
  gui::EditorState& e = model_.editor;
  if (e.doc.unsavedWork()) {  // the toolbar refuses it too: nothing unsaved is replaced
    model_.addLog(gui::LogLevel::Warn, "Your kernel has changes that are not saved: save them first");
    return;
  }
  const uc::Starter* starter = uc::findStarter(key);
  const std::string source = starter ? uc::starterSource(starter->key) : std::string();
  if (source.empty()) {
    model_.addLog(gui::LogLevel::Error, "No starter for " + key);
    return;
  }
  e.doc.startUnsaved(source, starter->fileName);
  showNewDocument("A copy of " + starter->key + ": Save (Ctrl+S) asks where to keep it");
}

// A recording made with `record --kernel-file`: its kernel into the editor (an unsaved copy under
// the file's name, unless the editor holds unsaved work, which is never replaced), its recorded
// trace behind "Show in the views", and what the compiler said when it was recorded in Messages.
void Application::loadRecordedKernel(const Recording& rec) {
  if (!rec.userKernel) return;
  const UserKernelRecord& k = *rec.userKernel;
  gui::EditorState& e = model_.editor;
  if (e.doc.unsavedWork() && !(!e.doc.hasFile() && e.doc.suggestedName() == k.file && e.doc.text() == k.source)) {
    model_.addLog(gui::LogLevel::Warn, "The recording holds the kernel " + k.file + "; it was not put in the editor: your "
                                       "kernel has changes that are not saved. Save them (Ctrl+S), then open the recording again.");
    return;
  }
  const ViewId view = model_.view;
  e.doc.startUnsaved(k.source, k.file);
  showNewDocument("The recording's kernel " + k.file + " (compiled for " + k.arch + " when recorded" +
                  (k.compileLog.empty() ? ", without a warning" : "; its messages are in the Log") + ")" +
                  (std::any_of(rec.traces.begin(), rec.traces.end(), [](const RecordedTrace& t) { return runsUserSource(t.config.kernel); })
                       ? "; the GPU's trace of it: Checks > Show in the views"
                       : "") +
                  ". Save (Ctrl+S) keeps a copy.");
  model_.view = view;  // the recording's views stay in front; the editor is one tab away
  if (!k.compileLog.empty()) model_.addLog(gui::LogLevel::Info, "When recorded, the compiler said of " + k.file + ":\n" + k.compileLog);
  for (const RecordedTrace& t : rec.traces) {
    if (!runsUserSource(t.config.kernel)) continue;
    editor_->trace = t.bytes;
    editor_->traceConfig = t.config;
    editor_->traceSource = "GPU (" + rec.device.name + "), recorded " + rec.createdUtc.substr(0, 10) + ": your kernel " + k.file +
                           ", " + std::string(name(t.config.type)) + " " + std::string(name(t.config.op)) + ", N=" +
                           formatCount(t.config.n) + ", block " + std::to_string(t.config.block) +
                           ", by the Compute Sanitizer's patches of the unmodified kernel";
    e.tracedCase = "block " + std::to_string(t.config.tracedBlock) + " of N=" + formatCount(t.config.n) + ", as recorded";
    break;
  }
}

void Application::showNewDocument(const std::string& notice) {
  gui::EditorState& e = model_.editor;
  e.notice = notice, e.noticeIsError = false;
  e.conflict = false;
  e.diagnostics.clear(), e.resources.clear(), e.cases.clear(), e.checkSummary.clear(), e.hazards.clear(), e.timing.reset();
  e.tracedCase.clear(), e.traceInViews = false, editor_->trace.clear();
  e.goalResults.clear();
  e.checkExit = -1;
  e.build = gui::EditorState::Build::None;
  editor_->checkAgainOnChange = false;
  model_.view = ViewId::Editor;
  startEditorCompile();
  saveEditorAutosave();
}

// A lesson step's exercise into the editor, as an unsaved copy, unless the editor holds changes of
// its own (never replaced: the step says so instead) or this very exercise already.
void Application::loadExercise(const std::string& name) {
  gui::EditorState& e = model_.editor;
  model_.view = ViewId::Editor;
  const std::string file = exerciseFileName(name);
  if (!e.doc.hasFile() && e.doc.suggestedName() == file && !e.doc.empty()) return;  // already there (Back, Next)
  if (e.doc.unsavedWork()) {
    e.notice = "This step's exercise (" + file + ") was not put in the editor: your kernel has changes that are not "
               "saved. Save them (Ctrl+S), then open the step again.";
    e.noticeIsError = true;
    return;
  }
  e.doc.startUnsaved(exerciseSource(name), file);
  showNewDocument("The exercise " + file + ": Check it, fix it, Check again. Save (Ctrl+S) keeps your version.");
}

void Application::openKernelFile(const std::string& path) {
  gui::EditorState& e = model_.editor;
  if (e.doc.unsavedWork()) {
    model_.addLog(gui::LogLevel::Warn, "Your kernel has changes that are not saved: save them before opening another file");
    return;
  }
  if (std::string err = e.doc.open(path); !err.empty()) {
    e.notice = "Not opened: " + err, e.noticeIsError = true;
    model_.addLog(gui::LogLevel::Error, e.notice);
    return;
  }
  showNewDocument("Opened " + path + " (watched: saving it in another editor recompiles here)");
}

}  // namespace rl::app
