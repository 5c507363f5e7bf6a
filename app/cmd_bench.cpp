// `reducelab bench`: the kernel ladder measured on this GPU, as a table, CSV, Markdown or JSON.
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "commands.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/formats.hpp"

namespace rl::app {

namespace {

std::string header(const DeviceInfo& d, const Peaks& p, const RunConfig& c, const CpuBaseline* cpu) {
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
  if (cpu && cpu->reps > 0) {
    std::snprintf(b, sizeof b, "CPU baseline (sequential loop, one core): %.3f ms, median of %d; result %s\n",
                  cpu->ms.median, cpu->reps, cpu->result.text().c_str());
    s += b;
  }
  return s;
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
  const auto format = o.format;
  if (format != "table" && format != "csv" && format != "json" && format != "md") {
    std::fprintf(stderr, "reducelab: error: --format '%s' is not one of: table, csv, json, md\n", format.c_str());
    return 2;
  }
  if (!o.out.empty()) {
    if (std::filesystem::exists(o.out) && !o.force) {
      std::fprintf(stderr, "reducelab: error: %s exists; add --force to overwrite it\n", o.out.c_str());
      return 1;
    }
  }
  // Device-independent checks first, so a typo is reported the same with or without a GPU.
  base.kernel = kernels.front()->key;
  if (kernels.size() == 1)
    if (std::string e = validate(base, nullptr); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 2;
    }

  const bool tty = isatty(fileno(stderr));
  std::unique_ptr<Engine> engine;
  if (!o.cpuOnly) {
    engine = Engine::create(0, &err);
    if (!engine) {
      std::fprintf(stderr,
                   "reducelab: error: bench needs an NVIDIA GPU (%s); --cpu-only runs the CPU "
                   "baseline alone\n",
                   err.c_str());
      return 1;
    }
  }
  if (tty) std::fprintf(stderr, "computing the exact reference and the CPU baseline...\n");
  const Reference ref = computeReference(base);
  CpuBaseline cpu;
  if (!o.noCpu || o.cpuOnly) cpu = runCpuBaseline(base, base.reps);

  if (o.cpuOnly) {
    std::string text = header(DeviceInfo{}, Peaks{}, base, &cpu);
    text += "Exact reference: " + fixed(double(ref.exact), 6) +
            (ref.overflow ? " (overflows the " + std::string(name(base.accType())) + " accumulator)" : "") + "\n";
    const Check k = checkResult(base, cpu.result, ref, base.n);
    text += "CPU loop error: " + sci(k.absError) + " absolute, " + sci(k.relError) + " relative\n";
    if (o.out.empty()) std::fputs(text.c_str(), stdout);
    else if (std::string e = writeTextAtomic(o.out, text); !e.empty()) {
      std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
      return 1;
    }
    return 0;
  }

  const Peaks peaks = engine->peaks(false);
  std::vector<Measurement> rows;
  MeasureOptions mo;
  mo.knownReference = &ref;
  mo.knownCpu = o.noCpu ? nullptr : &cpu;
  mo.cpuBaseline = false;
  for (size_t i = 0; i < kernels.size(); ++i) {
    RunConfig c = base;
    c.kernel = kernels[i]->key;
    if (tty) std::fprintf(stderr, "[%zu/%zu] %s %s\n", i + 1, kernels.size(), c.kernel.c_str(),
                          std::string(kernels[i]->name).c_str());
    rows.push_back(engine->measure(c, mo));
  }
  fillLadderSpeedups(rows);

  std::string text;
  if (format == "json") {
    SessionInfo s{engine->device(), peaks, o.argv, "reduce"};
    text = sessionJson(s, rows).dump(2) + "\n";
  } else {
    Table t = benchTable(rows, peaks);
    if (format == "csv") text = render(t, TableFormat::Csv);
    else if (format == "md") text = header(engine->device(), peaks, base, o.noCpu ? nullptr : &cpu) + "\n" + render(t, TableFormat::Markdown);
    else text = header(engine->device(), peaks, base, o.noCpu ? nullptr : &cpu) + "\n" + render(t, TableFormat::Text);
  }
  if (o.out.empty()) std::fputs(text.c_str(), stdout);
  else if (std::string e = writeTextAtomic(o.out, text); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  bool allOk = true;
  for (const Measurement& m : rows) allOk = allOk && (!m.ok || !m.haveReference || m.check.pass);
  return allOk ? 0 : 3;  // 3: a kernel computed a wrong result
}

}  // namespace rl::app
