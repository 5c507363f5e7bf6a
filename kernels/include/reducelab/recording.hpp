#pragma once
// A recording: one self-contained file of a class on a GPU (or on the CPU model) that opens on
// any machine. The device, driver, peaks and date, every measurement with its samples (the
// session JSON of formats/session_json.hpp), the lesson it followed, and the traces the GPU wrote for the
// recorded configurations as their raw trace-format bytes (trace_format.hpp). Layout and
// versioning: docs/recording-format.md. Plain C++ (no GL): the GUI, the CLI and the remote
// protocol share it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reducelab/formats/session_json.hpp"
#include "reducelab/record.hpp"
#include "reducelab/trace.hpp"

namespace rl {

// 2: a recording may hold the user's own kernel (UserKernelRecord) and its rows and trace. A
// recording without one is still written as version 1, which earlier readers open.
constexpr uint32_t kRecordingVersion = 2;
// The file starts with these 8 bytes (0x89 and CR LF catch text-mode copies, like PNG's).
constexpr char kRecordingMagic[8] = {'\x89', 'R', 'L', 'R', 'E', 'C', '\r', '\n'};
constexpr uint64_t kRecordingPreambleBytes = 48;
// Limits a reader enforces before it allocates: the JSON header, all trace bytes together, the
// number of traces and of measurements.
constexpr uint64_t kRecordingMaxHeaderBytes = uint64_t(64) << 20;
constexpr uint64_t kRecordingMaxTraceBytes = uint64_t(512) << 20;
constexpr size_t kRecordingMaxTraces = 4096;
constexpr size_t kRecordingMaxMeasurements = 1000000;

// One trace: the configuration traced and the bytes the traced kernel (or the CPU model) wrote,
// exactly trace::bufferBytes(block) of them (header, kMaxSteps step headers, lane records).
struct RecordedTrace {
  RunConfig config;
  bool fromGpu = false;        // false: the CPU model wrote it
  std::vector<uint8_t> bytes;
};

// The user's own kernel (docs/your-kernel.md) a recording was made with: its file's name and
// text, and what the compiler said, so the class sees the kernel, not only its numbers.
struct UserKernelRecord {
  std::string file;        // the file's name as given ("mine.cu")
  std::string source;
  std::string compileLog;  // the diagnostics, file:line: message, one per line ("" when clean)
  std::string arch;        // "sm_90"
};
constexpr size_t kRecordingMaxKernelSourceBytes = size_t(4) << 20;

struct Recording {
  // Where and when: the device the measurements and traces come from (available = false: the
  // CPU model recorded it), its peaks, the UTC date and the command line.
  DeviceInfo device;
  Peaks peaks;
  std::string createdUtc;       // "2026-11-21T09:30:00Z"
  std::string host;             // the machine's name
  std::string reducelabVersion; // "0.2.0 (commit abc1234)"
  std::vector<std::string> argv;
  // The lesson it followed ("" when none): its name and its text, so it opens without the file.
  std::string lessonName, lessonText;
  // Single runs in the order they were measured (lesson rows carry "lesson:R" labels), and
  // sweeps by axis.
  std::vector<Measurement> measurements;
  std::map<std::string, std::vector<Measurement>> sweeps;
  std::vector<RecordedTrace> traces;
  // Its rows carry its family's kernel key (runsUserSource, family.hpp) and its trace, if any, too.
  std::optional<UserKernelRecord> userKernel;

  bool fromGpu() const { return device.available; }
  // The recorded trace of this configuration, or nullptr (same fields as the trace views compare).
  const RecordedTrace* findTrace(const RunConfig& c) const;
  // "Recorded on NVIDIA H200, driver 13.0, 2026-11-21 09:30 UTC" or "Recorded with the CPU
  // model (no NVIDIA GPU) on HOST, ...".
  std::string banner() const;
};

// Two configurations trace the same thing (the measurement-only fields may differ).
bool sameTraceConfig(const RunConfig& a, const RunConfig& b);

// The file's bytes. Traces are written as given; measurements through sessionJson.
std::string encodeRecording(const Recording& r);
// Reads what encodeRecording wrote, strictly: magic, version, sizes, checksum, the JSON, every
// measurement (measurementsFromJson) and every trace (TraceData::fromBuffer plus its
// configuration) are checked before anything is returned. "" or one line saying what is wrong.
std::string decodeRecording(const void* data, size_t size, Recording* out);

// Whether these bytes start like a recording (the magic), to tell it from a session JSON.
bool looksLikeRecording(const void* data, size_t size);

// Writes through the one writer (atomic_file.hpp): never half-written, links/devices refused.
std::string writeRecording(const std::string& path, const Recording& r);
// Opens a recording, or a session JSON of earlier versions (measurements only). "" or the error.
std::string readRecording(const std::string& path, Recording* out);
// The recording shipped inside the binary (assets/recordings/upc.reducelab: the UPC lesson on an
// H200), and the name it is shown under.
std::string readShippedRecording(Recording* out);
inline constexpr const char* kShippedRecordingName = "the shipped H200 recording (upc.reducelab)";

// The current UTC date in the recording's form.
std::string utcNow();

}  // namespace rl
