// `reducelab trace --kernel-file FILE.cu`: the student's kernel (docs/your-kernel.md) compiled, its first
// launch traced through the Compute Sanitizer patches in the worker process, and printed as
// `reducelab trace` prints a catalogue kernel's trace; the hazards found go to stderr.
#include <cstdio>

#include "cmd_usercode.hpp"
#include "interrupt.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/usercode/line_table.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/worker.hpp"

namespace rl::app {

namespace uc = rl::usercode;

namespace {

int fail(int code, const std::string& what) {
  std::fprintf(stderr, "reducelab: error: %s\n", what.c_str());
  return code;
}

}  // namespace

}  // namespace rl::app

namespace rl::app {

int runKernelFileTrace(const TraceOptions& o) {
  if (std::string why; !chooseOutputFormat(o.format, kWritesTables | kWritesRecords, &why)) return fail(2, why);
  if (o.instrumented || o.compare || o.cpuModel || !o.remoteHost.empty() || !o.remoteCommand.empty())
    return fail(2, "--kernel-file traces your kernel instrumented on this machine's GPU: leave out --instrumented, "
                   "--compare, --cpu-model and --remote");
  if (!o.out.empty())
    if (std::string e = checkOutputTarget(o.out, o.force); !e.empty()) return fail(1, e);
  std::string source;
  if (int rc = readKernelSource(o.kernelFile, &source)) return rc;
  const uc::ContractResult contract = uc::parseContract(source, o.kernelFile);
  if (!contract.ok()) {
    for (const uc::Diagnostic& d : contract.diagnostics) std::fprintf(stderr, "%s\n", d.text().c_str());
    return 4;
  }
  const uc::Contract& k = contract.contract;
  // --type, --op, --block as given (each must be claimed), else the kernel's first claim.
  ElemType type = k.types.front();
  Op op = k.ops.front();
  int block = k.blocks.front();
  if (o.typeGiven) {
    const auto t = parseElemType(o.run.type);
    if (!t) return fail(2, "--type '" + o.run.type + "' is not known");
    if (!k.claims(*t)) return fail(2, o.kernelFile + " does not claim " + o.run.type + " (// @reducelab types: ...)");
    type = *t;
  }
  if (o.opGiven) {
    const auto p = parseOp(o.run.op);
    if (!p) return fail(2, "--op '" + o.run.op + "' is not known");
    if (!k.claims(*p)) return fail(2, o.kernelFile + " does not claim " + o.run.op + " (// @reducelab ops: ...)");
    op = *p;
  }
  if (o.blockGiven) {
    if (!k.claimsBlock(o.run.block))
      return fail(2, o.kernelFile + " does not claim block " + std::to_string(o.run.block) + " (// @reducelab blocks: ...)");
    block = o.run.block;
  }
  uint64_t n = uc::hazardCheckSize(block);
  if (o.nGiven) {
    std::string err;
    const auto v = parseCount(o.run.n, &err);
    if (!v || *v == 0) return fail(2, "--n: " + (err.empty() ? std::string("N must be at least 1") : err));
    n = *v;
  }
  const uc::LaunchPlan plan = uc::planLaunch(k, type, n, block);
  if (!plan.error.empty()) return fail(2, plan.error);
  if (o.tracedBlock >= plan.passes.front().grid)
    return fail(2, "--traced-block " + std::to_string(o.tracedBlock) + ": the first launch has " +
                       std::to_string(plan.passes.front().grid) + " blocks");

  installInterruptHandler();
  uc::WorkerOptions w;
  w.cancelled = [] { return interrupted(); };
  uc::KernelWorker worker(w);
  const DeviceInfo device = worker.device();
  if (!device.available) return fail(1, "tracing your kernel needs a GPU: " + device.unavailableReason);
  if (std::string why = worker.tracer(); !why.empty()) return fail(1, "tracing your kernel needs the Compute Sanitizer: " + why);
  const int sm = device.ccMajor * 10 + device.ccMinor;
  const std::vector<uc::CompileResult> builds = uc::compileClaims(source, o.kernelFile, sm, {type}, {op}, "", true);
  const uc::CompileResult& build = builds.front();
  for (const uc::Diagnostic& d : build.diagnostics) std::fprintf(stderr, "%s\n", d.text().c_str());
  if (build.status == uc::CompileStatus::Environment) return fail(1, build.environmentError);
  if (!build.ok()) return 4;
  const uc::KernelBuild* kb = build.kernelFor(block);
  if (!kb) return fail(2, "no build of the kernel for block " + std::to_string(block));
  uc::RunRequest run;
  run.symbol = kb->loweredName;
  run.nBytes = kb->paramBytes[2];
  run.type = type;
  run.op = op;
  run.n = n;
  run.data.pattern = DataPattern::Uniform;
  run.data.seed = 1;
  run.data.lo = -1000;
  run.data.hi = 1000;
  run.plan = plan;
  run.traceBlock = int64_t(o.tracedBlock);
  run.traceRecords = o.records;
  const uc::RunOutcome out = worker.run(run, build.cubin);
  worker.stop();
  if (out.status != uc::RunOutcome::Status::Ok) return fail(out.status == uc::RunOutcome::Status::LaunchError ? 1 : 3, out.message);
  if (!out.traceError.empty()) return fail(1, "the trace: " + out.traceError);
  std::string err;
  const TraceData t = TraceData::fromBuffer(out.trace.data(), out.trace.size(), &err);
  if (!t.valid()) return fail(1, "the worker's trace is unreadable: " + err);
  std::fprintf(stderr, "instrumented: %s, %llu blocks x %d threads, %llu records of block %llu, %d barrier phases\n",
               out.tracedFunction.c_str(), (unsigned long long)plan.passes.front().grid, block,
               (unsigned long long)out.traceRecords, (unsigned long long)o.tracedBlock, out.tracePhases);
  for (const std::string& note : out.traceNotes) std::fprintf(stderr, "note: %s\n", note.c_str());
  std::string lineError;
  const uc::CubinLines lines = uc::CubinLines::read(build.cubin, &lineError);  // SASS offsets to the file's lines
  for (const instrumented::Hazard& h : out.hazards)
    std::fprintf(stderr, "%s: %s\n", h.severity == instrumented::Hazard::Severity::Failure ? "hazard" : "warning",
                 uc::withSourceLines(h.message, lines, out.tracedFunction, o.kernelFile).c_str());
  RunConfig c;
  c.kernel = k.kernel;
  c.type = type;
  c.op = op;
  c.n = n;
  c.block = block;
  c.tracedBlock = o.tracedBlock;
  const std::string src = "gpu (" + device.name + "), instrumented: your kernel " + o.kernelFile + ", " +
                          std::to_string(out.traceRecords) + " records";
  return writeTraceOutput(o, c, t, src);
}

}  // namespace rl::app
