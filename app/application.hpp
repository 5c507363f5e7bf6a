#pragma once
// The GUI application: one frame loop for the window and for --headless.
#include <string>
#include <vector>

#include "gl_context.hpp"
#include "interop.hpp"
#include "reducelab/gui/model.hpp"
#include "reducelab/gui/ui.hpp"

namespace rl::app {

struct GuiOptions {
  bool headless = false;
  int frames = 0;  // 0: until the window closes (headless: 3)
  std::string screenshot;
  std::string dumpLayout;  // JSON file with the named panel rectangles of the last frame
  int width = 1600, height = 900;
  float uiScale = 1.0f;
  bool stats = false;
};

class Application final : public gui::UiActions {
 public:
  Application(GlContext& ctx, GuiOptions options);
  ~Application() override;
  int run();  // exit code

  void requestQuit() override { quit_ = true; }
  void requestScreenshot() override { screenshotRequested_ = true; }

 private:
  void initInterop();
  void renderFrame();
  std::string saveScreenshot(const std::string& path);
  void printStats() const;

  GlContext& ctx_;
  GuiOptions opt_;
  gui::Model model_;
  gui::Ui ui_;
  CudaGlBuffer interop_;
  std::vector<double> frameMs_;
  bool quit_ = false;
  bool screenshotRequested_ = false;
};

// Parses "1600x900". Returns false for anything else (including zero or above 16384).
bool parseSize(const std::string& text, int* width, int* height);

int runGui(const GuiOptions& options);

}  // namespace rl::app
