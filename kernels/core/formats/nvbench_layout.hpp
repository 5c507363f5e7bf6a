#pragma once
// nvbench 1.0.0's JSON layout as ReduceLab's session files use it (docs/json-schema.md): the
// summaries, axes and states that the session writer and reader share, so that nvbench's own
// tools read what ReduceLab writes. Private to kernels/core/formats.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "reducelab/record.hpp"

namespace rl::nvbench {


// The layout nvbench 1.0.0 writes and its Python tools (cuda-bench) read. Those tools accept only
// int64, float64 and string summary values, and every state's axis_values must name a declared axis.
constexpr int kJsonSchema = 2;  // 1: unversioned nvbench look-alike (docs/data/h200-*.json), 2: nvbench 1.0.0

// One summary: tag, name, unit hint, value type and value; hidden ones stay out of nvbench's tables.
nlohmann::json summary(const std::string& tag, const std::string& name, const std::string& hint,
                       const std::string& type, const nlohmann::json& value,
                       const std::string& description = "", bool hidden = false);
// A version object ({major, minor, patch, string}).
nlohmann::json version(int major, int minor, int patch);

// One axis of the benchmark: its values as the states use them (strings, int64 as decimal text).
struct AxisColumn {
  std::string name, type;
  std::vector<std::string> values;  // distinct, in order of first use
};

// A record's point on the axes (name, value as text), in the order the states list them.
std::vector<std::pair<std::string, std::string>> axisPoint(const Measurement& m);
const char* axisType(const std::string& axis);  // "int64" or "string"
// The axes of these records, by name: records of different families have different axes.
std::vector<AxisColumn> axisColumns(const std::vector<Measurement>& rows);
nlohmann::json axisJson(const AxisColumn& a);

// The value of the summary whose tag ends in `tagSuffix`, or nullptr; never reads past what the
// file holds (a summary without "data", or with an empty one, counts as absent).
const nlohmann::json* findSummary(const nlohmann::json& st, const std::string& tagSuffix);

}  // namespace rl::nvbench
