// policies.json (`reducelab tune`'s table, one entry per device UUID): each entry is read as the
// engine and the CPU model read it; an accepted table writes back to JSON that reads again to
// the same entries, and every look-up stays inside it.
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/policy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json file = nlohmann::json::parse(data, data + size, nullptr, false);
  if (file.is_discarded() || !file.is_object()) return 0;
  for (const auto& [uuid, entry] : file.items()) {
    rl::PolicyTable t;
    t.uuid = "untouched";
    if (!rl::policyTableFromJson(entry, &t).empty()) {
      RL_FUZZ_CHECK(t.uuid == "untouched");  // nothing half-read
      continue;
    }
    rl::PolicyTable back;
    RL_FUZZ_CHECK(rl::policyTableFromJson(rl::policyTableJson(t), &back).empty());
    RL_FUZZ_CHECK(back.entries == t.entries);
    for (rl::ElemType type : {rl::ElemType::Int32, rl::ElemType::Int64, rl::ElemType::Float32, rl::ElemType::Float64})
      for (int block : {32, 256, 1024})
        for (uint64_t n : {uint64_t(1), uint64_t(1) << 20, uint64_t(1) << 40}) {
          int log2n = -1;
          if (const rl::LaunchPolicy* p = t.find(type, block, n, &log2n)) {
            RL_FUZZ_CHECK(t.entries.count({type, block, log2n}) == 1);
            RL_FUZZ_CHECK(&t.entries.at({type, block, log2n}) == p);
            (void)rl::describePolicy(*p);
          }
          (void)t.bestBlock(type, n);
        }
    (void)rl::describePolicyTable(t);
  }
  return 0;
}
