// Markdown: a GitHub-flavoured table with its caption in bold, for reports and lesson pages.
#include <sstream>

#include "reducelab/formats/table_writers.hpp"

namespace rl {

std::string markdownTable(const Table& t) {
  std::ostringstream o;
  const size_t cols = t.headers.size();
  auto isNum = [&](size_t c) { return c < t.numeric.size() && t.numeric[c]; };
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
  if (const std::string notes = columnNotes(t, "- "); !notes.empty()) o << "\nColumns:\n\n" << notes;
  return o.str();
}

}  // namespace rl
