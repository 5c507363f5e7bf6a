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

}  // namespace rl::gui
