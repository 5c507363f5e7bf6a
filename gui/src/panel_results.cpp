// Results table (the seed's columns, from the same table builder as `reducelab bench`) and log.
#include "reducelab/formats.hpp"
#include "reducelab/gui/lesson_view.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"

namespace rl::gui {

void drawResultsAndLog(Model& model, UiActions& actions) {
  if (!ImGui::BeginTabBar("results-log")) return;
  auto flag = [&](const char* key) {
    if (model.focusPanel != key) return ImGuiTabItemFlags(0);
    model.focusPanel.clear();
    return ImGuiTabItemFlags(ImGuiTabItemFlags_SetSelected);
  };
  const ImGuiTabItemFlags fResults = flag("results"), fOcc = flag("occupancy"), fLesson = flag("lesson");
  if (model.lesson.active && ImGui::BeginTabItem("Lesson", nullptr, fLesson)) {
    drawLessonTable(model);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Results table", nullptr, fResults)) {
    if (model.results.empty()) {
      ImGui::TextDisabled(model.cpuModel() ? "Measurements need an NVIDIA GPU (this machine runs the CPU model)."
                                           : "No runs yet: press Run (F5) in the Parameters panel.");
    } else {
      std::vector<Measurement> rows = model.results;
      fillLadderSpeedups(rows);
      const Table t = benchTable(rows, model.peaks);
      if (ImGui::SmallButton("Export table")) actions.requestExportTable(t, "results");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("CSV, Markdown and LaTeX (booktabs) in the export folder");
      const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX |
                                    ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
      if (ImGui::BeginTable("results", int(t.headers.size()), flags)) {
        ImGui::TableSetupScrollFreeze(2, 1);
        for (const auto& h : t.headers) ImGui::TableSetupColumn(h.c_str());
        ImGui::TableHeadersRow();
        for (const auto& r : t.rows) {
          ImGui::TableNextRow();
          for (size_t c = 0; c < r.size(); ++c) {
            ImGui::TableNextColumn();
            const bool fail = r[c].rfind("FAIL", 0) == 0 || r[c].rfind("not run", 0) == 0;
            if (fail) ImGui::TextColored(ImVec4(0.95f, 0.3f, 0.3f, 1), "%s", r[c].c_str());
            else ImGui::TextUnformatted(r[c].c_str());
          }
        }
        ImGui::EndTable();
      }
    }
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Occupancy", nullptr, fOcc)) {
    drawOccupancyPanel(model, actions);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Log")) {
    ImGui::BeginChild("log");
    for (const LogEntry& e : model.log) {
      ImVec4 c = e.level == LogLevel::Error  ? ImVec4(0.9f, 0.2f, 0.2f, 1)
                 : e.level == LogLevel::Warn ? ImVec4(0.9f, 0.6f, 0.1f, 1)
                                             : ImGui::GetStyleColorVec4(ImGuiCol_Text);
      ImGui::TextColored(c, "%s", e.text.c_str());
    }
    if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace rl::gui
