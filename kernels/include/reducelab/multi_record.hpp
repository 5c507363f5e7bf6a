#pragma once
// A `reducelab multi` report as tables, as JSON (and back) and as the header lines of the text
// output: what the output formats (formats/output_formats.hpp) are fed.
#include <nlohmann/json.hpp>
#include <string>

#include "reducelab/multi.hpp"
#include "reducelab/table.hpp"

namespace rl::multi {

// Tables: the scalar rows, and the vector sweep (algbw / busbw by size and algorithm).
Table scalarTable(const Report& r);
Table vectorTable(const Report& r);
// Everything as JSON, and back (the GUI loads a saved run to time its animation).
nlohmann::json toJson(const Report& r);
bool fromJson(const nlohmann::json& j, Report* r, std::string* error);
// The header lines of the text output: GPUs, peer access, NCCL, roofs, what was not measured.
std::string describe(const Report& r);

}  // namespace rl::multi
