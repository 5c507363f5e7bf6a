#include "reducelab/formats.hpp"
#include "reducelab/version.hpp"

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

Table matrixTable(const std::vector<Measurement>& rows) {
  Table t;
  t.headers = {"kernel", "name", "type", "size", "tile", "threads", "grid", "time ms", "min ms", "max ms",
               "GB/s", "% copy", "GFLOP/s", "% peak FLOP", "check", "max error", "occupancy %", "regs"};
  t.numeric = {false, false, false, false, true, false, false, true, true, true,
               true,  true,  true,  true,  false, true,  true,  true};
  for (const Measurement& m : rows) {
    const RunConfig& c = m.config;
    const KernelInfo* k = findKernel(c.kernel);
    const bool mm = k && k->family == Family::Matmul;
    std::vector<std::string> r = {c.kernel, k ? std::string(k->name) : m.kernelName, std::string(name(c.type)),
                                  std::to_string(c.rows) + " x " + std::to_string(c.cols) +
                                      (mm ? " (K " + std::to_string(c.inner) + ")" : ""),
                                  std::to_string(k ? effectiveTile(*k, c) : c.tile)};
    if (!m.ok) {
      r.push_back("not run: " + m.error);
      while (r.size() < t.headers.size()) r.push_back("");
      t.rows.push_back(r);
      continue;
    }
    r.push_back(std::to_string(m.geometry.blockX) + " x " + std::to_string(m.geometry.blockY));
    r.push_back(std::to_string(m.geometry.gridX) + " x " + std::to_string(m.geometry.gridY));
    r.push_back(fixed(m.kernel.median, 4));
    r.push_back(fixed(m.kernel.min, 4));
    r.push_back(fixed(m.kernel.max, 4));
    r.push_back(fixed(m.bandwidthGBs, 1));
    r.push_back(m.pctCopy > 0 ? fixed(m.pctCopy, 1) : "-");
    r.push_back(mm ? fixed(m.gflops, 1) : "-");
    r.push_back(mm && m.pctPeakFlops > 0 ? fixed(m.pctPeakFlops, 1) : "-");
    r.push_back(!m.haveReference ? "-" : m.check.pass ? "PASS" : "FAIL");
    r.push_back(m.haveReference ? sci(m.check.absError) : "-");
    r.push_back(fixed(100.0 * m.resources.occupancy, 0));
    r.push_back(std::to_string(m.resources.registers));
    t.rows.push_back(r);
  }
  return t;
}

bool isMatrixRun(const Measurement& m) {
  const KernelInfo* k = findKernel(m.config.kernel);
  return k && isMatrixFamily(*k);
}

RunTables runTables(const std::vector<Measurement>& rows, const Peaks& peaks) {
  std::vector<Measurement> reductions, matrix;
  for (const Measurement& m : rows) (isMatrixRun(m) ? matrix : reductions).push_back(m);
  fillLadderSpeedups(reductions);
  return {benchTable(reductions, peaks), matrixTable(matrix)};
}

Table benchTable(const std::vector<Measurement>& rows, const Peaks& peaks) {
  const TimeBasis basis = comparisonBasis(rows);
  Table t;
  BenchColumns c = benchColumns(basis);
  t.headers = std::move(c.headers);
  t.numeric = std::move(c.numeric);
  t.caption = std::string("Rows ") + timeBasisMeaning(basis) + ".";
  if (std::string note = timingModesNote(rows); !note.empty()) t.caption += " " + note;
  for (const Measurement& m : rows) t.rows.push_back(benchRow(m, peaks, basis));
  return t;
}

Table sweepTable(const std::vector<Measurement>& rows, const Peaks& peaks) {
  // Like for like (comparisonBasis): end-to-end times where the rows' final stages differ.
  const TimeBasis basis = comparisonBasis(rows);
  const std::string by = std::string(" (") + timeBasisLabel(basis) + ")";
  Table t;
  t.caption = std::string("Rows ") + timeBasisMeaning(basis) + ".";
  if (std::string note = timingModesNote(rows); !note.empty()) t.caption += " " + note;
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

// The layout nvbench 1.0.0 writes and its Python tools (cuda-bench) read. Those tools accept only
// int64, float64 and string summary values, and every state's axis_values must name a declared axis.
constexpr int kJsonSchema = 2;  // 1: unversioned nvbench look-alike (docs/data/h200-*.json), 2: nvbench 1.0.0

nlohmann::json summary(const std::string& tag, const std::string& name, const std::string& hint,
                       const std::string& type, const nlohmann::json& value,
                       const std::string& description = "", bool hidden = false) {
  nlohmann::json s = {{"tag", tag},
                      {"name", name},
                      {"data", nlohmann::json::array({{{"name", "value"}, {"type", type}, {"value", value}}})}};
  if (!hint.empty()) s["hint"] = hint;
  if (!description.empty()) s["description"] = description;
  if (hidden) s["hide"] = "Hidden by default.";
  return s;
}

// ReduceLab's own figures: hidden, so nvbench's tables show only nvbench's columns.
nlohmann::json ownSummary(const std::string& tag, const std::string& name, const std::string& hint,
                          const std::string& type, const nlohmann::json& value) {
  return summary(tag, name, hint, type, value, "", true);
}

nlohmann::json version(int major, int minor, int patch) {
  return {{"major", major}, {"minor", minor}, {"patch", patch},
          {"string", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch)}};
}

bool isPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

int log2Exact(uint64_t v) {
  int e = 0;
  while (v > 1) { v >>= 1; ++e; }
  return e;
}

// One axis of the benchmark: its values as the states use them (strings, int64 as decimal text).
struct AxisColumn {
  std::string name, type;
  std::vector<std::string> values;  // distinct, in order of first use
};

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
  // The matrix families' own parameters (a reduction's record has none of these axes).
  if (const KernelInfo* k = findKernel(c.kernel); k && isMatrixFamily(*k)) {
    point.push_back({"Rows", std::to_string(c.rows)});
    point.push_back({"Cols", std::to_string(c.cols)});
    if (k->family == Family::Matmul) point.push_back({"Inner", std::to_string(c.inner)});
    point.push_back({"Tile", std::to_string(effectiveTile(*k, c))});
  }
  return point;
}

const char* axisType(const std::string& axis) {
  return axis == "Elements" || axis == "Block" || axis == "Seed" || axis == "Rows" || axis == "Cols" ||
                 axis == "Inner" || axis == "Tile"
             ? "int64"
             : "string";
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

// nvbench's pow2 flag: the axis is written as exponents; only when every value is a power of two.
bool pow2Axis(const AxisColumn& a) {
  if (a.type != "int64" || a.name == "Seed") return false;
  for (const std::string& v : a.values)
    if (!isPowerOfTwo(std::stoull(v))) return false;
  return true;
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

}  // namespace

nlohmann::json sessionJson(const SessionInfo& s, const std::vector<Measurement>& rows) {
  using nlohmann::json;
  const DeviceInfo& d = s.device;
  json j;
  j["meta"] = {{"argv", s.argv},
               {"version", {{"json", version(1, 0, 0)}, {"reducelab", version(versionNumbers().major, versionNumbers().minor, versionNumbers().patch)}, {"json_schema", kJsonSchema}}},
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
  const std::vector<AxisColumn> cols = axisColumns(rows);
  json axes = json::array();
  for (const AxisColumn& a : cols) axes.push_back(axisJson(a));
  // nvbench's tools match states of two files by name, so the name carries every axis that varies.
  auto varies = [&](const std::string& axis) {
    for (const AxisColumn& a : cols)
      if (a.name == axis) return a.values.size() > 1;
    return false;
  };
  const bool bandwidthPeakKnown = s.peaks.theoreticalGBs > 0;
  json states = json::array();
  for (const Measurement& m : rows) {
    const RunConfig& c = m.config;
    json st;
    std::string stateName;
    json axisValues = json::array();
    for (const auto& [axis, value] : axisPoint(m)) {
      axisValues.push_back({{"name", axis}, {"type", axisType(axis)}, {"value", value}});
      if (axis == "Kernel" || axis == "T" || axis == "Op" || axis == "Elements" || axis == "Block" || varies(axis))
        stateName.append(stateName.empty() ? "" : " ").append(axis).append("=").append(value);
    }
    st["name"] = stateName;
    st["device"] = d.ordinal;
    st["axis_values"] = axisValues;
    st["is_skipped"] = !m.ok;
    // What a recording needs to give back the same record (nvbench's readers ignore extra keys).
    json own = {{"label", m.label}, {"reps", c.reps}, {"warmup", c.warmup}, {"range_lo", c.rangeLo},
                {"range_hi", c.rangeHi}, {"traced_block", c.tracedBlock}, {"enqueue_timeouts", m.enqueueTimeouts}};
    if (m.haveCpu)
      own["cpu"] = {{"median_ms", m.cpu.ms.median}, {"min_ms", m.cpu.ms.min}, {"max_ms", m.cpu.ms.max},
                    {"mean_ms", m.cpu.ms.mean}, {"stddev_ms", m.cpu.ms.stddev}, {"reps", m.cpu.reps},
                    {"result", m.cpu.result.isInt ? json(m.cpu.result.i) : json(m.cpu.result.f)}};
    if (!m.ok) {
      st["skip_reason"] = m.error;
      st["summaries"] = json::array();
      st["reducelab"] = own;
      states.push_back(st);
      continue;
    }
    // nvbench's "cold" measurement: one synchronised launch per sample; whether L2 was flushed
    // before each is the L2 axis.
    const std::string nv = "nv/cold/";
    json sum = json::array();
    sum.push_back(summary(nv + "sample_size", "Samples", "sample_size", "int64", m.kernel.count,
                          "Number of isolated kernel executions"));
    sum.push_back(summary(nv + "time/gpu/mean", "GPU Time", "duration", "float64", m.kernel.mean * 1e-3,
                          "Mean isolated kernel execution time (measured with CUDA events)"));
    if (m.kernel.mean > 0)
      sum.push_back(summary(nv + "time/gpu/stdev/relative", "Noise", "percentage", "float64",
                            m.kernel.stddev / m.kernel.mean, "Relative standard deviation of isolated GPU times"));
    sum.push_back(summary(nv + "time/gpu/median", "GPU Time (median)", "duration", "float64", m.kernel.median * 1e-3,
                          "Median isolated kernel execution time: ReduceLab's bandwidth uses it"));
    sum.push_back(summary(nv + "time/gpu/stdev/absolute", "Noise (absolute)", "duration", "float64",
                          m.kernel.stddev * 1e-3, "Standard deviation of isolated GPU times", true));
    sum.push_back(summary(nv + "time/gpu/min", "Min GPU Time", "duration", "float64", m.kernel.min * 1e-3,
                          "Fastest isolated kernel execution time", true));
    sum.push_back(summary(nv + "time/gpu/max", "Max GPU Time", "duration", "float64", m.kernel.max * 1e-3,
                          "Slowest isolated kernel execution time", true));
    sum.push_back(summary("nv/gmem/reads/Input", "Input", "bytes", "int64",
                          int64_t(c.n) * int64_t(elemBytes(c.type)), "Bytes read from global memory: N x element size"));
    sum.push_back(summary(nv + "bw/global/bytes_per_second", "GlobalMem BW", "byte_rate", "float64",
                          m.bandwidthGBs * 1e9, "Bytes read per second (N x element size / median GPU time)"));
    if (bandwidthPeakKnown)
      sum.push_back(summary(nv + "bw/global/utilization", "BWUtil", "percentage", "float64", m.pctTheoretical / 100,
                            "Global memory bandwidth as a fraction of the theoretical peak"));
    sum.push_back(ownSummary("reducelab/time/end_to_end/median", "End-to-end time (median)", "duration", "float64", m.endToEnd.median * 1e-3));
    if (m.launchFloorMs > 0)
      sum.push_back(ownSummary("reducelab/time/launch_floor", "Empty-launch floor (same timing)", "duration", "float64",
                               m.launchFloorMs * 1e-3));
    sum.push_back(ownSummary("reducelab/bw/measured_read_fraction", "% of measured read peak", "percentage", "float64", m.pctMeasuredRead / 100));
    if (const KernelInfo* k = findKernel(c.kernel); k && isMatrixFamily(*k)) {
      sum.push_back(ownSummary("reducelab/matrix/bytes_moved", "Bytes moved (least)", "bytes", "float64", m.bytesRead));
      sum.push_back(ownSummary("reducelab/bw/measured_copy_fraction", "% of measured copy", "percentage", "float64", m.pctCopy / 100));
      if (k->family == Family::Matmul) {
        sum.push_back(ownSummary("reducelab/flops/gflops", "GFLOP/s", "", "float64", m.gflops));
        sum.push_back(ownSummary("reducelab/flops/peak_gflops", "Peak GFLOP/s", "", "float64", m.peakGflops));
        sum.push_back(ownSummary("reducelab/flops/peak_fraction", "% of peak FLOP/s", "percentage", "float64", m.pctPeakFlops / 100));
      }
    }
    sum.push_back(ownSummary("reducelab/result", "Result", "", m.result.isInt ? "int64" : "float64",
                             m.result.isInt ? json(m.result.i) : json(m.result.f)));
    if (m.haveReference) {
      sum.push_back(ownSummary("reducelab/reference", "Exact reference", "", "string", fixed(double(m.reference.exact), 6)));
      sum.push_back(ownSummary("reducelab/error/absolute", "Absolute error", "", "float64", m.check.absError));
      sum.push_back(ownSummary("reducelab/error/relative", "Relative error", "", "float64", m.check.relError));
      sum.push_back(ownSummary("reducelab/error/tolerance", "Tolerance", "", "float64", m.check.tolerance));
      sum.push_back(ownSummary("reducelab/check", "Check", "", "string", m.check.pass ? "pass" : "fail"));
      sum.push_back(ownSummary("reducelab/overflow", "Integer overflow", "", "int64", m.reference.overflow ? 1 : 0));
    }
    if (m.haveCpu) {
      sum.push_back(ownSummary("reducelab/cpu/time/median", "CPU loop time (median)", "duration", "float64", m.cpu.ms.median * 1e-3));
      sum.push_back(ownSummary("reducelab/speedup/cpu", "Speedup vs CPU", "", "float64", m.speedupVsCpu));
    }
    sum.push_back(ownSummary("reducelab/launch/shared_bytes", "Dynamic shared memory", "bytes", "int64", m.geometry.smemBytes));
    if (m.geometry.loadsInFlight > 0) {
      sum.push_back(ownSummary("reducelab/launch/loads_in_flight", "Loads in flight per thread", "", "int64", m.geometry.loadsInFlight));
      sum.push_back(ownSummary("reducelab/launch/cache_hint", "Cache hint of the loads", "", "string", std::string(name(m.geometry.cacheHint))));
      sum.push_back(ownSummary("reducelab/launch/policy", "Launch policy source", "", "string", m.geometry.policySource));
      sum.push_back(ownSummary("reducelab/launch/programmatic_dependent", "Later passes with programmatic dependent launch", "",
                               "int64", m.geometry.programmaticDependentLaunch ? 1 : 0));
    }
    sum.push_back(ownSummary("reducelab/resources/registers", "Registers per thread", "", "int64", m.resources.registers));
    sum.push_back(ownSummary("reducelab/resources/occupancy", "Theoretical occupancy", "percentage", "float64", m.resources.occupancy));
    sum.push_back(ownSummary("reducelab/resources/active_blocks_per_sm", "Active blocks per SM", "", "int64", m.resources.activeBlocksPerSM));
    sum.push_back(ownSummary("reducelab/resources/limiter", "Limiting resource", "", "string", m.resources.limiter));
    sum.push_back(ownSummary("reducelab/resources/waves", "Waves", "", "float64", m.resources.waves));
    st["summaries"] = sum;
    // Lists have no place in nvbench's summaries (scalars only); its readers ignore extra state keys.
    own["gpu_time_ms"] = m.kernelMs;
    own["end_to_end_ms"] = m.endToEndMs;
    own["distinct_results"] = m.distinctResults;
    own["grid_per_pass"] = m.geometry.passGrids;
    own["step_speedup"] = m.stepSpeedup;
    own["cumulative_speedup"] = m.cumulativeSpeedup;
    st["reducelab"] = own;
    states.push_back(st);
  }
  bench["axes"] = axes;
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

// A list ReduceLab keeps: schema 2 has it in the state's "reducelab" object, schema 1 in a summary.
const nlohmann::json* findList(const nlohmann::json& st, const char* key, const char* oldTag) {
  if (st.contains("reducelab") && st["reducelab"].contains(key)) return &st["reducelab"][key];
  return findSummary(st, oldTag);
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

// An int64 nvbench-style: a JSON integer, or its decimal text (nvbench writes int64 as text).
int64_t int64In(const nlohmann::json& v, int64_t lo, int64_t hi, const char* what) {
  if (v.is_string()) {
    const std::string& t = v.get_ref<const std::string&>();
    int64_t x = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), x);
    if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
      throw std::invalid_argument(std::string(what) + " '" + t + "' is not an integer");
    if (x < lo || x > hi) throw std::invalid_argument(std::string(what) + " is out of range");
    return x;
  }
  return integerIn(v, lo, hi, what);
}

// One state of a session file, checked like command-line input; throws with the reason.
Measurement measurementFromState(const nlohmann::json& st) {
  Measurement m;
  auto bad = [](const std::string& axis, const std::string& v, const std::string& why) {
    return std::invalid_argument(axis + " '" + v + "' " + why);
  };
  for (const auto& a : st.at("axis_values")) {
    const std::string n = a.at("name");
    const auto& value = a.at("value");  // text, or an integer (nvbench's int64 axes)
    if (!value.is_string() && !value.is_number_integer())
      throw std::invalid_argument("axis " + n + " has a value that is neither text nor an integer");
    const std::string v = value.is_string() ? value.get<std::string>() : value.dump();
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
    } else if (n == "Rows" || n == "Cols" || n == "Inner") {
      const auto x = wholeNumber<uint64_t>(v);
      if (!x || *x < 1 || *x > kMaxMatrixSide) throw bad(n, v, "is not a matrix side (1.." + std::to_string(kMaxMatrixSide) + ")");
      (n == "Rows" ? m.config.rows : n == "Cols" ? m.config.cols : m.config.inner) = *x;
    } else if (n == "Tile") {
      const auto x = wholeNumber<int>(v);
      if (!x || *x < 1 || *x > 32) throw bad(n, v, "is not a tile size (1..32)");
      m.config.tile = *x;
    } else if (n == "Timing") {  // absent in files written before the timing modes: blocked
      if (auto t = parseTimingMode(v)) m.config.timing = *t; else throw bad(n, v, "is not a timing mode");
    } else if (n == "PDL") {  // absent in files written before the switch: on
      if (auto p = parseOnOff(v)) m.config.pdl = *p; else throw bad(n, v, "is not on or off");
    } else if (n == "Accumulator") {
      const auto acc = parseElemType(v);
      if (!acc) throw bad(n, v, "is not a type");
      m.config.accumulate = *acc == m.config.type ? Accumulate::Same : Accumulate::Wide;
    }
  }
  const auto skipped = st.find("is_skipped");
  if (skipped != st.end() && !skipped->is_boolean()) throw std::invalid_argument("is_skipped is not true or false");
  m.ok = !(skipped != st.end() && skipped->get<bool>());
  const auto reason = st.find("skip_reason");
  if (reason != st.end()) {
    if (!reason->is_string()) throw std::invalid_argument("skip_reason is not text");
    m.error = reason->get<std::string>();
  }
  // ReduceLab's own fields (recordings; absent in older files): the label, the rest of the
  // configuration, the CPU baseline.
  if (const auto own = st.find("reducelab"); own != st.end()) {
    if (!own->is_object()) throw std::invalid_argument("the reducelab object is not an object");
    if (const auto v = own->find("label"); v != own->end()) {
      if (!v->is_string() || v->get_ref<const std::string&>().size() > 256)
        throw std::invalid_argument("the label is not text of at most 256 characters");
      m.label = v->get<std::string>();
      if (m.label.rfind("lesson:", 0) == 0 && !wholeNumber<uint32_t>(m.label.substr(7)))
        throw bad("label", m.label, "does not name a lesson row");
    }
    if (const auto v = own->find("reps"); v != own->end()) m.config.reps = int(integerIn(*v, 1, 1000000, "reps"));
    if (const auto v = own->find("warmup"); v != own->end()) m.config.warmup = int(integerIn(*v, 0, 1000000, "warm-up"));
    if (const auto v = own->find("range_lo"); v != own->end()) m.config.rangeLo = integerIn(*v, INT64_MIN, INT64_MAX, "range_lo");
    if (const auto v = own->find("range_hi"); v != own->end()) m.config.rangeHi = integerIn(*v, INT64_MIN, INT64_MAX, "range_hi");
    if (m.config.rangeLo > m.config.rangeHi) throw std::invalid_argument("range_lo is above range_hi");
    if (const auto v = own->find("traced_block"); v != own->end())
      m.config.tracedBlock = uint64_t(integerIn(*v, 0, int64_t(1) << 40, "traced_block"));
    if (const auto v = own->find("enqueue_timeouts"); v != own->end())
      m.enqueueTimeouts = int(integerIn(*v, 0, 1000000, "enqueue_timeouts"));
    if (const auto v = own->find("step_speedup"); v != own->end()) m.stepSpeedup = finiteNonNegative(*v, "the step speedup");
    if (const auto v = own->find("cumulative_speedup"); v != own->end())
      m.cumulativeSpeedup = finiteNonNegative(*v, "the cumulative speedup");
    if (const auto cpu = own->find("cpu"); cpu != own->end()) {
      if (!cpu->is_object()) throw std::invalid_argument("the CPU baseline is not an object");
      m.haveCpu = true;
      m.cpu.ms.median = finiteNonNegative(cpu->at("median_ms"), "a CPU time");
      m.cpu.ms.min = finiteNonNegative(cpu->at("min_ms"), "a CPU time");
      m.cpu.ms.max = finiteNonNegative(cpu->at("max_ms"), "a CPU time");
      m.cpu.ms.mean = finiteNonNegative(cpu->at("mean_ms"), "a CPU time");
      m.cpu.ms.stddev = finiteNonNegative(cpu->at("stddev_ms"), "a CPU time");
      m.cpu.reps = int(integerIn(cpu->at("reps"), 0, 1000000000, "the CPU repetitions"));
      m.cpu.ms.count = m.cpu.reps;
      const auto& r = cpu->at("result");
      if (r.is_number_integer()) {
        m.cpu.result.isInt = true;
        m.cpu.result.i = integerIn(r, INT64_MIN, INT64_MAX, "the CPU result");
      } else if (r.is_number_float() && std::isfinite(r.get<double>())) {
        m.cpu.result.f = r.get<double>();
      } else {
        throw std::invalid_argument("the CPU result is not a finite number");
      }
    }
  }
  // A measured record must be a configuration that can run; a skipped one records why it could not
  // (k5 at 32 threads, say), but still names a known kernel and a block size a GPU can have.
  if (m.ok) {
    if (std::string e = validate(m.config, nullptr); !e.empty()) throw std::invalid_argument(e);
  } else if (!findKernel(m.config.kernel) || m.config.block < 1 || m.config.block > 1024) {
    throw std::invalid_argument("a skipped record names kernel '" + m.config.kernel + "' with block " +
                                std::to_string(m.config.block));
  }
  if (m.ok) {
    auto doubles = [](const nlohmann::json& v, const char* what) {
      if (!v.is_array()) throw std::invalid_argument(std::string(what) + " is not a list");
      return durations(v, what);
    };
    if (auto* v = findList(st, "gpu_time_ms", "reducelab/samples/gpu_time")) m.kernelMs = doubles(*v, "a GPU time");
    if (auto* v = findList(st, "end_to_end_ms", "reducelab/samples/end_to_end_time")) m.endToEndMs = doubles(*v, "an end-to-end time");
    if (auto* v = findList(st, "distinct_results", "reducelab/distinct_results")) {
      if (!v->is_array()) throw std::invalid_argument("the distinct results are not a list");
      for (const auto& r : *v) {
        if (!r.is_string()) throw std::invalid_argument("a distinct result is not text");
        m.distinctResults.push_back(r.get<std::string>());
      }
    }
    if (auto* v = findList(st, "grid_per_pass", "reducelab/launch/grid")) {
      if (!v->is_array()) throw std::invalid_argument("the grid is not a list");
      for (const auto& g : *v) m.geometry.passGrids.push_back(uint64_t(int64In(g, 0, INT64_MAX, "a grid size")));
    }
    m.kernel = Stats::of(m.kernelMs);
    m.endToEnd = Stats::of(m.endToEndMs);
    if (auto* v = findSummary(st, "/bw/global/bytes_per_second")) m.bandwidthGBs = finiteNonNegative(*v, "the bandwidth") / 1e9;
    if (auto* v = findSummary(st, "/bw/global/utilization")) m.pctTheoretical = finiteNonNegative(*v, "the utilization") * 100;
    else if (auto* v1 = findSummary(st, "/bw/global/peak_fraction")) m.pctTheoretical = finiteNonNegative(*v1, "the peak fraction") * 100;
    if (auto* v = findSummary(st, "reducelab/result")) {
      if (!v->is_number() && !v->is_string()) throw std::invalid_argument("the result is not a number");
      m.result.isInt = v->is_number_integer() || v->is_string();
      if (m.result.isInt) m.result.i = int64In(*v, INT64_MIN, INT64_MAX, "the result");
      else m.result.f = v->get<double>();
    }
    if (auto* v = findSummary(st, "reducelab/resources/registers")) m.resources.registers = int(int64In(*v, 0, 65536, "registers"));
    if (auto* v = findSummary(st, "reducelab/resources/occupancy")) m.resources.occupancy = finiteNonNegative(*v, "the occupancy");
    if (auto* v = findSummary(st, "reducelab/resources/limiter")) {
      if (!v->is_string()) throw std::invalid_argument("the limiter is not text");
      m.resources.limiter = v->get<std::string>();
    }
    if (auto* v = findSummary(st, "reducelab/resources/active_blocks_per_sm")) m.resources.activeBlocksPerSM = int(int64In(*v, 0, 65536, "active blocks"));
    if (auto* v = findSummary(st, "reducelab/resources/waves")) m.resources.waves = finiteNonNegative(*v, "the waves");
    if (auto* v = findSummary(st, "reducelab/launch/shared_bytes")) m.geometry.smemBytes = size_t(int64In(*v, 0, INT64_MAX, "shared memory"));
    if (auto* v = findSummary(st, "reducelab/speedup/cpu"); v && m.haveCpu) m.speedupVsCpu = finiteNonNegative(*v, "the CPU speedup");
    if (auto* v = findSummary(st, "reducelab/launch/loads_in_flight")) m.geometry.loadsInFlight = int(int64In(*v, 1, 64, "loads in flight"));
    if (auto* v = findSummary(st, "reducelab/launch/cache_hint")) {
      const auto h = v->is_string() ? parseCacheHint(v->get<std::string>()) : std::nullopt;
      if (!h) throw std::invalid_argument("the cache hint is not one of none, L1::no_allocate, L2::evict_first, L2::256B");
      m.geometry.cacheHint = *h;
    }
    if (auto* v = findSummary(st, "reducelab/launch/policy")) {
      if (!v->is_string()) throw std::invalid_argument("the launch policy source is not text");
      m.geometry.policySource = v->get<std::string>();
    }
    if (auto* v = findSummary(st, "reducelab/launch/programmatic_dependent")) m.geometry.programmaticDependentLaunch = int64In(*v, 0, 1, "the PDL flag") == 1;
    if (auto* v = findSummary(st, "reducelab/time/launch_floor")) m.launchFloorMs = finiteNonNegative(*v, "the launch floor") * 1e3;
    if (auto* v = findSummary(st, "reducelab/bw/measured_read_fraction")) m.pctMeasuredRead = finiteNonNegative(*v, "the read fraction") * 100;
    if (auto* v = findSummary(st, "reducelab/check")) {
      if (!v->is_string()) throw std::invalid_argument("the check is not text");
      const std::string check = v->get<std::string>();
      if (check != "pass" && check != "fail") throw bad("check", check, "is not pass or fail");
      m.haveReference = true;
      m.check.pass = check == "pass";
    }
    if (auto* v = findSummary(st, "reducelab/error/absolute"); v && !v->is_null()) m.check.absError = finiteNonNegative(*v, "the absolute error");
    if (auto* v = findSummary(st, "reducelab/error/relative"); v && !v->is_null()) m.check.relError = finiteNonNegative(*v, "the relative error");
    if (auto* v = findSummary(st, "reducelab/error/tolerance"); v && !v->is_null()) m.check.tolerance = finiteNonNegative(*v, "the tolerance");
    m.bytesRead = bytesMoved(m.config);
    // Derived as the engine derives it (a session file does not store it).
    m.endToEndGBs = m.endToEnd.median > 0 ? m.bytesRead / (m.endToEnd.median * 1e-3) / 1e9 : 0;
    if (auto* v = findSummary(st, "reducelab/bw/measured_copy_fraction")) m.pctCopy = finiteNonNegative(*v, "the copy fraction") * 100;
    if (auto* v = findSummary(st, "reducelab/flops/gflops")) m.gflops = finiteNonNegative(*v, "the GFLOP/s");
    if (auto* v = findSummary(st, "reducelab/flops/peak_gflops")) m.peakGflops = finiteNonNegative(*v, "the peak GFLOP/s");
    if (auto* v = findSummary(st, "reducelab/flops/peak_fraction")) m.pctPeakFlops = finiteNonNegative(*v, "the peak fraction") * 100;
    m.geometry.final = m.config.final;
    if (const KernelInfo* k = findKernel(m.config.kernel); k && isMatrixFamily(*k)) {  // the 2-D launch
      const Geometry g = planGeometry(*k, m.config, 1);
      m.geometry.gridX = g.gridX, m.geometry.gridY = g.gridY, m.geometry.blockX = g.blockX, m.geometry.blockY = g.blockY;
      m.geometry.tile = g.tile;
      m.geometry.block = g.block;
    }
  }
  return m;
}

}  // namespace

std::vector<Measurement> measurementsFromJson(const nlohmann::json& j, std::string* error) {
  std::vector<Measurement> out;
  size_t index = 0;
  try {
    // A later layout may move or rename what this reader looks for: refuse it rather than misread it.
    if (j.contains("meta") && j["meta"].contains("version") && j["meta"]["version"].contains("json_schema") &&
        j["meta"]["version"]["json_schema"].get<int>() > kJsonSchema) {
      if (error)
        *error = "written by a newer ReduceLab (JSON schema " + j["meta"]["version"]["json_schema"].dump() +
                 "; this one reads up to " + std::to_string(kJsonSchema) + ")";
      return {};
    }
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
    d.smClockKHz = int(integer("sm_default_clock_rate", int64_t(1) << 40) / 1000);
    d.maxThreadsPerSM = int(integer("max_threads_per_sm", 1 << 20));
    d.maxThreadsPerBlock = int(integer("max_threads_per_block", 1 << 20));
    d.maxBlocksPerSM = int(integer("max_blocks_per_sm", 1 << 20));
    d.regsPerSM = int(integer("registers_per_sm", 1 << 24));
    d.regsPerBlock = int(integer("registers_per_block", 1 << 24));
    d.smemPerSM = integer("shared_memory_per_sm", int64_t(1) << 40);
    d.smemPerBlock = integer("shared_memory_per_block", int64_t(1) << 40);
    d.driverVersion = cudaVersionFromString(x.value("driver_version", ""));
    d.runtimeVersion = cudaVersionFromString(x.value("runtime_version", ""));
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
