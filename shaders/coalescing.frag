#version 430 core
// Coalescing overview: one row per warp; the horizontal axis is the bytes the warp's lanes
// address in one global-load slot, from the 128-byte line below the lowest address. Lit where a
// lane's access falls (colour by lane), thin lines at 32-byte sectors, thick at 128-byte lines.
#include "trace_common.glsl"
in vec2 uv;
out vec4 fragColor;
uniform vec2 uSize;
uniform int uWarps, uStep, uSlot, uBytes, uWindow;  // bytes per lane access; window in bytes
uniform vec3 uBackground, uSector, uLine;
vec3 laneColor(int lane) {
  float t = float(lane) / 31.0;
  return mix(vec3(0.20, 0.55, 0.95), vec3(0.98, 0.62, 0.10), t);
}
void main() {
  vec2 p = uv * uSize;
  float ch = uSize.y / float(uWarps);
  int warp = min(int(p.y / ch), uWarps - 1);
  float ly = p.y - float(warp) * ch;
  if (ly < 1.0 || ly > ch - 1.0) { fragColor = vec4(uBackground, 1.0); return; }
  int lo = 2147483647;
  for (int l = 0; l < 32; ++l) {
    int t = warp * 32 + l;
    if (t < uBlock && laneActive(uStep, t) && laneHasSlot(uStep, t, uSlot)) lo = min(lo, laneAddr(uStep, t, uSlot));
  }
  if (lo == 2147483647) { fragColor = vec4(uBackground * 0.8, 1.0); return; }
  int base = (lo / 128) * 128;
  float bytePos = p.x / uSize.x * float(uWindow);
  int pos = base + int(bytePos);
  vec3 c = uBackground;
  for (int l = 0; l < 32; ++l) {
    int t = warp * 32 + l;
    if (t >= uBlock || !laneActive(uStep, t) || !laneHasSlot(uStep, t, uSlot)) continue;
    int a = laneAddr(uStep, t, uSlot);
    if (pos >= a && pos < a + uBytes) c = laneColor(l);
  }
  float pxPerByte = uSize.x / float(uWindow);
  float inSector = mod(bytePos, 32.0) * pxPerByte, inLine = mod(bytePos, 128.0) * pxPerByte;
  if (inLine < 2.0) c = uLine;
  else if (inSector < 1.0) c = mix(c, uSector, 0.8);
  fragColor = vec4(c, 1.0);
}
