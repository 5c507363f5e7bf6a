// `reducelab sweep` and `reducelab report`: measurements over one axis (or the standard set of a
// report) written as figures, tables and records in the export formats (figure_export.hpp).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "commands.hpp"
#include "figure_export.hpp"
#include "interrupt.hpp"
#include "gl_context.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/backend.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/run_tables.hpp"
#include "reducelab/sweep.hpp"
#include "reducelab/trace.hpp"
#include "remote_client.hpp"
#include "cmd_usercode.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/user_kernel_backend.hpp"

namespace rl::app {

Table traceTable(const TraceData& t, const TraceSummary& sum);  // cmd_trace.cpp

namespace {

int fail(int code, const std::string& what) {
  std::fprintf(stderr, "reducelab: error: %s\n", what.c_str());
  return code;
}

void progressLine(const Measurement& m, int done, int total) {
  if (m.ok && isMatrixRun(m))  // its shape and tile, not an N and a block
    std::fprintf(stderr, "[%d/%d] %-11s %-8s %-24s %9.4f ms %8.1f GB/s (kernel)%s\n", done, total, m.config.kernel.c_str(),
                 std::string(name(m.config.type)).c_str(), runShape(m.config).c_str(), m.kernel.median, m.bandwidthGBs,
                 m.haveReference && !m.check.pass ? "  WRONG RESULT" : "");
  else if (m.ok)
    std::fprintf(stderr, "[%d/%d] %-4s %-8s N=%-6s block %-4d %9.4f ms %8.1f GB/s (kernel)%s\n", done, total,
                 m.config.kernel.c_str(), std::string(name(m.config.type)).c_str(), formatCount(m.config.n).c_str(),
                 m.config.block, m.kernel.median, m.bandwidthGBs, m.haveReference && !m.check.pass ? "  WRONG RESULT" : "");
  else
    std::fprintf(stderr, "[%d/%d] %s not run: %s\n", done, total, m.config.kernel.c_str(), m.error.c_str());
}

// A saved sweep names its axis: benchmarks[0].name is "sweep-<axis>".
std::optional<SweepAxis> savedSweepAxis(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array() || j["benchmarks"].empty())
    return std::nullopt;
  const nlohmann::json& b = j["benchmarks"][0];
  const std::string name = b.is_object() && b.contains("name") && b["name"].is_string() ? b["name"].get<std::string>() : "";
  if (!name.starts_with("sweep-")) return std::nullopt;
  return parseSweepAxis(name.substr(6));
}

// Before anything is measured: the output folder exists, or can be made in an existing one.
std::string checkOutputFolder(const std::string& dir) {
  std::error_code ec;
  const std::filesystem::path out(dir);
  const std::filesystem::path parent = out.has_parent_path() ? out.parent_path() : ".";
  if (std::filesystem::exists(std::filesystem::symlink_status(out, ec)) && !std::filesystem::is_directory(out, ec))
    return dir + " exists and is not a folder";
  if (!std::filesystem::is_directory(parent, ec))
    return "cannot create " + dir + ": folder " + parent.string() + " does not exist";
  return {};
}

void report(const ExportResult& r) {
  for (const std::string& n : r.notes) std::fprintf(stderr, "note: %s\n", n.c_str());
  for (const std::string& w : r.written) std::printf("wrote %s\n", w.c_str());
}

// The sweep on a remote GPU (docs/remote.md): planned here against the server's device (the
// same skipped lines as a local sweep), run there by its measurement service; rows arrive as
// they are measured. "" when complete; else why not ("interrupted", or the connection's end:
// *rows then holds what arrived).
std::string runRemoteSweep(const SweepOptions& o, const SweepSpec& spec, const std::string& userSource,
                           std::vector<Measurement>* rows, Peaks* peaks, DeviceInfo* device, bool* yoursFailed) {
  remote::Hello hello;
  std::string err;
  std::unique_ptr<RemoteClient> client = connectRemote(o.remoteHost, o.remoteCommand, &hello, &err);
  if (!client) return interrupted() ? "interrupted" : err;
  if (!hello.device.available)
    return "a sweep measures kernels and needs an NVIDIA GPU; " + hello.host + " has none (" +
           hello.device.unavailableReason + ")";
  std::vector<std::string> skipped;
  const std::vector<RunConfig> configs = planSweep(spec, hello.device, &skipped, &err);
  if (configs.empty()) return err;
  for (const std::string& s : skipped) std::fprintf(stderr, "skipped: %s\n", s.c_str());
  // The user's kernel, compiled and run there: the same axis and range, one more series.
  SweepSpec mine = spec;
  mine.kernels = {std::string(kUserKernelKey)};
  mine.base.kernel = std::string(kUserKernelKey);
  if (mine.axis == SweepAxis::N && mine.nMax == 0)
    for (const RunConfig& c : configs) mine.nMax = std::max(mine.nMax, c.n);
  std::vector<std::string> skippedYours;
  const size_t yoursPlanned =
      userSource.empty() ? 0 : usercode::planUserSweep(mine, userSource, o.kernelFile, &skippedYours, &err).size();
  for (const std::string& s : skippedYours) std::fprintf(stderr, "skipped: %s\n", s.c_str());
  const int total = int(configs.size() + yoursPlanned);
  if (std::string e = prepareFolder(o.out); !e.empty()) return e;
  *peaks = hello.peaks;
  *device = hello.device;
  bool cancelSent = false;
  std::string lastError;
  auto follow = [&]() -> std::string {  // one sweep's rows until it finishes
    for (;;) {
      client->waitForEvents(0.1);
      RemoteEvents ev = client->poll();
      if (ev.service.peaks) *peaks = *ev.service.peaks;
      for (auto& [axis, m] : ev.service.sweepRows) {
        if (!m.ok && m.config.kernel == mine.base.kernel) {  // your series': said once when every row fails alike
          *yoursFailed = true;
          if (m.error == lastError) std::fprintf(stderr, "[%zu/%d] yours not run: as above\n", rows->size() + 1, total);
          else progressLine(m, int(rows->size()) + 1, total);
          lastError = m.error;
          continue;
        }
        rows->push_back(std::move(m));
        progressLine(rows->back(), int(rows->size()), total);
      }
      for (const std::string& m : ev.service.messages) {
        if (m.rfind("request refused: ", 0) == 0) return m;
        if (m.rfind("sweep skipped ", 0) != 0) std::fprintf(stderr, "remote: %s\n", m.c_str());
      }
      if (ev.dropped) return interrupted() ? "interrupted" : *ev.dropped;  // ssh ends on Ctrl+C too
      if (interrupted() && !cancelSent) {  // the server stops between repetitions
        client->cancelSweep();
        cancelSent = true;
      }
      if (ev.service.sweep && ev.service.sweep->finished) return {};
    }
  };
  client->queueSweep(spec);
  if (std::string e = follow(); !e.empty()) return e;
  if (yoursPlanned > 0 && !interrupted()) {
    client->sendUserKernel(std::filesystem::path(o.kernelFile).filename().string(), userSource);
    client->queueSweep(mine);
    if (std::string e = follow(); !e.empty()) return e;
  }
  client->close();
  return interrupted() ? "interrupted" : "";
}

}  // namespace

namespace {

// The user's kernel over the axis and range of `spec` (one more series, in the kernel's worker):
// its rows that ran appended to *rows, after ours (an N sweep up to the largest N ours reached).
// False when one of its rows was not measured (said on stderr; a compile error once).
bool appendUserSeries(const SweepSpec& spec, const std::string& file, const std::string& source, const Peaks& peaks,
                      std::vector<Measurement>* rows) {
  std::unique_ptr<Backend> yours = userKernelBackend(file, source, peaks);
  SweepSpec mine = spec;
  if (mine.axis == SweepAxis::N && mine.nMax == 0)
    for (const Measurement& m : *rows) mine.nMax = std::max(mine.nMax, m.config.n);
  std::vector<std::string> skippedYours;
  std::string err;
  const size_t planned = usercode::planUserSweep(mine, source, file, &skippedYours, &err).size();
  const int total = int(rows->size() + planned);
  for (const std::string& s : skippedYours) std::fprintf(stderr, "skipped: %s\n", s.c_str());
  if (planned == 0) {  // said, and counted as not measured: the series would otherwise vanish silently
    std::fprintf(stderr, "reducelab: your kernel %s has no %s series here: %s\n", file.c_str(), std::string(name(spec.axis)).c_str(),
                 err.empty() ? "nothing to run" : err.c_str());
    return false;
  }
  const int before = int(rows->size());
  std::string lastError;  // a compile error fails every row: said once
  const std::vector<Measurement> mineRows = sweepAll(*yours, mine, [&](const Measurement& m, int done, int) {
    if (!m.ok && m.error == lastError) std::fprintf(stderr, "[%d/%d] yours not run: as above\n", before + done, total);
    else progressLine(m, before + done, total);
    if (!m.ok) lastError = m.error;
  }, [] { return interrupted(); });
  bool allRan = true;
  for (const Measurement& m : mineRows)
    if (m.ok) rows->push_back(m);
    else allRan = false;
  return allRan;
}

}  // namespace

int runSweepCommand(const SweepOptions& o) {
  RunConfig base;
  if (std::string e = toRunConfig(o.run, &base); !e.empty()) return fail(2, e);
  auto axis = parseSweepAxis(o.axis.empty() ? "block" : o.axis);
  if (!axis) return fail(2, "--axis '" + o.axis + "' is not one of: block, n, type, kernel, tile, size");
  if (!o.from.empty() && !o.kernelFile.empty())
    return fail(2, "--from re-draws a saved sweep; --kernel-file measures your kernel: give one of them");
  nlohmann::json saved;
  if (!o.from.empty()) {  // the file decides the axis; a different --axis is a mistake, not an override
    std::string text;
    if (std::string e = readTextFile(o.from, &text); !e.empty()) return fail(1, e);
    saved = nlohmann::json::parse(text, nullptr, false);
    if (saved.is_discarded()) return fail(1, o.from + " is not JSON");
    const std::optional<SweepAxis> fileAxis = savedSweepAxis(saved);
    if (!fileAxis && o.axis.empty())
      return fail(2, o.from + " does not say which axis it sweeps (not written by `reducelab sweep`); give --axis");
    if (fileAxis && !o.axis.empty() && *fileAxis != *axis)
      return fail(2, "--axis " + o.axis + " does not match " + o.from + ", a sweep over " +
                         std::string(name(*fileAxis)) + " (leave --axis out to use the file's)");
    if (fileAxis) axis = fileAxis;
  }
  std::string err;
  std::vector<const KernelInfo*> ks = parseKernelList(o.run.kernel, &err);
  if (ks.empty()) return fail(2, err);
  ExportFormats formats;
  if (std::string e = parseFormats(o.format, &formats); !e.empty()) return fail(2, e);
  SweepSpec spec;
  spec.axis = *axis;
  spec.base = base;
  spec.parameters = parameterValues(o.run);
  spec.kernels.clear();
  for (const KernelInfo* k : ks) spec.kernels.push_back(std::string(k->key));
  if (!o.nMin.empty()) {
    if (auto v = parseCount(o.nMin, &err)) spec.nMin = *v; else return fail(2, "--n-min: " + err);
  }
  if (!o.nMax.empty()) {
    if (auto v = parseCount(o.nMax, &err)) spec.nMax = *v; else return fail(2, "--n-max: " + err);
  }
  spec.sizeMin = o.sizeMin;
  spec.sizeMax = o.sizeMax;
  if (o.out.empty()) return fail(2, "--out DIR is required (the folder the figure and tables go to)");
  // The user's kernel: read, its claims planned against the axis now (a usage error needs no GPU).
  std::string userSource;
  if (!o.kernelFile.empty()) {
    if (int rc = readKernelSource(o.kernelFile, &userSource)) return rc;
    std::string why;
    if (usercode::planUserSweep(spec, userSource, o.kernelFile, nullptr, &why).empty()) return fail(2, o.kernelFile + ": " + why);
  }
  const std::string stem = "sweep-" + std::string(name(*axis));
  std::vector<std::string> names;
  for (const std::string& ext : ExportFormats::all().extensions()) names.push_back(stem + ext);
  if (std::string e = checkOverwrite(o.out, names, o.force); !e.empty()) return fail(1, e);
  if (std::string e = checkOutputFolder(o.out); !e.empty()) return fail(1, e);

  std::vector<Measurement> rows;
  Peaks peaks;
  DeviceInfo device;
  std::string remoteLost;
  bool yoursFailed = false;  // a row of the user's kernel was not measured (said above); the rest is written
  if (!o.from.empty()) {  // a saved sweep: draw it again, no GPU needed
    rows = measurementsFromJson(saved, &err);
    if (rows.empty()) return fail(1, o.from + ": " + (err.empty() ? "no measurements" : err));
    peaks = peaksFromJson(saved);
    device = deviceFromJson(saved);
    if (std::string e = prepareFolder(o.out); !e.empty()) return fail(1, e);
  } else if (!o.remoteHost.empty() || !o.remoteCommand.empty()) {
    if (std::string e = runRemoteSweep(o, spec, userSource, &rows, &peaks, &device, &yoursFailed); !e.empty()) {
      if (e == "interrupted") return fail(kExitInterrupted, "interrupted; nothing was written");
      if (rows.empty()) return fail(1, e + "; nothing was written");
      remoteLost = e;  // the rows that arrived are written, and the exit code says it is partial
    }
  } else {
    std::unique_ptr<Backend> gpu = makeLocalGpuBackend(0);  // this machine's GPU, through the measurement service
    if (std::string no = gpu->measuresNot(); !no.empty())
      return fail(1, "a sweep measures kernels and needs an NVIDIA GPU (" +
                         (gpu->device().available ? no : gpu->device().unavailableReason) +
                         "); nothing was written. Without a GPU, `reducelab report` writes the CPU-model parts, "
                         "and --from FILE re-draws a saved sweep");
    std::vector<std::string> skipped;
    std::vector<RunConfig> configs = planSweep(spec, gpu->device(), &skipped, &err);
    if (configs.empty()) return fail(2, err);
    for (const std::string& s : skipped) std::fprintf(stderr, "skipped: %s\n", s.c_str());
    if (std::string e = prepareFolder(o.out); !e.empty()) return fail(1, e);
    gpu->onEngine([&](Engine& e) { peaks = e.peaks(false); });
    device = gpu->device();
    installInterruptHandler();
    rows = sweepAll(*gpu, spec, progressLine, [] { return interrupted(); });
    if (interrupted()) return fail(kExitInterrupted, "interrupted; nothing was written");
    if (!o.kernelFile.empty()) {  // the same axis and range, one more series, in the kernel's worker
      yoursFailed = !appendUserSeries(spec, o.kernelFile, userSource, peaks, &rows);
      if (interrupted()) return fail(kExitInterrupted, "interrupted; nothing was written");
    }
  }

  ExportResult r;
  const gui::Figure fig = gui::figureForSweep(std::string(name(*axis)), rows, peaks, device);
  gui::Figure named = fig;
  named.fileStem = stem;
  exportFigure(named, o.out, formats, !o.dark, &r);
  const bool matrixAxis = *axis == SweepAxis::Tile || *axis == SweepAxis::Size;
  exportTable(matrixAxis ? matrixTable(rows) : sweepTable(rows, peaks), o.out, stem, formats, &r);
  for (const OutputFormat* f : formats.records) {
    SessionInfo info{device, peaks, o.argv, stem};
    const std::string path = (std::filesystem::path(o.out) / (stem + std::string(f->extension))).string();
    if (std::string e = writeTextAtomic(path, f->records(sessionJson(info, rows))); !e.empty()) r.error = e;
    else r.written.push_back(path);
  }
  report(r);
  if (!r.error.empty()) return fail(1, r.error);
  if (!remoteLost.empty())
    return fail(1, remoteLost + "; the files hold the " + std::to_string(rows.size()) + " runs that arrived");
  for (const Measurement& m : rows)
    if (m.haveReference && !m.check.pass) return 3;
  return yoursFailed ? 3 : 0;
}

int runReportCommand(const ReportOptions& o) {
  if (o.out.empty()) return fail(2, "--out DIR is required");
  // Checked before anything is measured: the folder can be made, and a report already in it is
  // not replaced without --force (the full list of names is checked again when writing).
  if (std::string e = checkOutputFolder(o.out); !e.empty()) return fail(1, e);
  if (std::string e = checkOverwrite(o.out, reportFileNames(), o.force); !e.empty())
    return fail(1, e);
  std::string userSource;  // --kernel-file: the user's kernel beside ours in every measured section
  if (!o.kernelFile.empty()) {
    if (int rc = readKernelSource(o.kernelFile, &userSource)) return rc;
    if (const usercode::ContractResult k = usercode::parseContract(userSource, o.kernelFile); !k.ok()) {
      for (const usercode::Diagnostic& d : k.diagnostics) std::fprintf(stderr, "%s\n", d.text().c_str());
      return fail(2, o.kernelFile + ": its annotations cannot be used; nothing was measured");
    }
  }
  bool yoursFailed = false;  // a row of the user's kernel was not measured (said on stderr); the report is written
  std::string err;
  // This machine's GPU (through the measurement service) where there is one and it is wanted;
  // the CPU model answers the traces it cannot.
  std::unique_ptr<Backend> gpu = o.cpuModel ? nullptr : makeLocalGpuBackend(0);
  const bool measuring = gpu && gpu->measuresNot().empty();
  const DeviceInfo device = gpu ? gpu->device() : queryDevice(0);
  const DeviceInfo shape = measuring ? device : assumedH200();
  std::unique_ptr<Backend> model = makeCpuModelBackend(shape, "");
  Peaks peaks{shape.theoreticalPeakGBs(), 0, 0, "not measured"};
  if (measuring) gpu->onEngine([&](Engine& e) { peaks = e.peaks(false); });
  std::vector<ReportSection> sections;
  std::vector<Measurement> session;
  RunConfig base;
  base.n = uint64_t(1) << 24;
  base.block = 512;
  base.reps = o.quick ? 5 : 20;
  auto sweep = [&](SweepAxis axis, std::vector<std::string> kernels, RunConfig b, uint64_t nMax) {
    SweepSpec s;
    s.axis = axis;
    s.base = b;
    s.kernels = kernels;
    s.nMax = nMax;
    std::vector<Measurement> rows = sweepAll(*gpu, s, progressLine);
    if (!o.kernelFile.empty() && axis != SweepAxis::Kernel && !appendUserSeries(s, o.kernelFile, userSource, peaks, &rows))
      yoursFailed = true;
    session.insert(session.end(), rows.begin(), rows.end());
    return rows;
  };
  RunConfig occupancyConfig = base;  // the Occupancy section: k7 at the report's base configuration
  occupancyConfig.kernel = "k7";
  std::string resourcesError;
  ResourceUsage occupancyResources = resourceUsage(occupancyConfig, shape, nullptr);
  if (measuring) gpu->onEngine([&](Engine& e) { occupancyResources = e.resources(occupancyConfig, &resourcesError); });
  if (!resourcesError.empty()) occupancyResources = resourceUsage(occupancyConfig, shape, nullptr);
  if (measuring) {
    std::vector<Measurement> ladder = sweep(SweepAxis::Kernel, {}, base, 0);
    if (!o.kernelFile.empty()) {  // one more bar: the user's kernel at the ladder's configuration
      RunConfig c = base;
      c.kernel = std::string(kUserKernelKey);
      std::unique_ptr<Backend> yours = userKernelBackend(o.kernelFile, userSource, peaks);
      const std::vector<Measurement> m = measureAll(*yours, {c});
      if (!m.empty() && m.front().ok) {
        ladder.push_back(m.front());
        session.push_back(m.front());
      } else {
        std::fprintf(stderr, "reducelab: your kernel %s is not in the ladder: %s\n", o.kernelFile.c_str(),
                     m.empty() ? "not measured" : m.front().error.c_str());
        yoursFailed = true;
      }
    }
    fillLadderSpeedups(ladder);
    sections.push_back({"The kernel ladder", "Every kernel of the catalogue on " + formatCount(base.n) +
                            " float32 elements, block 512; step and cumulative speedups above the bars.",
                        {gui::ladderFigure(ladder, peaks)}, {{"ladder", benchTable(ladder, peaks)}}});
    std::vector<Measurement> blocks = sweep(SweepAxis::Block, {"k3", "k7", "k10"}, base, 0);
    sections.push_back({"Block size", "Bandwidth and theoretical occupancy against threads per block.",
                        {gui::blockSweepFigure(blocks, peaks)}, {{"sweep-block", sweepTable(blocks, peaks)}}});
    RunConfig nb = base;
    nb.reps = o.quick ? 5 : 10;
    std::vector<Measurement> ns = sweep(SweepAxis::N, {"k3", "k7", "k10", "cub"}, nb, uint64_t(1) << (o.quick ? 26 : 30));
    sections.push_back({"N", "Small inputs are dominated by launch latency; inputs that fit in L2 are read from L2 "
                             "when it is warm (here it is flushed before every run).",
                        {gui::nSweepFigure(ns, peaks, device)}, {{"sweep-n", sweepTable(ns, peaks)}}});
    RunConfig tb = base;
    tb.n = uint64_t(1) << 26;
    std::vector<Measurement> types = sweep(SweepAxis::Type, {"k7", "k10", "cub"}, tb, 0);
    sections.push_back({"Element types", "The same bytes per second move half as many 8-byte elements.",
                        {gui::typeSweepFigure(types, peaks)}, {{"sweep-type", sweepTable(types, peaks)}}});
  } else {
    sections.push_back({"Measurements", "Not measured: " + std::string(device.available ? "--cpu-model was given" : device.unavailableReason) +
                                          ". The ladder, block-size, N and type figures need an NVIDIA GPU.", {}, {}});
    std::fprintf(stderr, "note: measurements skipped (no NVIDIA GPU): the report has the CPU-model parts only\n");
    if (!o.kernelFile.empty()) {  // compiled all the same (no GPU needed): what the compiler says of it
      const usercode::Contract k = usercode::parseContract(userSource, o.kernelFile).contract;
      const std::vector<usercode::CompileResult> builds =
          usercode::compileClaims(userSource, o.kernelFile, 90, {k.types.front()}, {k.ops.front()}, "", true);
      std::string text = "Your kernel " + o.kernelFile + " was not measured (" +
                         (device.available ? std::string("--cpu-model was given") : std::string("no NVIDIA GPU")) + "). ";
      if (builds.empty() || builds.front().status == usercode::CompileStatus::Environment)
        text += "It was not compiled either: " + (builds.empty() ? std::string("nothing to compile") : builds.front().environmentError) + ".";
      else {
        const usercode::CompileResult& b = builds.front();
        text += "Compiled for sm_90 (" + std::string(name(b.type)) + " " + std::string(name(b.op)) + ", NVRTC " + b.nvrtcVersion + "): ";
        text += b.ok() ? "no error" : "it does not compile";
        for (const usercode::KernelBuild& kb : b.kernels) text += "; " + kb.nameExpression + ": " + kb.resources.text();
        text += ".";
        for (const usercode::Diagnostic& d : b.diagnostics) {
          text += "\n\n    " + d.text();
          std::fprintf(stderr, "%s\n", d.text().c_str());
        }
        if (!b.ok()) yoursFailed = true;
      }
      sections.push_back({"Your kernel", text, {}, {}});
    }
  }
  const OccupancyCurveInputs curve = occupancyCurveInputs(occupancyResources, occupancyConfig.block);
  sections.push_back({"Occupancy", "Kernel 7 on " + shape.name +
                                       (occupancyResources.registersAssumed ? " (registers assumed)" : "") + ".",
                      {gui::occupancyFigure(shape, "k7", curve.registers, curve.sharedFixedBytes,
                                            curve.sharedPerThreadBytes)}, {}});
  ReportSection traces{"Traces", std::string("Per-step summaries of block 0, block 256, N = 2^20 (from the ") +
                                     (measuring ? "GPU" : "CPU model") + ").", {}, {}};
  for (const char* k : {"k1", "k2", "k3", "k8"}) {
    RunConfig c;
    c.kernel = k;
    c.block = 256;
    c.n = uint64_t(1) << 20;
    c.type = ElemType::Int32;
    Backend* source = firstTraceSource({measuring ? gpu.get() : nullptr, model.get()}, c, nullptr);
    TraceData t;
    if (source)
      if (TraceResult r = traceNow(*source, c); r.ok) t = std::move(r.data);
    if (t.valid()) {
      Table tab = traceTable(t, summarize(t));
      tab.caption = std::string(k) + ", int32, block 256";
      traces.tables.push_back({std::string("trace-") + k, tab});
    }
  }
  sections.push_back(traces);
  ExportResult r = writeReport(o.out, "ReduceLab report", device, peaks, sections, session, o.force);
  report(r);
  if (!r.error.empty()) return fail(1, r.error);
  return yoursFailed ? 3 : 0;
}

}  // namespace rl::app
