#pragma once
// A framebuffer object with one RGBA8 colour renderbuffer: where headless frames and exported
// figures are drawn. Needs a current GL context for its whole life.
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

}  // namespace rl::app
