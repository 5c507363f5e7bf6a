#include "reducelab/remote_protocol.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "reducelab/family.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/json_fields.hpp"

namespace rl::remote {

using nlohmann::json;
using Fields = JsonFields;

namespace {

std::string expectType(const Frame& f, const char* type) {
  if (f.type != type) return "a '" + f.type + "' message where '" + type + "' was expected";
  return {};
}

// Parses the decimal count of a header: digits only, no sign, no leading zeros, within `max`.
std::optional<size_t> headerCount(std::string_view s, size_t max) {
  if (s.empty() || s.size() > 20 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v > max) return std::nullopt;
  return size_t(v);
}

const char* const kKnownTypes[] = {"hello",    "run",     "sweep",     "cancel_sweep", "trace",  "resources",
                                   "peaks",    "bye",     "measurement", "sweep_row",  "sweep_progress",
                                   "message",  "error",    "user_kernel",
                                   // a check of the user's kernel on the server (usercode/check_json.hpp)
                                   "check", "cancel_check", "check_event",
                                   // the user-kernel worker (usercode/worker.hpp) speaks in the same frames
                                   "uc_hello", "uc_run",  "uc_outcome"};

}  // namespace

std::string encodeFrame(const json& body, const std::vector<uint8_t>& payload) {
  const std::string text = body.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out = std::string(kFrameMagic) + " " + std::to_string(text.size()) + " " + std::to_string(payload.size()) + "\n";
  out += text;
  out.append(reinterpret_cast<const char*>(payload.data()), payload.size());
  return out;
}

void FrameReader::feed(const void* bytes, size_t size) {
  if (failed()) return;
  // Drop what was consumed before growing (the buffer holds at most one frame and a bit).
  if (offset_ > 0 && offset_ == buffer_.size()) buffer_.clear(), offset_ = 0;
  else if (offset_ > (size_t(1) << 20)) buffer_.erase(0, offset_), offset_ = 0;
  buffer_.append(static_cast<const char*>(bytes), size);
}

FrameReader::Status FrameReader::fail(std::string why, std::string* error) {
  error_ = std::move(why);
  buffer_.clear();
  buffer_.shrink_to_fit();
  offset_ = 0;
  if (error) *error = error_;
  return Status::Error;
}

FrameReader::Status FrameReader::next(Frame* frame, std::string* error) {
  if (failed()) {
    if (error) *error = error_;
    return Status::Error;
  }
  const std::string_view avail(buffer_.data() + offset_, buffer_.size() - offset_);
  size_t headerLen = 0;
  if (!haveHeader_) {
    const size_t nl = avail.substr(0, kMaxHeaderLine).find('\n');
    if (nl == std::string_view::npos) {
      // The magic is checked as soon as its bytes are there: garbage is refused at once.
      // (Only "RLRP": another version of the protocol is named once its line is complete.)
      const size_t m = std::min(avail.size(), size_t(4));
      if (avail.substr(0, m) != std::string_view(kFrameMagic).substr(0, m))
        return fail("not a ReduceLab remote stream (a frame must start with " + std::string(kFrameMagic) + ")", error);
      if (avail.size() >= kMaxHeaderLine) return fail("frame header line too long", error);
      return Status::NeedMore;
    }
    const std::string_view line = avail.substr(0, nl);
    const std::string_view magic = line.substr(0, std::min(line.size(), std::strlen(kFrameMagic) + 1));
    if (magic != std::string(kFrameMagic) + " ")
      return fail(line.starts_with("RLRP")
                      ? "the other side speaks another version of the remote protocol (" +
                            std::string(line.substr(0, line.find(' '))) + ", this one " + kFrameMagic + ")"
                      : "not a ReduceLab remote stream (a frame must start with " + std::string(kFrameMagic) + ")",
                  error);
    const std::string_view rest = line.substr(magic.size());
    const size_t sp = rest.find(' ');
    if (sp == std::string_view::npos) return fail("frame header without a payload size", error);
    const auto js = headerCount(rest.substr(0, sp), kMaxJsonBytes);
    const auto ps = headerCount(rest.substr(sp + 1), kMaxPayloadBytes);
    if (!js || *js == 0) return fail("frame header: JSON size missing, malformed or over " + std::to_string(kMaxJsonBytes) + " bytes", error);
    if (!ps) return fail("frame header: payload size malformed or over " + std::to_string(kMaxPayloadBytes) + " bytes", error);
    haveHeader_ = true;
    jsonBytes_ = *js;
    payloadBytes_ = *ps;
    headerLen = nl + 1;
    offset_ += headerLen;
  }
  const std::string_view body(buffer_.data() + offset_, buffer_.size() - offset_);
  if (body.size() < jsonBytes_ + payloadBytes_) return Status::NeedMore;
  json j = json::parse(body.substr(0, jsonBytes_), nullptr, false);
  if (j.is_discarded()) return fail("frame body is not JSON", error);
  if (!j.is_object()) return fail("frame body is not a JSON object", error);
  const auto t = j.find("type");
  if (t == j.end() || !t->is_string()) return fail("frame body has no message type", error);
  const std::string type = t->get<std::string>();
  bool known = false;
  for (const char* k : kKnownTypes) known = known || type == k;
  if (!known) return fail("unknown message type '" + type.substr(0, 40) + "'", error);
  if (payloadBytes_ > 0 && type != "trace" && type != "check_event") return fail("a '" + type + "' message carries a payload", error);
  frame->type = type;
  frame->body = std::move(j);
  frame->payload.assign(body.begin() + long(jsonBytes_), body.begin() + long(jsonBytes_ + payloadBytes_));
  offset_ += jsonBytes_ + payloadBytes_;
  haveHeader_ = false;
  if (offset_ == buffer_.size()) buffer_.clear(), offset_ = 0;
  return Status::Frame;
}

// ---- pieces ----

json runConfigJson(const RunConfig& c) {
  json j = {{"kernel", c.kernel},
          {"op", std::string(name(c.op))},
          {"type", std::string(name(c.type))},
          {"accumulate", std::string(name(c.accumulate))},
          {"n", c.n},
          {"block", c.block},
          {"final", std::string(name(c.final))},
          {"reps", c.reps},
          {"warmup", c.warmup},
          {"warm_l2", c.warmL2},
          {"data", std::string(name(c.data))},
          {"seed", c.seed},
          {"range_lo", c.rangeLo},
          {"range_hi", c.rangeHi},
          {"traced_block", c.tracedBlock},
          {"timing", std::string(name(c.timing))},
          {"pdl", c.pdl}};
  // The kernel's family's own parameters (a peer reads absent ones as their defaults).
  if (const KernelFamily* f = familyOf(c))
    for (const FamilyParameter& p : f->parameters()) j[p.key] = p.get(c);
  return j;
}

std::string runConfigFromJson(const json& j, RunConfig* out) {
  if (!j.is_object()) return "the configuration is not an object";
  Fields f{j, {}};
  RunConfig c;
  c.kernel = f.text("kernel", 32);
  const std::string op = f.text("op", 32), type = f.text("type", 32), acc = f.text("accumulate", 32),
                    fin = f.text("final", 32), data = f.text("data", 32);
  c.n = f.unsignedInteger("n", uint64_t(1) << 40);
  c.block = int(f.integer("block", 1, 1024));
  c.reps = int(f.integer("reps", 1, 100000));
  c.warmup = int(f.integer("warmup", 0, 10000));
  c.warmL2 = f.boolean("warm_l2");
  c.seed = f.unsignedInteger("seed", UINT64_MAX);
  c.rangeLo = f.integer("range_lo", INT64_MIN, INT64_MAX);
  c.rangeHi = f.integer("range_hi", INT64_MIN, INT64_MAX);
  c.tracedBlock = f.unsignedInteger("traced_block", uint64_t(1) << 40);
  // Fields a peer of an older ReduceLab does not send keep their defaults (blocked timing, PDL on,
  // the default matrix); sent, they are checked like the others.
  std::string timing = "blocked";
  if (j.contains("timing")) timing = f.text("timing", 32);
  if (j.contains("pdl")) c.pdl = f.boolean("pdl");
  // Any family's parameters are checked (an older peer sends all of them); the kernel's are kept.
  ParameterValues own;
  for (const FamilyParameter& p : allFamilyParameters())
    if (j.contains(p.key)) own[p.key] = f.unsignedInteger(p.key.c_str(), p.max);
  if (!f.error.empty()) return "configuration: " + f.error;
  const auto tm = parseTimingMode(timing);
  if (!tm) return "configuration: timing '" + timing + "' is not one of: blocked, events, graph";
  c.timing = *tm;
  const auto o = parseOp(op);
  const auto t = parseElemType(type);
  const auto a = parseAccumulate(acc);
  const auto fs = parseFinalStage(fin);
  const auto d = parseDataPattern(data);
  if (!o || !t || !a || !fs || !d) return "configuration: an operation, type, accumulator, final stage or data pattern is unknown";
  c.op = *o, c.type = *t, c.accumulate = *a, c.final = *fs, c.data = *d;
  for (const auto& [key, value] : own)  // as sent: block and N are the peer's, not normalized here
    if (const FamilyParameter* p = ownParameter(c, key)) p->set(c, value);
  // Its family's rules (the student's kernel: the checks that need no contract).
  if (std::string e = validateRow(c, nullptr); !e.empty()) return "configuration: " + e;
  *out = c;
  return {};
}

json deviceJson(const DeviceInfo& d) {
  return {{"available", d.available},      {"unavailable_reason", d.unavailableReason},
          {"ordinal", d.ordinal},          {"name", d.name},
          {"uuid", d.uuid},                {"pci_bus_id", d.pciBusId},
          {"cc_major", d.ccMajor},         {"cc_minor", d.ccMinor},
          {"sm_count", d.smCount},         {"l2_bytes", d.l2Bytes},
          {"total_mem_bytes", d.totalMemBytes}, {"free_mem_bytes", d.freeMemBytes},
          {"bus_width_bits", d.busWidthBits}, {"mem_clock_khz", d.memClockKHz},
          {"sm_clock_khz", d.smClockKHz},  {"driver_version", d.driverVersion},
          {"runtime_version", d.runtimeVersion}, {"warp_size", d.warpSize},
          {"max_threads_per_block", d.maxThreadsPerBlock}, {"max_threads_per_sm", d.maxThreadsPerSM},
          {"max_blocks_per_sm", d.maxBlocksPerSM}, {"regs_per_sm", d.regsPerSM},
          {"regs_per_block", d.regsPerBlock}, {"smem_per_sm", d.smemPerSM},
          {"smem_per_block", d.smemPerBlock}, {"smem_per_block_optin", d.smemPerBlockOptin},
          {"reserved_smem_per_block", d.reservedSmemPerBlock}};
}

std::string deviceFromProtocolJson(const json& j, DeviceInfo* out) {
  if (!j.is_object()) return "the device is not an object";
  Fields f{j, {}};
  DeviceInfo d;
  constexpr int64_t kBig = int64_t(1) << 50, kInt = int64_t(1) << 30;
  d.available = f.boolean("available");
  d.unavailableReason = f.text("unavailable_reason");
  d.ordinal = int(f.integer("ordinal", 0, 1024));
  d.name = f.text("name", 256);
  d.uuid = f.text("uuid", 256);
  d.pciBusId = f.text("pci_bus_id", 256);
  d.ccMajor = int(f.integer("cc_major", 0, 100));
  d.ccMinor = int(f.integer("cc_minor", 0, 100));
  d.smCount = int(f.integer("sm_count", 0, 1 << 20));
  d.l2Bytes = f.integer("l2_bytes", 0, kBig);
  d.totalMemBytes = f.integer("total_mem_bytes", 0, kBig);
  d.freeMemBytes = f.integer("free_mem_bytes", 0, kBig);
  d.busWidthBits = int(f.integer("bus_width_bits", 0, 1 << 20));
  d.memClockKHz = int(f.integer("mem_clock_khz", 0, kInt));
  d.smClockKHz = int(f.integer("sm_clock_khz", 0, kInt));
  d.driverVersion = int(f.integer("driver_version", 0, kInt));
  d.runtimeVersion = int(f.integer("runtime_version", 0, kInt));
  d.warpSize = int(f.integer("warp_size", 0, 1024));
  d.maxThreadsPerBlock = int(f.integer("max_threads_per_block", 0, 1 << 20));
  d.maxThreadsPerSM = int(f.integer("max_threads_per_sm", 0, 1 << 20));
  d.maxBlocksPerSM = int(f.integer("max_blocks_per_sm", 0, 1 << 20));
  d.regsPerSM = int(f.integer("regs_per_sm", 0, kInt));
  d.regsPerBlock = int(f.integer("regs_per_block", 0, kInt));
  d.smemPerSM = f.integer("smem_per_sm", 0, kBig);
  d.smemPerBlock = f.integer("smem_per_block", 0, kBig);
  d.smemPerBlockOptin = f.integer("smem_per_block_optin", 0, kBig);
  d.reservedSmemPerBlock = f.integer("reserved_smem_per_block", 0, kBig);
  if (!f.error.empty()) return "device: " + f.error;
  // A device the app would compute with must be one it can reason about.
  if (d.available && (d.warpSize != 32 || d.smCount < 1 || d.maxThreadsPerBlock < 1 || d.maxThreadsPerSM < 1 ||
                      d.maxBlocksPerSM < 1 || d.regsPerSM < 1 || d.smemPerSM < 1 || d.name.empty()))
    return "device: a GPU without plausible limits (warp size, SMs, threads, registers, shared memory)";
  *out = d;
  return {};
}

json peaksJson(const Peaks& p) {
  return {{"theoretical_gbs", p.theoreticalGBs}, {"read_gbs", p.readGBs},     {"copy_gbs", p.copyGBs},
          {"source", p.source},                  {"buffer_bytes", p.bufferBytes},
          {"read_min_gbs", p.readMinGBs},        {"read_max_gbs", p.readMaxGBs},
          {"copy_min_gbs", p.copyMinGBs},        {"copy_max_gbs", p.copyMaxGBs},
          {"sm_clock_mhz", p.smClockMHz},        {"mem_clock_mhz", p.memClockMHz}};
}

std::string peaksFromProtocolJson(const json& j, Peaks* out) {
  if (!j.is_object()) return "the peaks are not an object";
  Fields f{j, {}};
  Peaks p;
  constexpr double kMaxGBs = 1e6;  // far above any memory system
  p.theoreticalGBs = f.number("theoretical_gbs", 0, kMaxGBs);
  p.readGBs = f.number("read_gbs", 0, kMaxGBs);
  p.copyGBs = f.number("copy_gbs", 0, kMaxGBs);
  p.source = f.text("source", 256);
  p.bufferBytes = f.number("buffer_bytes", 0, 1e18);
  p.readMinGBs = f.number("read_min_gbs", 0, kMaxGBs);
  p.readMaxGBs = f.number("read_max_gbs", 0, kMaxGBs);
  p.copyMinGBs = f.number("copy_min_gbs", 0, kMaxGBs);
  p.copyMaxGBs = f.number("copy_max_gbs", 0, kMaxGBs);
  p.smClockMHz = int(f.integer("sm_clock_mhz", 0, 1 << 20));
  p.memClockMHz = int(f.integer("mem_clock_mhz", 0, 1 << 20));
  if (!f.error.empty()) return "peaks: " + f.error;
  *out = p;
  return {};
}

// ---- messages ----

json helloJson(const Hello& h) {
  return {{"type", "hello"},           {"protocol", h.protocol}, {"version", h.version}, {"commit", h.commit},
          {"host", h.host},            {"device", deviceJson(h.device)}, {"peaks", peaksJson(h.peaks)}};
}

json runRequest(const RunConfig& c, const std::string& label, RunKind kind) {
  return {{"type", "run"}, {"config", runConfigJson(c)}, {"label", label},
          {"kind", kind == RunKind::Continuous ? "continuous" : "single"}};
}

json sweepRequest(const SweepSpec& s) {
  json j = {{"type", "sweep"}, {"axis", std::string(name(s.axis))}, {"base", runConfigJson(s.base)},
            {"kernels", s.kernels}, {"n_min", s.nMin}, {"n_max", s.nMax}};
  if (!s.parameters.empty()) j["parameters"] = s.parameters;  // the families' own, by key (--rows)
  return j;
}

json traceRequest(uint64_t id, const RunConfig& c) { return {{"type", "trace"}, {"id", id}, {"config", runConfigJson(c)}}; }
json resourcesRequest(const RunConfig& c) { return {{"type", "resources"}, {"config", runConfigJson(c)}}; }
json peaksRequest(bool remeasure) { return {{"type", "peaks"}, {"remeasure", remeasure}}; }
json simpleMessage(const std::string& type) { return {{"type", type}}; }

json measurementMessage(const Measurement& m, const DeviceInfo& d, const Peaks& p) {
  return {{"type", "measurement"}, {"label", m.label}, {"session", sessionJson(SessionInfo{d, p, {}, "remote"}, {m})}};
}

json sweepRowMessage(const std::string& axis, const Measurement& m, const DeviceInfo& d, const Peaks& p) {
  return {{"type", "sweep_row"}, {"axis", axis}, {"label", m.label},
          {"session", sessionJson(SessionInfo{d, p, {}, "remote"}, {m})}};
}

json sweepProgressMessage(const SweepProgress& s) {
  return {{"type", "sweep_progress"}, {"axis", s.axis}, {"done", s.done}, {"total", s.total},
          {"current", s.current}, {"finished", s.finished}};
}

json textMessage(const std::string& text) { return {{"type", "message"}, {"text", text.substr(0, kMaxTextBytes)}}; }
json errorMessage(const std::string& text) { return {{"type", "error"}, {"text", text.substr(0, kMaxTextBytes)}}; }

json resourcesMessage(const ResourcesDone& r) {
  const ResourceUsage& u = r.usage;
  return {{"type", "resources"},
          {"config", runConfigJson(r.config)},
          {"error", r.error.substr(0, kMaxTextBytes)},
          {"usage",
           {{"registers", u.registers}, {"registers_assumed", u.registersAssumed},
            {"static_smem_bytes", u.staticSmemBytes}, {"dynamic_smem_bytes", u.dynamicSmemBytes},
            {"local_bytes", u.localBytes}, {"max_threads_per_block", u.maxThreadsPerBlock},
            {"active_blocks_per_sm", u.activeBlocksPerSM}, {"occupancy", u.occupancy},
            {"limiter", u.limiter}, {"waves", u.waves}}}};
}

json peaksMessage(const Peaks& p) { return {{"type", "peaks"}, {"peaks", peaksJson(p)}}; }

json traceMessage(uint64_t id, const RunConfig& c, bool ok, const std::string& error, const std::string& source) {
  return {{"type", "trace"}, {"id", id}, {"config", runConfigJson(c)}, {"ok", ok},
          {"error", error.substr(0, kMaxTextBytes)}, {"source", source.substr(0, 256)}};
}

std::string decodeHello(const Frame& f, Hello* out) {
  if (std::string e = expectType(f, "hello"); !e.empty()) return e;
  Fields x{f.body, {}};
  Hello h;
  h.protocol = int(x.integer("protocol", 0, 1 << 20));
  if (x.error.empty() && h.protocol != kProtocolVersion)
    return "the server speaks remote protocol " + std::to_string(h.protocol) + ", this app " +
           std::to_string(kProtocolVersion) + ": install the same ReduceLab version on both machines";
  h.version = x.text("version", 64);
  h.commit = x.text("commit", 64);
  h.host = x.text("host", 256);
  const json* dev = x.object("device");
  const json* peaks = x.object("peaks");
  if (!x.error.empty()) return "hello: " + x.error;
  if (std::string e = deviceFromProtocolJson(*dev, &h.device); !e.empty()) return "hello: " + e;
  if (std::string e = peaksFromProtocolJson(*peaks, &h.peaks); !e.empty()) return "hello: " + e;
  *out = h;
  return {};
}

std::string decodeRunRequest(const Frame& f, RunConfig* c, std::string* label, RunKind* kind) {
  if (std::string e = expectType(f, "run"); !e.empty()) return e;
  Fields x{f.body, {}};
  const json* cfg = x.at("config");
  *label = x.text("label", 256);
  const std::string k = x.text("kind", 16);
  if (!x.error.empty()) return "run: " + x.error;
  if (k != "single" && k != "continuous") return "run: kind '" + k + "' is not single or continuous";
  *kind = k == "continuous" ? RunKind::Continuous : RunKind::Single;
  if (std::string e = runConfigFromJson(*cfg, c); !e.empty()) return "run: " + e;
  return {};
}

json userKernelRequest(const std::string& file, const std::string& source) {
  return {{"type", "user_kernel"}, {"file", file}, {"source", source}};
}

std::string decodeUserKernelRequest(const Frame& f, std::string* file, std::string* source) {
  if (std::string e = expectType(f, "user_kernel"); !e.empty()) return e;
  Fields x{f.body, {}};
  const std::string name = x.text("file", 4096);
  const std::string text = x.text("source", kMaxUserKernelBytes);
  if (!x.error.empty()) return "user_kernel: " + x.error;
  if (name.empty() || text.empty()) return "user_kernel: no file name or no source";
  *file = name;
  *source = text;
  return {};
}

std::string decodeSweepRequest(const Frame& f, SweepSpec* out) {
  if (std::string e = expectType(f, "sweep"); !e.empty()) return e;
  Fields x{f.body, {}};
  SweepSpec s;
  const std::string axis = x.text("axis", 16);
  const json* base = x.at("base");
  const json* kernels = x.at("kernels");
  s.nMin = x.unsignedInteger("n_min", uint64_t(1) << 40);
  s.nMax = x.unsignedInteger("n_max", uint64_t(1) << 40);
  if (!x.error.empty()) return "sweep: " + x.error;
  const auto a = parseSweepAxis(axis);
  if (!a) return "sweep: axis '" + axis.substr(0, 16) + "' is not one of: block, n, type, kernel";
  s.axis = *a;
  if (std::string e = runConfigFromJson(*base, &s.base); !e.empty()) return "sweep: " + e;
  if (!kernels->is_array() || kernels->size() > kMaxSweepKernels) return "sweep: the kernels are not a short list";
  s.kernels.clear();
  for (const json& k : *kernels) {
    if (!k.is_string() || !findAnyKernel(k.get<std::string>())) return "sweep: a kernel of the list is unknown";
    s.kernels.push_back(k.get<std::string>());
  }
  // The student's kernel is swept alone (the backend that compiled it runs it), never in a list with ours.
  if (s.kernels.size() > 1 && std::any_of(s.kernels.begin(), s.kernels.end(), [](const std::string& k) { return runsUserSource(k); }))
    return "sweep: your kernel is swept on its own, not in a list with others";
  if (s.nMin < 1 || (s.nMax != 0 && s.nMax < s.nMin)) return "sweep: the N range is empty";
  if (const auto p = f.body.find("parameters"); p != f.body.end()) {
    if (!p->is_object()) return "sweep: the parameters are not an object";
    Fields values{*p, {}};
    for (const FamilyParameter& fp : allFamilyParameters())
      if (p->contains(fp.key)) s.parameters[fp.key] = values.unsignedInteger(fp.key.c_str(), fp.max);
    if (!values.error.empty()) return "sweep: parameters: " + values.error;
  }
  *out = s;
  return {};
}

std::string decodeTraceRequest(const Frame& f, uint64_t* id, RunConfig* c) {
  if (std::string e = expectType(f, "trace"); !e.empty()) return e;
  Fields x{f.body, {}};
  *id = x.unsignedInteger("id", UINT64_MAX);
  const json* cfg = x.at("config");
  if (!x.error.empty()) return "trace: " + x.error;
  if (!f.payload.empty()) return "trace: a request carries no payload";
  if (std::string e = runConfigFromJson(*cfg, c); !e.empty()) return "trace: " + e;
  return {};
}

std::string decodeResourcesRequest(const Frame& f, RunConfig* c) {
  if (std::string e = expectType(f, "resources"); !e.empty()) return e;
  Fields x{f.body, {}};
  const json* cfg = x.at("config");
  if (!x.error.empty()) return "resources: " + x.error;
  if (f.body.contains("usage")) return "resources: a request carries no usage";
  if (std::string e = runConfigFromJson(*cfg, c); !e.empty()) return "resources: " + e;
  return {};
}

std::string decodePeaksRequest(const Frame& f, bool* remeasure) {
  if (std::string e = expectType(f, "peaks"); !e.empty()) return e;
  Fields x{f.body, {}};
  *remeasure = x.boolean("remeasure");
  return x.error.empty() ? "" : "peaks: " + x.error;
}

std::string decodeMeasurement(const Frame& f, Measurement* m, std::string* axis) {
  const bool row = f.type == "sweep_row";
  if (!row && f.type != "measurement") return "a '" + f.type + "' message where a measurement was expected";
  Fields x{f.body, {}};
  const std::string label = x.text("label", 256);
  const std::string ax = row ? x.text("axis", 16) : "";
  const json* session = x.object("session");
  if (!x.error.empty()) return f.type + ": " + x.error;
  if (row && !parseSweepAxis(ax)) return "sweep_row: axis '" + ax + "' is unknown";
  std::string err;
  std::vector<Measurement> rows = measurementsFromJson(*session, &err);
  if (rows.size() != 1) return f.type + ": " + (err.empty() ? "not exactly one record" : err);
  *m = std::move(rows.front());
  m->label = label;
  if (axis) *axis = ax;
  return {};
}

std::string decodeSweepProgress(const Frame& f, SweepProgress* out) {
  if (std::string e = expectType(f, "sweep_progress"); !e.empty()) return e;
  Fields x{f.body, {}};
  SweepProgress s;
  s.axis = x.text("axis", 16);
  s.total = int(x.integer("total", 0, 1 << 24));
  s.done = int(x.integer("done", 0, 1 << 24));
  s.current = x.text("current", 256);
  s.finished = x.boolean("finished");
  if (!x.error.empty()) return "sweep_progress: " + x.error;
  if (!parseSweepAxis(s.axis)) return "sweep_progress: axis '" + s.axis + "' is unknown";
  if (s.done > s.total) return "sweep_progress: more runs done than planned";
  *out = s;
  return {};
}

std::string decodeText(const Frame& f, std::string* text) {
  if (f.type != "message" && f.type != "error") return "a '" + f.type + "' message where text was expected";
  Fields x{f.body, {}};
  *text = x.text("text");
  return x.error.empty() ? "" : f.type + ": " + x.error;
}

std::string decodeResources(const Frame& f, ResourcesDone* out) {
  if (std::string e = expectType(f, "resources"); !e.empty()) return e;
  Fields x{f.body, {}};
  ResourcesDone r;
  const json* cfg = x.at("config");
  r.error = x.text("error");
  const json* usage = x.object("usage");
  if (!x.error.empty()) return "resources: " + x.error;
  if (std::string e = runConfigFromJson(*cfg, &r.config); !e.empty()) return "resources: " + e;
  Fields u{*usage, {}};
  ResourceUsage& v = r.usage;
  v.registers = int(u.integer("registers", 0, 65536));
  v.registersAssumed = u.boolean("registers_assumed");
  v.staticSmemBytes = int(u.integer("static_smem_bytes", 0, 1 << 30));
  v.dynamicSmemBytes = int(u.integer("dynamic_smem_bytes", 0, 1 << 30));
  v.localBytes = int(u.integer("local_bytes", 0, 1 << 30));
  v.maxThreadsPerBlock = int(u.integer("max_threads_per_block", 0, 1 << 20));
  v.activeBlocksPerSM = int(u.integer("active_blocks_per_sm", 0, 1 << 20));
  v.occupancy = u.number("occupancy", 0, 1);
  v.limiter = u.text("limiter", 64);
  v.waves = u.number("waves", 0, 1e15);
  if (!u.error.empty()) return "resources: " + u.error;
  *out = r;
  return {};
}

std::string decodePeaks(const Frame& f, Peaks* p) {
  if (std::string e = expectType(f, "peaks"); !e.empty()) return e;
  Fields x{f.body, {}};
  const json* peaks = x.object("peaks");
  if (!x.error.empty()) return "peaks: " + x.error;
  return peaksFromProtocolJson(*peaks, p);
}

std::string decodeTrace(const Frame& f, TraceReply* out) {
  if (std::string e = expectType(f, "trace"); !e.empty()) return e;
  Fields x{f.body, {}};
  TraceReply t;
  t.id = x.unsignedInteger("id", UINT64_MAX);
  const json* cfg = x.at("config");
  t.ok = x.boolean("ok");
  t.error = x.text("error");
  t.source = x.text("source", 256);
  if (!x.error.empty()) return "trace: " + x.error;
  if (std::string e = runConfigFromJson(*cfg, &t.config); !e.empty()) return "trace: " + e;
  if (!t.ok) {
    if (!f.payload.empty()) return "trace: a failed trace carries a payload";
    *out = std::move(t);
    return {};
  }
  // The bytes the traced kernel (or the CPU model) wrote: exactly one buffer of the asked block.
  if (f.payload.size() != trace::bufferBytes(uint32_t(t.config.block)))
    return "trace: the payload is " + std::to_string(f.payload.size()) + " bytes, a trace of block " +
           std::to_string(t.config.block) + " has " + std::to_string(trace::bufferBytes(uint32_t(t.config.block)));
  std::string err;
  t.data = TraceData::fromBuffer(f.payload.data(), f.payload.size(), &err);
  if (!t.data.valid()) return "trace: " + (err.empty() ? std::string("no trace in the payload") : err);
  if (t.data.header.blockSize != uint32_t(t.config.block))
    return "trace: the payload is a trace of block size " + std::to_string(t.data.header.blockSize) + ", not " +
           std::to_string(t.config.block);
  if (t.data.numSteps() == 0) return "trace: the payload's trace has no steps";
  *out = std::move(t);
  return {};
}

}  // namespace rl::remote
