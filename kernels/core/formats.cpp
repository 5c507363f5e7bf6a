#include "reducelab/formats.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <optional>
#include <stdexcept>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace rl {

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : (v < 0 ? "-inf" : "nan");
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string sci(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.2e", v);
  return b;
}

namespace {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string latexEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': case '%': case '$': case '#': case '_': case '{': case '}':
        o += '\\';
        o += c;
        break;
      case '~': o += "\\textasciitilde{}"; break;
      case '^': o += "\\textasciicircum{}"; break;
      case '\\': o += "\\textbackslash{}"; break;
      default: o += c;
    }
  }
  return o;
}

size_t displayWidth(const std::string& s) {  // UTF-8 code points
  size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

}  // namespace

std::string render(const Table& t, TableFormat f) {
  std::ostringstream o;
  const size_t cols = t.headers.size();
  auto isNum = [&](size_t c) { return c < t.numeric.size() && t.numeric[c]; };
  switch (f) {
    case TableFormat::Text: {
      std::vector<size_t> w(cols, 0);
      for (size_t c = 0; c < cols; ++c) w[c] = displayWidth(t.headers[c]);
      for (const auto& r : t.rows)
        for (size_t c = 0; c < cols && c < r.size(); ++c) w[c] = std::max(w[c], displayWidth(r[c]));
      auto line = [&](const std::vector<std::string>& r) {
        for (size_t c = 0; c < cols; ++c) {
          const std::string cell = c < r.size() ? r[c] : "";
          const std::string pad(w[c] - displayWidth(cell), ' ');
          o << (c ? "  " : "") << (isNum(c) ? pad + cell : cell + (c + 1 < cols ? pad : ""));
        }
        o << '\n';
      };
      if (!t.caption.empty()) o << t.caption << '\n';
      line(t.headers);
      size_t total = 0;
      for (size_t c = 0; c < cols; ++c) total += w[c] + (c ? 2 : 0);
      o << std::string(total, '-') << '\n';
      for (const auto& r : t.rows) line(r);
      break;
    }
    case TableFormat::Csv: {
      for (size_t c = 0; c < cols; ++c) o << (c ? "," : "") << csvField(t.headers[c]);
      o << '\n';
      for (const auto& r : t.rows) {
        for (size_t c = 0; c < cols; ++c) o << (c ? "," : "") << csvField(c < r.size() ? r[c] : "");
        o << '\n';
      }
      break;
    }
    case TableFormat::Markdown: {
      auto esc = [](std::string s) {
        std::string r;
        for (char c : s) r += c == '|' ? std::string("\\|") : std::string(1, c);
        return r;
      };
      if (!t.caption.empty()) o << "**" << t.caption << "**\n\n";
      o << '|';
      for (const auto& h : t.headers) o << ' ' << esc(h) << " |";
      o << "\n|";
      for (size_t c = 0; c < cols; ++c) o << (isNum(c) ? " ---: |" : " --- |");
      o << '\n';
      for (const auto& r : t.rows) {
        o << '|';
        for (size_t c = 0; c < cols; ++c) o << ' ' << esc(c < r.size() ? r[c] : "") << " |";
        o << '\n';
      }
      break;
    }
    case TableFormat::Latex: {
      o << "% requires \\usepackage{booktabs}\n\\begin{table}[htbp]\n\\centering\n";
      if (!t.caption.empty()) o << "\\caption{" << latexEscape(t.caption) << "}\n";
      o << "\\begin{tabular}{";
      for (size_t c = 0; c < cols; ++c) o << (isNum(c) ? 'r' : 'l');
      o << "}\n\\toprule\n";
      for (size_t c = 0; c < cols; ++c) o << (c ? " & " : "") << latexEscape(t.headers[c]);
      o << " \\\\\n\\midrule\n";
      for (const auto& r : t.rows) {
        for (size_t c = 0; c < cols; ++c) o << (c ? " & " : "") << latexEscape(c < r.size() ? r[c] : "");
        o << " \\\\\n";
      }
      o << "\\bottomrule\n\\end{tabular}\n\\end{table}\n";
      break;
    }
  }
  return o.str();
}

Table parseCsv(const std::string& text) {
  Table t;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(field), field.clear();
      any = true;
    } else if (c == '\n') {
      row.push_back(field), field.clear();
      rows.push_back(row), row.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (any || !field.empty()) row.push_back(field), rows.push_back(row);
  if (!rows.empty()) {
    t.headers = rows.front();
    t.rows.assign(rows.begin() + 1, rows.end());
  }
  return t;
}

Table benchTable(const std::vector<Measurement>& rows, const Peaks& peaks) {
  Table t;
  t.headers = {"kernel", "name", "final", "grid", "time ms", "min ms", "max ms", "e2e ms", "GB/s",
               "% theor.", "% meas.", "step x", "cum. x", "vs CPU", "result", "abs err",
               "rel err", "check", "occ. %", "regs"};
  t.numeric = {false, false, false, true, true, true, true, true, true, true, true,
               true,  true,  true,  true, true, true, false, true, true};
  for (const Measurement& m : rows) {
    const KernelInfo* k = findKernel(m.config.kernel);
    std::vector<std::string> r;
    r.push_back(m.config.kernel);
    r.push_back(k ? std::string(k->name) : m.kernelName);
    if (!m.ok) {
      r.push_back("-");
      while (r.size() < t.headers.size() - 3) r.push_back("");
      r.push_back("not run: " + m.error);
      r.push_back("");
      r.push_back("");
      t.rows.push_back(r);
      continue;
    }
    r.push_back(std::string(name(m.geometry.final)));
    r.push_back(m.config.kernel == "cub" ? "-" : std::to_string(m.geometry.grid()));
    r.push_back(fixed(m.kernel.median, 4));
    r.push_back(fixed(m.kernel.min, 4));
    r.push_back(fixed(m.kernel.max, 4));
    r.push_back(m.endToEnd.count ? fixed(m.endToEnd.median, 4) : "-");
    r.push_back(fixed(m.bandwidthGBs, 1));
    r.push_back(peaks.theoreticalGBs > 0 ? fixed(m.pctTheoretical, 1) : "-");
    r.push_back(peaks.readGBs > 0 ? fixed(m.pctMeasuredRead, 1) : "-");
    r.push_back(m.stepSpeedup > 0 ? fixed(m.stepSpeedup, 2) : "-");
    r.push_back(m.cumulativeSpeedup > 0 ? fixed(m.cumulativeSpeedup, 2) : "-");
    r.push_back(m.haveCpu ? fixed(m.speedupVsCpu, 1) : "-");
    std::string res = m.result.text();
    if (m.distinctResults.size() > 1)
      res += " (" + std::to_string(m.distinctResults.size()) + " different over the runs)";
    r.push_back(res);
    r.push_back(m.haveReference ? sci(m.check.absError) : "-");
    r.push_back(m.haveReference ? sci(m.check.relError) : "-");
    r.push_back(!m.haveReference ? "-" : (m.check.pass ? "PASS" : "FAIL") +
                                             (m.reference.overflow ? std::string(" (overflow)") : ""));
    r.push_back(m.config.kernel == "cub" ? "-" : fixed(100.0 * m.resources.occupancy, 0));
    r.push_back(m.config.kernel == "cub" ? "-" : std::to_string(m.resources.registers));
    t.rows.push_back(r);
  }
  return t;
}

Table sweepTable(const std::vector<Measurement>& rows, const Peaks& peaks) {
  Table t;
  t.headers = {"kernel", "type", "N", "block", "time ms", "min ms", "max ms", "GB/s", "% theor.", "% meas.",
               "occ. %", "regs", "check"};
  t.numeric = {false, false, true, true, true, true, true, true, true, true, true, true, false};
  for (const Measurement& m : rows) {
    const RunConfig& c = m.config;
    std::vector<std::string> r = {c.kernel, std::string(name(c.type)), formatCount(c.n), std::to_string(c.block)};
    if (!m.ok) {
      r.insert(r.end(), {"-", "-", "-", "-", "-", "-", "-", "-", "not run: " + m.error});
    } else {
      r.push_back(fixed(m.kernel.median, 4));
      r.push_back(fixed(m.kernel.min, 4));
      r.push_back(fixed(m.kernel.max, 4));
      r.push_back(fixed(m.bandwidthGBs, 1));
      r.push_back(peaks.theoreticalGBs > 0 ? fixed(m.pctTheoretical, 1) : "-");
      r.push_back(peaks.readGBs > 0 ? fixed(m.pctMeasuredRead, 1) : "-");
      r.push_back(c.kernel == "cub" ? "-" : fixed(100.0 * m.resources.occupancy, 0));
      r.push_back(c.kernel == "cub" ? "-" : std::to_string(m.resources.registers));
      r.push_back(!m.haveReference ? "-" : (m.check.pass ? "PASS" : "FAIL"));
    }
    t.rows.push_back(r);
  }
  return t;
}

namespace {

nlohmann::json summary(const std::string& tag, const std::string& name, const std::string& hint,
                       const std::string& type, const nlohmann::json& value) {
  return {{"tag", tag},
          {"name", name},
          {"hint", hint},
          {"data", nlohmann::json::array({{{"name", "value"}, {"type", type}, {"value", value}}})}};
}

nlohmann::json axisValue(const std::string& name, const std::string& type, const nlohmann::json& v) {
  return {{"name", name}, {"type", type}, {"value", v}};
}

}  // namespace

nlohmann::json sessionJson(const SessionInfo& s, const std::vector<Measurement>& rows) {
  using nlohmann::json;
  const DeviceInfo& d = s.device;
  json j;
  j["meta"] = {{"argv", s.argv}, {"version", {{"reducelab", "0.1.0"}, {"json_schema", 1}}},
               {"peaks",
                {{"theoretical_gbs", s.peaks.theoreticalGBs},
                 {"measured_read_gbs", s.peaks.readGBs},
                 {"measured_copy_gbs", s.peaks.copyGBs},
                 {"source", s.peaks.source}}}};
  json dev = {{"id", d.ordinal},
              {"name", d.available ? d.name : "none (CPU model)"},
              {"sm_version", d.ccMajor * 100 + d.ccMinor * 10},
              {"number_of_sms", d.smCount},
              {"max_threads_per_sm", d.maxThreadsPerSM},
              {"max_threads_per_block", d.maxThreadsPerBlock},
              {"max_blocks_per_sm", d.maxBlocksPerSM},
              {"registers_per_sm", d.regsPerSM},
              {"registers_per_block", d.regsPerBlock},
              {"global_memory_size", d.totalMemBytes},
              {"global_memory_bus_peak_clock_rate", int64_t(d.memClockKHz) * 1000},
              {"global_memory_bus_width", d.busWidthBits},
              {"global_memory_bus_bandwidth", d.theoreticalPeakGBs() * 1e9},
              {"l2_cache_size", d.l2Bytes},
              {"shared_memory_per_sm", d.smemPerSM},
              {"shared_memory_per_block", d.smemPerBlock},
              {"sm_default_clock_rate", int64_t(d.smClockKHz) * 1000},
              {"driver_version", cudaVersionString(d.driverVersion)},
              {"runtime_version", cudaVersionString(d.runtimeVersion)},
              {"uuid", d.uuid}};
  j["devices"] = json::array({dev});
  json bench;
  bench["name"] = s.benchmarkName;
  bench["index"] = 0;
  bench["devices"] = json::array({d.ordinal});
  json kernels = json::array(), types = json::array(), ns = json::array(), blocks = json::array();
  json states = json::array();
  for (const Measurement& m : rows) {
    const RunConfig& c = m.config;
    json st;
    st["name"] = "Kernel=" + c.kernel + " T=" + std::string(name(c.type)) + " Op=" +
                 std::string(name(c.op)) + " Elements=" + std::to_string(c.n) + " Block=" +
                 std::to_string(c.block);
    st["device"] = d.ordinal;
    st["axis_values"] = json::array(
        {axisValue("Kernel", "string", c.kernel), axisValue("T", "string", std::string(name(c.type))),
         axisValue("Accumulator", "string", std::string(name(c.accType()))),
         axisValue("Op", "string", std::string(name(c.op))),
         axisValue("Elements", "int64", std::to_string(c.n)),
         axisValue("Block", "int64", std::to_string(c.block)),
         axisValue("Final", "string", std::string(name(m.ok ? m.geometry.final : c.final))),
         axisValue("Data", "string", std::string(name(c.data))),
         axisValue("Seed", "int64", std::to_string(c.seed)),
         axisValue("L2", "string", c.warmL2 ? "warm" : "cold")});
    st["is_skipped"] = !m.ok;
    if (!m.ok) {
      st["skip_reason"] = m.error;
      states.push_back(st);
      continue;
    }
    const std::string l2 = c.warmL2 ? "warm" : "cold";
    json sum = json::array();
    sum.push_back(summary("nv/" + l2 + "/time/gpu/median", "GPU Time (median)", "duration", "float64", m.kernel.median * 1e-3));
    sum.push_back(summary("nv/" + l2 + "/time/gpu/min", "GPU Time (min)", "duration", "float64", m.kernel.min * 1e-3));
    sum.push_back(summary("nv/" + l2 + "/time/gpu/max", "GPU Time (max)", "duration", "float64", m.kernel.max * 1e-3));
    sum.push_back(summary("nv/" + l2 + "/time/gpu/mean", "GPU Time", "duration", "float64", m.kernel.mean * 1e-3));
    sum.push_back(summary("nv/" + l2 + "/time/gpu/stdev/absolute", "Noise", "duration", "float64", m.kernel.stddev * 1e-3));
    sum.push_back(summary("nv/" + l2 + "/sample_size", "Samples", "sample_size", "int64", m.kernel.count));
    sum.push_back(summary("nv/" + l2 + "/bw/global/bytes_per_second", "GlobalMem BW", "byte_rate", "float64", m.bandwidthGBs * 1e9));
    sum.push_back(summary("nv/" + l2 + "/bw/global/peak_fraction", "BWUtil", "percentage", "float64", m.pctTheoretical / 100));
    sum.push_back(summary("reducelab/time/end_to_end/median", "End-to-end time (median)", "duration", "float64", m.endToEnd.median * 1e-3));
    sum.push_back(summary("reducelab/bw/measured_read_fraction", "% of measured read peak", "percentage", "float64", m.pctMeasuredRead / 100));
    sum.push_back(summary("reducelab/samples/gpu_time", "GPU time samples", "duration", "float64[]", m.kernelMs));
    sum.push_back(summary("reducelab/samples/end_to_end_time", "End-to-end samples", "duration", "float64[]", m.endToEndMs));
    sum.push_back(summary("reducelab/result", "Result", "", m.result.isInt ? "int64" : "float64",
                          m.result.isInt ? json(m.result.i) : json(m.result.f)));
    sum.push_back(summary("reducelab/distinct_results", "Distinct results over the runs", "", "string[]", m.distinctResults));
    if (m.haveReference) {
      sum.push_back(summary("reducelab/reference", "Exact reference", "", "string", fixed(double(m.reference.exact), 6)));
      sum.push_back(summary("reducelab/error/absolute", "Absolute error", "", "float64", m.check.absError));
      sum.push_back(summary("reducelab/error/relative", "Relative error", "", "float64", m.check.relError));
      sum.push_back(summary("reducelab/error/tolerance", "Tolerance", "", "float64", m.check.tolerance));
      sum.push_back(summary("reducelab/check", "Check", "", "string", m.check.pass ? "pass" : "fail"));
      sum.push_back(summary("reducelab/overflow", "Integer overflow", "", "bool", m.reference.overflow));
    }
    if (m.haveCpu) {
      sum.push_back(summary("reducelab/cpu/time/median", "CPU loop time (median)", "duration", "float64", m.cpu.ms.median * 1e-3));
      sum.push_back(summary("reducelab/speedup/cpu", "Speedup vs CPU", "", "float64", m.speedupVsCpu));
    }
    sum.push_back(summary("reducelab/launch/grid", "Grid (per pass)", "", "int64[]", m.geometry.passGrids));
    sum.push_back(summary("reducelab/launch/shared_bytes", "Dynamic shared memory", "bytes", "int64", m.geometry.smemBytes));
    sum.push_back(summary("reducelab/resources/registers", "Registers per thread", "", "int64", m.resources.registers));
    sum.push_back(summary("reducelab/resources/occupancy", "Theoretical occupancy", "percentage", "float64", m.resources.occupancy));
    sum.push_back(summary("reducelab/resources/active_blocks_per_sm", "Active blocks per SM", "", "int64", m.resources.activeBlocksPerSM));
    sum.push_back(summary("reducelab/resources/limiter", "Limiting resource", "", "string", m.resources.limiter));
    sum.push_back(summary("reducelab/resources/waves", "Waves", "", "float64", m.resources.waves));
    st["summaries"] = sum;
    states.push_back(st);
  }
  bench["axes"] = json::array();
  bench["states"] = states;
  j["benchmarks"] = json::array({bench});
  return j;
}

namespace {

// The value of the summary whose tag ends in `tagSuffix`, or nullptr; never reads past what the
// file holds (a summary without "data", or with an empty one, counts as absent).
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

// Whole decimal text of an unsigned number, nothing else ("-5" and "1e3" are refused).
template <class Int>
std::optional<Int> wholeNumber(const std::string& v) {
  Int x{};
  if (v.empty() || v[0] == '-' || v[0] == '+') return std::nullopt;
  auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size()) return std::nullopt;
  return x;
}

// Measured quantities: finite, not negative, and far from overflowing when scaled and written back.
double finiteNonNegative(const nlohmann::json& v, const char* what) {
  if (!v.is_number()) throw std::invalid_argument(std::string(what) + " is not a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || x > 1e30)
    throw std::invalid_argument(std::string(what) + " is negative, not finite or implausibly large");
  return x;
}

// An integer field: a JSON integer within [lo, hi] (a float is not converted: that could overflow).
int64_t integerIn(const nlohmann::json& v, int64_t lo, int64_t hi, const char* what) {
  if (!v.is_number_integer()) throw std::invalid_argument(std::string(what) + " is not an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(hi))
    throw std::invalid_argument(std::string(what) + " is out of range");
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) throw std::invalid_argument(std::string(what) + " is out of range");
  return x;
}

std::vector<double> durations(const nlohmann::json& v, const char* what) {
  std::vector<double> out;
  for (const auto& x : v.get<std::vector<double>>()) out.push_back(finiteNonNegative(x, what));
  return out;
}

// One state of a session file, checked like command-line input; throws with the reason.
Measurement measurementFromState(const nlohmann::json& st) {
  Measurement m;
  auto bad = [](const std::string& axis, const std::string& v, const std::string& why) {
    return std::invalid_argument(axis + " '" + v + "' " + why);
  };
  for (const auto& a : st.at("axis_values")) {
    const std::string n = a.at("name"), v = a.at("value");
    if (n == "Kernel") m.config.kernel = v;
    else if (n == "T") {
      if (auto t = parseElemType(v)) m.config.type = *t; else throw bad(n, v, "is not a type");
    } else if (n == "Op") {
      if (auto o = parseOp(v)) m.config.op = *o; else throw bad(n, v, "is not an operation");
    } else if (n == "Elements") {
      const auto c = wholeNumber<uint64_t>(v);
      if (!c) throw bad(n, v, "is not a count");
      if (*c < 1 || *c > (uint64_t(1) << 40)) throw bad(n, v, "is outside 1..2^40");
      m.config.n = *c;
    } else if (n == "Block") {
      if (auto b = wholeNumber<int>(v)) m.config.block = *b; else throw bad(n, v, "is not a block size");
    } else if (n == "Final") {
      if (auto f = parseFinalStage(v)) m.config.final = *f; else throw bad(n, v, "is not a final stage");
    } else if (n == "Data") {
      if (auto d = parseDataPattern(v)) m.config.data = *d; else throw bad(n, v, "is not a data pattern");
    } else if (n == "Seed") {
      if (auto x = wholeNumber<uint64_t>(v)) m.config.seed = *x; else throw bad(n, v, "is not a seed");
    } else if (n == "L2") {
      if (v != "warm" && v != "cold") throw bad(n, v, "is not warm or cold");
      m.config.warmL2 = v == "warm";
    } else if (n == "Accumulator") {
      const auto acc = parseElemType(v);
      if (!acc) throw bad(n, v, "is not a type");
      m.config.accumulate = *acc == m.config.type ? Accumulate::Same : Accumulate::Wide;
    }
  }
  if (std::string e = validate(m.config, nullptr); !e.empty()) throw std::invalid_argument(e);
  const auto skipped = st.find("is_skipped");
  m.ok = !(skipped != st.end() && skipped->get<bool>());
  const auto reason = st.find("skip_reason");
  if (reason != st.end()) m.error = reason->get<std::string>();
  if (m.ok) {
    if (auto* v = findSummary(st, "reducelab/samples/gpu_time")) m.kernelMs = durations(*v, "a GPU time");
    if (auto* v = findSummary(st, "reducelab/samples/end_to_end_time")) m.endToEndMs = durations(*v, "an end-to-end time");
    m.kernel = Stats::of(m.kernelMs);
    m.endToEnd = Stats::of(m.endToEndMs);
    if (auto* v = findSummary(st, "/bw/global/bytes_per_second")) m.bandwidthGBs = finiteNonNegative(*v, "the bandwidth") / 1e9;
    if (auto* v = findSummary(st, "/bw/global/peak_fraction")) m.pctTheoretical = finiteNonNegative(*v, "the peak fraction") * 100;
    if (auto* v = findSummary(st, "reducelab/result")) {
      if (!v->is_number()) throw std::invalid_argument("the result is not a number");
      m.result.isInt = v->is_number_integer();
      if (m.result.isInt) m.result.i = integerIn(*v, INT64_MIN, INT64_MAX, "the result");
      else m.result.f = v->get<double>();
    }
    if (auto* v = findSummary(st, "reducelab/launch/grid")) {
      if (!v->is_array()) throw std::invalid_argument("the grid is not a list");
      for (const auto& g : *v) m.geometry.passGrids.push_back(uint64_t(integerIn(g, 0, INT64_MAX, "a grid size")));
    }
    if (auto* v = findSummary(st, "reducelab/resources/registers")) m.resources.registers = int(integerIn(*v, 0, 65536, "registers"));
    if (auto* v = findSummary(st, "reducelab/resources/occupancy")) m.resources.occupancy = finiteNonNegative(*v, "the occupancy");
    if (auto* v = findSummary(st, "reducelab/resources/limiter")) m.resources.limiter = v->get<std::string>();
    if (auto* v = findSummary(st, "reducelab/resources/active_blocks_per_sm")) m.resources.activeBlocksPerSM = int(integerIn(*v, 0, 65536, "active blocks"));
    if (auto* v = findSummary(st, "reducelab/bw/measured_read_fraction")) m.pctMeasuredRead = finiteNonNegative(*v, "the read fraction") * 100;
    if (auto* v = findSummary(st, "reducelab/check")) {
      const std::string check = v->get<std::string>();
      if (check != "pass" && check != "fail") throw bad("check", check, "is not pass or fail");
      m.haveReference = true;
      m.check.pass = check == "pass";
    }
    m.bytesRead = double(m.config.n) * double(elemBytes(m.config.type));
    m.geometry.final = m.config.final;
  }
  return m;
}

}  // namespace

std::vector<Measurement> measurementsFromJson(const nlohmann::json& j, std::string* error) {
  std::vector<Measurement> out;
  size_t index = 0;
  try {
    for (const auto& st : j.at("benchmarks").at(0).at("states")) {
      out.push_back(measurementFromState(st));
      ++index;
    }
  } catch (const nlohmann::json::exception& e) {
    if (error) *error = "not a ReduceLab session file (record " + std::to_string(index + 1) + "): " + e.what();
    return {};
  } catch (const std::exception& e) {
    if (error) *error = "record " + std::to_string(index + 1) + " is impossible: " + e.what();
    return {};
  }
  return out;
}

// Both read what a file offers and ignore the rest: a field of the wrong type counts as absent.
DeviceInfo deviceFromJson(const nlohmann::json& j) {
  DeviceInfo d;
  if (!j.is_object()) return d;
  const auto devs = j.find("devices");
  if (devs == j.end() || !devs->is_array() || devs->empty() || !(*devs)[0].is_object()) return d;
  const auto& x = (*devs)[0];
  // An integer field within [0, hi], else 0 (a float is never converted: that could overflow).
  auto integer = [&](const char* key, int64_t hi) -> int64_t {
    const auto it = x.find(key);
    if (it == x.end() || !it->is_number_integer()) return 0;
    if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(hi)) return 0;
    const int64_t v = it->get<int64_t>();
    return v < 0 || v > hi ? 0 : v;
  };
  try {
    d.name = x.value("name", "");
    d.available = d.name.rfind("none", 0) != 0 && !d.name.empty();
    d.smCount = int(integer("number_of_sms", 1 << 20));
    d.l2Bytes = integer("l2_cache_size", int64_t(1) << 50);
    d.totalMemBytes = integer("global_memory_size", int64_t(1) << 50);
    d.busWidthBits = int(integer("global_memory_bus_width", 1 << 20));
    d.memClockKHz = int(integer("global_memory_bus_peak_clock_rate", int64_t(1) << 40) / 1000);
    const int sm = int(integer("sm_version", 10000));
    d.ccMajor = sm / 100;
    d.ccMinor = (sm % 100) / 10;
    d.uuid = x.value("uuid", "");
  } catch (const nlohmann::json::exception&) {
    return DeviceInfo{};
  }
  return d;
}

Peaks peaksFromJson(const nlohmann::json& j) {
  Peaks p;
  if (!j.is_object() || !j.contains("meta") || !j["meta"].is_object() || !j["meta"].contains("peaks") ||
      !j["meta"]["peaks"].is_object())
    return p;
  const auto& x = j["meta"]["peaks"];
  try {
    p.theoreticalGBs = x.value("theoretical_gbs", 0.0);
    p.readGBs = x.value("measured_read_gbs", 0.0);
    p.copyGBs = x.value("measured_copy_gbs", 0.0);
    p.source = x.value("source", std::string("from the session file"));
  } catch (const nlohmann::json::exception&) {
    return Peaks{};
  }
  for (double* v : {&p.theoreticalGBs, &p.readGBs, &p.copyGBs})
    if (!std::isfinite(*v) || *v < 0) *v = 0;
  return p;
}

}  // namespace rl
