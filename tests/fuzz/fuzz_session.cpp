// Session JSON (bench --format json, GUI session export, report session.json) read back: any
// bytes are refused with a message or give records that pass validate() (skipped ones: a known kernel
// and block size, the configuration that was refused); those records written
// again read back to the same configurations (round trip).
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/formats/session_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  std::string error;
  const std::vector<rl::Measurement> rows = rl::measurementsFromJson(j, &error);
  const rl::DeviceInfo device = rl::deviceFromJson(j);
  const rl::Peaks peaks = rl::peaksFromJson(j);
  if (rows.empty()) return 0;
  // Measured records pass validate() (the user's kernel's rows: its family's rules); skipped ones record a refused configuration of a known kernel.
  for (const rl::Measurement& m : rows) {
    if (m.ok) RL_FUZZ_CHECK(rlFuzzValidConfig(m.config));
    else RL_FUZZ_CHECK(rl::findKernel(m.config.kernel) && m.config.block >= 1 && m.config.block <= 1024);
  }
  const rl::SessionInfo info{device, peaks, {"fuzz"}, "reduce"};
  std::string again;
  const std::vector<rl::Measurement> back = rl::measurementsFromJson(rl::sessionJson(info, rows), &again);
  RL_FUZZ_CHECK(back.size() == rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    RL_FUZZ_CHECK(back[i].config.kernel == rows[i].config.kernel);
    RL_FUZZ_CHECK(back[i].config.n == rows[i].config.n);
    RL_FUZZ_CHECK(back[i].config.block == rows[i].config.block);
    RL_FUZZ_CHECK(back[i].config.type == rows[i].config.type);
    RL_FUZZ_CHECK(back[i].ok == rows[i].ok);
  }
  return 0;
}
