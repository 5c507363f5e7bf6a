// The browser's GL context: Emscripten's GLFW (its built-in JS implementation, -sUSE_GLFW=3) on the
// page's canvas with a WebGL 2 context. No headless context and no GL debug output there.
#include "reducelab/gui/gl.hpp"
#include <GLFW/glfw3.h>

#include "gl_context.hpp"

namespace rl::app {
namespace {

class WebContext final : public GlContext {
 public:
  explicit WebContext(GLFWwindow* w) : win_(w) {}
  bool headless() const override { return false; }
  void makeCurrent() override { glfwMakeContextCurrent(win_); }
  void pollEvents() override {}  // the browser delivers events between frames
  void framebufferSize(int* w, int* h) const override { glfwGetFramebufferSize(win_, w, h); }
  float contentScale() const override { return 1.0f; }
  GLFWwindow* window() const override { return win_; }
  std::string description() const override { return "WebGL 2 canvas"; }

 private:
  GLFWwindow* win_;
};

}  // namespace

std::unique_ptr<GlContext> createWindowContext(int width, int height, std::string* error) {
  if (!glfwInit()) {
    *error = "the page's canvas could not be initialised";
    return nullptr;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  GLFWwindow* win = glfwCreateWindow(width, height, "ReduceLab", nullptr, nullptr);
  if (!win) {
    *error = "this browser gives no WebGL 2 context";
    return nullptr;
  }
  glfwMakeContextCurrent(win);
  return std::make_unique<WebContext>(win);
}

std::unique_ptr<GlContext> createHeadlessContext(int, int, std::string* error) {
  *error = "the browser has no headless context";
  return nullptr;
}

void installGlDebugOutput() {}

}  // namespace rl::app

// The editor's check measures CUB and our kernels beside the student's on this machine's GPU
// (app/cmd_check.cpp); the browser has none, and its check never starts (reducelab/platform.hpp).
#include "cmd_usercode.hpp"
namespace rl::app {
std::vector<usercode::TimedRow> measureCompanions(const EngineCall&, const RunConfig&, const std::function<bool()>&) {
  return {};
}
}  // namespace rl::app

// What Emscripten's libc lacks, for the remote link (app/remote_client.cpp: ssh as a child process),
// which the page never starts: starting a process fails as where the program is missing.
#include <spawn.h>
#include <wordexp.h>

#include <cerrno>
extern "C" {
int posix_spawnp(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*, char* const[],
                 char* const[]) {
  return ENOSYS;
}
int wordexp(const char*, wordexp_t*, int) { return WRDE_NOSPACE; }
void wordfree(wordexp_t*) {}
}
