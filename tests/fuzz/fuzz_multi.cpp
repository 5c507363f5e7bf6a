// A saved multi-GPU run (`reducelab multi --from FILE`, the GUI's Load): read, and when accepted
// it writes back to JSON that reads again to the same rows, and its tables and text render.
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/formats/output_formats.hpp"
#include "reducelab/multi_record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  rl::multi::Report r;
  std::string error;
  if (!rl::multi::fromJson(j, &r, &error)) {
    RL_FUZZ_CHECK(!error.empty());
    return 0;
  }
  rl::multi::Report back;
  RL_FUZZ_CHECK(rl::multi::fromJson(rl::multi::toJson(r), &back, &error));
  RL_FUZZ_CHECK(back.rows.size() == r.rows.size());
  RL_FUZZ_CHECK(back.gpusUsed == r.gpusUsed);
  (void)rl::multi::describe(r);
  for (const rl::Table& t : {rl::multi::scalarTable(r), rl::multi::vectorTable(r)})
    for (const rl::OutputFormat& f : rl::outputFormats().all())
      if (f.table) (void)f.table(t);
  return 0;
}
