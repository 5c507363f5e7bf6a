#pragma once
// What the GUI draws: records handed to it by the app. The GUI never launches CUDA; it asks for
// work through UiActions and draws whatever records come back.
#include <map>
#include <string>
#include <vector>

#include "reducelab/device_info.hpp"
#include "reducelab/gui/gl.hpp"

namespace rl::gui {

enum class Theme { Dark, Light };

struct UiSettings {
  float uiScale = 1.0f;  // user setting, multiplied by the monitor's content scale
  Theme theme = Theme::Dark;
  bool showLeft = true, showRight = true, showBottom = true;
};

enum class LogLevel { Info, Warn, Error };
struct LogEntry {
  LogLevel level;
  std::string text;
};

// The CUDA-GL interop smoke buffer: written by a CUDA kernel (GPU) or the CPU (CPU model).
struct InteropStrip {
  GLuint buffer = 0;
  int count = 0;
  std::string writer;  // "CUDA kernel" or "CPU model"
  bool ok = false;
  std::string error;
};

struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
};

struct Model {
  DeviceInfo device;
  std::string glRenderer, glVersion;
  UiSettings ui;
  InteropStrip interop;
  std::vector<LogEntry> log;
  std::map<std::string, Rect> layout;  // named panel rectangles of the last frame (--dump-layout)

  bool cpuModel() const { return !device.available; }
  void addLog(LogLevel level, std::string text);
};

// Requests from the GUI to the app (which owns CUDA, files and the window).
class UiActions {
 public:
  virtual ~UiActions() = default;
  virtual void requestQuit() = 0;
  virtual void requestScreenshot() = 0;
};

}  // namespace rl::gui
