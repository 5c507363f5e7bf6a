#pragma once
// One record, many formats: the measurement rows as an aligned text table, CSV, Markdown,
// LaTeX (booktabs) and JSON shaped like nvbench's output (docs/json-schema.md).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reducelab/record.hpp"

namespace rl {

struct Table {
  std::string caption;
  std::vector<std::string> headers;
  std::vector<bool> numeric;  // right-aligned columns
  std::vector<std::vector<std::string>> rows;
  // Machine-readable values where a cell shows something else (N shown as "2^24" has the value
  // "16777216"); same shape as rows where present, "" = the cell's text. CSV writes these.
  std::vector<std::vector<std::string>> values;

  const std::string& value(size_t row, size_t col) const;  // the value, else the text ("" if absent)
  void setValue(size_t row, size_t col, std::string v);
};

enum class TableFormat { Text, Csv, Markdown, Latex };
// Csv: numbers as numbers (Table::values). Latex: booktabs; a table too wide for a portrait page
// is set in landscape (pdflscape) and, if still too wide, split into parts that each repeat the
// first column; a long one is a longtable. Needs \usepackage{booktabs,longtable,pdflscape}.
std::string render(const Table& t, TableFormat f);
// Parses a CSV produced by render(Csv) (quoted fields, doubled quotes): header + rows.
Table parseCsv(const std::string& text);

// The seed's columns: kernel, times, bandwidth, % of peaks, step / cumulative / CPU speedups,
// result, error, check, plus occupancy and registers. Bandwidth, % of peaks and speedups use the
// rows' comparison basis (comparisonBasis: end-to-end when final stages differ), named in the
// headers and the caption. Speedups are those in the records (fillLadderSpeedups).
Table benchTable(const std::vector<Measurement>& rows, const Peaks& peaks);
// The matrix families' rows (transpose and matmul): sizes, tile, time, GB/s and % of the
// measured copy, GFLOP/s and % of the peak, the check.
Table matrixTable(const std::vector<Measurement>& rows);
// A session's runs as the tables that fit them: the seed's columns for the reductions (ladder
// speedups filled) and matrixTable for the transpose and matmul runs. Either may have no rows.
struct RunTables {
  Table reductions, matrix;
};
RunTables runTables(const std::vector<Measurement>& rows, const Peaks& peaks);
// True for runs of the transpose and matmul families.
bool isMatrixRun(const Measurement& m);
// The same table a row at a time (views that append rows and cache the formatted text).
struct BenchColumns {
  std::vector<std::string> headers;
  std::vector<bool> numeric;
};
BenchColumns benchColumns(TimeBasis basis);
std::vector<std::string> benchRow(const Measurement& m, const Peaks& peaks, TimeBasis basis);

// One row per run with the swept parameters (kernel, type, N, block) as columns.
Table sweepTable(const std::vector<Measurement>& rows, const Peaks& peaks);

// "%.3f"-style helpers used by every table.
std::string fixed(double v, int decimals);
std::string sci(double v);

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
