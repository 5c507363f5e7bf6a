#pragma once
// A headless window (EGL, 1600x900) with the application in it, for the window tests of the CPU
// and GPU suites: `until` draws frames until a condition holds or `seconds` pass (compiles, checks
// and runs finish on their own threads).
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "application.hpp"
#include "gl_context.hpp"

namespace rl::test {

struct HeadlessWindow {
  std::unique_ptr<rl::app::GlContext> ctx;
  std::unique_ptr<rl::app::Application> app;
  std::string error;  // why there is no window (no headless GL)
  explicit HeadlessWindow(rl::app::GuiOptions o) {
    ctx = rl::app::createHeadlessContext(1600, 900, &error);
    if (!ctx) return;
    o.headless = true;
    o.width = 1600, o.height = 900;
    app = std::make_unique<rl::app::Application>(*ctx, o);
  }
  bool until(const std::function<bool()>& done, double seconds = 60) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      app->drawFrame();
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

}  // namespace rl::test
