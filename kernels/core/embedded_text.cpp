#include "reducelab/embedded_text.hpp"

namespace rl {

std::string_view findEmbedded(const EmbeddedText* table, int count, std::string_view name) {
  for (int i = 0; i < count; ++i)
    if (name == table[i].name) return table[i].text;
  return {};
}

}  // namespace rl
