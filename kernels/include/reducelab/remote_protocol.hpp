#pragma once
// The remote protocol (docs/remote.md): `reducelab serve --stdio` on the GPU machine and the app
// that started it (through ssh) exchange framed messages over the child's stdin and stdout.
//
// A frame is one header line, a JSON object and an optional binary payload:
//   "RLRP1 <json bytes> <payload bytes>\n" <json> <payload>
// Every JSON object has a "type". Measurements travel as the session JSON of
// formats/session_json.hpp (one record per message); a trace travels as the raw bytes of its
// trace buffer (trace_format.hpp), checked by TraceData::fromBuffer before use. Everything read
// is bounded: a frame over the limits, a header that is not exactly the form above, JSON that
// does not parse or a message whose fields are missing, of the wrong type or out of range is
// refused with one message.
// Plain C++ (no GL, no CUDA): the server, the client and the fuzz harness share it.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reducelab/config.hpp"
#include "reducelab/device_info.hpp"
#include "reducelab/measurement_service.hpp"
#include "reducelab/record.hpp"
#include "reducelab/sweep.hpp"
#include "reducelab/trace.hpp"
#include "reducelab/trace_format.hpp"

namespace rl::remote {

constexpr int kProtocolVersion = 1;
constexpr const char* kFrameMagic = "RLRP1";
constexpr size_t kMaxHeaderLine = 64;             // "RLRP1 " + two counts + "\n"
constexpr size_t kMaxJsonBytes = size_t(16) << 20; // a record of 100000 repetitions fits
// The only payload is a trace buffer: at most that of the largest block.
constexpr size_t kMaxPayloadBytes = size_t(trace::bufferBytes(trace::kMaxBlock));
constexpr size_t kMaxTextBytes = 4096;            // messages, labels, names
constexpr size_t kMaxSweepKernels = 64;

struct Frame {
  std::string type;
  nlohmann::json body;            // an object with "type"
  std::vector<uint8_t> payload;   // empty, or a trace buffer
};

// The bytes of one frame.
std::string encodeFrame(const nlohmann::json& body, const std::vector<uint8_t>& payload = {});

// Cuts frames out of a byte stream. After an error the reader stays failed (the stream is out
// of step and nothing after it can be trusted). It never holds more than one frame's bytes.
class FrameReader {
 public:
  enum class Status { NeedMore, Frame, Error };
  void feed(const void* bytes, size_t size);
  // The next complete frame, if any. On Error, *error says why (once known, always the same).
  Status next(Frame* frame, std::string* error);
  bool failed() const { return !error_.empty(); }
  size_t buffered() const { return buffer_.size() - offset_; }

 private:
  Status fail(std::string why, std::string* error);
  std::string buffer_;
  size_t offset_ = 0;
  std::string error_;
  // The header of the frame being read (once its line is complete).
  bool haveHeader_ = false;
  size_t jsonBytes_ = 0, payloadBytes_ = 0;
};

// ---- message bodies (server -> client) ----
struct Hello {
  int protocol = kProtocolVersion;
  std::string version, commit;  // of the server's reducelab
  std::string host;             // the server's host name
  DeviceInfo device;            // available == false: no GPU there (the CPU model answers traces)
  Peaks peaks;
};
nlohmann::json helloJson(const Hello& h);

struct TraceReply {
  uint64_t id = 0;
  RunConfig config;
  bool ok = false;
  std::string error;   // when !ok
  std::string source;  // "gpu (NVIDIA H200)" or "cpu-model", as `reducelab trace` says
  TraceData data;      // checked: the payload's trace is of config's block size
};

// ---- message bodies (client -> server) ----
nlohmann::json runRequest(const RunConfig& c, const std::string& label, RunKind kind);
nlohmann::json sweepRequest(const SweepSpec& s);
nlohmann::json traceRequest(uint64_t id, const RunConfig& c);
nlohmann::json resourcesRequest(const RunConfig& c);
nlohmann::json peaksRequest(bool remeasure);
nlohmann::json simpleMessage(const std::string& type);  // cancel_sweep, bye
// The user's kernel (docs/your-kernel.md): the server compiles and runs it in a worker of its own;
// later runs, sweeps and traces of kernel "yours" go to it. A second one replaces the first.
constexpr size_t kMaxUserKernelBytes = size_t(4) << 20;
nlohmann::json userKernelRequest(const std::string& file, const std::string& source);

// Server -> client bodies.
nlohmann::json measurementMessage(const Measurement& m, const DeviceInfo& d, const Peaks& p);
nlohmann::json sweepRowMessage(const std::string& axis, const Measurement& m, const DeviceInfo& d, const Peaks& p);
nlohmann::json sweepProgressMessage(const SweepProgress& s);
nlohmann::json textMessage(const std::string& text);  // "message"
nlohmann::json errorMessage(const std::string& text); // "error": the peer refuses the stream
nlohmann::json resourcesMessage(const ResourcesDone& r);
nlohmann::json peaksMessage(const Peaks& p);
// A trace reply: the JSON part; the payload is the trace buffer's bytes (none when !ok).
nlohmann::json traceMessage(uint64_t id, const RunConfig& c, bool ok, const std::string& error,
                            const std::string& source);

// ---- decoding: every decoder checks what it reads; "" or why the message is refused ----
std::string decodeHello(const Frame& f, Hello* out);
std::string decodeRunRequest(const Frame& f, RunConfig* c, std::string* label, RunKind* kind);
std::string decodeSweepRequest(const Frame& f, SweepSpec* s);
std::string decodeUserKernelRequest(const Frame& f, std::string* file, std::string* source);
std::string decodeTraceRequest(const Frame& f, uint64_t* id, RunConfig* c);
std::string decodeResourcesRequest(const Frame& f, RunConfig* c);
std::string decodePeaksRequest(const Frame& f, bool* remeasure);
std::string decodeMeasurement(const Frame& f, Measurement* m, std::string* axis);  // axis: sweep rows
std::string decodeSweepProgress(const Frame& f, SweepProgress* s);
std::string decodeText(const Frame& f, std::string* text);  // message and error
std::string decodeResources(const Frame& f, ResourcesDone* r);
std::string decodePeaks(const Frame& f, Peaks* p);
std::string decodeTrace(const Frame& f, TraceReply* t);

// The pieces, for tests and the fuzz harness.
nlohmann::json runConfigJson(const RunConfig& c);
std::string runConfigFromJson(const nlohmann::json& j, RunConfig* c);  // validated
nlohmann::json deviceJson(const DeviceInfo& d);
std::string deviceFromProtocolJson(const nlohmann::json& j, DeviceInfo* d);
nlohmann::json peaksJson(const Peaks& p);
std::string peaksFromProtocolJson(const nlohmann::json& j, Peaks* p);

}  // namespace rl::remote
