#pragma once
// Draws a GLSL pass into a rectangle of an ImGui window, in the middle of ImGui's own draw list
// (ImDrawList callback), so shader views and ImGui labels share one frame and one render path.
#include <functional>

#include <imgui.h>

#include "reducelab/gui/gl.hpp"

namespace rl::gui {

// `draw` runs at render time with the GL viewport and scissor set to `rect` (clipped to the
// current ImGui clip rect). It may change any GL state: ImGui's state is restored afterwards.
void addGlPass(ImDrawList* list, ImVec2 rectMin, ImVec2 rectMax, std::function<void()> draw);

// Frees the passes queued for the last frame; call once per frame after rendering.
void endGlPassFrame();

// An empty vertex array object for gl_VertexID-only draws (core profile requires one bound).
GLuint emptyVertexArray();

}  // namespace rl::gui
