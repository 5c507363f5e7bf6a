#pragma once
// Where frames are drawn offscreen: a framebuffer object with one RGBA8 colour renderbuffer (headless
// frames, exported figures). Needs a current GL context for its whole life.
namespace rl::app {

class OffscreenTarget {
 public:
  OffscreenTarget(int width, int height);
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;
  bool complete() const { return complete_; }
  unsigned framebuffer() const { return fbo_; }

 private:
  unsigned fbo_ = 0, color_ = 0;
  bool complete_ = false;
};

// Clears `framebuffer` (0: the window's) to the style's window background and draws ImGui's
// rendered frame (after ImGui::Render) into it.
void drawImGuiFrame(unsigned framebuffer, int width, int height);

}  // namespace rl::app
