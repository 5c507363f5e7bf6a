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

void drawBandwidthPanel(Model&, UiActions&) {
  placeholder("Bandwidth: measured GB/s of each run against the GPU's theoretical and measured "
              "peaks.",
              "placeholder: filled by the plots feature");
}

void drawOccupancyPanel(Model&, UiActions&) {
  placeholder("Occupancy: registers and shared memory per block, active blocks per SM, "
              "theoretical occupancy and its limiting resource.",
              "placeholder: filled by the plots feature");
}

}  // namespace rl::gui
