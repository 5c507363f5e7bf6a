// `reducelab bench`: the kernel ladder measured on this GPU, in any table or record format of the
// registry (reducelab/formats/output_formats.hpp).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cmd_usercode.hpp"
#include "commands.hpp"
#include "reducelab/version.hpp"
#include "interrupt.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/backend.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/formats/output_formats.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/launch_plan.hpp"
#include "reducelab/run_tables.hpp"
#include "reducelab/usercode/user_kernel_backend.hpp"
#include "reducelab/matrix.hpp"

namespace rl::app {

namespace {

std::string header(const DeviceInfo& d, const Peaks& p, const RunConfig& c, const CpuBaseline* cpu,
                   const Stats* floor = nullptr) {
  char b[1024];
  std::string s;
  if (d.available) {
    std::snprintf(b, sizeof b, "ReduceLab bench on %s (CC %s, %d SMs, L2 %.0f MiB), CUDA driver %s\n",
                  d.name.c_str(), d.ccString().c_str(), d.smCount, d.l2Bytes / 1048576.0,
                  cudaVersionString(d.driverVersion).c_str());
    s += b;
  }
  std::snprintf(b, sizeof b,
                "N = %s (%llu) %s, %s, accumulator %s, block %d, data %s (seed %llu), %d reps after %d "
                "warm-up, %s L2\n",
                formatCount(c.n).c_str(), (unsigned long long)c.n, std::string(name(c.type)).c_str(),
                std::string(name(c.op)).c_str(), std::string(name(c.accType())).c_str(), c.block,
                std::string(name(c.data)).c_str(), (unsigned long long)c.seed, c.reps, c.warmup,
                c.warmL2 ? "warm" : "cold (flushed)");
  s += b;
  if (d.available) {
    std::snprintf(b, sizeof b,
                  "Peaks: theoretical %.1f GB/s, measured read %.1f GB/s, measured copy %.1f GB/s (%s)\n",
                  p.theoreticalGBs, p.readGBs, p.copyGBs, p.source.c_str());
    s += b;
  }
  if (d.available) {
    std::snprintf(b, sizeof b, "Timing: %s (%s)\n", std::string(name(c.timing)).c_str(), timingModeMeaning(c.timing));
    s += b;
    if (programmaticDependentLaunchApplies(c) || !c.pdl) {
      std::snprintf(b, sizeof b, "Programmatic dependent launch of the later passes (final=gpu): %s\n", onOff(c.pdl));
      s += b;
    }
    if (floor && floor->count > 0)
      std::snprintf(b, sizeof b,
                    "Empty-launch floor (%s): %.2f us per launch (median of %d, min %.2f, max %.2f): no row can be "
                    "faster than its launches\n",
                    std::string(name(c.timing)).c_str(), floor->median * 1e3, floor->count, floor->min * 1e3,
                    floor->max * 1e3);
    else
      std::snprintf(b, sizeof b, "Empty-launch floor: not measured\n");
    s += b;
  }
  if (cpu && cpu->reps > 0) {
    std::snprintf(b, sizeof b, "CPU baseline (sequential loop, one core): %.3f ms, median of %d; result %s\n",
                  cpu->ms.median, cpu->reps, cpu->result.text().c_str());
    s += b;
  }
  return s;
}

// --cpu-only in the asked format: the CPU baseline and the exact reference of one configuration.
std::string cpuOnlyText(const OutputFormat& format, const RunConfig& c, const CpuBaseline& cpu, const Reference& ref,
                        const std::vector<std::string>& argv) {
  const Check k = checkResult(c, cpu.result, ref, c.n);
  const bool ran = cpu.reps > 0;  // not with --no-cpu
  const std::string exact = fixed(double(ref.exact), 6);
  if (format.writes & kWritesRecords) {
    nlohmann::json j = {{"meta", {{"argv", argv}, {"version", {{"reducelab", versionString()}, {"commit", gitCommit()}, {"json_schema", 1}}}}},
                        {"config",
                         {{"n", c.n}, {"type", std::string(name(c.type))}, {"op", std::string(name(c.op))},
                          {"accumulator", std::string(name(c.accType()))}, {"data", std::string(name(c.data))},
                          {"seed", c.seed}}},
                        {"cpu_baseline",
                         !ran ? nlohmann::json(nullptr)
                              : nlohmann::json{
                                    {"time_ms", {{"median", cpu.ms.median}, {"min", cpu.ms.min}, {"max", cpu.ms.max}}},
                                    {"reps", cpu.reps},
                                    {"result", cpu.result.isInt ? nlohmann::json(cpu.result.i) : nlohmann::json(cpu.result.f)},
                                    {"error", {{"absolute", k.absError}, {"relative", k.relError}}}}},
                        {"reference", {{"exact", exact}, {"overflow", ref.overflow}}}};
    return format.records(j);
  }
  Table t;
  t.headers = {"N", "type", "op", "accumulator", "data", "seed", "CPU ms (median)", "reps", "CPU result",
               "exact reference", "abs err", "rel err", "overflow"};
  t.numeric = {true, false, false, false, false, true, true, true, true, true, true, true, false};
  t.rows.push_back({formatCount(c.n), std::string(name(c.type)), std::string(name(c.op)),
                    std::string(name(c.accType())), std::string(name(c.data)), std::to_string(c.seed),
                    ran ? fixed(cpu.ms.median, 4) : "-", std::to_string(cpu.reps), ran ? cpu.result.text() : "-", exact,
                    ran ? sci(k.absError) : "-", ran ? sci(k.relError) : "-", ref.overflow ? "yes" : "no"});
  if (!format.terminal) return format.table(t);
  std::string text = header(DeviceInfo{}, Peaks{}, c, &cpu);
  text += "Exact reference: " + exact +
          (ref.overflow ? " (overflows the " + std::string(name(c.accType())) + " accumulator)" : "") + "\n";
  if (ran) text += "CPU loop error: " + sci(k.absError) + " absolute, " + sci(k.relError) + " relative\n";
  return text;
}

// --format, or when it is not given the format of the --out file's extension, else the terminal's.
const OutputFormat* chosenFormat(const BenchOptions& o, std::string* error) {
  if (!o.format.empty()) return chooseOutputFormat(o.format, kWritesTables | kWritesRecords, error);
  const OutputFormat* byExtension = outputFormats().findByExtension(std::filesystem::path(o.out).extension().string());
  return byExtension ? byExtension : &terminalFormat();
}

// The matrix families' header: the matrices instead of N, and the ceilings their % columns use.
std::string matrixHeader(const DeviceInfo& d, const Peaks& p, const RunConfig& c, const KernelInfo& k) {
  char b[1024];
  std::string s;
  if (d.available) {
    std::snprintf(b, sizeof b, "ReduceLab bench on %s (CC %s, %d SMs, L2 %.0f MiB), CUDA driver %s\n",
                  d.name.c_str(), d.ccString().c_str(), d.smCount, d.l2Bytes / 1048576.0,
                  cudaVersionString(d.driverVersion).c_str());
    s += b;
  }
  s += familyOf(k).benchLine(k, c);  // what is measured: the matrices instead of N
  if (d.available) {
    const FmaUnits u = fmaUnitsPerSM(d.ccMajor, d.ccMinor);
    std::snprintf(b, sizeof b,
                  "Peaks: measured copy %.1f GB/s (read + write; %s); %s peak %.0f GFLOP/s = 2 x %d FMA/clock/SM "
                  "(CC %s, CUDA Programming Guide throughput table) x %d SMs x %.0f MHz\n",
                  p.copyGBs, p.source.c_str(), std::string(name(c.type)).c_str(), peakGflops(d, c.type),
                  c.type == ElemType::Float64 ? u.fp64 : u.fp32, d.ccString().c_str(), d.smCount, d.smClockKHz / 1e3);
    s += b;
  }
  return s;
}

int interruptedExit() {
  std::fprintf(stderr, "reducelab: interrupted; nothing was written\n");
  return kExitInterrupted;
}

}  // namespace

int runBench(const BenchOptions& o) {
  RunConfig base;
  if (std::string e = toRunConfig(o.run, &base); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 2;
  }
  std::string err;
  std::vector<const KernelInfo*> kernels = parseKernelList(o.run.kernel, &err);
  if (kernels.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
    return 2;
  }
  if (o.deterministic && std::none_of(kernels.begin(), kernels.end(), [](const KernelInfo* k) { return k->dispatches; })) {
    std::fprintf(stderr, "reducelab: error: --deterministic is a mode of auto: add auto to --kernel\n");
    return 2;
  }
  const OutputFormat* chosen = chosenFormat(o, &err);
  if (!chosen) {
    std::fprintf(stderr, "reducelab: error: %s\n", err.c_str());
    return 2;
  }
  const OutputFormat& format = *chosen;
  // The output is checked before anything is measured: minutes of GPU time are not lost to a typo.
  if (!o.out.empty())
    if (std::string e = checkOutputTarget(o.out, o.force); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
  // Device-independent checks first, so a typo is reported the same with or without a GPU.
  base.kernel = kernels.front()->key;
  const KernelFamily& family = familyOf(*kernels.front());
  for (const KernelInfo* k : kernels)
    if (&familyOf(*k) != &family) {
      std::fprintf(stderr, "reducelab: error: bench one family at a time: %s is a %s, %s a %s\n",
                   std::string(kernels.front()->key).c_str(), std::string(family.name()).c_str(),
                   std::string(k->key).c_str(), std::string(familyOf(*k).name()).c_str());
      return 2;
    }
  // A family whose runs write a whole output (the matrices): each run checks its own output and
  // times its own CPU loop (a copy's differs from a transpose's); no shared exact reference.
  const bool matrix = !family.scalarResult();
  // The user's kernel: read and its claims checked now, run in its worker after our rows.
  std::string userSource;
  if (!o.kernelFile.empty()) {
    if (matrix || o.cpuOnly) {
      std::fprintf(stderr, "reducelab: error: --kernel-file adds a reduction kernel's row: %s\n",
                   matrix ? "bench it beside reductions (--kernel k7,cub ...)" : "it runs on the GPU (leave out --cpu-only)");
      return 2;
    }
    if (int rc = readKernelSource(o.kernelFile, &userSource)) return rc;
  }
  if (matrix && o.cpuOnly) {
    std::fprintf(stderr, "reducelab: error: --cpu-only runs the reductions' CPU baseline alone; the %s kernels' CPU loop "
                         "is timed with their GPU runs (the vs CPU column)\n",
                 std::string(family.name()).c_str());
    return 2;
  }
  const ParameterValues given = parameterValues(o.run);
  applyParameters(base, given);  // the first kernel's family's, and the fields that follow
  if (kernels.size() == 1 || matrix)
    if (std::string e = validate(base, nullptr); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 2;
    }

  const bool baseline = !o.noCpu && !matrix;  // --cpu-only --no-cpu: the exact reference alone
  if (std::string e = matrix ? std::string() : checkHostMemory(base, baseline); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }

  const bool tty = isatty(fileno(stderr));
  std::unique_ptr<Backend> backend;  // this machine's GPU, through the measurement service
  if (!o.cpuOnly) {
    backend = makeLocalGpuBackend(0);
    if (std::string no = backend->measuresNot(); !no.empty()) {
      std::fprintf(stderr, "reducelab: error: bench needs an NVIDIA GPU (%s); --cpu-only runs the CPU baseline alone\n",
                   backend->device().available ? no.c_str() : backend->device().unavailableReason.c_str());
      return 1;
    }
  }
  installInterruptHandler();  // Ctrl+C stops the CPU work and the measurements cleanly
  // Matrix kernels check their own output (engine: checkMatrixOutput); reductions share one exact reference.
  const Reference ref = matrix ? Reference{} : computeReference(base, 0, terminalWork("exact reference"));
  if (ref.cancelled) return interruptedExit();
  CpuBaseline cpu;
  if (baseline) {
    cpu = cpuBaselineOf(base, base.reps, 3.0, terminalWork("CPU baseline"));
    if (cpu.cancelled) return interruptedExit();
    if (!cpu.error.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", cpu.error.c_str());
      return 1;
    }
  }

  if (o.cpuOnly) {
    const std::string text = cpuOnlyText(format, base, cpu, ref, o.argv);
    if (o.out.empty()) std::fputs(text.c_str(), stdout);
    else if (std::string e = writeTextAtomic(o.out, text); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
    return 0;
  }

  Peaks peaks;
  Stats floor;
  backend->onEngine([&](Engine& e) {
    peaks = e.peaks(false);
    floor = e.launchFloor(base.timing);
  });
  // Every kernel over the one input: the exact reference and the CPU baseline computed above.
  RunInputs inputs;
  inputs.reference = matrix ? nullptr : std::make_shared<const Reference>(ref);
  inputs.exactReference = !matrix;
  inputs.cpu = o.noCpu || matrix ? nullptr : std::make_shared<const CpuBaseline>(cpu);
  inputs.cpuBaseline = matrix && !o.noCpu;
  std::vector<RunConfig> configs;
  for (const KernelInfo* k : kernels) {
    RunConfig c = base;
    c.kernel = k->key;
    applyParameters(c, given);
    if (o.deterministic && k->dispatches) c = deterministicPlan(c, nullptr);
    configs.push_back(c);
  }
  size_t started = 0;
  auto announce = [&] {
    if (tty && started < configs.size()) {
      std::fprintf(stderr, "[%zu/%zu] %s %s\n", started + 1, configs.size(), configs[started].kernel.c_str(),
                   std::string(kernels[started]->name).c_str());
      ++started;
    }
  };
  announce();
  std::vector<Measurement> rows = measureAll(*backend, configs, inputs, [&](const Measurement&) { announce(); },
                                             [] { return interrupted(); });
  if (interrupted()) return interruptedExit();
  if (!o.kernelFile.empty()) {  // the same input, reference, repetitions and L2 mode as our rows
    if (tty) std::fprintf(stderr, "[%zu/%zu] your kernel %s\n", configs.size() + 1, configs.size() + 1, o.kernelFile.c_str());
    std::unique_ptr<Backend> yours = userKernelBackend(o.kernelFile, userSource, peaks);
    RunInputs known;
    known.reference = inputs.reference;
    RunConfig c = base;
    c.kernel = std::string(kUserKernelKey);
    std::vector<Measurement> got = measureAll(*yours, {c}, known, {}, [] { return interrupted(); });
    Measurement m;
    if (!got.empty()) m = std::move(got.front());
    else m.config = c, m.error = "no answer from the kernel's worker";
    if (interrupted()) return interruptedExit();
    if (m.ok && !o.noCpu) {
      m.cpu = cpu;
      m.haveCpu = cpu.reps > 0;
      m.speedupVsCpu = m.haveCpu && m.endToEnd.median > 0 ? cpu.ms.median / m.endToEnd.median : 0;
    }
    m.launchFloorMs = floor.median;
    if (!m.ok) std::fprintf(stderr, "reducelab: error: your kernel %s was not measured: %s\n", o.kernelFile.c_str(), m.error.c_str());
    rows.push_back(std::move(m));
  }
  fillLadderSpeedups(rows);

  std::string text;
  if (format.writes & kWritesRecords) {
    SessionInfo s{backend->device(), peaks, o.argv, "reduce"};
    text = format.records(sessionJson(s, rows));
  } else {
    const Table t = matrix ? matrixTable(rows) : benchTable(rows, peaks);
    text = format.table(t);
    if (format.prose)  // the header lines above the table
      text = (matrix ? matrixHeader(backend->device(), peaks, base, *kernels.front())
                     : header(backend->device(), peaks, base, o.noCpu ? nullptr : &cpu, &floor)) + "\n" + text;
  }
  if (o.out.empty()) std::fputs(text.c_str(), stdout);
  else if (std::string e = writeTextAtomic(o.out, text); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  bool allOk = true;
  for (const Measurement& m : rows) allOk = allOk && (!m.ok || !m.haveReference || m.check.pass);
  if (!o.kernelFile.empty() && !rows.back().ok) allOk = false;
  return allOk ? 0 : 3;  // 3: a kernel computed a wrong result
}

}  // namespace rl::app
