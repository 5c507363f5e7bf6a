#pragma once
// Figures and tables to files: PDF, SVG and PNG (cairo, from the same PlotSpec as the screen),
// CSV / Markdown / LaTeX tables, JSON sessions, and the report folder.
#include <set>
#include <string>
#include <vector>

#include "reducelab/table.hpp"
#include "reducelab/gui/plots.hpp"

namespace rl::app {

struct ExportFormats {
  bool png = true, svg = true, csv = true, md = true, tex = true, json = true, pdf = true;
};
// "png,svg,csv" -> formats; "" or an error naming the unknown one.
std::string parseFormats(const std::string& text, ExportFormats* out);

// Creates `dir` if needed (its parent must exist). "" or an error.
std::string prepareFolder(const std::string& dir);
// The files would be written over existing ones: "" or "DIR/x.png exists; add --force".
std::string checkOverwrite(const std::string& dir, const std::vector<std::string>& names, bool force);

struct ExportResult {
  std::vector<std::string> written;
  std::vector<std::string> notes;  // what was skipped and why
  std::string error;               // the first failure
};

// Writes figure.fileStem.{pdf,svg,png} (those asked for) into dir, drawn by cairo: no GL needed.
void exportFigure(const gui::Figure& figure, const std::string& dir, const ExportFormats& f,
                  bool whiteBackground, ExportResult* result);
// Writes stem.{csv,md,tex} of a table.
void exportTable(const Table& table, const std::string& dir, const std::string& stem, const ExportFormats& f,
                 ExportResult* result);

struct ReportSection {
  std::string heading;
  std::string text;                 // a paragraph (Markdown)
  std::vector<gui::Figure> figures; // embedded as images
  std::vector<std::pair<std::string, Table>> tables;  // stem, table
};
// A folder with every figure (PNG, SVG, PDF), every table (CSV, Markdown, LaTeX), device.json,
// session.json and report.md that embeds them.
ExportResult writeReport(const std::string& dir, const std::string& title, const DeviceInfo& device,
                         const Peaks& peaks, const std::vector<ReportSection>& sections,
                         const std::vector<Measurement>& session, bool force);

}  // namespace rl::app
