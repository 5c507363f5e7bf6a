#pragma once
// ReduceLab's session JSON: the device, the peaks and every measurement in one document, in the
// layout nvbench 1.0.0 writes so that nvbench's tools read it (docs/json-schema.md). What
// `--format json` writes for measurements, and what recordings and the remote protocol carry.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reducelab/record.hpp"

namespace rl {

struct SessionInfo {
  DeviceInfo device;
  Peaks peaks;
  std::vector<std::string> argv;
  std::string benchmarkName = "reduce";
};
nlohmann::json sessionJson(const SessionInfo& s, const std::vector<Measurement>& rows);
// Reads back what sessionJson wrote (configs, timings, results): for round-trip tests and
// for loading a saved session.
std::vector<Measurement> measurementsFromJson(const nlohmann::json& j, std::string* error);
// The device and peaks a session file was measured with (for re-drawing its figures).
DeviceInfo deviceFromJson(const nlohmann::json& j);
Peaks peaksFromJson(const nlohmann::json& j);

}  // namespace rl
