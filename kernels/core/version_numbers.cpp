#include <cstdio>

#include "reducelab/version.hpp"

namespace rl {

VersionNumbers versionNumbers() {
  VersionNumbers v;
  std::sscanf(versionString(), "%d.%d.%d", &v.major, &v.minor, &v.patch);
  return v;
}

}  // namespace rl
