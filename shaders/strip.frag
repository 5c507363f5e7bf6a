#version 430 core
// Interop smoke view: draws the float buffer that CUDA (or the CPU model) wrote as a colour strip.
// Value -1 marks 24 values every 512 and is drawn white.
#include "colormap.glsl"
in vec2 uv;
out vec4 fragColor;
layout(std430, binding = 0) readonly buffer Values { float values[]; };
uniform int count;
void main() {
  int i = min(int(uv.x * float(count)), count - 1);
  float v = values[i];
  fragColor = v < 0.0 ? vec4(1.0) : vec4(rampColor(v), 1.0);
}
