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

}  // namespace rl::app
