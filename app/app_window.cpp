// The window: where it opens (the monitor's work area), where it is remembered, and
// presentation mode (full screen, the projector's scale and theme) on and off.
#include <GLFW/glfw3.h>

#include <algorithm>

#include "application.hpp"

namespace rl::app {

// The work area of the monitor that holds most of the rectangle (the primary one if none).
void workAreaFor(int x, int y, int w, int h, int* ax, int* ay, int* aw, int* ah) {
#ifdef __EMSCRIPTEN__  // the page's canvas is the whole work area (and GLFW 3.2's API has no work areas)
  (void)x, (void)y;
  *ax = 0, *ay = 0, *aw = w, *ah = h;
#else
  int count = 0;
  GLFWmonitor** monitors = glfwGetMonitors(&count);
  GLFWmonitor* best = glfwGetPrimaryMonitor();
  long bestArea = -1;
  for (int i = 0; i < count; ++i) {
    int mx, my, mw, mh;
    glfwGetMonitorWorkarea(monitors[i], &mx, &my, &mw, &mh);
    const long ix = std::max(0, std::min(x + w, mx + mw) - std::max(x, mx));
    const long iy = std::max(0, std::min(y + h, my + mh) - std::max(y, my));
    if (ix * iy > bestArea) bestArea = ix * iy, best = monitors[i];
  }
  *ax = 0, *ay = 0, *aw = w, *ah = h;
  if (best) glfwGetMonitorWorkarea(best, ax, ay, aw, ah);
  if (*aw <= 0 || *ah <= 0) *aw = w, *ah = h;
#endif
}

void Application::restoreWindowGeometry(int x, int y, int w, int h) {
  GLFWwindow* win = ctx_.window();
  if (!win) return;
  int ax, ay, aw, ah;
  workAreaFor(x, y, w, h, &ax, &ay, &aw, &ah);
  // Decorations take room too: keep the title bar on screen.
  int left = 0, top = 0, right = 0, bottom = 0;
  glfwGetWindowFrameSize(win, &left, &top, &right, &bottom);
  w = std::clamp(w, 64, std::max(64, aw - left - right));
  h = std::clamp(h, 64, std::max(64, ah - top - bottom));
  x = std::clamp(x, ax + left, std::max(ax + left, ax + aw - right - w));
  y = std::clamp(y, ay + top, std::max(ay + top, ay + ah - bottom - h));
  glfwSetWindowSize(win, w, h);
  glfwSetWindowPos(win, x, y);
}

void Application::rememberWindowGeometry() {
  GLFWwindow* win = ctx_.window();
  if (!win) return;
  if (model_.presentation && windowedW_ > 0) {  // full screen now: the window it came from
    settings_.windowX = windowedX_, settings_.windowY = windowedY_;
    settings_.windowW = windowedW_, settings_.windowH = windowedH_;
  } else {
    glfwGetWindowPos(win, &settings_.windowX, &settings_.windowY);
    glfwGetWindowSize(win, &settings_.windowW, &settings_.windowH);
  }
  settings_.haveWindow = settings_.windowW > 0 && settings_.windowH > 0;
}

void Application::requestTogglePresentation() {
  model_.presentation = !model_.presentation;
  if (model_.presentation) {
    savedScale_ = model_.ui.uiScale;
    savedTheme_ = model_.ui.theme;
    savedPanels_ = model_.ui;
    model_.ui.uiScale = settings_.presentationScale;
    model_.ui.theme = settings_.presentationTheme == "dark" ? gui::Theme::Dark : gui::Theme::Light;
    model_.ui.showLeft = false;  // the views and the plots, large; F2 / F4 bring the rest back
    model_.ui.showBottom = false;
  } else {
    settings_.presentationScale = model_.ui.uiScale;  // remembered for next time
    settings_.presentationTheme = model_.ui.theme == gui::Theme::Dark ? "dark" : "light";
    model_.ui.uiScale = savedScale_;
    model_.ui.theme = savedTheme_;
    model_.ui.showLeft = savedPanels_.showLeft;
    model_.ui.showRight = savedPanels_.showRight;
    model_.ui.showBottom = savedPanels_.showBottom;
  }
  if (GLFWwindow* w = ctx_.window()) {
    if (model_.presentation) {
      glfwGetWindowPos(w, &windowedX_, &windowedY_);
      glfwGetWindowSize(w, &windowedW_, &windowedH_);
      GLFWmonitor* monitor = glfwGetPrimaryMonitor();
      const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
      if (mode) glfwSetWindowMonitor(w, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
      // Back where it was before full screen, within the monitor's work area.
      const int ww = windowedW_ > 0 ? windowedW_ : opt_.width, wh = windowedH_ > 0 ? windowedH_ : opt_.height;
      int ax, ay, aw, ah;
      workAreaFor(windowedX_, windowedY_, ww, wh, &ax, &ay, &aw, &ah);
      glfwSetWindowMonitor(w, nullptr, windowedW_ > 0 ? windowedX_ : ax, windowedW_ > 0 ? windowedY_ : ay, ww, wh, 0);
      restoreWindowGeometry(windowedW_ > 0 ? windowedX_ : ax, windowedW_ > 0 ? windowedY_ : ay, ww, wh);
    }
  }
  model_.addLog(gui::LogLevel::Info, model_.presentation ? "Presentation mode (F11 or Esc to leave)" : "Presentation mode off");
}

}  // namespace rl::app
