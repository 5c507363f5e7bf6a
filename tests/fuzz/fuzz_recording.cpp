// Recordings (docs/recording-format.md) read back: any bytes are refused with a message, or give
// a recording whose traces pass checkTraceContent and can be analysed as the views do (summary,
// bank conflicts of every step), and which written again reads back the same (round trip).
// Inputs that start with the magic are read as files; others as "4-byte header size + the
// uncompressed content", wrapped here in a valid container (checksum, zlib) so that mutations
// reach the JSON and trace checks instead of stopping at the checksum.
#include <zlib.h>

#include <cstring>
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/recording.hpp"

namespace {

std::string wrapped(const uint8_t* data, size_t size) {
  if (size < 4) return {};
  uint32_t headerBytes = 0;
  std::memcpy(&headerBytes, data, 4);
  const std::string payload(reinterpret_cast<const char*>(data) + 4, size - 4);
  if (headerBytes > payload.size()) return {};
  uLongf bound = compressBound(uLong(payload.size()));
  std::string z(bound, '\0');
  if (compress2(reinterpret_cast<Bytef*>(z.data()), &bound, reinterpret_cast<const Bytef*>(payload.data()),
                uLong(payload.size()), 1) != Z_OK)
    return {};
  z.resize(bound);
  std::string out(rl::kRecordingMagic, 8);
  auto put = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(char(v >> (8 * i)));
  };
  // The preamble's version as the header says it (a recording with the user's kernel is version 2,
  // one without it 1): a mismatch would stop every mutation at the version check.
  const std::string header = payload.substr(0, headerBytes);
  const size_t v = header.find("\"version\":");
  put(v != std::string::npos && v + 10 < header.size() ? uint32_t(header[v + 10] - '0') : rl::kRecordingVersion, 4);
  put(0, 4);
  put(headerBytes, 8);
  put(payload.size() - headerBytes, 8);
  put(z.size(), 8);
  put(crc32(0, reinterpret_cast<const Bytef*>(payload.data()), uInt(payload.size())), 4);
  put(0, 4);
  return out + z;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string file;
  if (!rl::looksLikeRecording(data, size)) {
    file = wrapped(data, size);
    if (file.empty()) return 0;
    data = reinterpret_cast<const uint8_t*>(file.data());
    size = file.size();
  }
  rl::Recording r;
  const std::string error = rl::decodeRecording(data, size, &r);
  if (!error.empty()) {
    RL_FUZZ_CHECK(error.find('\n') == std::string::npos);  // one line
    return 0;
  }
  for (const rl::RecordedTrace& t : r.traces) {
    std::string err;
    const rl::TraceData d = rl::TraceData::fromBuffer(t.bytes.data(), t.bytes.size(), &err);
    RL_FUZZ_CHECK(d.valid());
    RL_FUZZ_CHECK(rl::checkTraceContent(d).empty());
    const rl::TraceSummary s = rl::summarize(d);
    RL_FUZZ_CHECK(int(s.steps.size()) == d.numSteps());
    for (int step = 0; step < d.numSteps(); ++step) rl::bankAccesses(d, step, -1);
  }
  for (const rl::Measurement& m : r.measurements)
    if (m.ok) RL_FUZZ_CHECK(rlFuzzValidConfig(m.config));
  const std::string again = rl::encodeRecording(r);
  rl::Recording back;
  RL_FUZZ_CHECK(rl::decodeRecording(again.data(), again.size(), &back).empty());
  RL_FUZZ_CHECK(back.measurements.size() == r.measurements.size());
  RL_FUZZ_CHECK(back.traces.size() == r.traces.size());
  for (size_t i = 0; i < r.traces.size(); ++i) RL_FUZZ_CHECK(back.traces[i].bytes == r.traces[i].bytes);
  RL_FUZZ_CHECK(back.lessonText == r.lessonText);
  return 0;
}
