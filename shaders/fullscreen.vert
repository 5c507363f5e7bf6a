#version 430 core
// A quad covering the current viewport, from gl_VertexID alone (no vertex buffer).
// uv: (0,0) top-left, (1,1) bottom-right, matching ImGui's screen orientation.
out vec2 uv;
void main() {
  vec2 p = vec2((gl_VertexID & 1) != 0 ? 1.0 : 0.0, (gl_VertexID & 2) != 0 ? 1.0 : 0.0);
  uv = vec2(p.x, 1.0 - p.y);
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
