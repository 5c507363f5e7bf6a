// Bandwidth panel: the live plot of measured GB/s, the ladder, and the block-size, N and type
// sweeps (run in the background, streaming in), each exportable as PNG, SVG and tables.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "reducelab/gui/multi_view.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/plots.hpp"
#include "reducelab/gui/ui.hpp"

namespace rl::gui {
namespace {

void exportButtons(const Figure& fig, const Table* table, UiActions& actions) {
  if (ImGui::SmallButton("PNG")) actions.requestExportFigure(fig, true, false);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Save the figure as PNG (2x, white background) in the export folder");
  ImGui::SameLine();
  if (ImGui::SmallButton("SVG")) actions.requestExportFigure(fig, false, true);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Save the figure as SVG (vector, text kept as text)");
  if (table) {
    ImGui::SameLine();
    if (ImGui::SmallButton("Table")) actions.requestExportTable(*table, fig.fileStem);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Save the table as CSV, Markdown and LaTeX (booktabs)");
  }
}

// Draws a figure filling the rest of the panel; a click on a point selects its configuration.
void plotFigure(Model& model, const Figure& fig, const char* id) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const PlotHit hit = drawPlot(id, fig.spec, ImVec2(avail.x, std::max(80.0f, avail.y)));
  if (hit.clicked && hit.series >= 0 && size_t(hit.series) < fig.configs.size() && hit.point >= 0 &&
      size_t(hit.point) < fig.configs[size_t(hit.series)].size()) {
    const RunConfig& c = fig.configs[size_t(hit.series)][size_t(hit.point)];
    RunConfig& m = model.config;
    m.kernel = c.kernel;
    m.block = c.block;
    if (c.n) m.n = c.n;
    m.type = c.type;
    m.accumulate = c.accumulate;
    m.op = c.op;
    model.addLog(LogLevel::Info, "Selected " + configKey(m) + " from the plot");
  }
}

// Kernel list field + Run / Cancel + progress, shared by the sweep tabs.
void sweepControls(Model& model, UiActions& actions, const char* axis, char* kernels, size_t size,
                   uint64_t nMax = 0) {
  const float s = uiScale();
  const bool running = model.sweep.running;
  if (std::strcmp(axis, "kernel") != 0) {
    ImGui::SetNextItemWidth(150 * s);
    ImGui::InputText("kernels", kernels, size);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Comma list of kernel ids, one series each (k1..k12, k5s, cub)");
    ImGui::SameLine();
  }
  if (running) ImGui::BeginDisabled();
  const bool canRun = !model.cpuModel() && model.configError.empty();
  if (!canRun) ImGui::BeginDisabled();
  if (ImGui::Button("Run sweep")) {
    std::vector<std::string> list;
    std::string cur;
    for (const char* p = kernels ? kernels : "";; ++p) {
      if (*p == ',' || *p == '\0') {
        if (!cur.empty()) list.push_back(cur);
        cur.clear();
        if (*p == '\0') break;
      } else if (*p != ' ') {
        cur += *p;
      }
    }
    actions.requestSweep(axis, list, nMax);
  }
  if (!canRun) ImGui::EndDisabled();
  if (running) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(model.cpuModel() ? "Sweeps need an NVIDIA GPU" : "Measure over this axis with the other parameters as set");
  if (running && model.sweep.axis == axis) {
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) actions.requestCancelSweep();
    ImGui::SameLine();
    char overlay[128];
    std::snprintf(overlay, sizeof overlay, "%d / %d  %s", model.sweep.done, model.sweep.total, model.sweep.current.c_str());
    ImGui::ProgressBar(model.sweep.total ? float(model.sweep.done) / float(model.sweep.total) : 0.0f,
                       ImVec2(-1, 0), overlay);
  }
}

void liveTab(Model& model, UiActions& actions) {
  const Figure fig = liveBandwidthFigure(model.results, model.peaks);
  const Measurement* last = nullptr;
  for (auto it = model.results.rbegin(); it != model.results.rend(); ++it)
    if (it->ok) {
      last = &*it;
      break;
    }
  if (last) {
    ImGui::PushFont(fonts().large);
    ImGui::Text("%.0f GB/s", last->bandwidthGBs);
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::Text("%s", configKey(last->config).c_str());
    ImGui::TextDisabled("%.1f%% of theoretical, %.4f ms median", last->pctTheoretical, last->kernel.median);
    ImGui::EndGroup();
  } else {
    ImGui::TextDisabled(model.cpuModel() ? "Live bandwidth needs an NVIDIA GPU." : "No run yet.");
  }
  ImGui::Checkbox("continuous", &model.continuous);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Measure again whenever the last run finished: change parameters and watch");
  ImGui::SameLine();
  if (ImGui::SmallButton("Run (F5)")) actions.requestRun();
  ImGui::SameLine();
  Table t = benchTable(model.results, model.peaks);
  exportButtons(fig, &t, actions);
  plotFigure(model, fig, "live-plot");
}

}  // namespace

void drawBandwidthPanel(Model& model, UiActions& actions) {
  static char blockKernels[64] = "k3,k7,k10";
  static char nKernels[64] = "k3,k7,k10,cub";
  static char typeKernels[64] = "k7,k10,cub";
  static int nMaxChoice = 2;  // 2^24, 2^26, 2^28, 2^30, largest
  if (!ImGui::BeginTabBar("bandwidth-tabs")) return;
  // A lesson may bring one tab to the front.
  auto flag = [&](const char* key) {
    if (model.focusPanel != key) return ImGuiTabItemFlags(0);
    model.focusPanel.clear();
    return ImGuiTabItemFlags(ImGuiTabItemFlags_SetSelected);
  };
  const ImGuiTabItemFlags fLive = flag("live"), fLadder = flag("ladder"), fBlock = flag("block"), fN = flag("n"),
                          fTypes = flag("types");
  if (ImGui::BeginTabItem("Live", nullptr, fLive)) {
    liveTab(model, actions);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Ladder", nullptr, fLadder)) {
    const std::vector<Measurement>& rows = model.sweep.rows["kernel"];
    sweepControls(model, actions, "kernel", nullptr, 0);
    ImGui::SameLine();
    const Figure fig = ladderFigure(rows, model.peaks);
    std::vector<Measurement> ladder = rows;
    fillLadderSpeedups(ladder);
    Table t = benchTable(ladder, model.peaks);
    exportButtons(fig, &t, actions);
    // The chart, and the seed's table under it.
    const float avail = ImGui::GetContentRegionAvail().y;
    ImGui::BeginChild("ladder-chart", ImVec2(0, rows.empty() ? avail : avail * 0.62f));
    plotFigure(model, fig, "ladder-plot");
    ImGui::EndChild();
    if (!rows.empty() && ImGui::BeginTable("ladder-table", 7, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                                                   ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp)) {
      for (const char* h : {"kernel", "time ms", "GB/s", "% peak", "step x", "cum. x", "check"}) ImGui::TableSetupColumn(h);
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableHeadersRow();
      for (const Measurement& m : ladder) {
        if (!m.ok) continue;
        ImGui::TableNextRow();
        ImGui::TableNextColumn(); ImGui::TextUnformatted(m.config.kernel.c_str());
        ImGui::TableNextColumn(); ImGui::Text("%.4f", m.kernel.median);
        ImGui::TableNextColumn(); ImGui::Text("%.0f", m.bandwidthGBs);
        ImGui::TableNextColumn(); ImGui::Text("%.1f", m.pctTheoretical);
        ImGui::TableNextColumn(); ImGui::Text("%.2f", m.stepSpeedup);
        ImGui::TableNextColumn(); ImGui::Text("%.2f", m.cumulativeSpeedup);
        ImGui::TableNextColumn(); ImGui::TextUnformatted(!m.haveReference ? "-" : m.check.pass ? "PASS" : "FAIL");
      }
      ImGui::EndTable();
    }
    ImGui::EndTabItem();
  }
  // One sweep tab: controls, export buttons and the figure of the latest sweep over `axis`.
  auto sweepTab = [&](const char* label, ImGuiTabItemFlags flags, const char* axis, char* kernels, size_t size,
                      uint64_t nMax, auto makeFigure, auto&& extraControls) {
    if (!ImGui::BeginTabItem(label, nullptr, flags)) return;
    sweepControls(model, actions, axis, kernels, size, nMax);
    extraControls();
    const std::vector<Measurement>& rows = model.sweep.rows[axis];
    const Figure fig = makeFigure(rows);
    Table t = sweepTable(rows, model.peaks);
    exportButtons(fig, &t, actions);
    plotFigure(model, fig, axis);
    ImGui::EndTabItem();
  };
  auto none = [] {};
  sweepTab("Block size", fBlock, "block", blockKernels, sizeof blockKernels, 0,
           [&](const auto& rows) { return blockSweepFigure(rows, model.peaks); }, none);
  const char* choices[] = {"2^24", "2^26", "2^28", "2^30", "largest that fits"};
  const uint64_t maxN[] = {uint64_t(1) << 24, uint64_t(1) << 26, uint64_t(1) << 28, uint64_t(1) << 30, 0};
  sweepTab("N", fN, "n", nKernels, sizeof nKernels, maxN[nMaxChoice],
           [&](const auto& rows) {
             return nSweepFigure(rows, model.peaks, model.device.available ? model.device : assumedH200());
           },
           [&] {
             ImGui::SetNextItemWidth(150 * uiScale());
             ImGui::Combo("up to", &nMaxChoice, choices, 5);
             ImGui::SameLine();
           });
  sweepTab("Types", fTypes, "type", typeKernels, sizeof typeKernels, 0,
           [&](const auto& rows) { return typeSweepFigure(rows, model.peaks); }, none);
  if (ImGui::BeginTabItem("Multi-GPU", nullptr, flag("multi"))) {
    drawMultiGpuPanel(model, actions);
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace rl::gui
