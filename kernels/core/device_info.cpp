#include "reducelab/device_info.hpp"

#include <cstdio>

namespace rl {

std::string cudaVersionString(int v) {
  if (v <= 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int cudaVersionFromString(const std::string& s) {
  unsigned major = 0, minor = 0;
  char rest = 0;
  if (std::sscanf(s.c_str(), "%3u.%2u%c", &major, &minor, &rest) != 2 || major > 999 || minor > 99) return 0;
  return int(major * 1000 + minor * 10);
}

}  // namespace rl
