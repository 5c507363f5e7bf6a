// `reducelab trace --kernel-file FILE.cu`: the student's kernel (docs/your-kernel.md) compiled, its first
// launch traced through the Compute Sanitizer patches in the worker process, and printed as
// `reducelab trace` prints a catalogue kernel's trace; the hazards found go to stderr.
#include <cstdio>

#include "cmd_usercode.hpp"
#include "interrupt.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/usercode/measure.hpp"
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
  if (o.instrumented || o.compare || o.cpuModel)
    return fail(2, "--kernel-file traces your kernel instrumented on the GPU: leave out --instrumented, --compare and --cpu-model");
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
  if (!o.remoteHost.empty() || !o.remoteCommand.empty()) {  // compiled, run and traced there, in its worker
    RunConfig c;
    c.kernel = std::string(kUserKernelKey);
    c.type = type, c.op = op, c.n = n, c.block = block, c.tracedBlock = o.tracedBlock;
    c.data = DataPattern::Uniform, c.seed = 1, c.rangeLo = -1000, c.rangeHi = 1000;
    TraceData t;
    std::string src;
    if (int rc = remoteTraceOf(o, c, &t, &src, source); rc != 0) return rc;
    std::fprintf(stderr, "note: the shared-memory hazards of the traced block are found by `reducelab check` (here, or on the GPU machine)\n");
    c.kernel = k.kernel;
    return writeTraceOutput(o, c, t, src + ": your kernel " + o.kernelFile);
  }
  uc::WorkerOptions w = userWorkerOptions();
  w.cancelled = [] { return interrupted(); };
  uc::KernelWorker worker(w);
  uc::UserTraceRequest q;
  q.source = source;
  q.file = o.kernelFile;
  q.config.type = type, q.config.op = op, q.config.n = n, q.config.block = block, q.config.tracedBlock = o.tracedBlock;
  q.config.data = DataPattern::Uniform, q.config.seed = 1, q.config.rangeLo = -1000, q.config.rangeHi = 1000;
  q.records = o.records;
  const uc::UserTrace out = uc::traceUserKernel(q, worker);
  worker.stop();
  for (const uc::Diagnostic& d : out.diagnostics) std::fprintf(stderr, "%s\n", d.text().c_str());
  if (!out.ok) return out.failure == 4 ? 4 : fail(out.failure, out.error);
  std::fprintf(stderr, "instrumented: %s, %llu blocks x %d threads, %llu records of block %llu, %d barrier phases\n",
               out.function.c_str(), (unsigned long long)out.grid, block, (unsigned long long)out.records,
               (unsigned long long)o.tracedBlock, out.phases);
  for (const std::string& note : out.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  for (const std::string& h : out.hazards) std::fprintf(stderr, "%s\n", h.c_str());
  RunConfig c = q.config;
  c.kernel = k.kernel;
  const std::string src = "gpu (" + out.device + "), instrumented: your kernel " + o.kernelFile + ", " +
                          std::to_string(out.records) + " records";
  const TraceData& t = out.data;
  return writeTraceOutput(o, c, t, src);
}

}  // namespace rl::app
