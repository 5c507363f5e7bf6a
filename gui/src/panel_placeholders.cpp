// Panels whose content arrives with later features: clearly labelled placeholders.
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

void drawKernelPanel(Model&, UiActions&) {
  placeholder("Kernel catalogue: Harris's ladder (interleaved -> grid-stride), warp shuffle, "
              "cooperative groups, 16-byte loads, atomics, last block and CUB, with each "
              "kernel's source and what changed from the previous one.",
              "placeholder: filled by the compute-core feature");
}

void drawParametersPanel(Model&, UiActions&) {
  placeholder("Parameters: block size, element type, operation, accumulator, N, final stage, "
              "repetitions, cold/warm L2, and Run.",
              "placeholder: filled by the compute-core feature");
}

void drawCentreViews(Model&, UiActions&) {
  if (ImGui::BeginTabBar("views")) {
    if (ImGui::BeginTabItem("Warp activity")) {
      placeholder("Warp activity: warps (rows) x steps (columns), each cell the 32 lanes of a "
                  "warp, lit where the lane did the step's work.",
                  "placeholder: filled by the traces feature");
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Bank conflicts")) {
      placeholder("Bank conflicts: 32 shared-memory banks, each lane's access placed in its "
                  "bank, conflicts highlighted with their n-way degree.",
                  "placeholder: filled by the traces feature");
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
}

void drawResultsAndLog(Model& model, UiActions&) {
  if (ImGui::BeginTabBar("results-log")) {
    if (ImGui::BeginTabItem("Results table")) {
      placeholder("Results: kernel, time, bandwidth, % of peak, speedups, result and error.",
                  "placeholder: filled by the compute-core feature");
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Log")) {
      for (const LogEntry& e : model.log) {
        ImVec4 c = e.level == LogLevel::Error  ? ImVec4(0.9f, 0.2f, 0.2f, 1)
                   : e.level == LogLevel::Warn ? ImVec4(0.9f, 0.6f, 0.1f, 1)
                                               : ImGui::GetStyleColorVec4(ImGuiCol_Text);
        ImGui::TextColored(c, "%s", e.text.c_str());
      }
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
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
