// The centre of the window: the four trace views in tabs, with the animation controls under
// them. Every view highlights the same current step.
#include <algorithm>
#include <cstdio>

#include "reducelab/catalogue.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/plot.hpp"
#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {

void drawKernelSource(Model& model, UiActions& actions, const KernelInfo& k, const std::string& highlight);
void drawKernelEditor(Model& model, UiActions& actions);  // panel_editor.cpp

void drawTraceControls(Model& model, UiActions& actions) {
  TraceState& t = model.trace;
  const float s = uiScale();
  const int last = t.data.numSteps() - 1;
  ImGuiIO& io = ImGui::GetIO();  // keys: shortcuts.cpp
  if (t.playing) {
    t.timer += io.DeltaTime * t.stepsPerSecond;
    while (t.timer >= 1.0f) {
      t.timer -= 1.0f;
      t.step = t.step >= last ? 0 : t.step + 1;
    }
  }
  if (ImGui::Button("|<")) t.step = 0;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("First step (Home)");
  ImGui::SameLine();
  if (ImGui::Button("<")) t.step = std::max(t.step - 1, 0), t.playing = false;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Step back (Left arrow)");
  ImGui::SameLine();
  if (ImGui::Button(t.playing ? "Pause" : "Play", ImVec2(70 * s, 0))) t.playing = !t.playing;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Play / pause (Space)");
  ImGui::SameLine();
  if (ImGui::Button(">")) t.step = std::min(t.step + 1, last), t.playing = false;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Step forward (Right arrow)");
  ImGui::SameLine();
  if (ImGui::Button(">|")) t.step = last;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Last step (End)");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(std::max(120 * s, ImGui::GetContentRegionAvail().x * 0.45f));
  char fmt[96];
  std::snprintf(fmt, sizeof fmt, "step %%d of %d: %s", last, stepLabel(t.data.steps[size_t(t.step)]).c_str());
  ImGui::SliderInt("##scrub", &t.step, 0, last, fmt);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(130 * s);
  ImGui::SliderFloat("##speed", &t.stepsPerSecond, 0.25f, 8.0f, "%.2f steps/s", ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Animation speed");
  // The view as drawn, saved like the plots (a picture: the views are GL and ImGui, not a figure).
  const std::string stem = std::string("view-") + std::string(viewInfo(model.view).name) + "-" + model.config.kernel +
                           "-step" + std::to_string(t.step);
  bool first = true;
  for (const bool vector : {false, true})
    for (const FigureWriter& f : figureFormats().all()) {
      if (f.vector != vector || !f.renderImage) continue;
      if (!first) ImGui::SameLine();
      first = false;
      if (ImGui::SmallButton((std::string(f.label) + "##view").c_str())) actions.requestExportView(model.viewRect, stem, f);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Save this view as drawn (%s, a picture of the screen's pixels) in the export folder",
                          std::string(f.label).c_str());
    }
  // The strip has one line: a save's notice takes the caption's place while it shows (after a
  // long caption, a GPU's, it wrapped below the strip and was cut off).
  if (savedNoticeShows(model, stem)) {
    savedNotice(model, stem);
    return;
  }
  ImGui::SameLine();
  ImGui::TextDisabled("Block %u of %u, %d threads: trace from the %s", t.data.header.tracedBlock,
                      t.data.header.gridSize, t.data.blockSize(), t.source.c_str());
}

void drawCentreViews(Model& model, UiActions& actions) {
  TraceState& t = model.trace;
  // The tab bar owns the selection; a view picked from outside (command line, lesson) is
  // forced once.
  CentreView& shown = model.viewTabShown;
  const bool forced = !model.viewTabsDrawn || model.view != shown;
  model.viewTabsDrawn = true;
  if (ImGui::BeginTabBar("views")) {
    for (const ViewInfo& tab : kViews) {  // reducelab/views.hpp
      const ImGuiTabItemFlags flags = forced && tab.id == model.view ? ImGuiTabItemFlags_SetSelected : 0;
      if (ImGui::BeginTabItem(tab.label, nullptr, flags)) {
        if (!forced) model.view = tab.id;
        shown = model.view;
        ImGui::EndTabItem();
      }
    }
    ImGui::EndTabBar();
  }
  if (model.view == CentreView::Editor) {  // your kernel: no trace needed to write and compile it
    drawKernelEditor(model, actions);
    return;
  }
  if (!t.valid) {
    ImGui::Spacing();
    ImGui::TextWrapped("%s", t.error.empty() ? "No trace yet." : t.error.c_str());
    return;
  }
  t.step = std::clamp(t.step, 0, t.data.numSteps() - 1);
  t.warp = std::clamp(t.warp, 0, t.data.numWarps() - 1);
  const float controlsH = ImGui::GetFrameHeightWithSpacing() + ImGui::GetTextLineHeightWithSpacing() + 6;
  ImGui::BeginChild("view", ImVec2(0, ImGui::GetContentRegionAvail().y - controlsH), false);
  switch (model.view) {
    case CentreView::WarpActivity: drawWarpActivity(model); break;
    case CentreView::BankConflicts: drawBankConflicts(model); break;
    case CentreView::ReductionTree: drawReductionTree(model); break;
    case CentreView::Coalescing: drawCoalescing(model); break;
    case CentreView::Source:
      if (const KernelInfo* k = findKernel(model.config.kernel)) drawKernelSource(model, actions, *k, "");
      break;
    case CentreView::Editor: break;  // drawn above
    case CentreView::All: {  // the four views at once, 2 x 2
      const ImVec2 avail = ImGui::GetContentRegionAvail();
      const ImVec2 quarter(avail.x * 0.5f - 4, avail.y * 0.5f - 4);
      // A quarter at a projector scale may be too short for its view's lines: its text shrinks
      // (down to half) so every label stays whole instead of running past the quarter's edge.
      const float lines = quarter.y / ImGui::GetTextLineHeightWithSpacing();
      const float fontScale = std::clamp(lines / 18.0f, 0.5f, 1.0f);
      auto quarterView = [&](const char* id, void (*draw)(Model&), bool sameLine) {
        if (sameLine) ImGui::SameLine();
        ImGui::BeginChild(id, quarter, true);
        ImGui::SetWindowFontScale(fontScale);
        draw(model);
        ImGui::EndChild();
      };
      quarterView("all-warps", drawWarpActivity, false);
      quarterView("all-banks", drawBankConflicts, true);
      quarterView("all-tree", drawReductionTree, false);
      quarterView("all-coalescing", drawCoalescing, true);
      break;
    }
  }
  ImGui::EndChild();
  const ImVec2 v0 = ImGui::GetItemRectMin(), v1 = ImGui::GetItemRectMax();  // the view, for its export
  model.viewRect = {v0.x, v0.y, v1.x - v0.x, v1.y - v0.y};
  drawTraceControls(model, actions);
}

}  // namespace rl::gui
