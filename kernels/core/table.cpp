#include "reducelab/table.hpp"

#include <cmath>
#include <cstdio>

namespace rl {

std::string columnNotes(const Table& t, const std::string& linePrefix) {
  std::string out;
  for (size_t c = 0; c < t.headers.size() && c < t.notes.size(); ++c)
    if (!t.notes[c].empty()) out += linePrefix + t.headers[c] + ": " + t.notes[c] + "\n";
  return out;
}

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

}  // namespace rl
