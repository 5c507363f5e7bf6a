// The aligned text table: what a command prints to the terminal.
#include <algorithm>
#include <sstream>
#include <vector>

#include "reducelab/formats/table_writers.hpp"

namespace rl {

namespace {

size_t displayWidth(const std::string& s) {  // UTF-8 code points
  size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

}  // namespace

std::string textTable(const Table& t) {
  std::ostringstream o;
  const size_t cols = t.headers.size();
  auto isNum = [&](size_t c) { return c < t.numeric.size() && t.numeric[c]; };
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
  if (const std::string notes = columnNotes(t, "  "); !notes.empty()) o << "Columns:\n" << notes;
  return o.str();
}

}  // namespace rl
