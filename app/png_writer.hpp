#pragma once
// PNG files written atomically: a temporary file in the same folder, then rename.
#include <cstdint>
#include <string>
#include <vector>

#include "reducelab/formats/registry.hpp"

namespace rl::app {

// The window's pixels as GL drew them, as a file: one writer per frame format, registered once
// here in the kind of registry every output format has (reducelab/formats/registry.hpp).
// Screenshots and a lesson's steps are written through it.
struct FrameWriter : FormatInfo {
  // rgba: width*height*4 bytes, top row first. Returns "" or a one-line error.
  std::string (*write)(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba) = nullptr;
};
const FormatRegistry<FrameWriter>& frameFormats();
const FrameWriter& screenshotFormat();  // what screenshots are written as: the first registered

// rgba: width*height*4 bytes, top row first. Returns "" or a one-line error.
std::string writePngAtomic(const std::string& path, int width, int height,
                           const std::vector<uint8_t>& rgba);

// Checks that `path`'s folder exists and is writable, before hours of work are spent.
std::string checkWritable(const std::string& path);

// Reads the bound framebuffer (bottom row first in GL) into top-row-first RGBA.
std::vector<uint8_t> readFramebufferRgba(int width, int height);

}  // namespace rl::app
