#pragma once
// Files are never left half-written: write to a temporary file in the target folder, then
// rename over the target (atomic on POSIX file systems).
#include <functional>
#include <string>

namespace rl {

// `write` fills the temporary path and returns "" or an error. Returns "" or a one-line error.
std::string writeFileAtomic(const std::string& path,
                            const std::function<std::string(const std::string& tmpPath)>& write);
std::string writeTextAtomic(const std::string& path, const std::string& text);

}  // namespace rl
