// CUDA-GL interop in a build without CUDA: nothing can be registered; the CPU writes the buffers.
#include "interop.hpp"

namespace rl::app {

namespace {
constexpr const char* kNoCuda = "this build has no CUDA support";
}  // namespace

CudaGlBuffer::~CudaGlBuffer() = default;
std::string CudaGlBuffer::attach(GLuint) { return kNoCuda; }
void CudaGlBuffer::detach() {}
std::string CudaGlBuffer::map(void**, size_t*) { return kNoCuda; }
std::string CudaGlBuffer::unmap() { return {}; }

}  // namespace rl::app
