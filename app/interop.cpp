#include "interop.hpp"

#include <cuda_runtime.h>
// After glad (interop.hpp): cuda_gl_interop.h reaches GL through the glad shim.
#include <cuda_gl_interop.h>

#include <vector>

#include "reducelab/cuda_device.hpp"
#include "reducelab/interop_pattern.hpp"

namespace rl::app {
namespace {
std::string cudaText(cudaError_t e) { return cudaGetErrorString(e); }
}  // namespace

CudaGlBuffer::~CudaGlBuffer() { detach(); }

std::string CudaGlBuffer::attach(GLuint buffer) {
  detach();
  cudaError_t e = cudaGraphicsGLRegisterBuffer(&res_, buffer, cudaGraphicsRegisterFlagsNone);
  if (e != cudaSuccess) {
    res_ = nullptr;
    cudaGetLastError();
    return "cudaGraphicsGLRegisterBuffer: " + cudaText(e);
  }
  return {};
}

void CudaGlBuffer::detach() {
  if (!res_) return;
  if (mapped_) unmap();
  cudaGraphicsUnregisterResource(res_);
  res_ = nullptr;
}

std::string CudaGlBuffer::map(void** devPtr, size_t* bytes) {
  if (!res_) return "buffer not registered with CUDA";
  cudaError_t e = cudaGraphicsMapResources(1, &res_, 0);
  if (e != cudaSuccess) return "cudaGraphicsMapResources: " + cudaText(e);
  mapped_ = true;
  e = cudaGraphicsResourceGetMappedPointer(devPtr, bytes, res_);
  if (e != cudaSuccess) {
    unmap();
    return "cudaGraphicsResourceGetMappedPointer: " + cudaText(e);
  }
  return {};
}

std::string CudaGlBuffer::unmap() {
  if (!mapped_) return {};
  mapped_ = false;
  cudaError_t e = cudaGraphicsUnmapResources(1, &res_, 0);
  return e == cudaSuccess ? std::string() : "cudaGraphicsUnmapResources: " + cudaText(e);
}

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
