// `reducelab record`: measures a lesson, a kernel list or a sweep and writes one recording
// (docs/recording-format.md) that the GUI opens on any machine. Without a GPU it records what
// the CPU model gives (the traces, the CPU loop and the exact reference) and the file says so.
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <set>

#include "commands.hpp"
#include "interrupt.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/backend.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/recording.hpp"
#include "reducelab/sweep.hpp"
#include "reducelab/version.hpp"
#include "reducelab/usercode/compiler.hpp"
#include "reducelab/usercode/contract.hpp"
#include "reducelab/usercode/user_kernel_backend.hpp"
#include "cmd_usercode.hpp"

namespace rl::app {

namespace {

// One thing to measure: a configuration and the label its record carries.
struct PlannedRun {
  RunConfig config;
  std::string label;
};

std::string hostName() {
  char b[256] = {};
  if (gethostname(b, sizeof b - 1) != 0) return {};
  return b;
}

// The user's kernel into the recording (--kernel-file): its row at the base configuration (or its
// series of each sweep), its traced block there, its source and the compiler's diagnostics.
// 0, kExitInterrupted, or an exit code with the message printed.
int recordUserKernel(const RecordOptions& o, const std::string& source, const std::vector<SweepSpec>& sweeps,
                     const RunConfig& base, Recording* rec) {
  namespace uc = usercode;
  std::unique_ptr<Backend> yours = userKernelBackend(o.kernelFile, source, rec->peaks);
  RunConfig c = base;
  c.kernel = std::string(kUserKernelKey);
  bool failed = false;
  auto judge = [&](const Measurement& m) {
    if (!m.ok) {
      std::fprintf(stderr, "reducelab: error: your kernel %s: %s\n", o.kernelFile.c_str(), m.error.c_str());
      failed = true;
    }
  };
  if (sweeps.empty()) {
    std::fprintf(stderr, "[yours] %s %s %s\n", o.kernelFile.c_str(), std::string(name(c.type)).c_str(), runShape(c).c_str());
    std::vector<Measurement> one = measureAll(*yours, {c}, {}, {}, [] { return interrupted(); });
    if (interrupted() || one.empty()) return kExitInterrupted;
    judge(one.front());
    rec->measurements.push_back(std::move(one.front()));
  }
  for (const SweepSpec& s : sweeps) {
    const std::string axis(name(s.axis));
    SweepSpec mine = s;
    if (mine.axis == SweepAxis::N && mine.nMax == 0 && rec->sweeps.count(axis))  // the N our series reached
      for (const Measurement& m : rec->sweeps[axis]) mine.nMax = std::max(mine.nMax, m.config.n);
    std::vector<Measurement> rows = sweepAll(*yours, mine, [&](const Measurement& m, int done, int total) {
      std::fprintf(stderr, "sweep over %s, your kernel: %d/%d\n", axis.c_str(), done, total);
      judge(m);
    }, [] { return interrupted(); });
    if (interrupted()) return kExitInterrupted;
    for (Measurement& m : rows)
      if (m.ok) rec->sweeps[axis].push_back(std::move(m));
  }
  if (failed) {
    std::fprintf(stderr, "reducelab: error: your kernel was not measured; nothing was written\n");
    return 3;
  }
  // Traced at the base configuration, or where the kernel's claims put the first point of the sweep.
  if (const uc::ContractResult k = uc::parseContract(source, o.kernelFile);
      k.ok() && !sweeps.empty() && (!k.contract.claims(c.type) || !k.contract.claims(c.op) || !k.contract.claimsBlock(c.block)))
    if (const std::vector<RunConfig> p = uc::planUserSweep(sweeps.front(), source, o.kernelFile, nullptr, nullptr); !p.empty())
      c = p.front();
  TraceResult t = traceNow(*yours, c, 300);
  if (!t.ok) {
    std::fprintf(stderr, "reducelab: error: the trace of your kernel: %s; nothing was written\n", t.error.c_str());
    return 1;
  }
  RecordedTrace rt;
  rt.config = t.config;
  rt.bytes = t.data.toBuffer();
  rt.fromGpu = true;
  rec->traces.push_back(std::move(rt));
  // The compiler's word on it, as the class would have seen it (the build is cached: no second compile).
  UserKernelRecord k;
  k.file = std::filesystem::path(o.kernelFile).filename().string();
  k.source = source;
  const int sm = rec->device.ccMajor * 10 + rec->device.ccMinor;
  k.arch = uc::archName(sm);
  const std::vector<uc::CompileResult> builds = uc::compileClaims(source, o.kernelFile, sm, {c.type}, {c.op}, "", true);
  if (!builds.empty())
    for (const uc::Diagnostic& d : builds.front().diagnostics) k.compileLog += d.text() + "\n";
  rec->userKernel = std::move(k);
  return 0;
}

}  // namespace

int runRecordCommand(const RecordOptions& o) {
  if (o.out.empty()) {
    std::fprintf(stderr, "reducelab: error: record needs --out FILE (see reducelab record --help)\n");
    return 2;
  }
  Recording rec;
  rec.argv = o.argv;
  std::vector<PlannedRun> runs;
  std::vector<SweepSpec> sweeps;
  std::vector<RunConfig> traced;  // the configurations whose traces are recorded, in order
  auto addTrace = [&](const RunConfig& c) {
    if (!validate(c, nullptr).empty() || !findKernel(c.kernel)->traceable) return;
    for (const RunConfig& t : traced)
      if (sameTraceConfig(t, c)) return;
    traced.push_back(c);
  };
  RunConfig base;
  if (std::string e = toRunConfig(o.run, &base); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 2;
  }
  if (!o.lesson.empty()) {
    std::string err;
    const std::optional<Lesson> lesson = loadLesson(o.lesson, &err);
    if (!lesson) {
      std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
      return 2;
    }
    rec.lessonName = lesson->name;
    const std::optional<std::string> text = lessonText(o.lesson, &err);
    if (text) rec.lessonText = *text;
    if (!text) {
      std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
      return 2;
    }
    int row = 0;
    for (const LessonStep& st : lesson->steps) {
      addTrace(st.config);
      for (const LessonRun& r : st.runs) {
        const std::string label = "lesson:" + std::to_string(row++);
        for (int t = 0; t < r.times; ++t) runs.push_back({r.config, label});
        if (r.seedMethodConfig) runs.push_back({*r.seedMethodConfig, label});
        addTrace(r.config);
      }
      if (st.sweep) {
        SweepSpec s;
        s.axis = *parseSweepAxis(st.sweep->axis);
        s.base = st.config;
        s.kernels = st.sweep->kernels;
        s.nMax = st.sweep->nMax;
        sweeps.push_back(s);
      }
    }
  } else {
    std::string err;
    const std::vector<const KernelInfo*> ks = parseKernelList(o.run.kernel, &err);
    if (ks.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
      return 2;
    }
    std::vector<std::string> names;
    for (const KernelInfo* k : ks) names.push_back(std::string(k->key));
    if (o.sweep.empty()) {
      for (const std::string& k : names) {
        RunConfig c = base;
        c.kernel = k;
        if (std::string e = validate(c, nullptr); !e.empty()) {
          std::fprintf(stderr, "reducelab: error: %s: %s\n", k.c_str(), e.c_str());
          return 2;
        }
        runs.push_back({c, ""});
        addTrace(c);
      }
    } else {
      const std::optional<SweepAxis> axis = parseSweepAxis(o.sweep);
      if (!axis) {
        std::fprintf(stderr, "reducelab: error: --sweep '%s' is not one of: block, n, type, kernel\n", o.sweep.c_str());
        return 2;
      }
      SweepSpec s;
      s.axis = *axis;
      s.base = base;
      s.base.kernel = names.front();
      s.kernels = names;
      if (!o.nMax.empty()) {
        const auto n = parseCount(o.nMax, &err);
        if (!n) {
          std::fprintf(stderr, "reducelab: error: --n-max: %s\n", err.c_str());
          return 2;
        }
        s.nMax = *n;
      }
      sweeps.push_back(s);
      RunConfig c = base;
      c.kernel = names.front();
      addTrace(c);
    }
  }
  // The user's kernel: read, and its claims checked against what is recorded, before any work.
  std::string userSource;
  if (!o.kernelFile.empty()) {
    if (!o.lesson.empty()) {
      std::fprintf(stderr, "reducelab: error: --kernel-file records your kernel beside a kernel list or a sweep, not a lesson\n");
      return 2;
    }
    if (o.cpuModel) {
      std::fprintf(stderr, "reducelab: error: --kernel-file runs your kernel on the GPU: leave out --cpu-model\n");
      return 2;
    }
    if (int rc = readKernelSource(o.kernelFile, &userSource)) return rc;
    std::string why;
    if (!sweeps.empty()) {
      if (usercode::planUserSweep(sweeps.front(), userSource, o.kernelFile, nullptr, &why).empty()) {
        std::fprintf(stderr, "reducelab: error: %s: %s\n", o.kernelFile.c_str(), why.c_str());
        return 2;
      }
    } else {
      SweepSpec one;  // the single configuration, planned as a one-point sweep over its block
      one.axis = SweepAxis::Block;
      one.base = base;
      std::vector<std::string> skipped;
      const std::vector<RunConfig> planned = usercode::planUserSweep(one, userSource, o.kernelFile, &skipped, &why);
      if (std::none_of(planned.begin(), planned.end(), [&](const RunConfig& c) { return c.block == base.block; })) {
        const usercode::ContractResult k = usercode::parseContract(userSource, o.kernelFile);
        std::string claims;
        if (!k.ok()) claims = why;
        else if (!k.contract.claims(base.type)) claims = "it does not claim " + std::string(name(base.type)) + " (// @reducelab types)";
        else if (!k.contract.claims(base.op)) claims = "it does not claim " + std::string(name(base.op)) + " (// @reducelab ops)";
        else claims = "it does not claim block " + std::to_string(base.block) + " (// @reducelab blocks)";
        std::fprintf(stderr, "reducelab: error: %s: %s\n", o.kernelFile.c_str(), claims.c_str());
        return 2;
      }
    }
  }
  if (std::string e = checkOutputTarget(o.out, o.force); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }

  installInterruptHandler();
  // This machine's GPU through the measurement service, unless the CPU model is asked for.
  std::unique_ptr<Backend> gpu = o.cpuModel ? nullptr : makeLocalGpuBackend(0);
  const bool measuring = gpu && gpu->measuresNot().empty();
  std::unique_ptr<Backend> model = makeCpuModelBackend(assumedH200(), "");
  rec.createdUtc = utcNow();
  rec.host = hostName();
  rec.reducelabVersion = std::string(versionString()) + " (commit " + gitCommit() + ")";
  if (measuring) {
    rec.device = gpu->device();
    std::fprintf(stderr, "recording on %s: measuring the bandwidth peaks\n", rec.device.name.c_str());
    gpu->onEngine([&](Engine& e) { rec.peaks = e.peaks(false, [] { return interrupted(); }); });
  } else if (!o.kernelFile.empty()) {
    std::fprintf(stderr, "reducelab: error: recording your kernel needs an NVIDIA GPU (%s); nothing was written\n",
                 gpu->device().available ? gpu->measuresNot().c_str() : gpu->device().unavailableReason.c_str());
    return 1;
  } else {
    rec.device = DeviceInfo{};
    rec.device.unavailableReason = o.cpuModel ? "--cpu-model" : gpu->device().available ? gpu->measuresNot()
                                                                                       : gpu->device().unavailableReason;
    std::fprintf(stderr, "recording with the CPU model (%s): traces, CPU loop and reference; no GPU measurements\n",
                 rec.device.unavailableReason.c_str());
  }
  auto interruptedExit = [] {
    std::fprintf(stderr, "reducelab: interrupted; nothing was written\n");
    return kExitInterrupted;
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    const PlannedRun& p = runs[i];
    if (interrupted()) return interruptedExit();
    std::fprintf(stderr, "[%zu/%zu] %s %s %s%s\n", i + 1, runs.size(), p.config.kernel.c_str(),
                 std::string(name(p.config.type)).c_str(), runShape(p.config).c_str(),
                 p.label.empty() ? "" : (" (" + p.label + ")").c_str());
    Measurement m;
    if (measuring) {
      std::vector<Measurement> one = measureAll(*gpu, {p.config}, {}, {}, [] { return interrupted(); });
      if (one.empty()) return interruptedExit();
      m = std::move(one.front());
    } else {
      m.config = p.config;
      m.kernelName = p.config.kernel;
      m.error = "not measured: recorded with the CPU model (no NVIDIA GPU)";
      // What this machine can measure: the seeds' CPU loop (a few repetitions, about a second).
      CpuBaseline cpu = cpuBaselineOf(p.config, 5, 1.0, CpuWork{[] { return interrupted(); }, {}});
      if (cpu.cancelled) return interruptedExit();
      if (cpu.error.empty() && cpu.reps > 0) m.cpu = cpu, m.haveCpu = true;
    }
    if (interrupted()) return interruptedExit();
    m.label = p.label;
    rec.measurements.push_back(std::move(m));
  }
  for (const SweepSpec& s : sweeps) {
    const std::string axis(name(s.axis));
    if (!measuring) {
      std::fprintf(stderr, "sweep over %s: not recorded (sweeps measure kernels on a GPU)\n", axis.c_str());
      continue;
    }
    std::string err;
    std::vector<std::string> skipped;
    const std::vector<RunConfig> configs = planSweep(s, gpu->device(), &skipped, &err);
    if (configs.empty()) {
      std::fprintf(stderr, "reducelab: error: sweep over %s: %s\n", axis.c_str(), err.c_str());
      return 1;
    }
    for (const std::string& k : skipped) std::fprintf(stderr, "sweep skipped %s\n", k.c_str());
    rec.sweeps[axis] = sweepAll(*gpu, s,
                                [&](const Measurement&, int done, int total) {
                                  std::fprintf(stderr, "sweep over %s: %d/%d\n", axis.c_str(), done, total);
                                },
                                [] { return interrupted(); });
    if (interrupted()) return interruptedExit();
  }
  if (!o.kernelFile.empty())
    if (int rc = recordUserKernel(o, userSource, sweeps, base, &rec)) return rc == kExitInterrupted ? interruptedExit() : rc;
  for (const RunConfig& c : traced) {
    if (interrupted()) return interruptedExit();
    RecordedTrace t;
    t.config = c;
    std::string err;
    // The GPU's own trace where it measures, else the CPU model's: the first source that has it.
    Backend* source = firstTraceSource({measuring ? gpu.get() : nullptr, model.get()}, c, &err);
    TraceResult r = source ? traceNow(*source, c) : TraceResult{};
    if (!r.ok) {
      std::fprintf(stderr, "reducelab: error: trace of %s block %d: %s\n", c.kernel.c_str(), c.block,
                   (r.error.empty() ? err : r.error).c_str());
      return 1;
    }
    t.bytes = r.data.toBuffer();
    t.fromGpu = r.gpuWritten;
    // What the reader will check: a trace that fails here would make the file unreadable.
    const TraceData back = TraceData::fromBuffer(t.bytes.data(), t.bytes.size(), &err);
    if (!back.valid() || !checkTraceContent(back).empty()) {
      std::fprintf(stderr, "reducelab: error: the trace of %s block %d is not valid: %s\n", c.kernel.c_str(), c.block,
                   back.valid() ? checkTraceContent(back).c_str() : err.c_str());
      return 1;
    }
    rec.traces.push_back(std::move(t));
  }
  if (std::string e = writeRecording(o.out, rec); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  size_t sweepRows = 0;
  for (const auto& [axis, rows] : rec.sweeps) sweepRows += rows.size();
  std::printf("wrote %s: %zu runs, %zu sweep points, %zu traces; %s\n", o.out.c_str(), rec.measurements.size(),
              sweepRows, rec.traces.size(), rec.banner().c_str());
  return 0;
}

}  // namespace rl::app
