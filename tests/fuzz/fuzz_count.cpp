// parseCount (--n, --n-min, --n-max, --sweep-n-max, Elements of saved files): any text either
// fails with a message or gives 1..2^40, and formatCount's text parses back to the same N.
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/types.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto n = rl::parseCount(text, &error);
  if (!n) {
    RL_FUZZ_CHECK(!error.empty());
    return 0;
  }
  RL_FUZZ_CHECK(*n >= 1 && *n <= (uint64_t(1) << 40));
  const auto again = rl::parseCount(rl::formatCount(*n), &error);
  RL_FUZZ_CHECK(again && *again == *n);
  return 0;
}
