// A check's report as JSON, read back, and carried over the remote protocol (check_json.hpp).
#include "reducelab/usercode/check_json.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

#include "reducelab/json_fields.hpp"
#include "reducelab/trace.hpp"

namespace rl::usercode {

using nlohmann::json;

namespace {

constexpr size_t kMaxText = size_t(64) << 10;    // a note, a message, a diagnostic
constexpr size_t kMaxCases = 100000;             // a battery is a few hundred cases
constexpr size_t kMaxListItems = 10000;          // diagnostics, hazards, notes, timed rows

json checkCaseJson(const CheckCase& c) {
  return {{"index", c.index},
          {"type", std::string(name(c.type))},
          {"op", std::string(name(c.op))},
          {"block", c.block},
          {"n", c.n},
          {"data", c.data},
          {"pattern", std::string(name(c.spec.pattern))},
          {"seed", c.spec.seed},
          {"lo", c.spec.lo},
          {"hi", c.spec.hi}};
}

json timedRowJson(const TimedRow& r) {
  return {{"key", r.key},
          {"label", r.label},
          {"error", r.error},
          {"median_ms", r.ms.median},
          {"min_ms", r.ms.min},
          {"max_ms", r.ms.max},
          {"reps", r.ms.count},
          {"gbs", r.gbs}};
}

json accessJson(const instrumented::HazardAccess& a) {
  return {{"thread", a.thread}, {"warp", a.warp}, {"lane", a.lane}, {"write", a.write}, {"sass_offset", a.pc}, {"line", a.line}};
}

// ---- readers ----

// A number the writers may have written as null (a NaN): 0 then.
double numberOrZero(JsonFields& x, const char* key) {
  const json* v = x.at(key);
  if (!v || v->is_null()) return 0;
  return x.number(key, -1e300, 1e300);
}

template <class T, class Parse>
T parsedName(JsonFields& x, const char* key, Parse parse, T fallback) {
  const std::string s = x.text(key, 64);
  if (!x.error.empty()) return fallback;
  const auto v = parse(s);
  if (!v) {
    x.error = std::string("field '") + key + "' is not a known name";
    return fallback;
  }
  return *v;
}

std::string textList(const json* v, const char* what, std::vector<std::string>* out) {
  if (!v || !v->is_array() || v->size() > kMaxListItems) return std::string(what) + " is not a list";
  for (const json& s : *v) {
    if (!s.is_string() || s.get_ref<const std::string&>().size() > kMaxText) return std::string(what) + " holds something that is not text";
    out->push_back(s.get<std::string>());
  }
  return {};
}

std::string checkCaseFromJson(const json& j, CheckCase* out) {
  if (!j.is_object()) return "a case is not an object";
  JsonFields x{j, {}};
  CheckCase c;
  c.index = int(x.integer("index", 0, 1 << 30));
  c.type = parsedName(x, "type", [](const std::string& s) { return parseElemType(s); }, c.type);
  c.op = parsedName(x, "op", [](const std::string& s) { return parseOp(s); }, c.op);
  c.block = int(x.integer("block", 1, 1024));
  c.n = x.unsignedInteger("n", uint64_t(1) << 40);
  c.data = x.text("data", 256);
  c.spec.pattern = parsedName(x, "pattern", [](const std::string& s) { return parseDataPattern(s); }, c.spec.pattern);
  c.spec.seed = x.unsignedInteger("seed", ~uint64_t(0));
  c.spec.lo = x.integer("lo", INT64_MIN, INT64_MAX);
  c.spec.hi = x.integer("hi", INT64_MIN, INT64_MAX);
  if (!x.error.empty()) return "a case: " + x.error;
  *out = c;
  return {};
}

std::optional<Verdict> parseVerdict(const std::string& s) {
  for (Verdict v : {Verdict::Pass, Verdict::Fail, Verdict::Crash, Verdict::Timeout, Verdict::Skipped, Verdict::NotRun})
    if (name(v) == s) return v;
  return std::nullopt;
}

std::optional<CheckStatus> parseStatus(const std::string& s) {
  for (CheckStatus v : {CheckStatus::Ran, CheckStatus::CompileError, CheckStatus::Environment, CheckStatus::Usage, CheckStatus::Cancelled})
    if (name(v) == s) return v;
  return std::nullopt;
}

std::string accessFromJson(const json& j, instrumented::HazardAccess* a) {
  if (!j.is_object()) return "an access is not an object";
  JsonFields x{j, {}};
  a->thread = uint32_t(x.integer("thread", 0, 1023));
  a->warp = int(x.integer("warp", 0, 31));
  a->lane = int(x.integer("lane", 0, 31));
  a->write = x.boolean("write");
  a->pc = x.unsignedInteger("sass_offset", ~uint64_t(0));
  a->line = int(x.integer("line", 0, 1 << 30));
  return x.error.empty() ? "" : "an access: " + x.error;
}

std::string timedRowFromJson(const json& j, TimedRow* r) {
  if (!j.is_object()) return "a timed row is not an object";
  JsonFields x{j, {}};
  r->key = x.text("key", 64);
  r->label = x.text("label", 256);
  r->error = x.text("error", kMaxText);
  r->ms.median = numberOrZero(x, "median_ms");
  r->ms.min = numberOrZero(x, "min_ms");
  r->ms.max = numberOrZero(x, "max_ms");
  r->ms.count = int(x.integer("reps", 0, 1 << 24));
  r->gbs = numberOrZero(x, "gbs");
  return x.error.empty() ? "" : "a timed row: " + x.error;
}

std::string diagnosticsFromJson(const json* v, std::vector<Diagnostic>* out) {
  if (!v || !v->is_array() || v->size() > kMaxListItems) return "the diagnostics are not a list";
  for (const json& d : *v) {
    if (!d.is_object()) return "a diagnostic is not an object";
    JsonFields x{d, {}};
    Diagnostic g;
    g.file = x.text("file", 4096);
    g.line = int(x.integer("line", 0, 1 << 30));
    g.column = int(x.integer("column", 0, 1 << 30));
    const std::string sev = x.text("severity", 16);
    g.message = x.text("message", kMaxText);
    if (!x.error.empty()) return "a diagnostic: " + x.error;
    if (sev == "error") g.severity = Severity::Error;
    else if (sev == "warning") g.severity = Severity::Warning;
    else if (sev == "note") g.severity = Severity::Note;
    else return "a diagnostic's severity is not error, warning or note";
    out->push_back(std::move(g));
  }
  return {};
}

// The payload's trace, checked as every trace from another process is.
std::string traceBytesFrom(const remote::Frame& f, std::vector<uint8_t>* out) {
  if (f.payload.empty()) return {};
  std::string err;
  if (!TraceData::fromBuffer(f.payload.data(), f.payload.size(), &err).valid())
    return "its trace is not one: " + (err.empty() ? std::string("no trace recorded") : err);
  *out = f.payload;
  return {};
}

std::string_view kindName(CheckEvent::Kind k) {
  switch (k) {
    case CheckEvent::Kind::Compiled: return "compiled";
    case CheckEvent::Kind::Case: return "case";
    case CheckEvent::Kind::Hazards: return "hazards";
    case CheckEvent::Kind::Timing: return "timing";
    case CheckEvent::Kind::Done: break;
  }
  return "done";
}

}  // namespace

std::string_view name(CheckStatus s) {
  switch (s) {
    case CheckStatus::Ran: return "ran";
    case CheckStatus::CompileError: return "compile error";
    case CheckStatus::Environment: return "environment";
    case CheckStatus::Usage: return "usage";
    case CheckStatus::Cancelled: break;
  }
  return "cancelled";
}

// ---- writers ----

json caseResultJson(const CaseResult& c) {
  json j = checkCaseJson(c.c);
  j["verdict"] = std::string(name(c.verdict));
  j["expected"] = c.expected;
  j["got"] = c.got;
  j["note"] = c.note;
  j["findings"] = c.findings;
  j["value_right"] = c.valueRight;
  j["launches"] = c.launches;
  j["kernel_ms"] = c.kernelMs;
  j["text"] = c.text();
  return j;
}

json failureTraceJson(const FailureTrace& f) {
  return {{"ran", f.ran},
          {"why_not", f.why},
          {"case", f.ran ? f.c.label() : std::string()},
          {"check_case", checkCaseJson(f.c)},
          {"block", f.block},
          {"grid", f.grid}};
}

json hazardCheckJson(const HazardCheck& h) {
  json list = json::array();
  for (const instrumented::Hazard& x : h.hazards)
    list.push_back({{"kind", std::string(instrumented::name(x.kind))},
                    {"failure", x.severity == instrumented::Hazard::Severity::Failure},
                    {"phase", x.phase},
                    {"word_offset", x.wordOffset},
                    {"first", accessJson(x.first)},
                    {"second", accessJson(x.second)},
                    {"occurrences", x.occurrences},
                    {"message", x.message}});
  return {{"ran", h.ran},
          {"why_not", h.why},
          {"case", h.ran ? h.c.label() : std::string()},
          {"check_case", checkCaseJson(h.c)},
          {"function", h.function},
          {"records", h.records},
          {"phases", h.phases},
          {"failures", h.failures()},
          {"hazards", list},
          {"suppressed", h.suppressed},
          {"banks_known", h.banksKnown},
          {"wavefronts", h.wavefronts},
          {"ideal_wavefronts", h.idealWavefronts},
          {"bank_conflicts", h.bankConflicts},
          {"notes", h.notes}};
}

json timingCheckJson(const TimingCheck& t) {
  json others = json::array();
  for (const TimedRow& r : t.others) others.push_back(timedRowJson(r));
  const TimedRow* cub = t.cub();
  const TimedRow* ours = t.fastestOfOurs();
  return {{"ran", t.ran},
          {"why_not", t.why},
          {"type", t.ran ? std::string(name(t.c.type)) : std::string()},
          {"op", t.ran ? std::string(name(t.c.op)) : std::string()},
          {"block", t.ran ? t.c.block : 0},
          {"n", t.ran ? t.c.n : 0},
          {"check_case", checkCaseJson(t.c)},
          {"reps", t.reps},
          {"warmups", t.warmups},
          {"warm_l2", t.warmL2},
          {"enqueue_timeouts", t.enqueueTimeouts},
          {"yours", timedRowJson(t.yours)},
          {"others", others},
          {"fraction_of_cub", cub && t.yours.ms.median > 0 ? cub->ms.median / t.yours.ms.median : 0.0},
          {"fastest_of_ours", ours ? ours->key : std::string()},
          {"text", t.text()}};
}

json diagnosticsJson(const std::vector<Diagnostic>& list) {
  json diags = json::array();
  for (const Diagnostic& d : list)
    diags.push_back({{"file", d.file},
                     {"line", d.line},
                     {"column", d.column},
                     {"severity", std::string(name(d.severity))},
                     {"message", d.message},
                     {"text", d.text()}});
  return diags;
}

json kernelBuildJson(const KernelBuild& k) {
  return {{"block", k.block},
          {"name", k.nameExpression},
          {"symbol", k.loweredName},
          {"registers", k.resources.registers},
          {"static_shared_bytes", k.resources.staticSharedBytes},
          {"stack_bytes", k.resources.stackBytes},
          {"spill_store_bytes", k.resources.spillStoreBytes},
          {"spill_load_bytes", k.resources.spillLoadBytes}};
}

json checkReportJson(const CheckReport& r) {
  const json diags = diagnosticsJson(r.diagnostics);
  json builds = json::array();
  for (const CompileResult& b : r.builds) {
    json kernels = json::array();
    for (const KernelBuild& k : b.kernels) kernels.push_back(kernelBuildJson(k));
    builds.push_back({{"type", std::string(name(b.type))},
                      {"op", std::string(name(b.op))},
                      {"ok", b.ok()},
                      {"cache_hit", b.cacheHit},
                      {"kernels", kernels}});
  }
  json cases = json::array();
  for (const CaseResult& c : r.cases) cases.push_back(caseResultJson(c));
  const CheckSummary& s = r.summary;
  json contract = json::array();
  for (const std::string& line : r.contract.describe()) contract.push_back(line);
  return {{"file", r.file},
          {"status", std::string(name(r.status))},
          {"exit_code", r.exitCode()},
          {"error", r.error},
          {"seed", r.seed},
          {"device", r.device.available ? r.device.name + " (compute capability " + r.device.ccString() + ")" : std::string()},
          {"arch", r.sm ? archName(r.sm) : std::string()},
          {"nvrtc", r.nvrtcVersion},
          {"contract", contract},
          {"diagnostics", diags},
          {"builds", builds},
          {"cases", cases},
          {"hazard_check", hazardCheckJson(r.hazards)},
          {"failure_trace", failureTraceJson(r.failureTrace)},
          {"timing", timingCheckJson(r.timing)},
          {"worker_restarts", r.workerRestarts},
          {"summary",
           {{"total", s.total()},
            {"passed", s.passed},
            {"failed", s.failed},
            {"crashed", s.crashed},
            {"timed_out", s.timedOut},
            {"skipped", s.skipped},
            {"not_run", s.notRun}}}};
}

// ---- readers ----

std::string caseResultFromJson(const json& j, CaseResult* out) {
  CaseResult r;
  if (std::string e = checkCaseFromJson(j, &r.c); !e.empty()) return e;
  JsonFields x{j, {}};
  r.verdict = parsedName(x, "verdict", parseVerdict, r.verdict);
  r.expected = x.text("expected", kMaxText);
  r.got = x.text("got", kMaxText);
  r.note = x.text("note", kMaxText);
  r.valueRight = x.boolean("value_right");
  r.launches = x.unsignedInteger("launches", ~uint64_t(0));
  r.kernelMs = numberOrZero(x, "kernel_ms");
  if (!x.error.empty()) return "a case: " + x.error;
  if (std::string e = textList(x.at("findings"), "a case's findings", &r.findings); !e.empty()) return e;
  *out = std::move(r);
  return {};
}

std::string hazardCheckFromJson(const json& j, HazardCheck* out) {
  if (!j.is_object()) return "the hazard check is not an object";
  JsonFields x{j, {}};
  HazardCheck h;
  h.ran = x.boolean("ran");
  h.why = x.text("why_not", kMaxText);
  h.function = x.text("function", kMaxText);
  h.records = x.unsignedInteger("records", ~uint64_t(0));
  h.phases = int(x.integer("phases", 0, INT32_MAX));
  h.suppressed = x.unsignedInteger("suppressed", ~uint64_t(0));
  h.banksKnown = x.boolean("banks_known");
  h.wavefronts = int(x.integer("wavefronts", 0, INT32_MAX));
  h.idealWavefronts = int(x.integer("ideal_wavefronts", 0, INT32_MAX));
  h.bankConflicts = int(x.integer("bank_conflicts", INT32_MIN, INT32_MAX));
  const json* c = x.at("check_case");
  const json* list = x.at("hazards");
  const json* notes = x.at("notes");
  if (!x.error.empty()) return "the hazard check: " + x.error;
  if (std::string e = checkCaseFromJson(*c, &h.c); !e.empty()) return "the hazard check: " + e;
  if (std::string e = textList(notes, "the hazard check's notes", &h.notes); !e.empty()) return e;
  if (!list->is_array() || list->size() > kMaxListItems) return "the hazards are not a list";
  for (const json& hj : *list) {
    if (!hj.is_object()) return "a hazard is not an object";
    JsonFields y{hj, {}};
    instrumented::Hazard z;
    const std::string kind = y.text("kind", 64);
    z.severity = y.boolean("failure") ? instrumented::Hazard::Severity::Failure : instrumented::Hazard::Severity::Warning;
    z.phase = uint32_t(y.integer("phase", 0, UINT32_MAX));
    z.wordOffset = y.integer("word_offset", INT64_MIN, INT64_MAX);
    z.occurrences = y.unsignedInteger("occurrences", ~uint64_t(0));
    z.message = y.text("message", kMaxText);
    const json* first = y.at("first");
    const json* second = y.at("second");
    if (!y.error.empty()) return "a hazard: " + y.error;
    bool known = false;
    for (auto k : {instrumented::Hazard::Kind::CrossWarp, instrumented::Hazard::Kind::IntraWarp,
                   instrumented::Hazard::Kind::BarrierDivergence})
      if (instrumented::name(k) == kind) z.kind = k, known = true;
    if (!known) return "a hazard's kind is not known";
    if (std::string e = accessFromJson(*first, &z.first); !e.empty()) return "a hazard: " + e;
    if (std::string e = accessFromJson(*second, &z.second); !e.empty()) return "a hazard: " + e;
    h.hazards.push_back(std::move(z));
  }
  *out = std::move(h);
  return {};
}

std::string timingCheckFromJson(const json& j, TimingCheck* out) {
  if (!j.is_object()) return "the timing is not an object";
  JsonFields x{j, {}};
  TimingCheck t;
  t.ran = x.boolean("ran");
  t.why = x.text("why_not", kMaxText);
  t.reps = int(x.integer("reps", 0, 1 << 24));
  t.warmups = int(x.integer("warmups", 0, 1 << 24));
  t.warmL2 = x.boolean("warm_l2");
  t.enqueueTimeouts = int(x.integer("enqueue_timeouts", 0, INT32_MAX));
  const json* c = x.at("check_case");
  const json* yours = x.at("yours");
  const json* others = x.at("others");
  if (!x.error.empty()) return "the timing: " + x.error;
  if (std::string e = checkCaseFromJson(*c, &t.c); !e.empty()) return "the timing: " + e;
  if (std::string e = timedRowFromJson(*yours, &t.yours); !e.empty()) return "the timing: " + e;
  if (!others->is_array() || others->size() > kMaxListItems) return "the timing's other rows are not a list";
  for (const json& o : *others) {
    TimedRow r;
    if (std::string e = timedRowFromJson(o, &r); !e.empty()) return "the timing: " + e;
    t.others.push_back(std::move(r));
  }
  *out = std::move(t);
  return {};
}

std::string checkReportFromJson(const json& j, CheckReport* out) {
  if (!j.is_object()) return "the report is not an object";
  JsonFields x{j, {}};
  CheckReport r;
  r.file = x.text("file", 4096);
  r.status = parsedName(x, "status", parseStatus, r.status);
  r.error = x.text("error", kMaxText);
  r.seed = x.unsignedInteger("seed", ~uint64_t(0));
  const std::string arch = x.text("arch", 16);
  r.nvrtcVersion = x.text("nvrtc", 64);
  r.workerRestarts = int(x.integer("worker_restarts", 0, INT32_MAX));
  const json* diags = x.at("diagnostics");
  const json* cases = x.at("cases");
  const json* hazards = x.at("hazard_check");
  const json* failure = x.at("failure_trace");
  const json* timing = x.at("timing");
  const json* summary = x.object("summary");
  if (!x.error.empty()) return "the report: " + x.error;
  if (!arch.empty() && !(r.sm = parseArch(arch))) return "the report's architecture is not sm_XY";
  if (std::string e = diagnosticsFromJson(diags, &r.diagnostics); !e.empty()) return "the report: " + e;
  if (!cases->is_array() || cases->size() > kMaxCases) return "the report's cases are not a list";
  for (const json& c : *cases) {
    CaseResult cr;
    if (std::string e = caseResultFromJson(c, &cr); !e.empty()) return "the report: " + e;
    r.cases.push_back(std::move(cr));
  }
  if (std::string e = hazardCheckFromJson(*hazards, &r.hazards); !e.empty()) return "the report: " + e;
  if (std::string e = timingCheckFromJson(*timing, &r.timing); !e.empty()) return "the report: " + e;
  {
    if (!failure->is_object()) return "the report's failure trace is not an object";
    JsonFields y{*failure, {}};
    r.failureTrace.ran = y.boolean("ran");
    r.failureTrace.why = y.text("why_not", kMaxText);
    r.failureTrace.block = y.integer("block", -1, INT64_MAX);  // -1: none traced
    r.failureTrace.grid = y.unsignedInteger("grid", ~uint64_t(0));
    const json* c = y.at("check_case");
    if (!y.error.empty()) return "the report's failure trace: " + y.error;
    if (std::string e = checkCaseFromJson(*c, &r.failureTrace.c); !e.empty()) return "the report's failure trace: " + e;
  }
  JsonFields s{*summary, {}};
  r.summary.passed = int(s.integer("passed", 0, INT32_MAX));
  r.summary.failed = int(s.integer("failed", 0, INT32_MAX));
  r.summary.crashed = int(s.integer("crashed", 0, INT32_MAX));
  r.summary.timedOut = int(s.integer("timed_out", 0, INT32_MAX));
  r.summary.skipped = int(s.integer("skipped", 0, INT32_MAX));
  r.summary.notRun = int(s.integer("not_run", 0, INT32_MAX));
  if (!s.error.empty()) return "the report's summary: " + s.error;
  *out = std::move(r);
  return {};
}

// ---- the remote check ----

json checkRequestMessage(const CheckRequest& q, double timeoutSeconds) {
  json types = json::array(), ops = json::array();
  for (ElemType t : q.battery.types) types.push_back(std::string(name(t)));
  for (Op o : q.battery.ops) ops.push_back(std::string(name(o)));
  return {{"type", "check"},
          {"file", q.file},
          {"source", q.source},
          {"types", types},
          {"ops", ops},
          {"blocks", q.battery.blocks},
          {"large", q.battery.large},
          {"seed", q.battery.seed},
          {"sm", q.sm},
          {"use_cache", q.useCache},
          {"timing", {{"run", q.timing.run}, {"n", q.timing.n}, {"reps", q.timing.reps}, {"warmups", q.timing.warmups},
                      {"warm_l2", q.timing.warmL2}}},
          {"timeout", timeoutSeconds}};
}

std::string decodeCheckRequest(const remote::Frame& f, CheckRequest* out, double* timeoutSeconds) {
  if (f.type != "check") return "a '" + f.type + "' message where 'check' was expected";
  JsonFields x{f.body, {}};
  CheckRequest q;
  q.file = x.text("file", 4096);
  q.source = x.text("source", remote::kMaxUserKernelBytes);
  const json* types = x.at("types");
  const json* ops = x.at("ops");
  const json* blocks = x.at("blocks");
  q.battery.large = x.boolean("large");
  q.battery.seed = x.unsignedInteger("seed", ~uint64_t(0));
  q.sm = int(x.integer("sm", 0, 1000));
  q.useCache = x.boolean("use_cache");
  const json* timing = x.object("timing");
  const double timeout = x.number("timeout", 0.5, 3600);
  if (!x.error.empty()) return "check: " + x.error;
  if (q.file.empty() || q.source.empty()) return "check: no file name or no source";
  auto names = [](const json* list, auto parse, auto* outList) {
    if (!list->is_array() || list->size() > 16) return false;
    for (const json& v : *list) {
      if (!v.is_string()) return false;
      const auto p = parse(v.get<std::string>());
      if (!p) return false;
      outList->push_back(*p);
    }
    return true;
  };
  if (!names(types, [](const std::string& s) { return parseElemType(s); }, &q.battery.types)) return "check: the types are not known names";
  if (!names(ops, [](const std::string& s) { return parseOp(s); }, &q.battery.ops)) return "check: the operations are not known names";
  if (!blocks->is_array() || blocks->size() > 16) return "check: the blocks are not a short list";
  for (const json& b : *blocks) {
    if (!b.is_number_integer() || b.get<int64_t>() < 1 || b.get<int64_t>() > 1024) return "check: a block is not 1..1024";
    q.battery.blocks.push_back(int(b.get<int64_t>()));
  }
  JsonFields t{*timing, {}};
  q.timing.run = t.boolean("run");
  q.timing.n = t.unsignedInteger("n", uint64_t(1) << 40);
  q.timing.reps = int(t.integer("reps", 1, 100000));
  q.timing.warmups = int(t.integer("warmups", 0, 1000));
  q.timing.warmL2 = t.boolean("warm_l2");
  if (!t.error.empty()) return "check: timing: " + t.error;
  if (q.timing.n == 0) return "check: the timing's N is 0";
  *out = std::move(q);
  *timeoutSeconds = timeout;
  return {};
}

std::string encodeCheckEvent(const CheckEvent& e) {
  json body = {{"type", "check_event"}, {"kind", std::string(kindName(e.kind))}};
  std::vector<uint8_t> payload;
  switch (e.kind) {
    case CheckEvent::Kind::Compiled: {
      body["total"] = e.total;
      body["device"] = e.device;
      body["diagnostics"] = diagnosticsJson(e.diagnostics);
      break;
    }
    case CheckEvent::Kind::Case: body["case"] = caseResultJson(e.caseResult); break;
    case CheckEvent::Kind::Hazards:
      body["hazards"] = hazardCheckJson(e.hazards);
      payload = e.hazards.trace;
      break;
    case CheckEvent::Kind::Timing: body["timing"] = timingCheckJson(e.timing); break;
    case CheckEvent::Kind::Done:
      body["report"] = checkReportJson(e.report);
      body["device"] = remote::deviceJson(e.report.device);
      payload = e.report.failureTrace.trace;
      break;
  }
  // A trace the reader would refuse (over the frame's limit, or not one TraceData reads) goes
  // without its bytes: the report still arrives, without that trace.
  std::string ignored;
  if (payload.size() > remote::kMaxPayloadBytes ||
      (!payload.empty() && !TraceData::fromBuffer(payload.data(), payload.size(), &ignored).valid()))
    payload.clear();
  return remote::encodeFrame(body, payload);
}

std::string decodeCheckEvent(const remote::Frame& f, CheckEvent* out) {
  if (f.type != "check_event") return "a '" + f.type + "' message where 'check_event' was expected";
  JsonFields x{f.body, {}};
  const std::string kind = x.text("kind", 16);
  if (!x.error.empty()) return "check_event: " + x.error;
  CheckEvent e;
  std::string err;
  if (kind == "compiled") {
    e.kind = CheckEvent::Kind::Compiled;
    e.total = int(x.integer("total", 0, int64_t(kMaxCases)));
    e.device = x.text("device", 4096);
    const json* d = x.at("diagnostics");
    if (!x.error.empty()) return "check_event: " + x.error;
    err = diagnosticsFromJson(d, &e.diagnostics);
  } else if (kind == "case") {
    e.kind = CheckEvent::Kind::Case;
    const json* c = x.object("case");
    err = x.error.empty() ? caseResultFromJson(*c, &e.caseResult) : x.error;
  } else if (kind == "hazards") {
    e.kind = CheckEvent::Kind::Hazards;
    const json* h = x.object("hazards");
    err = x.error.empty() ? hazardCheckFromJson(*h, &e.hazards) : x.error;
    if (err.empty()) err = traceBytesFrom(f, &e.hazards.trace);
  } else if (kind == "timing") {
    e.kind = CheckEvent::Kind::Timing;
    const json* t = x.object("timing");
    err = x.error.empty() ? timingCheckFromJson(*t, &e.timing) : x.error;
  } else if (kind == "done") {
    e.kind = CheckEvent::Kind::Done;
    const json* r = x.object("report");
    const json* d = x.object("device");
    err = x.error.empty() ? checkReportFromJson(*r, &e.report) : x.error;
    if (err.empty()) err = remote::deviceFromProtocolJson(*d, &e.report.device);
    if (err.empty()) err = traceBytesFrom(f, &e.report.failureTrace.trace);
    if (err.empty()) e.reportJson = *r;
  } else {
    return "check_event: the kind '" + kind.substr(0, 16) + "' is not known";
  }
  if (!err.empty()) return "check_event: " + err;
  *out = std::move(e);
  return {};
}

}  // namespace rl::usercode
