#pragma once
// PNG files written atomically: a temporary file in the same folder, then rename.
#include <cstdint>
#include <string>
#include <vector>

namespace rl::app {

// rgba: width*height*4 bytes, top row first. Returns "" or a one-line error.
std::string writePngAtomic(const std::string& path, int width, int height,
                           const std::vector<uint8_t>& rgba);

// Checks that `path`'s folder exists and is writable, before hours of work are spent.
std::string checkWritable(const std::string& path);

// Reads the bound framebuffer (bottom row first in GL) into top-row-first RGBA.
std::vector<uint8_t> readFramebufferRgba(int width, int height);

}  // namespace rl::app
