#pragma once
// CUDA-OpenGL interop wiring: GL buffer objects registered with CUDA so kernels write into them
// directly (no host round trip). The pattern every trace view uses.
#include <cstddef>
#include <string>

#include "reducelab/gui/gl.hpp"

struct cudaGraphicsResource;

namespace rl::app {

class CudaGlBuffer {
 public:
  CudaGlBuffer() = default;
  CudaGlBuffer(const CudaGlBuffer&) = delete;
  CudaGlBuffer& operator=(const CudaGlBuffer&) = delete;
  ~CudaGlBuffer();

  // The GL context that owns `buffer` must be current. Returns "" or the CUDA error.
  std::string attach(GLuint buffer);
  void detach();
  // Maps for CUDA; *devPtr is valid until unmap(). GL must not touch the buffer meanwhile.
  std::string map(void** devPtr, size_t* bytes);
  std::string unmap();
  bool attached() const { return res_ != nullptr; }

 private:
  cudaGraphicsResource* res_ = nullptr;
  bool mapped_ = false;
};

// Creates (or resizes) a GL buffer of `count` floats.
GLuint createFloatBuffer(int count);

// Fills `buffer` with interopPattern(): by a CUDA kernel through the interop mapping when
// `useCuda`, else from the CPU with glBufferSubData. Returns "" or an error; *writer names who wrote.
std::string fillInteropBuffer(GLuint buffer, int count, bool useCuda, CudaGlBuffer& interop,
                              std::string* writer);

// Reads the buffer back (glGetBufferSubData) and counts values that differ from the pattern.
int countPatternMismatches(GLuint buffer, int count);

}  // namespace rl::app
