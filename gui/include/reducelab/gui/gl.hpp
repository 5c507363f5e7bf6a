#pragma once
// The GL API for everything in gui/ and app/: glad (GL 4.5 core, generated at configure time) on the
// desktop; OpenGL ES 3.0 (WebGL 2) in the browser, through Emscripten's headers.
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
// WebGL 2 has no shader storage buffers: there the trace and interop buffers are plain buffer objects
// (the views read the lanes from a texture, gui/src/trace_common.cpp) bound to a target both APIs have.
#ifndef GL_SHADER_STORAGE_BUFFER
#define GL_SHADER_STORAGE_BUFFER GL_COPY_WRITE_BUFFER
#endif
// WebGL 2's getBufferSubData, which Emscripten implements but GLES 3.0's header does not declare.
extern "C" void glGetBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size, void* data);
#else
#include <glad/gl.h>
#endif

namespace rl::gui {
// The GLSL the shaders are compiled as. shaders/*.vert|frag start with "#version 430 core"; in the
// browser that line becomes GLSL ES 3.00's, with default precisions and RL_LANES_TEXTURE (the views
// read the lane records from an integer texture, shaders/trace_common.glsl). ImGui's GL backend is
// given the same version line.
#ifdef __EMSCRIPTEN__
inline constexpr const char* kGlslVersion = "#version 300 es";
inline constexpr const char* kGlslPrelude =
    "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp usampler2D;\n#define RL_LANES_TEXTURE 1\n";
#else
inline constexpr const char* kGlslVersion = "#version 430 core";
inline constexpr const char* kGlslPrelude = "#version 430 core\n";
#endif
}  // namespace rl::gui
