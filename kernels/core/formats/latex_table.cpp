// LaTeX (booktabs): the table sized for the page it lands on, for papers and lecture notes.
#include <algorithm>
#include <sstream>
#include <vector>

#include "reducelab/formats/table_writers.hpp"

namespace rl {

namespace {

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

void writeLatex(std::ostringstream& o, const Table& t) {
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
  if (const std::string notes = columnNotes(t); !notes.empty()) {  // what each column means, under the table
    o << "\\begin{description}\\footnotesize\n";
    for (size_t c = 0; c < t.headers.size() && c < t.notes.size(); ++c)
      if (!t.notes[c].empty()) o << "\\item[" << latexEscape(t.headers[c]) << "] " << latexEscape(t.notes[c]) << "\n";
    o << "\\end{description}\n";
  }
}

}  // namespace

std::string latexTable(const Table& t) {
  std::ostringstream o;
  writeLatex(o, t);
  return o.str();
}

}  // namespace rl
