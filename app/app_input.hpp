#pragma once
// The window's input, between app_input.cpp (the GLFW callbacks) and the frame loop.
#include <string>
#include <vector>

#include "input_queue.hpp"

struct GLFWwindow;
struct ImGuiIO;

namespace rl::app {

// Headless frames use GLFW's key codes too, so scripted key presses mean the same as real ones.
void mapHeadlessKeys(ImGuiIO& io);
// Space is the shortcut table's (play / pause), not ImGui's navigation "activate".
void releaseSpaceFromNavigation(ImGuiIO& io);
// Keys go through the queue; the rest straight to ImGui's backend.
void installInputCallbacks(GLFWwindow* w, KeyEventQueue* queue);

// Frames still to draw before the idle loop waits, after a frame: an event, or the end of work
// that kept the window drawing (a measurement, a demonstration's result landing), leaves at least
// 3, since ImGui lays out what appeared in one frame (a table fits its columns to their text) and
// draws it right in the next; otherwise one fewer than before.
int settleFramesAfter(int settle, bool inputSeen, bool animatingBefore, bool animatingNow);

extern bool g_inputSeen;                  // any input since the loop last looked: the idle loop draws again
extern std::vector<std::string> g_dropped;  // files dropped onto the window, opened by the frame loop

}  // namespace rl::app
