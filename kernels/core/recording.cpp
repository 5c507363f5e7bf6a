// Recordings (docs/recording-format.md): a 48-byte preamble, then one zlib stream holding the
// JSON header and the trace blobs one after another.
#include "reducelab/recording.hpp"

#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "reducelab/atomic_file.hpp"
#include "reducelab/family.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/sweep.hpp"
#include "reducelab/version.hpp"

namespace rl {

namespace {

using nlohmann::json;

void putU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}
void putU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}
uint32_t getU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t getU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint32_t crcOf(const uint8_t* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (size > 0) {  // crc32 takes a uInt length
    const uInt chunk = uInt(std::min<size_t>(size, 1u << 30));
    crc = crc32(crc, data, chunk);
    data += chunk, size -= chunk;
  }
  return uint32_t(crc);
}

json configJson(const RunConfig& c) {
  return {{"kernel", c.kernel},
          {"op", std::string(name(c.op))},
          {"type", std::string(name(c.type))},
          {"accumulator", std::string(name(c.accType()))},
          {"n", c.n},
          {"block", c.block},
          {"final", std::string(name(c.final))},
          {"data", std::string(name(c.data))},
          {"seed", c.seed},
          {"range_lo", c.rangeLo},
          {"range_hi", c.rangeHi},
          {"traced_block", c.tracedBlock}};
}

// A traced configuration, checked like command-line input; throws with the reason.
RunConfig configFromJson(const json& j, bool userKernel) {
  if (!j.is_object()) throw std::invalid_argument("a trace's configuration is not an object");
  RunConfig c;
  auto text = [&](const char* key) {
    const auto& v = j.at(key);
    if (!v.is_string()) throw std::invalid_argument(std::string("the trace's ") + key + " is not text");
    return v.get<std::string>();
  };
  auto integer = [&](const char* key, int64_t lo, int64_t hi) {
    const auto& v = j.at(key);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(hi)) ||
        v.get<int64_t>() < lo || v.get<int64_t>() > hi)
      throw std::invalid_argument(std::string("the trace's ") + key + " is not an integer in range");
    return v.get<int64_t>();
  };
  c.kernel = text("kernel");
  const std::string op = text("op"), type = text("type"), acc = text("accumulator"), fin = text("final"),
                    data = text("data");
  const auto o = parseOp(op);
  const auto t = parseElemType(type);
  const auto a = parseElemType(acc);
  const auto f = parseFinalStage(fin);
  const auto d = parseDataPattern(data);
  if (!o || !t || !a || !f || !d) throw std::invalid_argument("a trace's op, type, final stage or data is unknown");
  c.op = *o, c.type = *t, c.final = *f, c.data = *d;
  c.accumulate = *a == *t ? Accumulate::Same : Accumulate::Wide;
  if (c.accType() != *a) throw std::invalid_argument("a trace's accumulator does not fit its type");
  c.n = uint64_t(integer("n", 1, int64_t(1) << 40));
  c.block = int(integer("block", 1, trace::kMaxBlock));
  c.seed = uint64_t(integer("seed", 0, INT64_MAX));
  c.rangeLo = integer("range_lo", INT64_MIN, INT64_MAX);
  c.rangeHi = integer("range_hi", INT64_MIN, INT64_MAX);
  c.tracedBlock = uint64_t(integer("traced_block", 0, int64_t(1) << 40));
  if (c.rangeLo > c.rangeHi) throw std::invalid_argument("a trace's range_lo is above its range_hi");
  // The student's kernel (its family's sourceKernel): traced by the GPU, kept only beside its file.
  const bool fromSource = runsUserSource(c.kernel);
  if (fromSource && !userKernel) throw std::invalid_argument("a trace of your kernel, in a recording that holds none");
  if (std::string e = validateRow(c, nullptr); !e.empty()) throw std::invalid_argument("a traced configuration: " + e);
  if (!fromSource && !findKernel(c.kernel)->traceable) throw std::invalid_argument(c.kernel + " has no traced twin");
  return c;
}

std::string textField(const json& j, const char* key, size_t maxBytes) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (!it->is_string() || it->get_ref<const std::string&>().size() > maxBytes)
    throw std::invalid_argument(std::string(key) + " is not text of at most " + std::to_string(maxBytes) + " bytes");
  return it->get<std::string>();
}

// The measurements of one session object, with a cap on their number checked before parsing.
std::vector<Measurement> sessionRows(const json& session, const char* what) {
  const auto b = session.find("benchmarks");
  if (b == session.end() || !b->is_array() || b->empty() || !(*b)[0].is_object() || !(*b)[0].contains("states") ||
      !(*b)[0]["states"].is_array())
    throw std::invalid_argument(std::string(what) + " has no measurements list");
  if ((*b)[0]["states"].size() > kRecordingMaxMeasurements)
    throw std::invalid_argument(std::string(what) + " holds more than " + std::to_string(kRecordingMaxMeasurements) +
                                " measurements");
  std::string err;
  std::vector<Measurement> rows = measurementsFromJson(session, &err);
  if (!err.empty()) throw std::invalid_argument(std::string(what) + ": " + err);
  return rows;
}

// Inflates exactly `expected` bytes from a zlib stream that must end there.
std::string inflateExactly(const uint8_t* data, size_t size, uint64_t expected, std::vector<uint8_t>* out) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return "zlib could not start";
  out->clear();
  // Grown as the stream delivers: a small hostile file cannot make the reader allocate its claim.
  out->resize(size_t(std::min<uint64_t>(expected, uint64_t(1) << 20)));
  z.next_in = const_cast<uint8_t*>(data);
  z.avail_in = 0;
  size_t inLeft = size, produced = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0 && inLeft > 0) {
      z.avail_in = uInt(std::min<size_t>(inLeft, 1u << 30));
      inLeft -= z.avail_in;
    }
    if (produced == out->size()) {
      if (produced == expected) {  // room for one more byte shows a stream longer than declared
        uint8_t extra;
        z.next_out = &extra;
        z.avail_out = 1;
        rc = inflate(&z, Z_NO_FLUSH);
        inflateEnd(&z);
        if (z.avail_out == 0) return "the compressed content is longer than its preamble says";
        if (rc != Z_STREAM_END) return "the compressed content is damaged or cut short";
        break;
      }
      out->resize(size_t(std::min<uint64_t>(expected, uint64_t(out->size()) * 2)));
    }
    z.next_out = out->data() + produced;
    z.avail_out = uInt(std::min<size_t>(out->size() - produced, 1u << 30));
    const uInt before = z.avail_out;
    rc = inflate(&z, Z_NO_FLUSH);
    produced += before - z.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && z.avail_in == 0 && inLeft == 0) {
      inflateEnd(&z);
      return "the compressed content is cut short";
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      inflateEnd(&z);
      return "the compressed content is damaged (zlib: " + std::string(z.msg ? z.msg : "error") + ")";
    }
  }
  const bool trailing = z.avail_in > 0 || inLeft > 0;
  inflateEnd(&z);
  if (produced != expected)
    return "the compressed content holds " + std::to_string(produced) + " bytes, its preamble says " +
           std::to_string(expected);
  if (trailing) return "bytes follow the end of the compressed content";
  return {};
}

std::string deflateAll(const std::string& in, std::string* out) {
  z_stream z{};
  if (deflateInit(&z, 6) != Z_OK) return "zlib could not start";
  out->assign(deflateBound(&z, uLong(in.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = uInt(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out->data());
  z.avail_out = uInt(out->size());
  const int rc = deflate(&z, Z_FINISH);
  out->resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? "" : "zlib could not compress the recording";
}

}  // namespace

bool sameTraceConfig(const RunConfig& a, const RunConfig& b) {
  return a.kernel == b.kernel && a.op == b.op && a.type == b.type && a.accumulate == b.accumulate && a.n == b.n &&
         a.block == b.block && a.data == b.data && a.seed == b.seed && a.rangeLo == b.rangeLo &&
         a.rangeHi == b.rangeHi && a.tracedBlock == b.tracedBlock;
}

const RecordedTrace* Recording::findTrace(const RunConfig& c) const {
  for (const RecordedTrace& t : traces)
    if (sameTraceConfig(t.config, c)) return &t;
  return nullptr;
}

std::string Recording::banner() const {
  std::string date = createdUtc;  // "2026-11-21T09:30:00Z" -> "2026-11-21 09:30 UTC"
  if (date.size() >= 16 && date[10] == 'T') date = date.substr(0, 10) + " " + date.substr(11, 5) + " UTC";
  if (date.empty()) date = "date not recorded";  // a session JSON of an earlier version
  if (device.available)
    return "Recorded on " + device.name + ", driver " + cudaVersionString(device.driverVersion) + ", " + date;
  return "Recorded with the CPU model (no NVIDIA GPU)" + (host.empty() ? std::string() : " on " + host) + ", " + date;
}

std::string utcNow() {
  char b[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

std::string encodeRecording(const Recording& r) {
  const SessionInfo info{r.device, r.peaks, r.argv, r.lessonName.empty() ? "recording" : "lesson-" + r.lessonName};
  json h;
  h["format"] = "reducelab-recording";
  const uint32_t version = r.userKernel ? kRecordingVersion : 1;  // older readers open what they can read
  h["version"] = version;
  h["created_utc"] = r.createdUtc;
  h["host"] = r.host;
  h["reducelab"] = r.reducelabVersion;
  h["source"] = r.device.available ? "gpu" : "cpu-model";
  h["lesson"] = r.lessonName.empty() ? json(nullptr) : json{{"name", r.lessonName}, {"text", r.lessonText}};
  h["session"] = sessionJson(info, r.measurements);
  if (r.userKernel)
    h["user_kernel"] = {{"file", r.userKernel->file},
                        {"source", r.userKernel->source},
                        {"compile_log", r.userKernel->compileLog},
                        {"arch", r.userKernel->arch}};
  h["sweeps"] = json::array();
  for (const auto& [axis, rows] : r.sweeps) h["sweeps"].push_back({{"axis", axis}, {"session", sessionJson(info, rows)}});
  h["traces"] = json::array();
  uint64_t offset = 0;
  for (const RecordedTrace& t : r.traces) {
    h["traces"].push_back({{"config", configJson(t.config)},
                           {"source", t.fromGpu ? "gpu" : "cpu-model"},
                           {"offset", offset},
                           {"bytes", t.bytes.size()}});
    offset += t.bytes.size();
  }
  const std::string header = h.dump();
  std::string payload = header;
  payload.reserve(header.size() + offset);
  for (const RecordedTrace& t : r.traces) payload.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  std::string compressed;
  if (std::string e = deflateAll(payload, &compressed); !e.empty()) return {};
  std::string out(kRecordingMagic, sizeof kRecordingMagic);
  putU32(out, version);
  putU32(out, 0);  // flags: none defined
  putU64(out, header.size());
  putU64(out, offset);
  putU64(out, compressed.size());
  putU32(out, crcOf(reinterpret_cast<const uint8_t*>(payload.data()), payload.size()));
  putU32(out, 0);
  return out + compressed;
}

bool looksLikeRecording(const void* data, size_t size) {
  return size >= sizeof kRecordingMagic && std::memcmp(data, kRecordingMagic, sizeof kRecordingMagic) == 0;
}

std::string decodeRecording(const void* data, size_t size, Recording* out) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  if (!looksLikeRecording(data, size)) return "not a ReduceLab recording (its first bytes are not the recording magic)";
  if (size < kRecordingPreambleBytes) return "truncated recording: " + std::to_string(size) + " bytes, shorter than its preamble";
  const uint32_t version = getU32(p + 8), flags = getU32(p + 12);
  const uint64_t headerBytes = getU64(p + 16), traceBytes = getU64(p + 24), compressedBytes = getU64(p + 32);
  const uint32_t crc = getU32(p + 40), reserved = getU32(p + 44);
  if (version > kRecordingVersion)
    return "recording format version " + std::to_string(version) + " was written by a newer ReduceLab (this one reads up to " +
           std::to_string(kRecordingVersion) + ")";
  if (version == 0) return "recording format version 0 does not exist";
  if (flags != 0 || reserved != 0) return "the recording's preamble has flags this version does not know";
  if (headerBytes == 0 || headerBytes > kRecordingMaxHeaderBytes)
    return "the recording's header size " + std::to_string(headerBytes) + " is outside 1.." + std::to_string(kRecordingMaxHeaderBytes);
  if (traceBytes > kRecordingMaxTraceBytes)
    return "the recording's trace bytes " + std::to_string(traceBytes) + " exceed " + std::to_string(kRecordingMaxTraceBytes);
  if (compressedBytes != size - kRecordingPreambleBytes)
    return compressedBytes > size - kRecordingPreambleBytes
               ? "truncated recording: " + std::to_string(size) + " bytes, its preamble says " +
                     std::to_string(kRecordingPreambleBytes + compressedBytes)
               : "the recording has " + std::to_string(size - kRecordingPreambleBytes - compressedBytes) +
                     " bytes after its end";
  std::vector<uint8_t> payload;
  if (std::string e = inflateExactly(p + kRecordingPreambleBytes, size_t(compressedBytes), headerBytes + traceBytes, &payload);
      !e.empty())
    return "damaged recording: " + e;
  if (crcOf(payload.data(), payload.size()) != crc) return "damaged recording: its checksum does not match its content";

  const json h = json::parse(payload.begin(), payload.begin() + long(headerBytes), nullptr, false);
  if (h.is_discarded() || !h.is_object()) return "damaged recording: its header is not JSON";
  Recording r;
  try {
    if (h.value("format", std::string()) != "reducelab-recording") return "not a ReduceLab recording (format field)";
    if (!h.contains("version") || !h["version"].is_number_unsigned() || h["version"].get<uint64_t>() != version)
      return "the recording's header version does not match its preamble";
    r.createdUtc = textField(h, "created_utc", 64);
    r.host = textField(h, "host", 256);
    r.reducelabVersion = textField(h, "reducelab", 256);
    const std::string source = textField(h, "source", 16);
    if (source != "gpu" && source != "cpu-model") return "the recording's source '" + source + "' is not gpu or cpu-model";
    const json& session = h.at("session");
    if (!session.is_object()) return "the recording's session is not an object";
    r.measurements = sessionRows(session, "the recording's measurements");
    r.device = deviceFromJson(session);
    r.peaks = peaksFromJson(session);
    if (r.device.available != (source == "gpu"))
      return "the recording says it comes from " + source + " but its device is " + (r.device.available ? r.device.name : "none");
    if (const auto a = session.find("meta"); a != session.end() && a->is_object() && a->contains("argv")) {
      const json& argv = (*a)["argv"];
      if (!argv.is_array() || argv.size() > 4096) return "the recording's command line is not a list";
      for (const auto& x : argv) {
        if (!x.is_string() || x.get_ref<const std::string&>().size() > 4096) return "the recording's command line holds a non-text item";
        r.argv.push_back(x.get<std::string>());
      }
    }
    if (const auto u = h.find("user_kernel"); u != h.end() && !u->is_null()) {
      if (version < 2) return "the recording holds your kernel but says it is version " + std::to_string(version);
      if (!u->is_object()) return "the recording's kernel is not an object";
      UserKernelRecord k;
      k.file = textField(*u, "file", 4096);
      k.source = textField(*u, "source", kRecordingMaxKernelSourceBytes);
      k.compileLog = textField(*u, "compile_log", kRecordingMaxKernelSourceBytes);
      k.arch = textField(*u, "arch", 16);
      if (k.file.empty() || k.source.empty()) return "the recording's kernel has no file name or no source";
      r.userKernel = std::move(k);
    }
    size_t lessonRows = 0;
    if (const auto l = h.find("lesson"); l != h.end() && !l->is_null()) {
      if (!l->is_object()) return "the recording's lesson is not an object";
      r.lessonName = textField(*l, "name", 256);
      r.lessonText = textField(*l, "text", kMaxLessonBytes);
      std::string err;
      const std::optional<Lesson> lesson = parseLesson(r.lessonText, r.lessonName + ".lesson", &err);
      if (!lesson) return "the recording's lesson does not load: " + err;
      for (const LessonStep& st : lesson->steps) lessonRows += st.runs.size();
    }
    for (const Measurement& m : r.measurements)
      if (m.label.rfind("lesson:", 0) == 0 && std::stoull(m.label.substr(7)) >= lessonRows)
        return "a measurement is labelled " + m.label + " but the recording's lesson has " + std::to_string(lessonRows) + " rows";
    const json& sweeps = h.at("sweeps");
    if (!sweeps.is_array() || sweeps.size() > 16) return "the recording's sweeps are not a short list";
    for (const auto& s : sweeps) {
      if (!s.is_object()) return "a sweep of the recording is not an object";
      const std::string axis = textField(s, "axis", 16);
      if (!parseSweepAxis(axis)) return "a sweep of the recording has axis '" + axis + "'";
      if (r.sweeps.count(axis)) return "the recording has two sweeps over " + axis;
      r.sweeps[axis] = sessionRows(s.at("session"), "a sweep of the recording");
    }
    const json& traces = h.at("traces");
    if (!traces.is_array() || traces.size() > kRecordingMaxTraces) return "the recording's traces are not a list of at most 4096";
    uint64_t expectedOffset = 0;
    for (size_t i = 0; i < traces.size(); ++i) {
      const json& t = traces[i];
      const std::string which = "trace " + std::to_string(i + 1) + " of the recording";
      if (!t.is_object()) return which + " is not an object";
      RecordedTrace rt;
      rt.config = configFromJson(t.at("config"), r.userKernel.has_value());
      const std::string from = textField(t, "source", 16);
      if (from != "gpu" && from != "cpu-model") return which + " has source '" + from + "'";
      rt.fromGpu = from == "gpu";
      if (rt.fromGpu && !r.device.available) return which + " says the GPU wrote it, in a CPU-model recording";
      const json& off = t.at("offset");
      const json& len = t.at("bytes");
      if (!off.is_number_unsigned() || !len.is_number_unsigned()) return which + ": offset and size are not counts";
      const uint64_t offset = off.get<uint64_t>(), bytes = len.get<uint64_t>();
      if (offset != expectedOffset || bytes > traceBytes - offset) return which + " lies outside the recording's trace bytes";
      expectedOffset += bytes;
      if (bytes != trace::bufferBytes(unsigned(rt.config.block)))
        return which + " has " + std::to_string(bytes) + " bytes; a trace of block " + std::to_string(rt.config.block) +
               " has " + std::to_string(trace::bufferBytes(unsigned(rt.config.block)));
      const uint8_t* blob = payload.data() + headerBytes + offset;
      std::string err;
      const TraceData td = TraceData::fromBuffer(blob, size_t(bytes), &err);
      if (!td.valid()) return which + ": " + (err.empty() ? "no trace" : err);
      if (std::string e = checkTraceContent(td); !e.empty()) return which + ": " + e;
      const trace::TraceHeader& th = td.header;
      if (th.blockSize != unsigned(rt.config.block) || th.n != rt.config.n || th.tracedBlock != rt.config.tracedBlock ||
          th.elemBytes != unsigned(elemBytes(rt.config.type)) || th.accBytes != unsigned(elemBytes(rt.config.accType())))
        return which + ": its trace header does not match its configuration";
      for (const RecordedTrace& seen : r.traces)
        if (sameTraceConfig(seen.config, rt.config)) return which + " repeats a configuration traced before";
      rt.bytes.assign(blob, blob + bytes);
      r.traces.push_back(std::move(rt));
    }
    if (expectedOffset != traceBytes) return "the recording's traces do not cover its trace bytes";
  } catch (const nlohmann::json::exception& e) {
    return std::string("damaged recording: a field is missing or of the wrong type (") + e.what() + ")";
  } catch (const std::exception& e) {
    return std::string("damaged recording: ") + e.what();
  }
  *out = std::move(r);
  return {};
}

std::string writeRecording(const std::string& path, const Recording& r) {
  const std::string bytes = encodeRecording(r);
  if (bytes.empty()) return "cannot write " + path + ": the recording could not be compressed";
  return writeTextAtomic(path, bytes);
}

extern const unsigned char kShippedRecording[];
extern const unsigned long long kShippedRecordingSize;

std::string readShippedRecording(Recording* out) {
  if (std::string e = decodeRecording(kShippedRecording, size_t(kShippedRecordingSize), out); !e.empty())
    return std::string(kShippedRecordingName) + ": " + e;
  return {};
}

std::string readRecording(const std::string& path, Recording* out) {
  std::string bytes;
  if (std::string e = readTextFile(path, &bytes, kRecordingMaxHeaderBytes + kRecordingMaxTraceBytes); !e.empty()) return e;
  if (looksLikeRecording(bytes.data(), bytes.size())) {
    if (std::string e = decodeRecording(bytes.data(), bytes.size(), out); !e.empty()) return path + ": " + e;
    return {};
  }
  // A session JSON of earlier versions (bench --format json, File > Save session): measurements only.
  const json j = json::parse(bytes, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("benchmarks"))
    return path + ": neither a ReduceLab recording nor a session JSON";
  Recording r;
  try {
    r.measurements = sessionRows(j, "the session");
  } catch (const std::exception& e) {
    return path + ": " + e.what();
  }
  r.device = deviceFromJson(j);
  r.peaks = peaksFromJson(j);
  for (Measurement& m : r.measurements)  // its lesson is not in a session JSON: plain runs
    if (m.label.rfind("lesson:", 0) == 0) m.label.clear();
  // A sweep's file (`reducelab sweep`, benchmarks[0].name "sweep-<axis>") is a sweep, drawn against
  // its axis in its tab, not a row of runs against the run index.
  const json& first = j["benchmarks"].is_array() && !j["benchmarks"].empty() ? j["benchmarks"][0] : json();
  const std::string bench = first.is_object() && first.contains("name") && first["name"].is_string() ? first["name"].get<std::string>() : "";
  // (The matrix families' tile and size sweeps have no tab of their own: they stay runs.)
  if (bench.starts_with("sweep-"))
    if (const std::optional<SweepAxis> axis = parseSweepAxis(bench.substr(6));
        axis && (name(*axis) == "kernel" || name(*axis) == "block" || name(*axis) == "n" || name(*axis) == "type")) {
      r.sweeps[std::string(name(*axis))] = std::move(r.measurements);
      r.measurements.clear();
    }
  *out = std::move(r);
  return {};
}

}  // namespace rl
