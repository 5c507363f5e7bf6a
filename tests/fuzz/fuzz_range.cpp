// parseIntRange (--range lo,hi) and the data it feeds: accepted ranges have lo <= hi, print back
// to themselves, and every generated element lies inside (the generator ran into signed overflow
// over the full int64 range before; UBSan aborts here if it ever does again).
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/types.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  int64_t lo = 0, hi = 0;
  const std::string error = rl::parseIntRange(text, &lo, &hi);
  if (!error.empty()) return 0;
  RL_FUZZ_CHECK(lo <= hi);
  int64_t lo2 = 1, hi2 = 0;
  RL_FUZZ_CHECK(rl::parseIntRange(std::to_string(lo) + "," + std::to_string(hi), &lo2, &hi2).empty());
  RL_FUZZ_CHECK(lo2 == lo && hi2 == hi);
  const rl::DataSpec d{rl::DataPattern::IntRange, size, lo, hi};
  for (uint64_t i = 0; i < 64; ++i) {
    const int64_t v = rl::generateElement<int64_t>(d, i);
    RL_FUZZ_CHECK(v >= lo && v <= hi);
    (void)rl::generateElement<int32_t>(d, i);
    (void)rl::generateElement<double>(d, i);
  }
  return 0;
}
