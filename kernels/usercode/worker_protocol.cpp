// The worker's messages (worker.hpp): every field read is checked, as in the remote protocol.
#include <cmath>

#include "reducelab/usercode/worker.hpp"

namespace rl::usercode {

using nlohmann::json;

std::string_view name(RunOutcome::Status s) {
  switch (s) {
    case RunOutcome::Status::Ok: return "ok";
    case RunOutcome::Status::LaunchError: return "launch-error";
    case RunOutcome::Status::Fault: return "fault";
    case RunOutcome::Status::Timeout: return "timeout";
    case RunOutcome::Status::Skipped: return "skipped";
    case RunOutcome::Status::WorkerError: break;
  }
  return "worker-error";
}

std::string GuardFinding::text() const {
  // In elements: which bytes of a write differ from the guard depends on the value written.
  const int64_t eb = elemBytes > 0 ? elemBytes : 1;
  auto floorDiv = [eb](int64_t x) { return x >= 0 ? x / eb : -((-x + eb - 1) / eb); };
  const int64_t e1 = floorDiv(firstOffset), e2 = floorDiv(lastOffset);
  const std::string side = firstOffset < 0 ? "before its start" : "past its end";
  const std::string size = " of a " + std::to_string(bufferBytes / uint64_t(eb)) + "-element buffer)";
  if (e1 == e2)
    return buffer + ": a write " + side + " at byte offset " + std::to_string(e1 * eb) + " (element " + std::to_string(e1) +
           size;
  return buffer + ": writes " + side + " at byte offsets " + std::to_string(e1 * eb) + " to " +
         std::to_string(e2 * eb + eb - 1) + " (elements " + std::to_string(e1) + " to " + std::to_string(e2) + size;
}

namespace {

constexpr size_t kMaxText = remote::kMaxTextBytes;
constexpr size_t kMaxPasses = 64;
constexpr size_t kMaxGuards = 64;
constexpr size_t kMaxNotes = 64;
constexpr size_t kMaxHazards = 64;

// Reads checked fields of one object; the first problem is kept.
struct Reader {
  const json& j;
  std::string error;

  const json* at(const char* key) {
    if (!error.empty()) return nullptr;
    if (!j.is_object()) return error = "the message is not an object", nullptr;
    const auto it = j.find(key);
    if (it == j.end()) return error = std::string("field '") + key + "' is missing", nullptr;
    return &*it;
  }
  std::string text(const char* key) {
    const json* v = at(key);
    if (!v) return {};
    if (!v->is_string()) return error = std::string("field '") + key + "' is not text", std::string();
    if (v->get_ref<const std::string&>().size() > kMaxText) return error = std::string("field '") + key + "' is too long", std::string();
    return v->get<std::string>();
  }
  uint64_t count(const char* key, uint64_t hi) {
    const json* v = at(key);
    if (!v) return 0;
    if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<int64_t>() >= 0))
      return error = std::string("field '") + key + "' is not a non-negative integer", 0;
    const uint64_t x = v->get<uint64_t>();
    if (x > hi) return error = std::string("field '") + key + "' is out of range", 0;
    return x;
  }
  int64_t integer(const char* key) {
    const json* v = at(key);
    if (!v) return 0;
    if (!v->is_number_integer()) return error = std::string("field '") + key + "' is not an integer", 0;
    return v->get<int64_t>();
  }
  double number(const char* key) {
    const json* v = at(key);
    if (!v) return 0;
    if (!v->is_number() || !std::isfinite(v->get<double>())) return error = std::string("field '") + key + "' is not a number", 0.0;
    return v->get<double>();
  }
  bool boolean(const char* key) {
    const json* v = at(key);
    if (!v) return false;
    if (!v->is_boolean()) return error = std::string("field '") + key + "' is not true or false", false;
    return v->get<bool>();
  }
  const json* array(const char* key, size_t most) {
    const json* v = at(key);
    if (!v) return nullptr;
    if (!v->is_array()) return error = std::string("field '") + key + "' is not a list", nullptr;
    if (v->size() > most) return error = std::string("field '") + key + "' has too many entries", nullptr;
    return v;
  }
};

std::string toHex(const std::vector<uint8_t>& bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) hex += kHex[b >> 4], hex += kHex[b & 15];
  return hex;
}

// "" or what is wrong ("has a wrong length", "is not hexadecimal").
std::string fromHex(const std::string& h, size_t maxBytes, std::vector<uint8_t>* out) {
  if (h.size() % 2 != 0 || h.size() / 2 > maxBytes) return "has a wrong length";
  auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  out->resize(h.size() / 2);
  for (size_t i = 0; i < out->size(); ++i) {
    const int hi = nibble(h[2 * i]), lo = nibble(h[2 * i + 1]);
    if (hi < 0 || lo < 0) return "is not hexadecimal";
    (*out)[i] = uint8_t(hi << 4 | lo);
  }
  return {};
}

std::string expect(const remote::Frame& f, const char* type) {
  return f.type == type ? std::string() : "a '" + f.type + "' message where '" + type + "' was expected";
}

}  // namespace

json workerHelloJson(const DeviceInfo& device, const std::string& tracer) {
  return {{"type", "uc_hello"}, {"device", remote::deviceJson(device)}, {"tracer", tracer.substr(0, kMaxText)}};
}

std::string decodeWorkerHello(const remote::Frame& f, DeviceInfo* device, std::string* tracer) {
  if (std::string e = expect(f, "uc_hello"); !e.empty()) return e;
  Reader j{f.body, {}};
  *tracer = j.text("tracer");
  if (!j.error.empty()) return j.error;
  const auto it = f.body.find("device");
  if (it == f.body.end()) return "field 'device' is missing";
  return remote::deviceFromProtocolJson(*it, device);
}

json runRequestJson(const RunRequest& r, const std::vector<uint8_t>& cubin) {
  const std::string hex = toHex(cubin);
  json passes = json::array();
  for (const Pass& p : r.plan.passes) passes.push_back({p.n, p.grid});
  return {{"type", "uc_run"},
          {"id", r.id},
          {"symbol", r.symbol},
          {"n_bytes", r.nBytes},
          {"elem", std::string(name(r.type))},
          {"op", std::string(name(r.op))},
          {"n", r.n},
          {"pattern", std::string(name(r.data.pattern))},
          {"seed", r.data.seed},
          {"lo", r.data.lo},
          {"hi", r.data.hi},
          {"block", r.plan.block},
          {"smem", r.plan.dynamicSharedBytes},
          {"final", std::string(name(r.plan.final))},
          {"zeroed_output", r.plan.zeroedOutput},
          {"passes", passes},
          {"cpu_values", r.plan.cpuValues},
          {"trace_block", r.traceBlock},
          {"trace_records", r.traceRecords},
          {"timed_reps", r.timedReps},
          {"timed_warmups", r.timedWarmups},
          {"warm_l2", r.warmL2},
          {"cubin", hex}};
}

std::string decodeRunRequest(const remote::Frame& f, RunRequest* r, std::vector<uint8_t>* cubin) {
  if (std::string e = expect(f, "uc_run"); !e.empty()) return e;
  Reader j{f.body, {}};
  r->id = j.count("id", UINT64_MAX);
  r->symbol = j.text("symbol");
  r->nBytes = int(j.count("n_bytes", 8));
  const std::string elem = j.text("elem"), op = j.text("op"), pattern = j.text("pattern"), final = j.text("final");
  r->n = j.count("n", uint64_t(1) << 40);
  r->data.seed = j.count("seed", UINT64_MAX);
  r->data.lo = j.integer("lo");
  r->data.hi = j.integer("hi");
  r->plan.block = int(j.count("block", 1024));
  r->plan.dynamicSharedBytes = j.count("smem", uint64_t(1) << 30);
  r->plan.cpuValues = j.count("cpu_values", uint64_t(1) << 40);
  r->traceBlock = j.integer("trace_block");
  r->traceRecords = uint32_t(j.count("trace_records", uint64_t(1) << 26));
  r->timedReps = int(j.count("timed_reps", kMaxTimedReps));
  r->timedWarmups = int(j.count("timed_warmups", kMaxTimedWarmups));
  r->warmL2 = j.boolean("warm_l2");
  const json* passes = j.array("passes", kMaxPasses);
  if (!j.error.empty()) return j.error;
  if (r->nBytes != 4 && r->nBytes != 8) return "field 'n_bytes' is not 4 or 8";
  if (r->symbol.empty()) return "field 'symbol' is empty";
  if (r->traceBlock < -1 || r->traceBlock > 0x7fffffff) return "field 'trace_block' is out of range";
  if (r->traceBlock >= 0 && r->traceRecords == 0) return "field 'trace_records' is 0";
  if (r->traceBlock >= 0 && r->timedReps > 0) return "a traced run is not timed (patched launches are slow)";
  const auto t = parseElemType(elem);
  const auto o = parseOp(op);
  const auto d = parseDataPattern(pattern);
  if (!t || !o || !d) return "field 'elem', 'op' or 'pattern' has an unknown value";
  r->type = *t;
  r->op = *o;
  r->data.pattern = *d;
  if (final == "gpu") r->plan.final = UserFinal::Gpu;
  else if (final == "cpu") r->plan.final = UserFinal::Cpu;
  else if (final == "atomic") r->plan.final = UserFinal::Atomic;
  else return "field 'final' has an unknown value";
  r->plan.passes.clear();
  for (const json& p : *passes) {
    auto count = [](const json& v) { return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0); };
    if (!p.is_array() || p.size() != 2 || !count(p[0]) || !count(p[1])) return "a pass is not [n, grid]";
    const Pass x{p[0].get<uint64_t>(), p[1].get<uint64_t>()};
    if (x.n == 0 || x.n > (uint64_t(1) << 40) || x.grid == 0 || x.grid > 0x7fffffffu) return "a pass is out of range";
    r->plan.passes.push_back(x);
  }
  if (r->plan.passes.empty() || r->plan.block < 1) return "the request has no launch";
  if (const auto z = f.body.find("zeroed_output"); z != f.body.end()) {  // absent: not zeroed
    if (!z->is_boolean()) return "field 'zeroed_output' is not true or false";
    r->plan.zeroedOutput = z->get<bool>();
  }
  const auto hex = f.body.find("cubin");
  if (hex == f.body.end() || !hex->is_string()) return "field 'cubin' is missing or not text";
  const std::string& h = hex->get_ref<const std::string&>();
  if (h.empty()) return "field 'cubin' has a wrong length";
  if (std::string e = fromHex(h, kMaxCubinBytes, cubin); !e.empty()) return "field 'cubin' " + e;
  return {};
}

json runOutcomeJson(uint64_t id, const RunOutcome& o) {
  json notes = json::array();
  for (size_t i = 0; i < o.traceNotes.size() && i < kMaxNotes; ++i) notes.push_back(o.traceNotes[i].substr(0, kMaxText));
  auto access = [](const instrumented::HazardAccess& a) {
    return json{{"thread", a.thread}, {"write", a.write}, {"pc", a.pc}, {"sequence", a.sequence}};
  };
  json hazards = json::array();
  for (size_t i = 0; i < o.hazards.size() && i < kMaxHazards; ++i) {
    const instrumented::Hazard& h = o.hazards[i];
    hazards.push_back({{"kind", std::string(instrumented::name(h.kind))},
                       {"failure", h.severity == instrumented::Hazard::Severity::Failure},
                       {"phase", h.phase},
                       {"word", h.wordOffset},
                       {"first", access(h.first)},
                       {"second", access(h.second)},
                       {"occurrences", h.occurrences},
                       {"message", h.message.substr(0, kMaxText)}});
  }
  json guards = json::array();
  for (const GuardFinding& g : o.guards)
    guards.push_back({{"buffer", g.buffer},
                      {"first", g.firstOffset},
                      {"last", g.lastOffset},
                      {"bytes", g.bytesChanged},
                      {"buffer_bytes", g.bufferBytes},
                      {"elem_bytes", g.elemBytes}});
  return {{"type", "uc_outcome"},
          {"id", id},
          {"status", std::string(name(o.status))},
          {"message", o.message.substr(0, kMaxText)},
          {"bits", o.resultBits},
          {"guards", guards},
          {"input_changed", o.inputChanged},
          {"first_input_change", o.firstInputChange},
          {"ms", o.kernelMs},
          {"rep_ms", o.repMs},
          {"rep_e2e_ms", o.repEndToEndMs},
          {"enqueue_timeouts", o.enqueueTimeouts},
          {"context_lost", o.contextLost},
          {"trace_error", o.traceError.substr(0, kMaxText)},
          {"trace_notes", notes},
          {"traced_function", o.tracedFunction.substr(0, kMaxText)},
          {"trace_records", o.traceRecords},
          {"trace_phases", o.tracePhases},
          {"hazards", hazards},
          {"hazards_suppressed", o.hazardsSuppressed},
          {"trace_hex", toHex(o.trace)}};
}

std::string decodeRunOutcome(const remote::Frame& f, uint64_t* id, RunOutcome* o) {
  if (std::string e = expect(f, "uc_outcome"); !e.empty()) return e;
  Reader j{f.body, {}};
  *id = j.count("id", UINT64_MAX);
  const std::string status = j.text("status");
  o->message = j.text("message");
  o->resultBits = j.count("bits", UINT64_MAX);
  o->inputChanged = j.count("input_changed", UINT64_MAX);
  o->firstInputChange = j.count("first_input_change", UINT64_MAX);
  o->kernelMs = j.number("ms");
  o->enqueueTimeouts = int(j.count("enqueue_timeouts", kMaxTimedReps));
  const json* reps = j.array("rep_ms", kMaxTimedReps);
  const json* repsE2e = j.array("rep_e2e_ms", kMaxTimedReps);
  o->contextLost = j.boolean("context_lost");
  const json* guards = j.array("guards", kMaxGuards);
  o->traceError = j.text("trace_error");
  o->tracedFunction = j.text("traced_function");
  o->traceRecords = j.count("trace_records", UINT64_MAX);
  o->tracePhases = int(j.count("trace_phases", 1u << 30));
  o->hazardsSuppressed = j.count("hazards_suppressed", UINT64_MAX);
  const json* notes = j.array("trace_notes", kMaxNotes);
  const json* hazards = j.array("hazards", kMaxHazards);
  if (!j.error.empty()) return j.error;
  for (auto [list, out] : {std::pair{reps, &o->repMs}, std::pair{repsE2e, &o->repEndToEndMs}}) {
    out->clear();
    for (const json& v : *list) {
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) return "a repetition's time is not a number of milliseconds";
      out->push_back(v.get<double>());
    }
  }
  if (o->repEndToEndMs.size() != o->repMs.size()) return "the end-to-end times are not one per repetition";
  o->traceNotes.clear();
  for (const json& n : *notes) {
    if (!n.is_string() || n.get_ref<const std::string&>().size() > kMaxText) return "a trace note is not text";
    o->traceNotes.push_back(n.get<std::string>());
  }
  o->hazards.clear();
  for (const json& hj : *hazards) {
    Reader r{hj, {}};
    instrumented::Hazard h;
    const std::string kind = r.text("kind");
    h.severity = r.boolean("failure") ? instrumented::Hazard::Severity::Failure : instrumented::Hazard::Severity::Warning;
    h.phase = uint32_t(r.count("phase", UINT32_MAX));
    h.wordOffset = r.integer("word");
    h.occurrences = r.count("occurrences", UINT64_MAX);
    h.message = r.text("message");
    for (const char* side : {"first", "second"}) {
      const json* a = r.at(side);
      if (!a) break;
      Reader ra{*a, {}};
      instrumented::HazardAccess x;
      x.thread = uint32_t(ra.count("thread", 1023));
      x.write = ra.boolean("write");
      x.pc = ra.count("pc", UINT64_MAX);
      x.sequence = uint32_t(ra.count("sequence", UINT32_MAX));
      if (!ra.error.empty()) return std::string("a hazard's ") + side + " access: " + ra.error;
      x.warp = int(x.thread / 32);
      x.lane = int(x.thread % 32);
      (std::string(side) == "first" ? h.first : h.second) = x;
    }
    if (!r.error.empty()) return "a hazard: " + r.error;
    bool knownKind = false;
    for (auto k : {instrumented::Hazard::Kind::CrossWarp, instrumented::Hazard::Kind::IntraWarp,
                   instrumented::Hazard::Kind::BarrierDivergence})
      if (kind == instrumented::name(k)) h.kind = k, knownKind = true;
    if (!knownKind) return "a hazard's kind is unknown";
    o->hazards.push_back(h);
  }
  const auto hex = f.body.find("trace_hex");
  if (hex == f.body.end() || !hex->is_string()) return "field 'trace_hex' is missing or not text";
  if (std::string e = fromHex(hex->get_ref<const std::string&>(), remote::kMaxPayloadBytes, &o->trace); !e.empty())
    return "field 'trace_hex' " + e;
  bool known = false;
  for (auto s : {RunOutcome::Status::Ok, RunOutcome::Status::LaunchError, RunOutcome::Status::Fault,
                 RunOutcome::Status::Timeout, RunOutcome::Status::Skipped, RunOutcome::Status::WorkerError})
    if (status == name(s)) o->status = s, known = true;
  if (!known) return "field 'status' has an unknown value";
  o->guards.clear();
  for (const json& g : *guards) {
    Reader r{g, {}};
    GuardFinding x;
    x.buffer = r.text("buffer");
    x.firstOffset = r.integer("first");
    x.lastOffset = r.integer("last");
    x.bytesChanged = r.count("bytes", UINT64_MAX);
    x.bufferBytes = r.count("buffer_bytes", UINT64_MAX);
    x.elemBytes = int(r.count("elem_bytes", 8));
    if (!r.error.empty()) return "a guard finding: " + r.error;
    o->guards.push_back(x);
  }
  return {};
}

}  // namespace rl::usercode
