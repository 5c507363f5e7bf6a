#include "reducelab/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace rl {

namespace {

std::string folderOf(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

// What lies at `path` without following a final symbolic link: "" for nothing or a regular
// file, else a short description of why it must not be replaced.
std::string nonRegularKind(const std::string& path, bool* exists) {
  struct stat st {};
  *exists = false;
  if (lstat(path.c_str(), &st) != 0) return {};
  *exists = true;
  if (S_ISREG(st.st_mode)) return {};
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISDIR(st.st_mode)) return "a folder";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return "not a regular file";
}

std::string refusal(const std::string& path, const std::string& kind) {
  return "cannot write " + path + ": it is " + kind + ", not a regular file (only regular files are replaced)";
}

}  // namespace

std::string checkOutputTarget(const std::string& path, bool force) {
  if (path.empty()) return "cannot write an empty path";
  const std::string dir = folderOf(path);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return "cannot write " + path + ": folder " + dir + " does not exist";
  bool exists = false;
  if (std::string kind = nonRegularKind(path, &exists); !kind.empty()) return refusal(path, kind);
  if (exists && !force) return path + " exists; add --force to overwrite it";
  if (access(dir.c_str(), W_OK) != 0)
    return "cannot write " + path + ": folder " + dir + " is not writable (" + std::strerror(errno) + ")";
  return {};
}

std::string writeFileAtomic(const std::string& path,
                            const std::function<std::string(const std::string&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string dir = folderOf(path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "cannot write " + path + ": folder does not exist";
  bool exists = false;
  if (std::string kind = nonRegularKind(path, &exists); !kind.empty()) return refusal(path, kind);
  // The temporary is created here, exclusively: nothing planted at its name is followed.
  static std::atomic<int> counter{0};
  std::string tmp;
  for (int attempt = 0; attempt < 100 && tmp.empty(); ++attempt) {
    const std::string candidate = (fs::path(dir) / ("." + target.filename().string() + ".tmp" +
                                                    std::to_string(getpid()) + "-" + std::to_string(counter++)))
                                      .string();
    const int fd = open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      close(fd);
      tmp = candidate;
    } else if (errno != EEXIST) {
      return "cannot write " + path + ": " + std::strerror(errno);
    }
  }
  if (tmp.empty()) return "cannot write " + path + ": no free temporary name";
  std::string err = write(tmp);
  // Checked again just before the rename: something may have appeared at the path meanwhile.
  if (err.empty())
    if (std::string kind = nonRegularKind(path, &exists); !kind.empty()) {
      std::remove(tmp.c_str());
      return refusal(path, kind);
    }
  if (err.empty() && std::rename(tmp.c_str(), path.c_str()) != 0) err = std::strerror(errno);
  if (!err.empty()) {
    std::remove(tmp.c_str());
    return "cannot write " + path + ": " + err;
  }
  return {};
}

std::string writeTextAtomic(const std::string& path, const std::string& text) {
  return writeFileAtomic(path, [&](const std::string& tmp) -> std::string {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return std::strerror(errno);
    out << text;
    out.close();
    if (!out) return "write failed (disk full?)";
    return {};
  });
}

std::string readTextFile(const std::string& path, std::string* text, uint64_t maxBytes) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "cannot read " + path + ": " + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "cannot read " + path + ": it is a folder";
  if (!S_ISREG(st.st_mode)) return "cannot read " + path + ": not a regular file";
  if (uint64_t(st.st_size) > maxBytes)
    return "cannot read " + path + ": larger than " + std::to_string(maxBytes >> 20) + " MiB";
  // O_NONBLOCK: if the path was swapped for a FIFO since the stat, the open does not hang.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return "cannot read " + path + ": " + std::strerror(errno);
  struct stat opened {};
  if (fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
    close(fd);
    return "cannot read " + path + ": not a regular file";
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t got = read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const std::string e = std::strerror(errno);
      close(fd);
      return "cannot read " + path + ": " + e;
    }
    if (got == 0) break;
    out.append(buf, size_t(got));
    if (out.size() > maxBytes) {
      close(fd);
      return "cannot read " + path + ": larger than " + std::to_string(maxBytes >> 20) + " MiB";
    }
  }
  close(fd);
  *text = std::move(out);
  return {};
}

}  // namespace rl
