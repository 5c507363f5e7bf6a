#include "png_writer.hpp"

#include <stb_image_write.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "reducelab/atomic_file.hpp"
#include "reducelab/gui/gl.hpp"

namespace rl::app {

std::string checkWritable(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "folder " + dir.string() + " does not exist";
  if (fs::is_directory(p, ec)) return path + " is a folder, not a file";
  if (access(dir.c_str(), W_OK) != 0)
    return "folder " + dir.string() + " is not writable (" + std::strerror(errno) + ")";
  // The writer's own check: a link, device or FIFO is refused now, not after the frames.
  return checkOutputTarget(path, true);
}

std::string writePngAtomic(const std::string& path, int width, int height,
                           const std::vector<uint8_t>& rgba) {
  if (width <= 0 || height <= 0 || rgba.size() < size_t(width) * height * 4)
    return "no image to write";
  return writeFileAtomic(path, [&](const std::string& tmp) -> std::string {
    if (!stbi_write_png(tmp.c_str(), width, height, 4, rgba.data(), width * 4))
      return "could not write PNG data";
    return {};
  });
}

const FormatRegistry<FrameWriter>& frameFormats() {
  static const FormatRegistry<FrameWriter> registry = [] {
    FormatRegistry<FrameWriter> r;
    FrameWriter png{{.name = "png", .extension = ".png", .label = "PNG",
                     .description = "PNG of the window as drawn", .writes = kWritesFrames}};
    png.write = writePngAtomic;
    r.add(png);
    return r;
  }();
  return registry;
}

const FrameWriter& screenshotFormat() { return frameFormats().all().front(); }

std::vector<uint8_t> readFramebufferRgba(int width, int height) {
  std::vector<uint8_t> pixels(size_t(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  std::vector<uint8_t> flipped(pixels.size());
  const size_t row = size_t(width) * 4;
  for (int y = 0; y < height; ++y)
    std::memcpy(&flipped[size_t(y) * row], &pixels[size_t(height - 1 - y) * row], row);
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;  // opaque PNG
  return flipped;
}

}  // namespace rl::app
