// The registry of table and record writers: the one place a new table or record format is added.
#include "reducelab/formats/output_formats.hpp"

#include <nlohmann/json.hpp>

#include "reducelab/formats/table_writers.hpp"

namespace rl {

namespace {

std::string textBlock(const std::string& lines) { return lines + "\n"; }
std::string markdownBlock(const std::string& lines) { return "```\n" + lines + "```\n\n"; }
std::string jsonDocument(const nlohmann::json& j) { return j.dump(2) + "\n"; }
nlohmann::json readJsonDocument(const std::string& text) { return nlohmann::json::parse(text, nullptr, false); }

FormatRegistry<OutputFormat> makeRegistry() {
  FormatRegistry<OutputFormat> r;
  OutputFormat text{{.name = "table", .extension = ".txt", .label = "text",
                   .description = "an aligned text table with the command's header lines (the terminal's)",
                   .writes = kWritesTables}};
  text.terminal = text.prose = true;
  text.table = textTable;
  text.block = textBlock;
  r.add(text);
  OutputFormat csv{{.name = "csv", .extension = ".csv", .label = "CSV",
                   .description = "the table alone, numbers as numbers",
                   .writes = kWritesTables}};
  csv.data = true;
  csv.table = csvTable;
  csv.readTable = parseCsv;
  r.add(csv);
  OutputFormat md{{.name = "md", .extension = ".md", .label = "Markdown",
                   .description = "a Markdown table with the command's header lines",
                   .writes = kWritesTables}};
  md.prose = md.document = true;
  md.table = markdownTable;
  md.block = markdownBlock;
  r.add(md);
  OutputFormat tex{{.name = "tex", .extension = ".tex", .label = "LaTeX",
                   .description = "a LaTeX (booktabs) table: landscape or split when wide, across pages when long",
                   .writes = kWritesTables, .alias = "latex"}};
  tex.table = latexTable;
  r.add(tex);
  OutputFormat json{{.name = "json", .extension = ".json", .label = "JSON",
                   .description = "the records themselves (measurements in nvbench's layout, docs/json-schema.md)",
                   .writes = kWritesRecords}};
  json.records = jsonDocument;
  json.readRecords = readJsonDocument;
  r.add(json);
  return r;
}

const OutputFormat& withRole(bool OutputFormat::*role) {
  for (const OutputFormat& f : outputFormats().all())
    if (f.*role) return f;
  throw std::logic_error("no output format has this role");
}

}  // namespace

const FormatRegistry<OutputFormat>& outputFormats() {
  static const FormatRegistry<OutputFormat> registry = makeRegistry();
  return registry;
}

const OutputFormat& terminalFormat() { return withRole(&OutputFormat::terminal); }
const OutputFormat& documentFormat() { return withRole(&OutputFormat::document); }
const OutputFormat& dataFormat() { return withRole(&OutputFormat::data); }

std::vector<std::string_view> outputFormatNames(unsigned writes) {
  std::vector<std::string_view> names;
  for (const OutputFormat& f : outputFormats().all())
    if (f.writes & writes) names.push_back(f.name);
  return names;
}

std::string outputFormatChoices(unsigned writes) {
  std::vector<std::string_view> names = outputFormatNames(writes);
  if (names.size() < 2) return joinNames(names);
  const std::string_view last = names.back();
  names.pop_back();
  return joinNames(names) + " or " + std::string(last);
}

std::vector<const OutputFormat*> tableFileFormats() {
  std::vector<const OutputFormat*> out;
  for (const OutputFormat& f : outputFormats().all())
    if ((f.writes & kWritesTables) && !f.terminal) out.push_back(&f);
  return out;
}

std::vector<const OutputFormat*> recordFormats() {
  std::vector<const OutputFormat*> out;
  for (const OutputFormat& f : outputFormats().all())
    if (f.writes & kWritesRecords) out.push_back(&f);
  return out;
}

const OutputFormat* chooseOutputFormat(const std::string& name, unsigned writes, std::string* error) {
  const OutputFormat* f = outputFormats().find(name);
  if (f && (f->writes & writes)) return f;
  if (error) *error = "--format '" + name + "' is not one of: " + joinNames(outputFormatNames(writes));
  return nullptr;
}

std::string joinNames(const std::vector<std::string_view>& names, std::string_view separator) {
  std::string out;
  for (std::string_view n : names) out.append(out.empty() ? "" : separator).append(n);
  return out;
}

std::string proseList(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

}  // namespace rl
