#include "reducelab/device_info.hpp"

namespace rl {

std::string cudaVersionString(int v) {
  if (v <= 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace rl
