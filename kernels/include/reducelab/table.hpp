#pragma once
// A table as every table writer takes it (formats/table_writers.hpp): plain data, no format.
#include <cstddef>
#include <string>
#include <vector>

namespace rl {

struct Table {
  std::string caption;
  std::vector<std::string> headers;
  std::vector<bool> numeric;  // right-aligned columns
  std::vector<std::vector<std::string>> rows;
  // Machine-readable values where a cell shows something else (N shown as "2^24" has the value
  // "16777216"); same shape as rows where present, "" = the cell's text. CSV writes these.
  std::vector<std::vector<std::string>> values;
  // What a column means, its unit and where its figure comes from ("" = none): the GUI's header
  // tooltips, and a "Columns" list after the table in Markdown, LaTeX and text.
  std::vector<std::string> notes;
  // Columns a screen shows only on demand (the GUI hides them until asked; exports have all).
  std::vector<bool> onDemand;

  const std::string& value(size_t row, size_t col) const;  // the value, else the text ("" if absent)
  void setValue(size_t row, size_t col, std::string v);
};

// "%.3f"-style helpers used by every table.
std::string fixed(double v, int decimals);
// "header: note" for every column with a note, one per line ("" when none has one).
std::string columnNotes(const Table& t, const std::string& linePrefix = "");
std::string sci(double v);

}  // namespace rl
