// Input: the GLFW callbacks (keys through the queue of input_queue.hpp, the rest to ImGui's
// backend), the headless key map, and the queue's glue into each frame.
#include "app_input.hpp"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <GLFW/glfw3.h>

#include "application.hpp"

namespace rl::app {

// Headless frames use GLFW's key codes too, so scripted key presses mean the same as real ones.
void mapHeadlessKeys(ImGuiIO& io) {
  const int map[][2] = {
      {ImGuiKey_Tab, GLFW_KEY_TAB},         {ImGuiKey_LeftArrow, GLFW_KEY_LEFT},
      {ImGuiKey_RightArrow, GLFW_KEY_RIGHT}, {ImGuiKey_UpArrow, GLFW_KEY_UP},
      {ImGuiKey_DownArrow, GLFW_KEY_DOWN},   {ImGuiKey_PageUp, GLFW_KEY_PAGE_UP},
      {ImGuiKey_PageDown, GLFW_KEY_PAGE_DOWN}, {ImGuiKey_Home, GLFW_KEY_HOME},
      {ImGuiKey_End, GLFW_KEY_END},         {ImGuiKey_Insert, GLFW_KEY_INSERT},
      {ImGuiKey_Delete, GLFW_KEY_DELETE},   {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE},
      {ImGuiKey_Space, GLFW_KEY_SPACE},     {ImGuiKey_Enter, GLFW_KEY_ENTER},
      {ImGuiKey_Escape, GLFW_KEY_ESCAPE},   {ImGuiKey_KeyPadEnter, GLFW_KEY_KP_ENTER},
      {ImGuiKey_A, GLFW_KEY_A},             {ImGuiKey_C, GLFW_KEY_C},
      {ImGuiKey_V, GLFW_KEY_V},             {ImGuiKey_X, GLFW_KEY_X},
      {ImGuiKey_Y, GLFW_KEY_Y},             {ImGuiKey_Z, GLFW_KEY_Z}};
  for (const auto& m : map) io.KeyMap[m[0]] = m[1];
}

// Space belongs to the shortcut table (play / pause): were it also ImGui's navigation
// "activate", a tap after clicking Play would toggle twice. ImGui requires the key mapped, so it
// gets the last key slot, which no key ever sets (Enter still activates).
void releaseSpaceFromNavigation(ImGuiIO& io) { io.KeyMap[ImGuiKey_Space] = IM_ARRAYSIZE(io.KeysDown) - 1; }

static_assert(kKeyPress == GLFW_PRESS && isModifierKey(GLFW_KEY_LEFT_SHIFT) && isModifierKey(GLFW_KEY_RIGHT_SUPER) &&
              !isModifierKey(GLFW_KEY_LEFT_SHIFT - 1) && !isModifierKey(GLFW_KEY_RIGHT_SUPER + 1));

// GLFW callbacks: keys go through the queue; the rest straight to ImGui's backend.
KeyEventQueue* g_keyQueue = nullptr;
bool g_inputSeen = false;  // any input since the loop last looked: the idle loop draws again
void onKey(GLFWwindow*, int key, int scancode, int action, int mods) {
  g_inputSeen = true;
  if (action == GLFW_REPEAT || !g_keyQueue) return;  // ImGui repeats held keys itself
  g_keyQueue->push({key, scancode, action, mods});
}
void onChar(GLFWwindow* w, unsigned c) { g_inputSeen = true, ImGui_ImplGlfw_CharCallback(w, c); }
void onMouseButton(GLFWwindow* w, int b, int a, int m) { g_inputSeen = true, ImGui_ImplGlfw_MouseButtonCallback(w, b, a, m); }
void onScroll(GLFWwindow* w, double x, double y) { g_inputSeen = true, ImGui_ImplGlfw_ScrollCallback(w, x, y); }
void onFocus(GLFWwindow* w, int f) { g_inputSeen = true, ImGui_ImplGlfw_WindowFocusCallback(w, f); }
void onCursorEnter(GLFWwindow* w, int e) { g_inputSeen = true, ImGui_ImplGlfw_CursorEnterCallback(w, e); }
void onCursorPos(GLFWwindow*, double, double) { g_inputSeen = true; }  // ImGui reads the position itself
void onWindowChange(GLFWwindow*, int, int) { g_inputSeen = true; }
void onRefresh(GLFWwindow*) { g_inputSeen = true; }
// Files dropped onto the window: opened by the frame loop (the last one, if several).
std::vector<std::string> g_dropped;
void onDrop(GLFWwindow*, int count, const char** paths) {
  g_inputSeen = true;
  for (int i = 0; i < count; ++i)
    if (paths[i]) g_dropped.emplace_back(paths[i]);
}

void installInputCallbacks(GLFWwindow* w, KeyEventQueue* queue) {
  g_keyQueue = queue;
  glfwSetKeyCallback(w, onKey);
  glfwSetCharCallback(w, onChar);
  glfwSetMouseButtonCallback(w, onMouseButton);
  glfwSetScrollCallback(w, onScroll);
  glfwSetWindowFocusCallback(w, onFocus);
  glfwSetCursorEnterCallback(w, onCursorEnter);
  glfwSetCursorPosCallback(w, onCursorPos);
  glfwSetFramebufferSizeCallback(w, onWindowChange);
  glfwSetWindowPosCallback(w, onWindowChange);
  glfwSetWindowRefreshCallback(w, onRefresh);
  glfwSetDropCallback(w, onDrop);
}

// One key transition per key per frame (see input_queue.hpp), through ImGui's own callback so
// its modifier state stays right.
void Application::pumpKeyEvents() {
  GLFWwindow* w = ctx_.window();
  for (const KeyEvent& e : keyQueue_.takeFrame()) ImGui_ImplGlfw_KeyCallback(w, e.key, e.scancode, e.action, e.mods);
}

}  // namespace rl::app
