// A cubin's line table (usercode/line_table.hpp): read from the build cache's bytes, which may be
// damaged. Whatever the bytes, reading returns; what it accepts has its rows in address order,
// lookups land on a row at or before the offset, and annotating a sentence keeps the sentence.
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "reducelab/usercode/line_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace uc = rl::usercode;
  std::string error;
  const uc::CubinLines lines = uc::CubinLines::read(std::vector<uint8_t>(data, data + size), &error);
  RL_FUZZ_CHECK(error.empty() || lines.empty());
  for (const auto& [fn, rows] : lines.functions()) {
    for (size_t i = 1; i < rows.size(); ++i) RL_FUZZ_CHECK(rows[i - 1].address <= rows[i].address);
    for (const uc::SourceLine& r : rows) {
      const auto at = lines.at(fn, r.address);
      RL_FUZZ_CHECK(at && at->address == r.address);
      const std::string text = "read (SASS +0x" + [&] {
        char b[24];
        std::snprintf(b, sizeof b, "%llx", (unsigned long long)r.address);
        return std::string(b);
      }() + ") here";
      const std::string out = uc::withSourceLines(text, lines, fn, r.file);
      RL_FUZZ_CHECK(out.size() >= text.size() && out.substr(out.size() - 5) == " here");
    }
  }
  return 0;
}
