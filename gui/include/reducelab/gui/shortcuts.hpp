#pragma once
// Every keyboard shortcut of the window, in one table: handled once per frame whatever panels
// are shown (presentation mode hides most of them), and listed from the same table in Help.
#include <string>
#include <vector>

#include "reducelab/gui/model.hpp"

namespace rl::gui {

struct Shortcut {
  int key;           // GLFW key code (the headless frames use the same codes)
  bool ctrl;         // with Ctrl held
  bool repeats;      // held down, it repeats (stepping); toggles never repeat
  bool whileTyping;  // also while a text field has focus (Ctrl and function keys)
  const char* keys;  // as the user reads it: "Space", "Ctrl+="
  const char* action;  // short name, logged with REDUCELAB_LOG_ACTIONS=1
  const char* help;
};

const std::vector<Shortcut>& shortcuts();
// Runs the shortcuts pressed this frame. Call once per frame after ImGui::NewFrame().
void handleShortcuts(Model& model, UiActions& actions);
// What a shortcut does, by its action name (also for tests and scripted runs).
void runShortcut(const std::string& action, Model& model, UiActions& actions);

// GLFW key codes the GUI refers to (gui/ does not include GLFW).
namespace keys {
constexpr int Space = 32, Minus = 45, Digit1 = 49, Digit2 = 50, Digit3 = 51, Equal = 61, N = 78, O = 79, P = 80, Q = 81, S = 83, Y = 89, Z = 90, Escape = 256, Right = 262, Left = 263,
              PageUp = 266, PageDown = 267, Home = 268, End = 269, F2 = 291, F3 = 292, F4 = 293, F5 = 294,
              F11 = 300, F12 = 301, KeypadSubtract = 333, KeypadAdd = 334;
}

}  // namespace rl::gui
