// CSV: the table's values (numbers as numbers) for spreadsheets and scripts, and its reader.
#include <sstream>
#include <vector>

#include "reducelab/formats/table_writers.hpp"

namespace rl {

namespace {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string csvTable(const Table& t) {
  std::ostringstream o;
  const size_t cols = t.headers.size();
  for (size_t c = 0; c < cols; ++c) o << (c ? "," : "") << csvField(t.headers[c]);
  o << '\n';
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t c = 0; c < cols; ++c) o << (c ? "," : "") << csvField(t.value(r, c));
    o << '\n';
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

}  // namespace rl
