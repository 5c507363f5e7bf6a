// Status bar: device, GL renderer and the CUDA-GL interop strip.
#include <imgui.h>

#include "reducelab/gui/gl_view.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/shader.hpp"
#include "reducelab/gui/ui.hpp"
#include "reducelab/platform.hpp"

namespace rl::gui {
namespace {

void drawInteropStrip(const InteropStrip& strip, ImVec2 size) {
  ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImVec2 p1(p0.x + size.x, p0.y + size.y);
  ImGui::Dummy(size);
  if (!strip.ok || !strip.buffer || strip.count <= 0) {
    ImGui::GetWindowDrawList()->AddRectFilled(p0, p1, IM_COL32(90, 90, 90, 255));
    return;
  }
  std::string error;
  const GLuint program = windowProgram("fullscreen.vert", "strip.frag", &error);
  if (!program) {
    ImGui::GetWindowDrawList()->AddRectFilled(p0, p1, IM_COL32(160, 0, 0, 255));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("strip shader failed: %s", error.c_str());
    return;
  }
  const GLuint buffer = strip.buffer;
  const int count = strip.count;
  addGlPass(ImGui::GetWindowDrawList(), p0, p1, [program, buffer, count] {
    glUseProgram(program);
    glBindVertexArray(emptyVertexArray());
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffer);
    glUniform1i(glGetUniformLocation(program, "count"), count);
    glDisable(GL_BLEND);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  });
  ImGui::GetWindowDrawList()->AddRect(p0, p1, ImGui::GetColorU32(ImGuiCol_Border));
}

}  // namespace

void drawStatusContents(Model& model) {
  const RemoteState& r = model.remote;
  if (r.active) {  // the GPU is elsewhere: say where, and whether it is still there
    const char* link = r.link == RemoteState::Link::Connected ? "connected"
                       : r.link == RemoteState::Link::Connecting ? "connecting..." : "connection lost";
    const ImVec4 colour = r.link == RemoteState::Link::Dropped ? ImVec4(0.95f, 0.3f, 0.25f, 1)
                          : r.link == RemoteState::Link::Connected ? ImVec4(0.3f, 0.8f, 0.4f, 1)
                                                                   : ImVec4(0.95f, 0.6f, 0.1f, 1);
    ImGui::TextColored(colour, "Remote %s: %s", r.host.empty() ? r.target.c_str() : r.host.c_str(), link);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", r.link == RemoteState::Link::Dropped
                                  ? (r.detail + "\nEverything measured so far is kept.").c_str()
                                  : ("Started as: " + r.target).c_str());
    ImGui::SameLine(0, 30 * uiScale());
  }
  if (model.device.available)
    ImGui::Text("GPU: %s (CC %s, %d SMs)", model.device.name.c_str(),
                model.device.ccString().c_str(), model.device.smCount);
  else
    ImGui::TextUnformatted("GPU: none (CPU model)");
  if (model.replay.active()) {
    ImGui::SameLine(0, 30 * uiScale());
    const size_t total = model.replay.recording->measurements.size();
    if (model.replay.replaying())
      ImGui::Text("Replaying %zu of %zu recorded runs", model.replay.replayed, total);
    else
      ImGui::Text("Recording: %s", model.replay.recording->fromGpu() ? model.replay.recording->device.name.c_str() : "CPU model");
  }
  ImGui::SameLine(0, 30 * uiScale());
  ImGui::Text("GL: %s", model.glRenderer.c_str());
  if (!platform::kBrowser) {  // the browser has no CUDA-GL interop (and no shader storage buffers) to show
    ImGui::SameLine(0, 30 * uiScale());
    const InteropStrip& s = model.interop;
    ImGui::Text("Interop buffer (%s):", s.ok ? s.writer.c_str() : "failed");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s",
                        s.ok ? "A GL buffer object written directly by the writer shown, drawn by "
                               "shaders/strip.frag: a ramp with a white marker every 512 values."
                             : s.error.c_str());
    ImGui::SameLine();
    const float w = 240 * uiScale(), h = ImGui::GetFrameHeight() * 0.8f;
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + (ImGui::GetFrameHeight() - h) * 0.5f);
    ImVec2 at = ImGui::GetCursorScreenPos();
    drawInteropStrip(s, ImVec2(w, h));
    model.layout["interop-strip"] = {at.x, at.y, w, h};
  }
  if (model.ui.scaleLimited) {
    ImGui::SameLine(0, 30 * uiScale());
    ImGui::TextColored(ImVec4(0.95f, 0.6f, 0.1f, 1), "UI scale %.2f limited to %.2f: the window is too small",
                       double(model.ui.uiScale), double(uiScale()));
  }
}

}  // namespace rl::gui
