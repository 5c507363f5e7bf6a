#version 430 core
// Warp activity: warps are rows, steps are columns; each cell is the warp's 32 lanes side by
// side, lit where the lane did the step's work. The current step's column is highlighted.
#include "trace_common.glsl"
in vec2 uv;
out vec4 fragColor;
uniform vec2 uSize;      // grid size in pixels
uniform int uWarps, uSteps, uStep;
uniform vec3 uActive, uIdle, uBackground, uHighlight;
void main() {
  vec2 p = uv * uSize;
  float cw = uSize.x / float(uSteps), ch = uSize.y / float(uWarps);
  int col = min(int(p.x / cw), uSteps - 1), row = min(int(p.y / ch), uWarps - 1);
  vec2 local = p - vec2(float(col) * cw, float(row) * ch);
  float gapX = max(1.0, cw * 0.06), gapY = max(1.0, min(3.0, ch * 0.12));
  bool current = col == uStep;
  vec3 bg = current ? mix(uBackground, uHighlight, 0.35) : uBackground;
  if (local.x < gapX || local.x > cw - gapX || local.y < gapY || local.y > ch - gapY) {
    fragColor = vec4(bg, 1.0);
    return;
  }
  float inner = (cw - 2.0 * gapX) / 32.0;
  int lane = clamp(int((local.x - gapX) / inner), 0, 31);
  int thread = row * 32 + lane;
  if (thread >= uBlock) {
    fragColor = vec4(bg, 1.0);
    return;
  }
  bool isActive = laneActive(col, thread);
  vec3 c = isActive ? uActive : uIdle;
  if (col > uStep) c = mix(c, bg, 0.55);                 // steps not reached yet are faded
  if (inner >= 3.0 && fract((local.x - gapX) / inner) > 0.82) c = mix(c, bg, 0.6);  // lane gaps
  fragColor = vec4(c, 1.0);
}
