#pragma once
// One writer per table format, each in its own file (kernels/core/formats/). Commands choose
// among them through the registry (output_formats.hpp), never by name; a Markdown document of
// its own (a report, a lesson page) may call its writer.
#include <string>

#include "reducelab/table.hpp"

namespace rl {

// Aligned columns for the terminal: numbers right-aligned, the caption above, a rule under the headers.
std::string textTable(const Table& t);
// Numbers as numbers (Table::values), quoted fields where needed; no caption.
std::string csvTable(const Table& t);
// Parses a CSV produced by csvTable (quoted fields, doubled quotes): header + rows.
Table parseCsv(const std::string& text);
// A GitHub-flavoured Markdown table, the caption in bold above it.
std::string markdownTable(const Table& t);
// Booktabs; a table too wide for a portrait page is set in landscape (pdflscape) and, if still
// too wide, split into parts that each repeat the first column; a long one is a longtable.
// Needs \usepackage{booktabs,longtable,pdflscape}.
std::string latexTable(const Table& t);

}  // namespace rl
