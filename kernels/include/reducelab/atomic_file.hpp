#pragma once
// The one writer of every output file (bench, trace, sweep, report, lesson export, screenshots,
// settings, sessions). Files are never left half-written: write to a temporary file in the
// target folder, then rename over the target (atomic on POSIX file systems). Only regular files
// are ever replaced: a symbolic link, device, FIFO, socket or folder at the path is refused, so
// `--out /dev/null --force` or `--out link --force` cannot turn them into plain files.
#include <cstdint>
#include <functional>
#include <string>

namespace rl {

// Checks, before any work starts, that `path` can be written: its folder exists and is
// writable, and the path is absent or a regular file (an existing one only with `force`).
// "" or a one-line error naming the path.
std::string checkOutputTarget(const std::string& path, bool force);

// `write` fills the temporary path and returns "" or an error. Returns "" or a one-line error.
// Refuses (without writing) a target that exists and is not a regular file.
std::string writeFileAtomic(const std::string& path,
                            const std::function<std::string(const std::string& tmpPath)>& write);
std::string writeTextAtomic(const std::string& path, const std::string& text);

// Reads a whole input file (settings, lesson, saved session or sweep) into *text. Refuses, in one
// line, what is not a regular file (a folder, FIFO or device would fail, block or never end) or
// is larger than `maxBytes`. "" or the error.
std::string readTextFile(const std::string& path, std::string* text, uint64_t maxBytes = uint64_t(256) << 20);

}  // namespace rl
