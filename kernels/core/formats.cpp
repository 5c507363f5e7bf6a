#include "reducelab/formats.hpp"

#include <algorithm>
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

// A cell in LaTeX: powers written "2^24" become $2^{24}$, everything else is escaped text.
std::string latexCell(const std::string& s) {
  const size_t caret = s.find('^');
  auto digits = [](const std::string& d) {
    return !d.empty() && d.size() < 12 && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (caret != std::string::npos && digits(s.substr(0, caret)) && digits(s.substr(caret + 1)))
    return "$" + s.substr(0, caret) + "^{" + s.substr(caret + 1) + "}$";
  return latexEscape(s);
}

// LaTeX geometry, in points, of the standard article class at 10 pt: the text block, and the
// cells set in \footnotesize (8 pt Computer Modern), with 6 pt of padding each side of a column.
constexpr double kPortraitWidth = 345, kLandscapeWidth = 550;
constexpr double kCharPt = 4.4, kPaddingPt = 12;
constexpr size_t kRowsPerFloat = 30;  // longer tables break across pages (longtable)

// A slight over-estimate of a string's width at 8 pt: capitals and m/w are wider than the rest.
double latexWidthPt(const std::string& s) {
  double w = 0;
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    if (c == 'M' || c == 'W' || c == 'm' || c == 'w' || c == '%' || c == '@') w += 7.6;
    else if (c >= 'A' && c <= 'Z') w += 6.6;
    else if (c >= '0' && c <= '9') w += 4.1;
    else if (c == ' ') w += 2.8;
    else w += kCharPt;
  }
  return w;
}

// The width a column needs: its widest cell; headers wrap onto lines no wider than that, but a
// header word never breaks.
double columnWidthPt(const Table& t, size_t c) {
  double w = 0;
  for (const auto& r : t.rows)
    if (c < r.size()) w = std::max(w, latexWidthPt(r[c]));
  std::istringstream words(t.headers[c]);
  for (std::string word; words >> word;) w = std::max(w, latexWidthPt(word));
  return std::max(w, kCharPt);
}

void latexTable(std::ostringstream& o, const Table& t) {
  const size_t cols = t.headers.size();
  if (cols == 0) return;
  auto isNum = [&](size_t c) { return c < t.numeric.size() && t.numeric[c]; };
  std::vector<double> width(cols);
  double total = 0;
  for (size_t c = 0; c < cols; ++c) total += (width[c] = columnWidthPt(t, c)) + kPaddingPt;
  const bool landscape = total > kPortraitWidth;
  const double page = landscape ? kLandscapeWidth : kPortraitWidth;
  // Column groups that fit the page; every group after the first repeats column 0 (the row's name).
  std::vector<std::vector<size_t>> parts(1, {0});
  double used = width[0] + kPaddingPt;
  for (size_t c = 1; c < cols; ++c) {
    if (used + width[c] + kPaddingPt > page && parts.back().size() > 1) {
      parts.push_back({0});
      used = width[0] + kPaddingPt;
    }
    parts.back().push_back(c);
    used += width[c] + kPaddingPt;
  }
  const bool longTable = t.rows.size() > kRowsPerFloat;
  o << "% ReduceLab table: needs \\usepackage{booktabs,longtable,pdflscape}\n";
  if (landscape) o << "\\begin{landscape}\n";
  for (size_t p = 0; p < parts.size(); ++p) {
    const std::vector<size_t>& part = parts[p];
    std::string caption = latexEscape(t.caption);
    if (parts.size() > 1) caption += (caption.empty() ? "" : " ") + std::string("(part ") + std::to_string(p + 1) +
                                     " of " + std::to_string(parts.size()) + ")";
    std::string spec;
    for (size_t c : part) spec += isNum(c) ? 'r' : 'l';
    std::string header;
    for (size_t i = 0; i < part.size(); ++i) {  // headers wrap inside their column's width
      const size_t c = part[i];
      header += (i ? " & " : "") + std::string("\\parbox[b]{") + fixed(width[c], 1) + "pt}{" +
                (isNum(c) ? "\\raggedleft " : "\\raggedright ") + latexEscape(t.headers[c]) + "}";
    }
    header += " \\\\\n";
    auto body = [&] {
      for (const auto& r : t.rows) {
        for (size_t i = 0; i < part.size(); ++i)
          o << (i ? " & " : "") << latexCell(part[i] < r.size() ? r[part[i]] : "");
        o << " \\\\\n";
      }
    };
    if (longTable) {
      o << "{\\footnotesize\n\\begin{longtable}{" << spec << "}\n";
      if (!caption.empty()) o << "\\caption{" << caption << "}\\\\\n";
      o << "\\toprule\n" << header << "\\midrule\n\\endfirsthead\n";
      o << "\\toprule\n" << header << "\\midrule\n\\endhead\n\\bottomrule\n\\endlastfoot\n";
      body();
      o << "\\end{longtable}\n}\n";
    } else {
      o << "\\begin{table}[htbp]\n\\centering\n\\footnotesize\n";
      if (!caption.empty()) o << "\\caption{" << caption << "}\n";
      o << "\\begin{tabular}{" << spec << "}\n\\toprule\n" << header << "\\midrule\n";
      body();
      o << "\\bottomrule\n\\end{tabular}\n\\end{table}\n";
    }
  }
  if (landscape) o << "\\end{landscape}\n";
}

}  // namespace

const std::string& Table::value(size_t row, size_t col) const {
  static const std::string kNone;
  if (row < values.size() && col < values[row].size() && !values[row][col].empty()) return values[row][col];
  return row < rows.size() && col < rows[row].size() ? rows[row][col] : kNone;
}

void Table::setValue(size_t row, size_t col, std::string v) {
  if (values.size() <= row) values.resize(row + 1);
  if (values[row].size() <= col) values[row].resize(col + 1);
  values[row][col] = std::move(v);
}

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
      for (size_t r = 0; r < t.rows.size(); ++r) {
        for (size_t c = 0; c < cols; ++c) o << (c ? "," : "") << csvField(t.value(r, c));
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
    case TableFormat::Latex:
      latexTable(o, t);
      break;
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

BenchColumns benchColumns(TimeBasis basis) {
  const std::string by = std::string(" (") + timeBasisLabel(basis) + ")";
  BenchColumns c;
  c.headers = {"kernel", "name", "final", "grid", "kernel ms", "min ms", "max ms", "e2e ms", "GB/s" + by,
               "% theor." + by, "% meas." + by, "step x" + by, "cum. x" + by, "vs CPU", "result", "abs err",
               "rel err", "check", "occ. %", "regs"};
  c.numeric = {false, false, false, true, true, true, true, true, true, true, true,
               true,  true,  true,  true, true, true, false, true, true};
  return c;
}

std::vector<std::string> benchRow(const Measurement& m, const Peaks& peaks, TimeBasis basis) {
  const size_t columns = benchColumns(basis).headers.size();
  const KernelInfo* k = findKernel(m.config.kernel);
  std::vector<std::string> r;
  r.push_back(m.config.kernel);
  r.push_back(k ? std::string(k->name) : m.kernelName);
  if (!m.ok) {
    r.push_back("-");
    while (r.size() < columns - 3) r.push_back("");
    r.push_back("not run: " + m.error);
    r.push_back("");
    r.push_back("");
    return r;
  }
  const double gbs = comparedGBs(m, basis);
  r.push_back(std::string(name(m.geometry.final)));
  r.push_back(m.config.kernel == "cub" ? "-" : std::to_string(m.geometry.grid()));
  r.push_back(fixed(m.kernel.median, 4));
  r.push_back(fixed(m.kernel.min, 4));
  r.push_back(fixed(m.kernel.max, 4));
  r.push_back(m.endToEnd.count ? fixed(m.endToEnd.median, 4) : "-");
  r.push_back(fixed(gbs, 1));
  r.push_back(peaks.theoreticalGBs > 0 ? fixed(100.0 * gbs / peaks.theoreticalGBs, 1) : "-");
  r.push_back(peaks.readGBs > 0 ? fixed(100.0 * gbs / peaks.readGBs, 1) : "-");
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
  return r;
}

Table benchTable(const std::vector<Measurement>& rows, const Peaks& peaks) {
  const TimeBasis basis = comparisonBasis(rows);
  Table t;
  BenchColumns c = benchColumns(basis);
  t.headers = std::move(c.headers);
  t.numeric = std::move(c.numeric);
  t.caption = std::string("Rows ") + timeBasisMeaning(basis) + ".";
  for (const Measurement& m : rows) t.rows.push_back(benchRow(m, peaks, basis));
  return t;
}

Table sweepTable(const std::vector<Measurement>& rows, const Peaks& peaks) {
  // Like for like (comparisonBasis): end-to-end times where the rows' final stages differ.
  const TimeBasis basis = comparisonBasis(rows);
  const std::string by = std::string(" (") + timeBasisLabel(basis) + ")";
  Table t;
  t.caption = std::string("Rows ") + timeBasisMeaning(basis) + ".";
  t.headers = {"kernel", "type", "N", "block", "time ms" + by, "min ms" + by, "max ms" + by, "GB/s" + by,
               "% theor." + by, "% meas." + by, "occ. %", "regs", "check"};
  t.numeric = {false, false, true, true, true, true, true, true, true, true, true, true, false};
  for (const Measurement& m : rows) {
    const RunConfig& c = m.config;
    std::vector<std::string> r = {c.kernel, std::string(name(c.type)), formatCount(c.n), std::to_string(c.block)};
    t.setValue(t.rows.size(), 2, std::to_string(c.n));
    if (!m.ok) {
      r.insert(r.end(), {"-", "-", "-", "-", "-", "-", "-", "-", "not run: " + m.error});
    } else {
      const Stats& time = comparedTime(m, basis);
      const double gbs = comparedGBs(m, basis);
      r.push_back(fixed(time.median, 4));
      r.push_back(fixed(time.min, 4));
      r.push_back(fixed(time.max, 4));
      r.push_back(fixed(gbs, 1));
      r.push_back(peaks.theoreticalGBs > 0 ? fixed(100.0 * gbs / peaks.theoreticalGBs, 1) : "-");
      r.push_back(peaks.readGBs > 0 ? fixed(100.0 * gbs / peaks.readGBs, 1) : "-");
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
                 {"source", s.peaks.source},
                 // How the measured peaks were taken (buffer >= 8 x L2, spread, clocks).
                 {"buffer_bytes", s.peaks.bufferBytes},
                 {"measured_read_min_gbs", s.peaks.readMinGBs},
                 {"measured_read_max_gbs", s.peaks.readMaxGBs},
                 {"sm_clock_mhz", s.peaks.smClockMHz},
                 {"mem_clock_mhz", s.peaks.memClockMHz}}},
               // Like for like: which time the rows' speedups compare (comparisonBasis).
               {"compared_by", timeBasisLabel(comparisonBasis(rows))},
               {"compared_by_meaning", timeBasisMeaning(comparisonBasis(rows))}};
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
const nlohmann::json* findSummary(const nlohmann::json& st, const std::string& tagSuffix) {
  if (!st.contains("summaries")) return nullptr;
  for (const auto& s : st["summaries"]) {
    const std::string tag = s.value("tag", "");
    if (tag.size() >= tagSuffix.size() && tag.compare(tag.size() - tagSuffix.size(), tagSuffix.size(), tagSuffix) == 0)
      return &s["data"][0]["value"];
  }
  return nullptr;
}
}  // namespace

std::vector<Measurement> measurementsFromJson(const nlohmann::json& j, std::string* error) {
  std::vector<Measurement> out;
  try {
    for (const auto& st : j.at("benchmarks").at(0).at("states")) {
      Measurement m;
      for (const auto& a : st.at("axis_values")) {
        const std::string n = a.at("name"), v = a.at("value");
        if (n == "Kernel") m.config.kernel = v;
        else if (n == "T") m.config.type = parseElemType(v).value_or(ElemType::Float32);
        else if (n == "Op") m.config.op = parseOp(v).value_or(Op::Sum);
        else if (n == "Elements") m.config.n = std::stoull(v);
        else if (n == "Block") m.config.block = std::stoi(v);
        else if (n == "Final") m.config.final = parseFinalStage(v).value_or(FinalStage::Default);
        else if (n == "Data") m.config.data = parseDataPattern(v).value_or(DataPattern::Uniform);
        else if (n == "Seed") m.config.seed = std::stoull(v);
        else if (n == "L2") m.config.warmL2 = v == "warm";
        else if (n == "Accumulator")
          m.config.accumulate = parseElemType(v).value_or(m.config.type) == m.config.type
                                    ? Accumulate::Same : Accumulate::Wide;
      }
      m.ok = !st.value("is_skipped", false);
      m.error = st.value("skip_reason", "");
      if (m.ok) {
        if (auto* v = findSummary(st, "reducelab/samples/gpu_time")) m.kernelMs = v->get<std::vector<double>>();
        if (auto* v = findSummary(st, "reducelab/samples/end_to_end_time")) m.endToEndMs = v->get<std::vector<double>>();
        m.kernel = Stats::of(m.kernelMs);
        m.endToEnd = Stats::of(m.endToEndMs);
        if (auto* v = findSummary(st, "/bw/global/bytes_per_second")) m.bandwidthGBs = v->get<double>() / 1e9;
        if (auto* v = findSummary(st, "/bw/global/peak_fraction")) m.pctTheoretical = v->get<double>() * 100;
        if (auto* v = findSummary(st, "reducelab/result")) {
          m.result.isInt = v->is_number_integer();
          if (m.result.isInt) m.result.i = v->get<int64_t>();
          else m.result.f = v->get<double>();
        }
        if (auto* v = findSummary(st, "reducelab/launch/grid")) m.geometry.passGrids = v->get<std::vector<uint64_t>>();
        if (auto* v = findSummary(st, "reducelab/resources/registers")) m.resources.registers = v->get<int>();
        if (auto* v = findSummary(st, "reducelab/resources/occupancy")) m.resources.occupancy = v->get<double>();
        if (auto* v = findSummary(st, "reducelab/resources/limiter")) m.resources.limiter = v->get<std::string>();
        if (auto* v = findSummary(st, "reducelab/resources/active_blocks_per_sm")) m.resources.activeBlocksPerSM = v->get<int>();
        if (auto* v = findSummary(st, "reducelab/bw/measured_read_fraction")) m.pctMeasuredRead = v->get<double>() * 100;
        if (auto* v = findSummary(st, "reducelab/check")) {
          m.haveReference = true;
          m.check.pass = v->get<std::string>() == "pass";
        }
        m.bytesRead = double(m.config.n) * double(elemBytes(m.config.type));
        m.geometry.final = m.config.final;
      }
      out.push_back(std::move(m));
    }
  } catch (const std::exception& e) {
    if (error) *error = std::string("not a ReduceLab session file: ") + e.what();
    return {};
  }
  return out;
}

DeviceInfo deviceFromJson(const nlohmann::json& j) {
  DeviceInfo d;
  if (!j.contains("devices") || j["devices"].empty()) return d;
  const auto& x = j["devices"][0];
  d.name = x.value("name", "");
  d.available = d.name.rfind("none", 0) != 0 && !d.name.empty();
  d.smCount = x.value("number_of_sms", 0);
  d.l2Bytes = x.value("l2_cache_size", int64_t(0));
  d.totalMemBytes = x.value("global_memory_size", int64_t(0));
  d.busWidthBits = x.value("global_memory_bus_width", 0);
  d.memClockKHz = int(x.value("global_memory_bus_peak_clock_rate", int64_t(0)) / 1000);
  const int sm = x.value("sm_version", 0);
  d.ccMajor = sm / 100;
  d.ccMinor = (sm % 100) / 10;
  d.uuid = x.value("uuid", "");
  return d;
}

Peaks peaksFromJson(const nlohmann::json& j) {
  Peaks p;
  if (!j.contains("meta") || !j["meta"].contains("peaks")) return p;
  const auto& x = j["meta"]["peaks"];
  p.theoreticalGBs = x.value("theoretical_gbs", 0.0);
  p.readGBs = x.value("measured_read_gbs", 0.0);
  p.copyGBs = x.value("measured_copy_gbs", 0.0);
  p.source = x.value("source", std::string("from the session file"));
  return p;
}

}  // namespace rl
