// Panels whose content arrives with later features: clearly labelled placeholders; shared helpers.
#include <cstdarg>
#include <imgui.h>

#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"

namespace rl::gui {

void placeholder(const char* what, const char* arrivesWith) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", what);
  ImGui::Spacing();
  ImGui::TextWrapped("(%s)", arrivesWith);
  ImGui::PopStyleColor();
}

void textWrappedColored(const ImVec4& colour, const char* fmt, ...) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::PushTextWrapPos(0.0f);
  va_list args;
  va_start(args, fmt);
  ImGui::TextV(fmt, args);
  va_end(args);
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

void sameLineIfFits(float nextWidth) {
  const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + nextWidth;
  const float limit = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (right <= limit) ImGui::SameLine();
}

float buttonWidth(const char* label, bool small) {
  const ImVec2 pad = ImGui::GetStyle().FramePadding;
  return ImGui::CalcTextSize(label, nullptr, true).x + 2 * pad.x * (small ? 1.0f : 1.0f);
}

const std::string& labelThatFits(const std::string& full, const std::string& brief, float extra) {
  const float width = ImGui::CalcTextSize(full.c_str(), nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x + extra;
  return width <= ImGui::GetContentRegionAvail().x ? full : brief;
}

void helpMarker(const char* text) {
  if (ImGui::GetContentRegionAvail().y < ImGui::GetTextLineHeight()) return;  // no room: keep it whole or out
  sameLineIfFits(ImGui::CalcTextSize("(?)").x);
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

}  // namespace rl::gui
