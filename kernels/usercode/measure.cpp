// The user's kernel measured as a row like ours (measure.hpp).
#include "reducelab/usercode/measure.hpp"

#include <algorithm>
#include <filesystem>

#include "reducelab/occupancy.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/contract.hpp"
#include "reducelab/usercode/line_table.hpp"

namespace rl::usercode {

namespace {

FinalStage finalStageOf(UserFinal f) {
  switch (f) {
    case UserFinal::Cpu: return FinalStage::Cpu;
    case UserFinal::Atomic: return FinalStage::Atomic;
    case UserFinal::Gpu: break;
  }
  return FinalStage::Gpu;
}

template <class T>
bool claims(const std::vector<T>& list, T v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

}  // namespace

Measurement measureUserKernel(const UserMeasureRequest& q, KernelWorker& worker) {
  Measurement m;
  m.config = q.config;
  m.config.kernel = std::string(kUserKernelKey);
  m.kernelName = "your kernel (" + std::filesystem::path(q.file).filename().string() + ")";
  const RunConfig& c = q.config;
  auto fail = [&](std::string why) {
    m.ok = false;
    m.error = std::move(why);
    return m;
  };
  const ContractResult contract = parseContract(q.source, q.file);
  if (!contract.ok()) {
    std::string text;
    for (const Diagnostic& d : contract.diagnostics) text += (text.empty() ? "" : "\n") + d.text();
    return fail(text);
  }
  const Contract& k = contract.contract;
  if (!claims(k.types, c.type)) return fail("the kernel does not claim " + std::string(name(c.type)) + " (its @reducelab types)");
  if (!claims(k.ops, c.op)) return fail("the kernel does not claim " + std::string(name(c.op)) + " (its @reducelab ops)");
  if (!claims(k.blocks, c.block)) return fail("the kernel does not claim block " + std::to_string(c.block) + " (its @reducelab blocks)");
  if (c.accumulate != Accumulate::Same) return fail("a kernel of your own accumulates in its element type (--accumulate same)");
  if (c.timing != TimingMode::Blocked)
    return fail("your kernel is timed as ours are by default, the stream held until its launches are enqueued (--timing blocked)");
  const DeviceInfo device = worker.device();
  if (!device.available) return fail("running your kernel needs a GPU: " + device.unavailableReason);
  const int sm = q.sm ? q.sm : device.ccMajor * 10 + device.ccMinor;
  const std::vector<CompileResult> builds = compileClaims(q.source, q.file, sm, {c.type}, {c.op}, q.cacheDir, q.useCache);
  if (builds.empty()) return fail("nothing was compiled");
  const CompileResult& build = builds.front();
  if (build.status == CompileStatus::Environment) return fail(build.environmentError);
  if (!build.ok()) {
    std::string text;
    for (const Diagnostic& d : build.diagnostics)
      if (d.severity == Severity::Error) text += (text.empty() ? "" : "\n") + d.text();
    return fail(text.empty() ? "the kernel did not compile" : text);
  }
  const KernelBuild* kb = build.kernelFor(c.block);
  if (!kb) return fail("no build of the kernel for block " + std::to_string(c.block));
  const LaunchPlan plan = planLaunch(k, c.type, c.n, c.block);
  if (!plan.error.empty()) return fail(plan.error);
  if (std::string tooBig = nDoesNotFit(*kb, c.n); !tooBig.empty()) return fail(tooBig);

  CheckCase cc;  // the row as a case of the battery: judged as `check` judges one
  cc.type = c.type, cc.op = c.op, cc.block = c.block, cc.n = c.n, cc.spec = DataSpec{c.data, c.seed, c.rangeLo, c.rangeHi};
  RunRequest run = runRequestFor(*kb, cc, plan);
  run.timedReps = std::clamp(c.reps, 1, kMaxTimedReps);
  run.timedWarmups = std::clamp(c.warmup, 0, kMaxTimedWarmups);
  run.warmL2 = c.warmL2;
  const RunOutcome o = worker.run(run, build.cubin);
  if (o.status != RunOutcome::Status::Ok) return fail(o.message);
  if (o.repMs.empty() || o.repEndToEndMs.size() != o.repMs.size()) return fail("the worker gave no repetition times");

  m.geometry.final = finalStageOf(plan.final);
  m.geometry.block = unsigned(plan.block);
  m.geometry.smemBytes = plan.dynamicSharedBytes;
  for (const Pass& p : plan.passes) m.geometry.passGrids.push_back(p.grid);
  m.geometry.partials = plan.final == UserFinal::Cpu ? plan.cpuValues : 1;
  m.geometry.policySource = "your kernel's contract";
  if (kb->resources.known) {
    m.resources.registers = kb->resources.registers;
    m.resources.staticSmemBytes = kb->resources.staticSharedBytes;
    m.resources.localBytes = kb->resources.stackBytes;
  }
  m.resources.dynamicSmemBytes = int(plan.dynamicSharedBytes);
  if (kb->resources.known) {  // the calculator over what ptxas reported, as for ours (occupancy.hpp)
    const OccupancyResult occ = computeOccupancy(
        device, OccupancyInput{c.block, m.resources.registers, m.resources.staticSmemBytes + m.resources.dynamicSmemBytes});
    m.resources.activeBlocksPerSM = occ.activeBlocks;
    m.resources.occupancy = occ.occupancy;
    m.resources.limiter = occ.limiter;
    if (occ.activeBlocks > 0 && device.smCount > 0 && !plan.passes.empty())
      m.resources.waves = double(plan.passes.front().grid) / (double(occ.activeBlocks) * device.smCount);
  }
  m.kernelMs = o.repMs;
  m.endToEndMs = o.repEndToEndMs;
  m.enqueueTimeouts = o.enqueueTimeouts;
  m.kernel = Stats::of(m.kernelMs);
  m.endToEnd = Stats::of(m.endToEndMs);
  m.result = valueFromBits(c.type, o.resultBits);
  m.distinctResults = {m.result.text()};  // the checked run's (the timed ones are not read back)
  m.bytesRead = double(c.n) * double(elemBytes(c.type));
  m.bandwidthGBs = m.kernel.median > 0 ? m.bytesRead / (m.kernel.median * 1e-3) / 1e9 : 0;
  m.endToEndGBs = m.endToEnd.median > 0 ? m.bytesRead / (m.endToEnd.median * 1e-3) / 1e9 : 0;
  m.pctTheoretical = q.peaks.theoreticalGBs > 0 ? 100.0 * m.bandwidthGBs / q.peaks.theoreticalGBs : 0;
  m.pctMeasuredRead = q.peaks.readGBs > 0 ? 100.0 * m.bandwidthGBs / q.peaks.readGBs : 0;
  m.reference = q.knownReference ? *q.knownReference : computeReference(c);
  m.haveReference = true;
  // The verdict of `check` for this run: the value, and what the guard zones and the input found.
  const CaseResult judged = judgeCase(cc, plan, o, m.reference);
  m.check = checkResult(c, m.result, m.reference, plan.chainBound);
  if (judged.verdict != Verdict::Pass) {
    m.check.pass = false;
    m.check.note = judged.note;
    for (const std::string& f : judged.findings) m.check.note += "; " + f;
  }
  m.ok = true;
  return m;
}

}  // namespace rl::usercode

namespace rl::usercode {

UserTrace traceUserKernel(const UserTraceRequest& q, KernelWorker& worker) {
  UserTrace t;
  const RunConfig& c = q.config;
  t.config = c;
  t.config.kernel = std::string(kUserKernelKey);
  auto fail = [&](int failure, std::string why) {
    t.ok = false;
    t.failure = failure;
    t.error = std::move(why);
    return t;
  };
  const ContractResult contract = parseContract(q.source, q.file);
  if (!contract.ok()) {
    t.diagnostics = contract.diagnostics;
    return fail(4, "the kernel's contract has errors");
  }
  const Contract& k = contract.contract;
  if (!claims(k.types, c.type)) return fail(2, q.file + " does not claim " + std::string(name(c.type)) + " (// @reducelab types: ...)");
  if (!claims(k.ops, c.op)) return fail(2, q.file + " does not claim " + std::string(name(c.op)) + " (// @reducelab ops: ...)");
  if (!claims(k.blocks, c.block)) return fail(2, q.file + " does not claim block " + std::to_string(c.block) + " (// @reducelab blocks: ...)");
  const LaunchPlan plan = planLaunch(k, c.type, c.n, c.block);
  if (!plan.error.empty()) return fail(2, plan.error);
  if (c.tracedBlock >= plan.passes.front().grid)
    return fail(2, "traced block " + std::to_string(c.tracedBlock) + ": the first launch has " +
                       std::to_string(plan.passes.front().grid) + " blocks");
  const DeviceInfo device = worker.device();
  if (!device.available) return fail(1, "tracing your kernel needs a GPU: " + device.unavailableReason);
  if (std::string why = worker.tracer(); !why.empty()) return fail(1, "tracing your kernel needs the Compute Sanitizer: " + why);
  t.device = device.name;
  const int sm = q.sm ? q.sm : device.ccMajor * 10 + device.ccMinor;
  const std::vector<CompileResult> builds = compileClaims(q.source, q.file, sm, {c.type}, {c.op}, q.cacheDir, q.useCache);
  if (builds.empty()) return fail(4, "nothing was compiled");
  const CompileResult& build = builds.front();
  t.diagnostics = build.diagnostics;
  t.compileLog = build.log;
  if (build.status == CompileStatus::Environment) return fail(1, build.environmentError);
  if (!build.ok()) return fail(4, "the kernel did not compile");
  const KernelBuild* kb = build.kernelFor(c.block);
  if (!kb) return fail(2, "no build of the kernel for block " + std::to_string(c.block));
  RunRequest run;
  run.symbol = kb->loweredName;
  run.nBytes = kb->paramBytes[2];
  run.type = c.type;
  run.op = c.op;
  run.n = c.n;
  run.data.pattern = c.data;
  run.data.seed = c.seed;
  run.data.lo = c.rangeLo;
  run.data.hi = c.rangeHi;
  run.plan = plan;
  run.traceBlock = int64_t(c.tracedBlock);
  run.traceRecords = q.records;
  const RunOutcome out = worker.run(run, build.cubin);
  if (out.status != RunOutcome::Status::Ok) return fail(out.status == RunOutcome::Status::LaunchError ? 1 : 3, out.message);
  if (!out.traceError.empty()) return fail(1, "the trace: " + out.traceError);
  std::string err;
  t.data = TraceData::fromBuffer(out.trace.data(), out.trace.size(), &err);
  if (!t.data.valid()) return fail(1, "the worker's trace is unreadable: " + err);
  t.bytes = out.trace;
  t.function = out.tracedFunction;
  t.grid = plan.passes.front().grid;
  t.records = out.traceRecords;
  t.phases = out.tracePhases;
  t.notes = out.traceNotes;
  std::string lineError;
  const CubinLines lines = CubinLines::read(build.cubin, &lineError);  // SASS offsets to the file's lines
  for (const instrumented::Hazard& h : out.hazards)
    t.hazards.push_back(std::string(h.severity == instrumented::Hazard::Severity::Failure ? "hazard" : "warning") + ": " +
                        withSourceLines(h.message, lines, out.tracedFunction, q.file));
  t.ok = true;
  return t;
}

}  // namespace rl::usercode
