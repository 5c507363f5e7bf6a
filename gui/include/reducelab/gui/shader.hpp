#pragma once
// GLSL programs built from the shaders/ folder compiled into the binary.
#include <string>
#include <string_view>

#include "reducelab/gui/gl.hpp"

namespace rl::gui {

// Source of shaders/<name> with `#include "file"` lines expanded; empty if unknown.
std::string shaderSource(std::string_view name);

// Compiles and links vertex + fragment shader files. Returns 0 and fills *log on failure.
GLuint buildProgram(std::string_view vertName, std::string_view fragName, std::string* log);
// The window's program of these shaders, built once per window (GL objects belong to the window's
// GL context: a process-wide static handed one window's program to the next); 0 with *error.
GLuint windowProgram(std::string_view vertName, std::string_view fragName, std::string* error);
// The window's empty vertex array (a VAO is never shared between GL contexts).
GLuint windowVertexArray();
// Forgets the current window's GL objects (before its ImGui and GL contexts are destroyed).
void releaseWindowGlObjects();

}  // namespace rl::gui
