// A saved sweep (sweep --from FILE): the axis named in the file, the records, and the tables
// drawn from them in every format; the CSV table parses back to as many rows.
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/formats/output_formats.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/formats/table_writers.hpp"
#include "reducelab/run_tables.hpp"
#include "reducelab/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  if (j.contains("benchmarks") && j["benchmarks"].is_array() && !j["benchmarks"].empty() &&
      j["benchmarks"][0].is_object() && j["benchmarks"][0].contains("name") && j["benchmarks"][0]["name"].is_string()) {
    const std::string name = j["benchmarks"][0]["name"].get<std::string>();
    if (name.starts_with("sweep-")) (void)rl::parseSweepAxis(name.substr(6));
  }
  std::string error;
  const std::vector<rl::Measurement> rows = rl::measurementsFromJson(j, &error);
  const rl::Peaks peaks = rl::peaksFromJson(j);
  (void)rl::deviceFromJson(j);
  if (rows.empty()) return 0;
  const rl::Table t = rl::sweepTable(rows, peaks);
  for (const rl::OutputFormat& f : rl::outputFormats().all())  // every registered table writer
    if (f.table) RL_FUZZ_CHECK(!f.table(t).empty());
  const rl::Table back = rl::parseCsv(rl::csvTable(t));
  RL_FUZZ_CHECK(back.rows.size() == rows.size());
  return 0;
}
