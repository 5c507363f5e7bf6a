#pragma once
// The whole ReduceLab window: layout, fonts, theme, panels.
#include <imgui.h>

#include "reducelab/gui/model.hpp"

namespace rl::gui {

class Ui {
 public:
  // Call after ImGui::CreateContext and before the renderer backend creates its font texture.
  // Returns false (with *error) when the DejaVu font is missing; ImGui's font is used then.
  bool init(float contentScale, std::string* error);
  // True when fonts changed since the last frame: the renderer must rebuild its font texture.
  bool fontsDirty() const { return fontsDirty_; }
  void fontsRebuilt() { fontsDirty_ = false; }
  // Scale and theme changes are applied between frames.
  void applyPendingSettings(Model& model);
  void draw(Model& model, UiActions& actions);

 private:
  void rebuildFonts();
  void applyStyle(const UiSettings& ui);
  void drawMenuBar(Model& model, UiActions& actions);
  void drawPanels(Model& model, UiActions& actions);
  void drawStatusBar(Model& model, float y, float h);
  void drawPresentation(Model& model, UiActions& actions, float top, float bottom);

  float contentScale_ = 1.0f;
  float appliedScale_ = 0.0f;
  Theme appliedTheme_ = Theme::Dark;
  bool fontsDirty_ = true;
  bool fontOk_ = false;
};

// Fonts shared by panels (set by Ui::init).
struct Fonts {
  ImFont* regular = nullptr;
  ImFont* mono = nullptr;   // kernel source, tables of numbers
  ImFont* large = nullptr;  // the big live figure
};
const Fonts& fonts();
float uiScale();  // effective scale (content scale x user scale) of the current frame
// A message in a colour (an error, a warning), wrapped at the panel's edge: a long sentence is
// never cut off where the panel ends.
void wrappedColoredText(const ImVec4& colour, const std::string& text);

// fonts-dejavu-core's folder, or $REDUCELAB_FONT_DIR (machines without the package); ends in '/'.
std::string fontDir();
// The ImGui style of a theme at a scale; light is high contrast (projectors, printed figures).
ImGuiStyle themeStyle(Theme theme, float scale);

}  // namespace rl::gui
