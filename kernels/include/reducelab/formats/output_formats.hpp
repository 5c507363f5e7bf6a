#pragma once
// The table and record writers, registered once (kernels/core/formats/output_formats.cpp): the
// aligned text table, CSV, Markdown, LaTeX and JSON. Every command fed the same table or records
// hands them to whichever format was asked for, the way nvbench hands its benchmarks to each printer.
// A command asks for a format's role (terminal, prose, document, data) instead of its name.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "reducelab/formats/registry.hpp"
#include "reducelab/table.hpp"

namespace rl {

struct OutputFormat : FormatInfo {
  bool terminal = false;  // the aligned text table: printed when no format is asked for; never an export file
  bool prose = false;     // a command's header lines and notes go with its tables (text, Markdown); the
                          // other formats carry the data alone
  bool document = false;  // reports and lesson pages are written in it: their tables stand inline there
  bool data = false;      // where measurements go for scripts and spreadsheets (a lesson's pitfall files)
  std::string (*table)(const Table& t) = nullptr;                  // kWritesTables
  std::string (*block)(const std::string& lines) = nullptr;        // prose: preformatted lines among the tables
  std::string (*records)(const nlohmann::json& document) = nullptr;  // kWritesRecords
  // Its readers, where it has one: the table's values (CSV), the records' document (JSON;
  // discarded when the text is not one).
  Table (*readTable)(const std::string& text) = nullptr;
  nlohmann::json (*readRecords)(const std::string& text) = nullptr;
};

const FormatRegistry<OutputFormat>& outputFormats();

// The one format of each role (the registry's test checks that there is exactly one).
const OutputFormat& terminalFormat();
const OutputFormat& documentFormat();
const OutputFormat& dataFormat();

// The names of the formats that write any of `writes` ("table, csv, md, tex, json").
std::vector<std::string_view> outputFormatNames(unsigned writes);
// The same for a help text: "table, csv, md, tex or json".
std::string outputFormatChoices(unsigned writes);
// What an export folder holds for a table: one file per table writer but the terminal's.
std::vector<const OutputFormat*> tableFileFormats();
// The formats that write records (each gets a file where records are saved).
std::vector<const OutputFormat*> recordFormats();
// `--format` of a command that writes `writes`: the format, or nullptr and *error naming the
// registry's formats ("--format 'x' is not one of: table, csv, md, tex, json").
const OutputFormat* chooseOutputFormat(const std::string& name, unsigned writes, std::string* error);

}  // namespace rl
