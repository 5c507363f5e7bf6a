// The interop smoke buffer: created, filled (by a CUDA kernel through CudaGlBuffer, or by the
// CPU) and checked with GL calls only, so it builds with and without CUDA.
#include <vector>

#include "interop.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/interop_pattern.hpp"

namespace rl::app {

GLuint createFloatBuffer(int count) {
  GLuint buf = 0;
  glGenBuffers(1, &buf);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
  glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(count) * sizeof(float), nullptr,
               GL_DYNAMIC_DRAW);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  return buf;
}

std::string fillInteropBuffer(GLuint buffer, int count, bool useCuda, CudaGlBuffer& interop,
                              std::string* writer) {
  if (useCuda) {
    *writer = "CUDA kernel";
    if (!interop.attached())
      if (std::string e = interop.attach(buffer); !e.empty()) return e;
    void* ptr = nullptr;
    size_t bytes = 0;
    if (std::string e = interop.map(&ptr, &bytes); !e.empty()) return e;
    if (bytes < size_t(count) * sizeof(float)) {
      interop.unmap();
      return "mapped buffer is smaller than expected";
    }
    std::string e = launchInteropPattern(static_cast<float*>(ptr), size_t(count));
    std::string u = interop.unmap();
    return !e.empty() ? "interop kernel: " + e : u;
  }
  *writer = "CPU model";
  std::vector<float> values(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) values[size_t(i)] = interopPattern(size_t(i), size_t(count));
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(count) * sizeof(float), values.data());
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  return {};
}

int countPatternMismatches(GLuint buffer, int count) {
  std::vector<float> values(size_t(count), 12345.0f);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
  glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(count) * sizeof(float), values.data());
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  int bad = 0;
  for (int i = 0; i < count; ++i)
    if (values[size_t(i)] != interopPattern(size_t(i), size_t(count))) ++bad;
  return bad;
}

}  // namespace rl::app
