// REDUCELAB_GL_DEBUG=1: the driver's own messages about our GL calls, printed as they happen.
#include <cstdio>
#include <cstdlib>

#include "gl_context.hpp"
#include "reducelab/gui/gl.hpp"

namespace rl::app {

namespace {

void GLAPIENTRY printGlMessage(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                               const GLchar* message, const void* user) {
  (void)source, (void)length, (void)user;
  if (severity == GL_DEBUG_SEVERITY_NOTIFICATION) return;
  std::fprintf(stderr, "GL %s (type 0x%x, id %u): %s\n",
               type == GL_DEBUG_TYPE_ERROR ? "error" : "message", type, id, message);
}

}  // namespace

void installGlDebugOutput() {
  const char* e = std::getenv("REDUCELAB_GL_DEBUG");
  if (!e || !*e || *e == '0' || !glDebugMessageCallback) return;
  glEnable(GL_DEBUG_OUTPUT);
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(printGlMessage, nullptr);
  std::fprintf(stderr, "GL debug output on (REDUCELAB_GL_DEBUG)\n");
}

}  // namespace rl::app
