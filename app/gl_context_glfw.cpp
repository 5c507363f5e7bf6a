// A desktop window through GLFW with a GL 4.5 (or 4.3) core context.
#include "reducelab/gui/gl.hpp"
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <cstdlib>

#include "gl_context.hpp"

namespace rl::app {
namespace {

std::string g_glfwError;
void onGlfwError(int, const char* text) { g_glfwError = text ? text : "unknown GLFW error"; }

class GlfwContext final : public GlContext {
 public:
  explicit GlfwContext(GLFWwindow* w) : win_(w) {}
  ~GlfwContext() override {
    glfwDestroyWindow(win_);
    glfwTerminate();
  }
  bool headless() const override { return false; }
  void makeCurrent() override { glfwMakeContextCurrent(win_); }
  void pollEvents() override { glfwPollEvents(); }
  void waitEvents(double seconds) override { glfwWaitEventsTimeout(seconds); }
  bool shouldClose() const override { return glfwWindowShouldClose(win_); }
  void requestClose() override { glfwSetWindowShouldClose(win_, GLFW_TRUE); }
  void framebufferSize(int* w, int* h) const override { glfwGetFramebufferSize(win_, w, h); }
  float contentScale() const override {
    float x = 1, y = 1;
    glfwGetWindowContentScale(win_, &x, &y);
    return x > 0 ? x : 1.0f;
  }
  void swapBuffers() override { glfwSwapBuffers(win_); }
  GLFWwindow* window() const override { return win_; }
  std::string description() const override { return "GLFW window"; }

 private:
  GLFWwindow* win_;
};

}  // namespace

std::unique_ptr<GlContext> createWindowContext(int width, int height, std::string* error) {
  const char* x11 = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((!x11 || !*x11) && (!wayland || !*wayland)) {
    *error = "no display found (DISPLAY and WAYLAND_DISPLAY are unset); run with --headless to "
             "render offscreen";
    return nullptr;
  }
  glfwSetErrorCallback(onGlfwError);
  if (!glfwInit()) {
    *error = "the window system could not be initialised (" + g_glfwError +
             "); run with --headless to render offscreen";
    return nullptr;
  }
  GLFWwindow* win = nullptr;
  for (int minor : {5, 3}) {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    win = glfwCreateWindow(width, height, "ReduceLab", nullptr, nullptr);
    if (win) break;
  }
  if (!win) {
    *error = "no OpenGL 4.3+ core window could be created (" + g_glfwError +
             "); run with --headless to render offscreen";
    glfwTerminate();
    return nullptr;
  }
  glfwMakeContextCurrent(win);
  glfwSwapInterval(1);
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress))) {
    *error = "OpenGL functions could not be loaded for the window";
    glfwDestroyWindow(win);
    glfwTerminate();
    return nullptr;
  }  installGlDebugOutput();

  return std::make_unique<GlfwContext>(win);
}

}  // namespace rl::app
