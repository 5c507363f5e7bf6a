// nvbench 1.0.0's layout: summaries, axes (with nvbench's pow2 flag), and finding a summary again.
#include "nvbench_layout.hpp"

#include <algorithm>

#include "reducelab/catalogue.hpp"
#include "reducelab/family.hpp"

namespace rl::nvbench {

namespace {

bool isPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

int log2Exact(uint64_t v) {
  int e = 0;
  while (v > 1) { v >>= 1; ++e; }
  return e;
}

// nvbench's pow2 flag: the axis is written as exponents; only when every value is a power of two.
bool pow2Axis(const AxisColumn& a) {
  if (a.type != "int64" || a.name == "Seed") return false;
  for (const std::string& v : a.values)
    if (!isPowerOfTwo(std::stoull(v))) return false;
  return true;
}

}  // namespace

nlohmann::json summary(const std::string& tag, const std::string& name, const std::string& hint,
                       const std::string& type, const nlohmann::json& value,
                       const std::string& description, bool hidden) {
  nlohmann::json s = {{"tag", tag},
                      {"name", name},
                      {"data", nlohmann::json::array({{{"name", "value"}, {"type", type}, {"value", value}}})}};
  if (!hint.empty()) s["hint"] = hint;
  if (!description.empty()) s["description"] = description;
  if (hidden) s["hide"] = "Hidden by default.";
  return s;
}

nlohmann::json version(int major, int minor, int patch) {
  return {{"major", major}, {"minor", minor}, {"patch", patch},
          {"string", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch)}};
}

std::vector<std::pair<std::string, std::string>> axisPoint(const Measurement& m) {
  const RunConfig& c = m.config;
  std::vector<std::pair<std::string, std::string>> point = {{"Kernel", c.kernel},
          {"T", std::string(name(c.type))},
          {"Accumulator", std::string(name(c.accType()))},
          {"Op", std::string(name(c.op))},
          {"Elements", std::to_string(c.n)},
          {"Block", std::to_string(c.block)},
          {"Final", std::string(name(m.ok ? m.geometry.final : c.final))},
          {"Data", std::string(name(c.data))},
          {"Seed", std::to_string(c.seed)},
          {"L2", c.warmL2 ? "warm" : "cold"},
          {"Timing", std::string(name(c.timing))},
          {"PDL", onOff(c.pdl)}};
  // The family's own parameters, as the run uses them (a reduction's record has none).
  if (const KernelInfo* k = findKernel(c.kernel))
    for (const FamilyParameter& p : familyOf(*k).parameters()) point.push_back({p.axis, std::to_string(p.used(*k, c))});
  return point;
}

const char* axisType(const std::string& axis) {
  return axis == "Elements" || axis == "Block" || axis == "Seed" || anyParameterByAxis(axis) ? "int64" : "string";
}

std::vector<AxisColumn> axisColumns(const std::vector<Measurement>& rows) {
  std::vector<AxisColumn> cols;
  for (const Measurement& m : rows) {
    // By name: records of different families have different axes.
    for (const auto& point : axisPoint(m)) {
      // (not a structured binding: clang 14, the fuzz build's compiler, cannot capture one in a lambda)
      const std::string& n = point.first;
      const std::string& v = point.second;
      auto it = std::find_if(cols.begin(), cols.end(), [&](const AxisColumn& a) { return a.name == n; });
      if (it == cols.end()) it = cols.insert(cols.end(), AxisColumn{n, axisType(n), {}});
      if (std::find(it->values.begin(), it->values.end(), v) == it->values.end()) it->values.push_back(v);
    }
  }
  return cols;
}

nlohmann::json axisJson(const AxisColumn& a) {
  using nlohmann::json;
  const bool pow2 = pow2Axis(a);
  json values = json::array();
  for (const std::string& v : a.values) {
    if (a.type == "int64") {
      const uint64_t x = std::stoull(v);
      values.push_back({{"input_string", pow2 ? std::to_string(log2Exact(x)) : v},
                        {"description", pow2 ? "2^" + std::to_string(log2Exact(x)) + " = " + v : ""},
                        {"value", int64_t(x)}});
    } else {
      values.push_back({{"input_string", v}, {"description", ""}, {"value", v}});
    }
  }
  return {{"name", a.name}, {"type", a.type}, {"flags", pow2 ? "pow2" : ""}, {"values", values}};
}

const nlohmann::json* findSummary(const nlohmann::json& st, const std::string& tagSuffix) {
  const auto sums = st.find("summaries");
  if (sums == st.end() || !sums->is_array()) return nullptr;
  for (const auto& s : *sums) {
    if (!s.is_object()) continue;
    const auto tagIt = s.find("tag");
    if (tagIt == s.end() || !tagIt->is_string()) continue;
    const std::string& tag = tagIt->get_ref<const std::string&>();
    if (!tag.ends_with(tagSuffix)) continue;
    const auto data = s.find("data");
    if (data == s.end() || !data->is_array() || data->empty() || !(*data)[0].is_object()) return nullptr;
    const auto value = (*data)[0].find("value");
    return value == (*data)[0].end() ? nullptr : &*value;
  }
  return nullptr;
}

}  // namespace rl::nvbench
