// The battery of `reducelab check`: its cases, their verdicts, and the check that runs them.
#include "reducelab/usercode/battery.hpp"

#include "reducelab/usercode/line_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "reducelab/trace.hpp"

namespace rl::usercode {

std::string_view name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "fail";
    case Verdict::Crash: return "crash";
    case Verdict::Timeout: return "timeout";
    case Verdict::Skipped: return "skipped";
    case Verdict::NotRun: break;
  }
  return "not-run";
}

std::string CheckCase::label() const {
  return std::string(name(type)) + " " + std::string(name(op)) + ", block " + std::to_string(block) + ", N=" +
         formatCount(n) + ", " + data;
}

std::vector<uint64_t> batterySizes(int block, bool large) {
  std::vector<uint64_t> n = {1, 2, 31, 33, uint64_t(block) - 1, uint64_t(block) + 1, (uint64_t(1) << 20) + 7,
                             uint64_t(1) << 24};
  if (large) n.push_back((uint64_t(1) << 31) + 7);
  n.erase(std::remove(n.begin(), n.end(), uint64_t(0)), n.end());
  std::sort(n.begin(), n.end());
  n.erase(std::unique(n.begin(), n.end()), n.end());
  return n;
}

std::vector<DataCase> batteryData(ElemType type, Op op) {
  std::vector<DataCase> d;
  const bool wide = type == ElemType::Int64 || type == ElemType::Float64;
  // Sums: values of both signs (floats: [0, 1), their rounding). Min and max: so many possible
  // values that the extreme is mostly one element, which a kernel that skips some often misses.
  const DataCase random =
      op != Op::Sum  ? DataCase{"random", DataPattern::IntRange, -1000000000, 1000000000,
                               "integers in [-10^9, 10^9], a fresh seed each check: the extreme is mostly unique"}
      : isFloat(type) ? DataCase{"random", DataPattern::Uniform, 0, 0, "uniform in [0, 1), a fresh seed each check"}
                      : DataCase{"random", DataPattern::IntRange, -1000000, 1000000,
                                 "integers in [-10^6, 10^6], a fresh seed each check"};
  switch (op) {
    case Op::Sum:
      d.push_back({"ones", DataPattern::Ones, 0, 0, "the sum is N: every element counted exactly once"});
      d.push_back(random);
      if (type == ElemType::Int32)
        d.push_back({"wide values", DataPattern::IntRange, int64_t(1) << 24, int64_t(1) << 25,
                     "partial sums pass 2^31: int32 arithmetic wraps, as the reference does"});
      if (type == ElemType::Int64)
        d.push_back({"wide values", DataPattern::IntRange, int64_t(1) << 32, int64_t(1) << 33,
                     "each value overflows a 32-bit accumulator"});
      if (type == ElemType::Float64)
        d.push_back({"wide values", DataPattern::IntRange, int64_t(1) << 25, int64_t(1) << 26,
                     "integers a float accumulator cannot hold exactly"});
      break;
    case Op::Min:
      d.push_back({"all positive", DataPattern::IntRange, 1, 1000000, "an identity of 0 instead of +inf gives 0"});
      d.push_back(random);
      if (wide)
        d.push_back({"wide values", DataPattern::IntRange, int64_t(1) << 32, int64_t(1) << 33,
                     "a 32-bit accumulator truncates them"});
      break;
    case Op::Max:
      d.push_back({"all negative", DataPattern::IntRange, -1000000, -1, "an identity of 0 instead of -inf gives 0"});
      d.push_back(random);
      if (wide)
        d.push_back({"wide values", DataPattern::IntRange, -(int64_t(1) << 33), -(int64_t(1) << 32),
                     "a 32-bit accumulator truncates them"});
      break;
  }
  return d;
}

std::vector<CheckCase> planBattery(const Contract& c, const BatteryOptions& o, std::string* error) {
  auto listText = [](const auto& v, auto f) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + std::string(f(x));
    return s;
  };
  for (ElemType t : o.types)
    if (!c.claims(t))
      return *error = std::string(name(t)) + " is not a type the kernel claims (" +
                      listText(c.types, [](ElemType x) { return name(x); }) + "; see `// @reducelab types:`)",
             std::vector<CheckCase>{};
  for (Op x : o.ops)
    if (!c.claims(x))
      return *error = std::string(name(x)) + " is not an operation the kernel claims (" +
                      listText(c.ops, [](Op y) { return name(y); }) + "; see `// @reducelab ops:`)",
             std::vector<CheckCase>{};
  for (int b : o.blocks)
    if (!c.claimsBlock(b))
      return *error = "block " + std::to_string(b) + " is not a block size the kernel claims (" +
                      listText(c.blocks, [](int y) { return std::to_string(y); }) + "; see `// @reducelab blocks:`)",
             std::vector<CheckCase>{};
  std::vector<CheckCase> out;
  for (ElemType t : o.types.empty() ? c.types : o.types)
    for (Op op : o.ops.empty() ? c.ops : o.ops)
      for (int b : o.blocks.empty() ? c.blocks : o.blocks)
        for (uint64_t n : batterySizes(b, o.large))
          for (const DataCase& d : batteryData(t, op)) {
            CheckCase k;
            k.index = int(out.size());
            k.type = t;
            k.op = op;
            k.block = b;
            k.n = n;
            k.data = d.name;
            k.spec.pattern = d.pattern;
            k.spec.lo = d.lo;
            k.spec.hi = d.hi;
            k.spec.seed = mix64(o.seed ^ mix64(uint64_t(k.index) + 1));
            out.push_back(k);
          }
  return out;
}

Value valueFromBits(ElemType t, uint64_t bits) {
  Value v;
  switch (t) {
    case ElemType::Int32: {
      int32_t x;
      std::memcpy(&x, &bits, 4);
      v.isInt = true, v.i = x;
      break;
    }
    case ElemType::Int64: {
      int64_t x;
      std::memcpy(&x, &bits, 8);
      v.isInt = true, v.i = x;
      break;
    }
    case ElemType::Float32: {
      float x;
      std::memcpy(&x, &bits, 4);
      v.f = x;
      break;
    }
    case ElemType::Float64: {
      double x;
      std::memcpy(&x, &bits, 8);
      v.f = x;
      break;
    }
  }
  return v;
}

RunRequest runRequestFor(const KernelBuild& k, const CheckCase& c, const LaunchPlan& plan) {
  RunRequest run;
  run.symbol = k.loweredName;
  run.nBytes = k.paramBytes[2];
  run.type = c.type;
  run.op = c.op;
  run.n = c.n;
  run.data = c.spec;
  run.plan = plan;
  return run;
}

std::string nDoesNotFit(const KernelBuild& k, uint64_t n) {
  if (k.paramBytes[2] != 4 || n <= ((k.nSigned || !k.nSignKnown) ? 0x7fffffffull : 0xffffffffull)) return {};
  return std::string("the kernel's n is a 32-bit ") + (k.nSigned ? "int" : "integer") + ": N=" + formatCount(n) +
         " does not fit (take a size_t n for larger N)";
}

namespace {

RunConfig configOf(const CheckCase& c) {
  RunConfig r;
  r.type = c.type;
  r.op = c.op;
  r.accumulate = Accumulate::Same;
  r.n = c.n;
  r.data = c.spec.pattern;
  r.seed = c.spec.seed;
  r.rangeLo = c.spec.lo;
  r.rangeHi = c.spec.hi;
  return r;
}

std::string exactText(long double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17Lg", x);
  return b;
}

}  // namespace

CaseResult judgeCase(const CheckCase& c, const LaunchPlan& plan, const RunOutcome& run, const Reference& ref) {
  CaseResult r;
  r.c = c;
  r.kernelMs = run.kernelMs;
  r.launches = plan.passes.size();
  switch (run.status) {
    case RunOutcome::Status::Ok: break;
    case RunOutcome::Status::LaunchError: r.verdict = Verdict::Fail, r.note = run.message; return r;
    case RunOutcome::Status::Fault: r.verdict = Verdict::Crash, r.note = run.message; return r;
    case RunOutcome::Status::Timeout: r.verdict = Verdict::Timeout, r.note = run.message; return r;
    case RunOutcome::Status::Skipped: r.verdict = Verdict::Skipped, r.note = run.message; return r;
    case RunOutcome::Status::WorkerError: r.verdict = Verdict::Crash, r.note = run.message; return r;
  }
  const Value got = valueFromBits(c.type, run.resultBits);
  const Check k = checkResult(configOf(c), got, ref, plan.chainBound);
  r.got = got.text();
  const bool floatSum = isFloat(c.type) && c.op == Op::Sum;
  r.expected = floatSum ? exactText(ref.exact) : ref.expected.text();
  if (floatSum && k.tolerance > 0) {
    char tol[48];
    std::snprintf(tol, sizeof tol, " +- %.3g", k.tolerance);
    r.expected += tol;
  }
  r.note = k.note;
  if (!k.pass && !floatSum) r.note = "wrong value";
  if (!k.pass) {  // a value made of the fill byte: said, since it names the mistake
    uint64_t fill = 0;
    for (size_t b = 0; b < elemBytes(c.type); ++b) fill |= uint64_t(kFillByte) << (8 * b);
    if (run.resultBits == fill)
      r.note = plan.zeroedOutput
                   ? "wrong value: every byte is 0x7f, ReduceLab's fill of the guard zones around each buffer: the kernel read "
                     "past the end of its input (or of a launch's partials)"
                   : "wrong value: every byte is 0x7f, ReduceLab's fill of the guard zones around each buffer and of outputs not "
                     "yet written: the kernel read past the end of its input (or of a launch's partials), or never wrote its result";
  }
  for (const GuardFinding& g : run.guards) r.findings.push_back("guard zone: " + g.text());
  if (run.inputChanged > 0)
    r.findings.push_back("input: the kernel changed " + std::to_string(run.inputChanged) + " of its " + std::to_string(c.n) +
                         " input elements (the first at element " + std::to_string(run.firstInputChange) +
                         "); `in` is const");
  r.verdict = k.pass && r.findings.empty() ? Verdict::Pass : Verdict::Fail;
  r.valueRight = k.pass;
  return r;
}

std::string CaseResult::text() const {
  std::string v(name(verdict));
  for (char& ch : v) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  v.resize(std::max<size_t>(v.size(), 7), ' ');
  std::string s = v + " " + c.label();
  if (verdict == Verdict::Pass || verdict == Verdict::Fail) {
    if (!got.empty()) s += ": got " + got + ", expected " + expected + (note.empty() ? "" : " (" + note + ")");
    else if (!note.empty()) s += ": " + note;
  } else if (!note.empty()) {
    s += ": " + note;
  }
  for (size_t i = 0; i < findings.size(); ++i) s += (i == 0 && valueRight ? ", but " : "; ") + findings[i];
  return s;
}

int CheckReport::exitCode() const {
  switch (status) {
    case CheckStatus::Ran:
      return summary.failed + summary.crashed + summary.timedOut + summary.notRun + hazards.failures() > 0 ? 3 : 0;
    case CheckStatus::CompileError: return 4;
    case CheckStatus::Usage: return 2;
    case CheckStatus::Environment:
    case CheckStatus::Cancelled: break;
  }
  return 1;
}

std::string CheckReport::summaryText() const {
  const CheckSummary& s = summary;
  std::string t = file + ": " + std::to_string(s.passed) + " of " + std::to_string(s.total()) + " cases passed";
  auto part = [&](int n, const char* what) {
    if (n > 0) t += ", " + std::to_string(n) + " " + what;
  };
  part(s.failed, "failed");
  part(s.crashed, "crashed");
  part(s.timedOut, "timed out");
  part(s.skipped, "skipped");
  part(s.notRun, "not run");
  if (hazards.ran) {
    const int f = hazards.failures(), w = int(hazards.hazards.size()) - f;
    t += f || w ? "; hazard check: " + std::to_string(f) + " hazard" + (f == 1 ? "" : "s") +
                      (w ? ", " + std::to_string(w) + " warning" + (w == 1 ? "" : "s") : "")
                : "; hazard check: no hazard";
  }
  if (timing.ran) {
    char b[96];
    const TimedRow* cub = timing.cub();
    if (cub && timing.yours.ms.median > 0)
      std::snprintf(b, sizeof b, "; %.1f GB/s, %.0f %% of CUB's speed", timing.yours.gbs, 100.0 * cub->ms.median / timing.yours.ms.median);
    else
      std::snprintf(b, sizeof b, "; %.1f GB/s", timing.yours.gbs);
    t += b;
  }
  return t + " (seed " + std::to_string(seed) + ")";
}

uint64_t hazardCheckSize(int block) { return uint64_t(block) * 64 + 7; }

const std::vector<std::string>& timingCompanions() {
  static const std::vector<std::string> keys = {"cub", "k10", "k12", "k13", "k14"};
  return keys;
}

const TimedRow* TimingCheck::cub() const {
  for (const TimedRow& r : others)
    if (r.key == "cub" && r.error.empty()) return &r;
  return nullptr;
}

const TimedRow* TimingCheck::fastestOfOurs() const {
  const TimedRow* best = nullptr;
  for (const TimedRow& r : others)
    if (r.key != "cub" && r.error.empty() && r.ms.count > 0 && (!best || r.ms.median < best->ms.median)) best = &r;
  return best;
}

std::string TimingCheck::text() const {
  if (!ran) return "timing not run: " + why;
  char line[256];
  std::snprintf(line, sizeof line, "timing (%s %s, N=%s, block %d, random data; median of %d after %d warm-up, %s L2):",
                std::string(name(c.type)).c_str(), std::string(name(c.op)).c_str(), formatCount(c.n).c_str(), c.block, reps,
                warmups, warmL2 ? "warm" : "cold (flushed)");
  std::string t = line;
  const TimedRow* cubRow = cub();
  auto row = [&](const TimedRow& r, const std::string& extra) {
    if (!r.error.empty()) {
      std::snprintf(line, sizeof line, "\n  %-28s not measured: %s", r.label.c_str(), r.error.c_str());
    } else {
      std::snprintf(line, sizeof line, "\n  %-28s %9.4f ms (min %.4f, max %.4f)  %8.1f GB/s%s", r.label.c_str(), r.ms.median,
                    r.ms.min, r.ms.max, r.gbs, extra.c_str());
    }
    t += line;
  };
  std::string vsCub;
  if (cubRow && yours.ms.median > 0) {
    char b[64];
    std::snprintf(b, sizeof b, "  %.0f %% of CUB's speed", 100.0 * cubRow->ms.median / yours.ms.median);
    vsCub = b;
  }
  row(yours, vsCub);
  if (cubRow) row(*cubRow, "");
  if (const TimedRow* best = fastestOfOurs()) row(*best, "  (our fastest here)");
  for (const TimedRow& r : others)
    if (!r.error.empty()) row(r, "");
  if (enqueueTimeouts)
    t += "\n  note: in " + std::to_string(enqueueTimeouts) + " repetitions the launches took longer to enqueue than the stream was held";
  return t;
}

int HazardCheck::failures() const {
  return int(std::count_if(hazards.begin(), hazards.end(),
                           [](const instrumented::Hazard& h) { return h.severity == instrumented::Hazard::Severity::Failure; }));
}

std::string HazardCheck::text() const {
  if (!ran) return "hazard check not run: " + why;
  std::string t = "hazard check (" + c.label() + ", block 0 of the first launch traced: " + std::to_string(records) +
                  " records, " + std::to_string(phases) + " barrier phases): ";
  if (hazards.empty()) t += "no shared-memory race found";
  if (banksKnown)
    t += "\n  shared memory of the traced block: " + std::to_string(wavefronts) + " wavefronts, " + std::to_string(idealWavefronts) +
         " without bank conflicts" + (bankConflicts ? " (" + std::to_string(bankConflicts) + " more from conflicts)" : std::string());
  for (const instrumented::Hazard& h : hazards)
    t += std::string("\n  ") + (h.severity == instrumented::Hazard::Severity::Failure ? "FAIL " : "warning: ") + h.message;
  if (suppressed) t += "\n  (" + std::to_string(suppressed) + " more pairs of instructions not shown)";
  return t;
}

std::vector<CompileResult> compileClaims(const std::string& source, const std::string& file, int sm,
                                         const std::vector<ElemType>& types, const std::vector<Op>& ops,
                                         const std::string& cacheDir, bool useCache) {
  std::vector<CompileResult> out;
  for (ElemType t : types)
    for (Op o : ops) {
      CompileRequest q;
      q.source = source;
      q.file = file;
      q.type = t;
      q.op = o;
      q.sm = sm;
      q.cacheDir = cacheDir;
      q.useCache = useCache;
      out.push_back(compileUserKernel(q));
      // Contract errors and a missing NVRTC are the same for every build: one is enough.
      if (out.back().status == CompileStatus::Environment ||
          (out.back().status == CompileStatus::ContractError && out.back().kernels.empty()))
        return out;
    }
  return out;
}

std::vector<Diagnostic> mergedDiagnostics(const std::vector<CompileResult>& builds) {
  std::vector<Diagnostic> out;
  for (const CompileResult& b : builds)
    for (const Diagnostic& d : b.diagnostics)
      if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  return out;
}

CheckReport runCheck(const CheckRequest& q, KernelWorker& worker, const CheckHooks& hooks) {
  CheckReport rep;
  rep.file = q.file;
  rep.seed = q.battery.seed;
  ContractResult contract = parseContract(q.source, q.file);
  rep.contract = contract.contract;
  if (!contract.ok()) {
    rep.diagnostics = contract.diagnostics;
    rep.status = CheckStatus::CompileError;
    return rep;
  }
  std::string error;
  const std::vector<CheckCase> cases = planBattery(rep.contract, q.battery, &error);
  if (!error.empty()) {
    rep.status = CheckStatus::Usage;
    rep.error = error;
    return rep;
  }
  rep.device = worker.device();
  rep.sm = q.sm ? q.sm : rep.device.available ? rep.device.ccMajor * 10 + rep.device.ccMinor : 90;
  const std::vector<ElemType> types = q.battery.types.empty() ? rep.contract.types : q.battery.types;
  const std::vector<Op> ops = q.battery.ops.empty() ? rep.contract.ops : q.battery.ops;
  rep.builds = compileClaims(q.source, q.file, rep.sm, types, ops, q.cacheDir, q.useCache);
  rep.diagnostics = mergedDiagnostics(rep.builds);
  for (const CompileResult& b : rep.builds) {
    if (!b.nvrtcVersion.empty()) rep.nvrtcVersion = b.nvrtcVersion;
    if (b.status == CompileStatus::Environment) {
      rep.status = CheckStatus::Environment;
      rep.error = b.environmentError;
      return rep;
    }
  }
  if (std::any_of(rep.builds.begin(), rep.builds.end(), [](const CompileResult& b) { return !b.ok(); })) {
    rep.status = CheckStatus::CompileError;
    return rep;
  }
  if (!rep.device.available) {
    rep.status = CheckStatus::Environment;
    rep.error = "the kernel compiled for " + archName(rep.sm) + "; running it needs a GPU: " + rep.device.unavailableReason;
    return rep;
  }
  rep.status = CheckStatus::Ran;
  if (hooks.onCompiled) hooks.onCompiled(rep);
  const int restartsBefore = worker.restarts();
  std::string stoppedBy;  // the case that crashed or hung: later cases are not run
  for (const CheckCase& c : cases) {
    if (hooks.cancelled && hooks.cancelled()) {
      rep.status = CheckStatus::Cancelled;
      rep.error = "cancelled after " + std::to_string(rep.cases.size()) + " cases";
      break;
    }
    const CompileResult& build = *std::find_if(rep.builds.begin(), rep.builds.end(), [&](const CompileResult& b) {
      return b.type == c.type && b.op == c.op;
    });
    const LaunchPlan plan = planLaunch(rep.contract, c.type, c.n, c.block);
    CaseResult r;
    r.c = c;
    const KernelBuild* k = build.kernelFor(c.block);
    if (!stoppedBy.empty()) {
      r.verdict = Verdict::NotRun;
      r.note = "not run: " + stoppedBy;
    } else if (!plan.error.empty()) {
      r.verdict = Verdict::Fail;
      r.note = plan.error;
    } else if (!k) {
      r.verdict = Verdict::Crash;
      r.note = "no build of the kernel for block " + std::to_string(c.block);
    } else if (std::string tooBig = nDoesNotFit(*k, c.n); !tooBig.empty()) {
      r.verdict = Verdict::Skipped;
      r.note = tooBig;
    } else {
      const RunOutcome o = worker.run(runRequestFor(*k, c, plan), build.cubin);
      if (hooks.cancelled && hooks.cancelled()) {  // the run was stopped for it: no verdict
        rep.status = CheckStatus::Cancelled;
        rep.error = "cancelled after " + std::to_string(rep.cases.size()) + " cases";
        break;
      }
      const Reference ref = o.status == RunOutcome::Status::Ok ? computeReference(configOf(c)) : Reference{};
      r = judgeCase(c, plan, o, ref);
      if (r.verdict == Verdict::Crash || r.verdict == Verdict::Timeout)
        stoppedBy = "case " + std::to_string(c.index + 1) + " (" + c.label() + ") " +
                    (r.verdict == Verdict::Crash ? "crashed" : "timed out");
    }
    switch (r.verdict) {
      case Verdict::Pass: ++rep.summary.passed; break;
      case Verdict::Fail: ++rep.summary.failed; break;
      case Verdict::Crash: ++rep.summary.crashed; break;
      case Verdict::Timeout: ++rep.summary.timedOut; break;
      case Verdict::Skipped: ++rep.summary.skipped; break;
      case Verdict::NotRun: ++rep.summary.notRun; break;
    }
    rep.cases.push_back(r);
    if (hooks.onCase) hooks.onCase(rep.cases.back());
  }
  // The hazard check: one traced launch, after the cases (a kernel that hung is not traced).
  if (rep.status == CheckStatus::Ran && !(hooks.cancelled && hooks.cancelled())) {
    HazardCheck& hc = rep.hazards;
    const bool hung = rep.summary.timedOut > 0;
    const std::string tracer = hung ? std::string() : worker.tracer();
    const CheckCase* first = cases.empty() ? nullptr : &cases.front();
    if (hung) hc.why = "a case timed out: a kernel that does not finish cannot be traced";
    else if (!tracer.empty()) hc.why = tracer;
    else if (!first) hc.why = "no case to trace";
    if (hc.why.empty()) {
      hc.c = *first;
      hc.c.n = hazardCheckSize(first->block);
      hc.c.data = "random";
      hc.c.spec.pattern = DataPattern::Uniform;
      const CompileResult& build = *std::find_if(rep.builds.begin(), rep.builds.end(), [&](const CompileResult& b) {
        return b.type == hc.c.type && b.op == hc.c.op;
      });
      const KernelBuild* k = build.kernelFor(hc.c.block);
      const LaunchPlan plan = planLaunch(rep.contract, hc.c.type, hc.c.n, hc.c.block);
      if (!k || !plan.error.empty()) {
        hc.why = !k ? "no build for block " + std::to_string(hc.c.block) : plan.error;
      } else {
        RunRequest run = runRequestFor(*k, hc.c, plan);
        run.traceBlock = 0;
        const RunOutcome o = worker.run(run, build.cubin);
        if (o.status != RunOutcome::Status::Ok) hc.why = "the traced run: " + o.message;
        else if (!o.traceError.empty()) hc.why = "the trace: " + o.traceError;
        else {
          hc.ran = true;
          hc.function = o.tracedFunction;
          hc.records = o.traceRecords;
          hc.phases = o.tracePhases;
          hc.hazards = o.hazards;
          // SASS offsets to the lines of the user's file (NVRTC wrote the line table).
          std::string lineError;
          const CubinLines lines = CubinLines::read(build.cubin, &lineError);
          for (instrumented::Hazard& x : hc.hazards) {
            x.message = withSourceLines(x.message, lines, o.tracedFunction, rep.file);
            for (instrumented::HazardAccess* a : {&x.first, &x.second}) {
              char mark[40];
              std::snprintf(mark, sizeof mark, "SASS +0x%llx", (unsigned long long)a->pc);
              const std::string placed = withSourceLines(mark, lines, o.tracedFunction, rep.file);
              if (placed.rfind("line ", 0) == 0) a->line = std::atoi(placed.c_str() + 5);
            }
          }
          hc.suppressed = o.hazardsSuppressed;
          hc.notes = o.traceNotes;
          std::string traceError;
          if (const TraceData t = TraceData::fromBuffer(o.trace.data(), o.trace.size(), &traceError); t.valid()) {
            const TraceSummary s = summarize(t);
            hc.banksKnown = true;
            hc.trace = o.trace;
            hc.wavefronts = s.totalWavefronts;
            hc.idealWavefronts = s.totalIdealWavefronts;
            hc.bankConflicts = s.loadConflicts() + s.storeConflicts();
          }
        }
      }
    }
    if (hooks.cancelled && hooks.cancelled()) {  // stopped during the traced run: no verdict of it
      rep.status = CheckStatus::Cancelled;
      rep.error = "cancelled during the hazard check";
    } else if (hooks.onHazards) {
      hooks.onHazards(hc);
    }
  }
  // The first wrong case traced as it ran (the views open on it in the window).
  if (rep.status == CheckStatus::Ran && !(hooks.cancelled && hooks.cancelled())) {
    FailureTrace& ft = rep.failureTrace;
    const auto wrong = std::find_if(rep.cases.begin(), rep.cases.end(), [](const CaseResult& r) { return r.verdict == Verdict::Fail; });
    const std::string tracer = wrong == rep.cases.end() || rep.summary.timedOut > 0 ? std::string() : worker.tracer();
    if (wrong == rep.cases.end()) ft.why = "";
    else if (rep.summary.timedOut > 0) ft.why = "a case timed out: a kernel that does not finish cannot be traced";
    else if (!tracer.empty()) ft.why = tracer;
    else {
      ft.c = wrong->c;
      const CompileResult& build = *std::find_if(rep.builds.begin(), rep.builds.end(), [&](const CompileResult& b) {
        return b.type == ft.c.type && b.op == ft.c.op;
      });
      const KernelBuild* k = build.kernelFor(ft.c.block);
      const LaunchPlan plan = planLaunch(rep.contract, ft.c.type, ft.c.n, ft.c.block);
      if (!k || !plan.error.empty() || plan.passes.empty()) {
        ft.why = !k ? "no build for block " + std::to_string(ft.c.block) : !plan.error.empty() ? plan.error : "no launch";
      } else {
        RunRequest run = runRequestFor(*k, ft.c, plan);
        ft.grid = plan.passes.front().grid;
        ft.block = int64_t(ft.grid) - 1;
        run.traceBlock = ft.block;
        const RunOutcome o = worker.run(run, build.cubin);
        if (o.status != RunOutcome::Status::Ok) ft.why = "the traced run: " + o.message;
        else if (!o.traceError.empty()) ft.why = "the trace: " + o.traceError;
        else ft.ran = true, ft.trace = o.trace;
      }
    }
    if (hooks.cancelled && hooks.cancelled()) {
      rep.status = CheckStatus::Cancelled;
      rep.error = "cancelled while tracing the first wrong case";
    }
    if (!ft.ran) ft.block = -1, ft.grid = 0;  // said consistently: nothing traced
  }
  // The timing: the first type, operation and block checked, at the asked N, random data.
  if (rep.status == CheckStatus::Ran && q.timing.run && !(hooks.cancelled && hooks.cancelled())) {
    TimingCheck& tc = rep.timing;
    const CheckSummary& s = rep.summary;
    if (cases.empty()) tc.why = "no case was checked";
    else if (s.failed + s.crashed + s.timedOut + s.notRun > 0) tc.why = "the kernel failed a case: the time of a wrong result says nothing";
    else if (rep.hazards.failures() > 0) tc.why = "the hazard check found a race: the time of a racy kernel says nothing";
    if (tc.why.empty()) {
      tc.c = cases.front();
      tc.c.n = q.timing.n;
      tc.c.data = "random";
      tc.c.spec.pattern = DataPattern::Uniform;
      tc.c.spec.seed = q.battery.seed;
      tc.reps = q.timing.reps;
      tc.warmups = q.timing.warmups;
      tc.warmL2 = q.timing.warmL2;
      const CompileResult& build = *std::find_if(rep.builds.begin(), rep.builds.end(), [&](const CompileResult& b) {
        return b.type == tc.c.type && b.op == tc.c.op;
      });
      const KernelBuild* k = build.kernelFor(tc.c.block);
      const LaunchPlan plan = planLaunch(rep.contract, tc.c.type, tc.c.n, tc.c.block);
      if (!k || !plan.error.empty()) tc.why = !k ? "no build for block " + std::to_string(tc.c.block) : plan.error;
      else if (std::string tooBig = nDoesNotFit(*k, tc.c.n); !tooBig.empty())
        tc.why = tooBig;
      else {
        RunRequest run = runRequestFor(*k, tc.c, plan);
        run.timedReps = tc.reps;
        run.timedWarmups = tc.warmups;
        run.warmL2 = tc.warmL2;
        const RunOutcome o = worker.run(run, build.cubin);
        const Reference ref = o.status == RunOutcome::Status::Ok ? computeReference(configOf(tc.c)) : Reference{};
        const CaseResult judged = judgeCase(tc.c, plan, o, ref);
        const double bytes = double(tc.c.n) * double(elemBytes(tc.c.type));
        tc.yours.key = "yours";
        tc.yours.label = "your kernel";
        if (o.status != RunOutcome::Status::Ok) tc.why = "the timed run: " + o.message;
        else if (judged.verdict != Verdict::Pass) tc.why = "the timed run's result was wrong: " + judged.text();
        else if (o.repMs.size() != size_t(tc.reps)) tc.why = "the worker timed " + std::to_string(o.repMs.size()) + " of " + std::to_string(tc.reps) + " repetitions";
        else {
          tc.ran = true;
          tc.enqueueTimeouts = o.enqueueTimeouts;
          tc.yours.ms = Stats::of(o.repMs);
          tc.yours.gbs = tc.yours.ms.median > 0 ? bytes / (tc.yours.ms.median * 1e-3) / 1e9 : 0;
          if (hooks.measureOthers) {
            RunConfig base = configOf(tc.c);
            base.reps = tc.reps;
            base.warmup = tc.warmups;
            base.warmL2 = tc.warmL2;
            tc.others = hooks.measureOthers(base);
          }
        }
      }
    }
    if (hooks.onTiming) hooks.onTiming(tc);
  }
  rep.workerRestarts = worker.restarts() - restartsBefore;
  return rep;
}


uint64_t timingSizeFor(const std::vector<Requirement>& goals, uint64_t fallback) {
  for (const Requirement& g : goals)
    if (g.kind == Requirement::Kind::SpeedOfCub) return g.n;
  return fallback;
}

std::vector<GoalResult> judgeGoals(const std::vector<Requirement>& goals, const CheckReport& r) {
  std::vector<GoalResult> out;
  const CheckSummary& s = r.summary;
  for (const Requirement& g : goals) {
    GoalResult x;
    x.requirement = g;
    if (r.status != CheckStatus::Ran) {
      x.why = "the check did not run its cases" + (r.error.empty() ? std::string() : ": " + r.error);
      out.push_back(x);
      continue;
    }
    switch (g.kind) {
      case Requirement::Kind::Pass:
        x.met = s.total() > 0 && s.passed == s.total();
        x.why = std::to_string(s.passed) + " of " + std::to_string(s.total()) + " cases passed";
        break;
      case Requirement::Kind::NoHazard:
        if (!r.hazards.ran) x.why = "the hazard check did not run: " + r.hazards.why;
        else {
          x.met = r.hazards.hazards.empty();
          const int f = r.hazards.failures(), w = int(r.hazards.hazards.size()) - f;
          x.why = x.met ? "the hazard check found nothing"
                        : std::to_string(f) + " hazard" + (f == 1 ? "" : "s") + ", " + std::to_string(w) + " warning" + (w == 1 ? "" : "s");
        }
        break;
      case Requirement::Kind::NoBankConflict:
        if (!r.hazards.ran || !r.hazards.banksKnown) x.why = "no trace of the kernel: " + (r.hazards.why.empty() ? "its conversion failed" : r.hazards.why);
        else {
          x.met = r.hazards.bankConflicts == 0;
          x.why = "the traced block's shared accesses: " + std::to_string(r.hazards.wavefronts) + " wavefronts, " +
                  std::to_string(r.hazards.idealWavefronts) + " without conflicts";
        }
        break;
      case Requirement::Kind::SpeedOfCub: {
        const TimingCheck& t = r.timing;
        const TimedRow* cub = t.cub();
        if (!t.ran) x.why = "not timed: " + t.why;
        else if (t.c.n != g.n) x.why = "timed at N=" + formatCount(t.c.n) + ", not at " + formatCount(g.n);
        else if (!cub) x.why = "CUB was not measured beside it";
        else {
          const double pct = t.yours.ms.median > 0 ? 100.0 * cub->ms.median / t.yours.ms.median : 0;
          x.met = pct >= g.percent - 1e-9;  // 0.009 / 0.010 is 90 %, not 89.999...
          char b[160];
          std::snprintf(b, sizeof b, "%.0f %% of CUB's speed at N=%s (%.4f ms against CUB's %.4f ms)", pct,
                        formatCount(g.n).c_str(), t.yours.ms.median, cub->ms.median);
          x.why = b;
        }
        break;
      }
    }
    out.push_back(x);
  }
  return out;
}

nlohmann::json goalsJson(const std::vector<GoalResult>& goals) {
  nlohmann::json list = nlohmann::json::array();
  for (const GoalResult& g : goals) list.push_back({{"goal", g.requirement.text()}, {"met", g.met}, {"why", g.why}});
  return list;
}

}  // namespace rl::usercode
