// parseSize (--size WxH): accepted sizes are within 64..16384 and print back to the same text
// when the input had no leading zeros.
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/types.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  int w = -1, h = -1;
  if (!rl::parseSize(text, &w, &h)) {
    RL_FUZZ_CHECK(w == -1 && h == -1);  // untouched on failure
    return 0;
  }
  RL_FUZZ_CHECK(w >= 64 && w <= 16384 && h >= 64 && h <= 16384);
  int w2 = 0, h2 = 0;
  RL_FUZZ_CHECK(rl::parseSize(std::to_string(w) + "x" + std::to_string(h), &w2, &h2) && w2 == w && h2 == h);
  return 0;
}
