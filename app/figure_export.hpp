#pragma once
// Figures and tables to files in the formats of the registries: the figure writers (cairo, from
// the same PlotSpec as the screen; gui/plot.hpp) and the table and record writers
// (reducelab/formats/output_formats.hpp); and the report folder.
#include <string>
#include <vector>

#include "reducelab/formats/output_formats.hpp"
#include "reducelab/gui/plot.hpp"
#include "reducelab/gui/plots.hpp"
#include "reducelab/table.hpp"

namespace rl::app {

// The files of an export folder, each list in its registry's order (the order they are written).
struct ExportFormats {
  std::vector<const gui::FigureWriter*> figures;
  std::vector<const OutputFormat*> tables;   // table files (every table writer but the terminal's)
  std::vector<const OutputFormat*> records;  // the records (a session)
  static ExportFormats all();
  // Every extension, for the overwrite check.
  std::vector<std::string> extensions() const;
};
// "png,svg,csv" -> formats ("all": every one); "" or an error naming the unknown one and the
// registries' names.
std::string parseFormats(const std::string& text, ExportFormats* out);
// "pdf, svg, png, csv, md, tex, json": what parseFormats takes besides "all".
std::vector<std::string_view> exportFormatNames();

// Creates `dir` if needed (its parent must exist). "" or an error.
std::string prepareFolder(const std::string& dir);
// The files would be written over existing ones: "" or "DIR/x.png exists; add --force".
std::string checkOverwrite(const std::string& dir, const std::vector<std::string>& names, bool force);

struct ExportResult {
  std::vector<std::string> written;
  std::vector<std::string> notes;  // what was skipped and why
  std::string error;               // the first failure
};

// Writes figure.fileStem + each figure format's extension into dir, drawn by cairo: no GL needed.
void exportFigure(const gui::Figure& figure, const std::string& dir, const ExportFormats& f,
                  bool whiteBackground, ExportResult* result);
// Writes stem + each table file format's extension.
void exportTable(const Table& table, const std::string& dir, const std::string& stem, const ExportFormats& f,
                 ExportResult* result);

struct ReportSection {
  std::string heading;
  std::string text;                 // a paragraph (Markdown)
  std::vector<gui::Figure> figures; // embedded as images
  std::vector<std::pair<std::string, Table>> tables;  // stem, table
};
// A folder with every figure and every table in every export format, the device and the session
// as records (device.json, session.json), and report.md that embeds them.
// Those files: report.md, and device.json and session.json (one of each per record format).
std::vector<std::string> reportFileNames();
ExportResult writeReport(const std::string& dir, const std::string& title, const DeviceInfo& device,
                         const Peaks& peaks, const std::vector<ReportSection>& sections,
                         const std::vector<Measurement>& session, bool force);

}  // namespace rl::app
