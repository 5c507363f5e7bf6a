#include "reducelab/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace rl {

std::string writeFileAtomic(const std::string& path,
                            const std::function<std::string(const std::string&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "cannot write " + path + ": folder does not exist";
  if (fs::is_directory(target, ec)) return "cannot write " + path + ": it is a folder";
  const std::string tmp = (dir / ("." + target.filename().string() + ".tmp" +
                                  std::to_string(getpid())))
                              .string();
  std::string err = write(tmp);
  if (err.empty() && std::rename(tmp.c_str(), path.c_str()) != 0)
    err = std::strerror(errno);
  if (!err.empty()) {
    std::remove(tmp.c_str());
    return "cannot write " + path + ": " + err;
  }
  return {};
}

std::string writeTextAtomic(const std::string& path, const std::string& text) {
  return writeFileAtomic(path, [&](const std::string& tmp) -> std::string {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return std::strerror(errno);
    out << text;
    out.close();
    if (!out) return "write failed (disk full?)";
    return {};
  });
}

}  // namespace rl
