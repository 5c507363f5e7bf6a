// The panels' export buttons, from the format registries: a format added there shows up here.
#include <string>
#include <vector>

#include "reducelab/formats/output_formats.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/plots.hpp"
#include "reducelab/gui/plot.hpp"
#include "reducelab/gui/ui.hpp"

namespace rl::gui {

bool savedNoticeShows(const Model& model, const std::string& key) {
  const Model::SavedNotice& n = model.saved;
  return n.key == key && n.at >= 0 && ImGui::GetTime() - n.at <= 8.0;
}

void savedNotice(const Model& model, const std::string& key) {
  const Model::SavedNotice& n = model.saved;
  if (!savedNoticeShows(model, key)) return;
  sameLineIfFits(ImGui::CalcTextSize(n.text.c_str()).x);
  if (n.error) textWrappedColored(ImVec4(0.9f, 0.3f, 0.3f, 1.0f), "%s", n.text.c_str());
  else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", n.text.c_str());
    ImGui::PopStyleColor();
  }
}

void figureExportButtons(const Model& model, const Figure& fig, UiActions& actions, const char* idSuffix) {
  bool first = true;
  // Raster first (what slides take), then vector; each in the registry's order.
  for (const bool vector : {false, true})
    for (const FigureWriter& f : figureFormats().all()) {
      if (!f.panelButton || f.vector != vector) continue;
      const std::string label = std::string(f.label) + idSuffix;
      if (!first) sameLineIfFits(buttonWidth(label.c_str(), true));
      first = false;
      if (ImGui::SmallButton(label.c_str())) actions.requestExportFigure(fig, f);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Save the figure as %s in the export folder", std::string(f.description).c_str());
    }
  savedNotice(model, fig.fileStem);
}

std::string tableExportFormatsText() {
  std::vector<std::string> labels;
  for (const OutputFormat* f : tableFileFormats()) labels.emplace_back(f->label);
  return proseList(labels);
}

}  // namespace rl::gui
