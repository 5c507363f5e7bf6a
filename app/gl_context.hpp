#pragma once
// Where frames are drawn: a GLFW window, or an EGL context with no window system (--headless).
// Both give a GL 4.5 core context; the frame loop draws the same frames into either.
#include <memory>
#include <string>

struct GLFWwindow;

namespace rl::app {

class GlContext {
 public:
  virtual ~GlContext() = default;
  virtual bool headless() const = 0;
  // Makes this context the thread's current one (two contexts in one process: the tests).
  virtual void makeCurrent() {}
  virtual void pollEvents() {}
  // Sleeps until input arrives or `seconds` pass (a window idles here instead of redrawing).
  virtual void waitEvents(double seconds) { (void)seconds; }
  virtual bool shouldClose() const { return false; }
  virtual void requestClose() {}
  virtual void framebufferSize(int* w, int* h) const = 0;
  virtual float contentScale() const { return 1.0f; }
  virtual void swapBuffers() {}
  // Framebuffer object to render into (0 = the window's default framebuffer).
  virtual unsigned framebuffer() const { return 0; }
  virtual GLFWwindow* window() const { return nullptr; }
  // "GLFW window", "EGL device platform (NVIDIA)", "EGL surfaceless (Mesa)", ...
  virtual std::string description() const = 0;
};

// Both return nullptr with a one-line *error (what is wrong and what to do) on failure.
std::unique_ptr<GlContext> createWindowContext(int width, int height, std::string* error);
std::unique_ptr<GlContext> createHeadlessContext(int width, int height, std::string* error);

// With REDUCELAB_GL_DEBUG=1, the current context reports GL errors and warnings on stderr as
// they happen (KHR_debug, synchronous): a blank frame on one driver names its first bad call.
void installGlDebugOutput();

}  // namespace rl::app
