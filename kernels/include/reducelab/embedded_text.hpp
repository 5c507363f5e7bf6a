#pragma once
// Text files compiled into the binary (shaders, kernel sources) by cmake/EmbedText.cmake.
#include <string_view>

namespace rl {

struct EmbeddedText {
  const char* name;  // path relative to its source folder, e.g. "strip.frag"
  const char* text;
};

// Looks a file up in one embedded table; empty view when absent.
std::string_view findEmbedded(const EmbeddedText* table, int count, std::string_view name);

}  // namespace rl
