#pragma once
// Source lines of a cubin's instructions: the DWARF line table NVRTC writes with
// --generate-line-info (.debug_line), each sequence tied to its function by .rela.debug_line.
// The hazard check reports instructions by SASS offset; this turns them into lines of the user's
// file ("line 14") without a disassembler.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rl::usercode {

struct SourceLine {
  uint64_t address = 0;  // SASS offset from the function's start
  std::string file;      // as the compiler named it (the user's file after the prelude's #line)
  int line = 0;
};

class CubinLines {
 public:
  // "" in *error, or why the cubin has no readable line table (the result is then empty).
  static CubinLines read(const std::vector<uint8_t>& cubin, std::string* error);
  // The line of the instruction at `pc` of `function` (its lowered name): the last row at or before
  // it. Empty where the table says nothing.
  std::optional<SourceLine> at(const std::string& function, uint64_t pc) const;
  bool empty() const { return byFunction_.empty(); }
  const std::map<std::string, std::vector<SourceLine>>& functions() const { return byFunction_; }

 private:
  std::map<std::string, std::vector<SourceLine>> byFunction_;  // rows sorted by address
};

// `text` with each "SASS +0xHEX" of `function` given its line in `file` ("line 14, SASS +0x1d0"):
// the last row at or before the offset in that file (an inlined prelude function counts as the
// user's line that called it); offsets the table does not place in that file, and every offset
// when `file` is empty, stay as they are.
std::string withSourceLines(const std::string& text, const CubinLines& lines, const std::string& function,
                            const std::string& file);

}  // namespace rl::usercode
