#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {

const Palette& palette(Theme theme) {
  auto make = [](ImVec4 active, ImVec4 idle, ImVec4 bg, ImVec4 hi, ImVec4 conflict, ImVec4 bcast,
                 ImVec4 ok, ImVec4 text, ImVec4 dim, ImVec4 accent, ImVec4 grid) {
    Palette p;
    p.active = ImGui::ColorConvertFloat4ToU32(active);
    p.idle = ImGui::ColorConvertFloat4ToU32(idle);
    p.background = ImGui::ColorConvertFloat4ToU32(bg);
    p.highlight = ImGui::ColorConvertFloat4ToU32(hi);
    p.conflict = ImGui::ColorConvertFloat4ToU32(conflict);
    p.broadcast = ImGui::ColorConvertFloat4ToU32(bcast);
    p.ok = ImGui::ColorConvertFloat4ToU32(ok);
    p.text = ImGui::ColorConvertFloat4ToU32(text);
    p.dim = ImGui::ColorConvertFloat4ToU32(dim);
    p.accent = ImGui::ColorConvertFloat4ToU32(accent);
    p.grid = ImGui::ColorConvertFloat4ToU32(grid);
    p.activeV = active;
    p.idleV = idle;
    p.backgroundV = bg;
    p.highlightV = hi;
    return p;
  };
  static const Palette dark = make({0.98f, 0.72f, 0.15f, 1}, {0.22f, 0.24f, 0.28f, 1}, {0.07f, 0.07f, 0.08f, 1},
                                   {0.30f, 0.55f, 0.95f, 1}, {0.92f, 0.25f, 0.22f, 1}, {0.45f, 0.75f, 0.95f, 1},
                                   {0.35f, 0.80f, 0.40f, 1}, {0.95f, 0.95f, 0.95f, 1}, {0.55f, 0.55f, 0.58f, 1},
                                   {0.30f, 0.60f, 1.00f, 1}, {0.30f, 0.30f, 0.33f, 1});
  static const Palette light = make({0.85f, 0.45f, 0.00f, 1}, {0.82f, 0.83f, 0.86f, 1}, {1, 1, 1, 1},
                                    {0.15f, 0.40f, 0.85f, 1}, {0.80f, 0.05f, 0.05f, 1}, {0.10f, 0.45f, 0.75f, 1},
                                    {0.05f, 0.55f, 0.15f, 1}, {0, 0, 0, 1}, {0.40f, 0.40f, 0.42f, 1},
                                    {0.05f, 0.30f, 0.80f, 1}, {0.70f, 0.70f, 0.72f, 1});
  return theme == Theme::Dark ? dark : light;
}

std::string shortStepLabel(const trace::StepHeader& s) {
  char b[32];
  switch (s.kind) {
    case trace::kStepLoad: return s.param == 2 ? "load2" : "load";
    case trace::kStepGridStride: return "loop";
    case trace::kStepTreeLevel: std::snprintf(b, sizeof b, "%d", s.param); return b;
    case trace::kStepWarpSync: std::snprintf(b, sizeof b, "+%d", s.param); return b;
    case trace::kStepShuffle: std::snprintf(b, sizeof b, "shfl%d", s.param); return b;
    case trace::kStepWarpReduce: return "warp";
    case trace::kStepWarpStore: return "sums";
    case trace::kStepWarpLoad: return "read";
    case trace::kStepBlockResult: return "out";
    case trace::kStepCopyRow: std::snprintf(b, sizeof b, "row%d", s.param); return b;
    case trace::kStepTileLoad: return s.numSlots == 4 ? "tiles" : (std::snprintf(b, sizeof b, "in%d", s.param), b);
    case trace::kStepTileStore: std::snprintf(b, sizeof b, "out%d", s.param); return b;
    case trace::kStepDot: return "dot";
    case trace::kStepDotTerm: std::snprintf(b, sizeof b, "n%d", s.param); return b;
    case trace::kStepOutput: return "C";
    case trace::kStepPhase:
      std::snprintf(b, sizeof b, "p%d%s", s.param, s.part > 0 && s.part < 26 ? std::string(1, char('a' + s.part)).c_str() : "");
      return b;
  }
  return "?";
}

#ifdef __EMSCRIPTEN__
// WebGL 2: the lane records of the host copy, uploaded once per trace into an R32UI texture of
// kLaneTextureWidth words a row (shaders/trace_common.glsl reads it with texelFetch), on unit 0.
void bindTraceLanes(const TraceState& t) {
  constexpr int kLaneTextureWidth = 2048;
  static GLuint texture = 0;
  static uint64_t uploaded = ~uint64_t(0);
  static size_t uploadedWords = 0;
  if (!texture) glGenTextures(1, &texture);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture);
  const size_t words = t.data.lanes.size() * sizeof(trace::LaneRecord) / sizeof(uint32_t);
  if (uploaded != t.version || uploadedWords != words) {
    const int rows = int(std::max<size_t>(1, (words + kLaneTextureWidth - 1) / kLaneTextureWidth));
    std::vector<uint32_t> texels(size_t(rows) * kLaneTextureWidth, 0u);
    if (words) std::memcpy(texels.data(), t.data.lanes.data(), words * sizeof(uint32_t));
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32UI, kLaneTextureWidth, rows, 0, GL_RED_INTEGER, GL_UNSIGNED_INT, texels.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    uploaded = t.version, uploadedWords = words;
  }
}
#else
void bindTraceLanes(const TraceState& t) {
  const GLsizeiptr size = GLsizeiptr(t.data.lanes.size() * sizeof(trace::LaneRecord));
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 0, t.buffer, GLintptr(trace::kLanesOffset),
                    size > 0 ? size : 32);
}
#endif

std::string formatValue(double v) {
  char b[32];
  if (v == std::floor(v) && std::fabs(v) < 1e7) std::snprintf(b, sizeof b, "%.0f", v);
  else std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

int labelStride(float cellPx, float labelPx, int cells) {
  if (cells <= 1) return 1;
  if (!(cellPx > 0) || !std::isfinite(cellPx)) return cells;
  if (labelPx <= cellPx) return 1;
  return std::clamp(int(std::ceil(labelPx / cellPx)), 1, cells);
}

void centeredText(ImDrawList* dl, ImVec2 c, ImU32 color, const char* text, ImU32 box) {
  const ImVec2 sz = ImGui::CalcTextSize(text);
  const ImVec2 p(c.x - sz.x * 0.5f, c.y - sz.y * 0.5f);
  if (box) dl->AddRectFilled(ImVec2(p.x - 2, p.y), ImVec2(p.x + sz.x + 2, p.y + sz.y), box, 2.0f);
  dl->AddText(p, color, text);
}

}  // namespace rl::gui
