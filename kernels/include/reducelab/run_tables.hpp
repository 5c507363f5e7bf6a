#pragma once
// Measurements as tables: the columns and cells every table writer (formats/table_writers.hpp)
// is given for runs, sweeps and the matrix families.
#include <string>
#include <vector>

#include "reducelab/record.hpp"
#include "reducelab/table.hpp"

namespace rl {

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
// True for runs whose family writes a whole output (KernelFamily::scalarResult false): the
// transpose and matmul families.
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

}  // namespace rl
