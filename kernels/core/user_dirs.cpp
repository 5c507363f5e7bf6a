#include "reducelab/user_dirs.hpp"

#include <cstdlib>

namespace rl {

std::filesystem::path userConfigDir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && *xdg) return std::filesystem::path(xdg) / "reducelab";
  if (home && *home) return std::filesystem::path(home) / ".config" / "reducelab";
  return std::filesystem::temp_directory_path() / "reducelab";
}

}  // namespace rl
