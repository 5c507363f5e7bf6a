#include "reducelab/gui/gl_view.hpp"

#include "reducelab/gui/shader.hpp"

#include <algorithm>
#include <deque>

namespace rl::gui {
namespace {

struct GlPass {
  ImVec2 min, max;
  std::function<void()> draw;
};
std::deque<GlPass> g_passes;  // stable addresses until endGlPassFrame()

void runPass(const ImDrawList*, const ImDrawCmd* cmd) {
  const GlPass& pass = *static_cast<const GlPass*>(cmd->UserCallbackData);
  const ImDrawData* dd = ImGui::GetDrawData();
  const float sx = dd->FramebufferScale.x, sy = dd->FramebufferScale.y;
  const float fbH = dd->DisplaySize.y * sy;
  const ImVec2 o = dd->DisplayPos;
  // Viewport = our rectangle; scissor = rectangle clipped by the window's clip rect.
  glViewport(GLint((pass.min.x - o.x) * sx), GLint(fbH - (pass.max.y - o.y) * sy),
             GLsizei((pass.max.x - pass.min.x) * sx), GLsizei((pass.max.y - pass.min.y) * sy));
  float cx0 = std::max(cmd->ClipRect.x, pass.min.x), cy0 = std::max(cmd->ClipRect.y, pass.min.y);
  float cx1 = std::min(cmd->ClipRect.z, pass.max.x), cy1 = std::min(cmd->ClipRect.w, pass.max.y);
  if (cx1 <= cx0 || cy1 <= cy0) return;
  glEnable(GL_SCISSOR_TEST);
  glScissor(GLint((cx0 - o.x) * sx), GLint(fbH - (cy1 - o.y) * sy), GLsizei((cx1 - cx0) * sx),
            GLsizei((cy1 - cy0) * sy));
  pass.draw();
}

}  // namespace

void addGlPass(ImDrawList* list, ImVec2 rectMin, ImVec2 rectMax, std::function<void()> draw) {
  if (rectMax.x <= rectMin.x || rectMax.y <= rectMin.y) return;
  g_passes.push_back({rectMin, rectMax, std::move(draw)});
  list->AddCallback(runPass, &g_passes.back());
  list->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void endGlPassFrame() { g_passes.clear(); }

GLuint emptyVertexArray() { return windowVertexArray(); }

}  // namespace rl::gui
