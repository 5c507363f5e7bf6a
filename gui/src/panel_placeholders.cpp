// Panels whose content arrives with later features: clearly labelled placeholders; shared helpers.
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

void helpMarker(const char* text) {
  ImGui::SameLine();
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
