// Bandwidth panel: the live plot of measured GB/s, the ladder, and the block-size, N and type
// sweeps (run in the background, streaming in), each exportable as PNG, SVG and tables.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "reducelab/gui/lesson_view.hpp"
#include "reducelab/gui/multi_view.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/plots.hpp"
#include "reducelab/gui/ui.hpp"
#include "reducelab/run_tables.hpp"

namespace rl::gui {
namespace {

void exportButtons(const Model& model, const Figure& fig, const Table* table, UiActions& actions) {
  figureExportButtons(model, fig, actions);
  if (table) {
    sameLineIfFits(buttonWidth("Table", true));
    if (ImGui::SmallButton("Table")) actions.requestExportTable(*table, fig.fileStem);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Save the table as %s", tableExportFormatsText().c_str());
  }
}

// Draws a figure filling the rest of the panel; a click on a point selects its configuration.
void plotFigure(Model& model, const Figure& fig, const char* id) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // A plot squeezed below a few lines of text is unreadable and runs past the panel: say so instead.
  if (avail.y < 7 * ImGui::GetTextLineHeightWithSpacing()) {
    if (avail.y >= 2 * ImGui::GetTextLineHeightWithSpacing()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("The plot needs more room: F2/F4 hide the side panels, Ctrl+- shrinks the UI.");
      ImGui::PopStyleColor();
    }
    return;
  }
  const PlotHit hit = drawPlot(id, fig.spec, ImVec2(avail.x, avail.y));
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
    sameLineIfFits(buttonWidth("Run sweep"));
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
    ImGui::SetTooltip("%s", model.cpuModel() ? "Sweeps need an NVIDIA GPU (File > Open loads a recorded one)"
                            : !model.configError.empty() ? model.configError.c_str()
                                                         : "Measure over this axis with the other parameters as set");
  if (!canRun && !running) {  // greyed: the reason in words, not only on hover
    const char* why = model.cpuModel() ? "needs an NVIDIA GPU" : "the parameters are not valid";
    sameLineIfFits(ImGui::CalcTextSize(why).x);
    ImGui::TextDisabled("%s", why);
  }
  if (running && model.sweep.axis == axis) {
    sameLineIfFits(buttonWidth("Cancel"));
    if (ImGui::Button("Cancel")) actions.requestCancelSweep();
    ImGui::SameLine();
    char overlay[128];
    std::snprintf(overlay, sizeof overlay, "%d / %d  %s", model.sweep.done, model.sweep.total, model.sweep.current.c_str());
    ImGui::ProgressBar(model.sweep.total ? float(model.sweep.done) / float(model.sweep.total) : 0.0f,
                       ImVec2(-1, 0), overlay);
  }
}

// While a lesson is open the Live tab tells the lesson's story so far (its steps up to the current
// one, on the lesson table's basis); otherwise the session's runs on the results table's basis.
struct LiveRuns {
  bool lesson = false;
  TimeBasis basis = TimeBasis::Kernel;
  std::vector<Measurement> lessonRuns;  // the lesson so far
  size_t ofCurrentStep = 0;             // how many of them the current step measured (at the end)
};
LiveRuns liveRuns(const Model& model) {
  LiveRuns r;
  r.lesson = model.lesson.active;
  if (r.lesson) {
    r.lessonRuns = lessonRunsSoFar(model.lesson, &r.ofCurrentStep);
    r.basis = lessonBasis(model.lesson);
  } else {
    r.basis = model.results.basis();
  }
  return r;
}

// The live figure is rebuilt when what it shows changes, not every frame (the store is
// append-only: same generation and size means same rows; a lesson's runs only grow too).
const Figure& liveFigure(const Model& model, const LiveRuns& live) {
  static Figure fig;
  static uint64_t instance = 0;  // whose results: another window's rows are never drawn here
  static uint64_t generation = ~uint64_t(0);
  static size_t size = 0;
  static double theoretical = -1, read = -1;
  static TimeBasis basis = TimeBasis::Kernel;
  static int lessonStep = -2;  // -2: no lesson
  const int step = live.lesson ? model.lesson.step : -2;
  const size_t count = live.lesson ? live.lessonRuns.size() : model.results.size();
  if (basis != live.basis || lessonStep != step || instance != model.instance ||
      generation != model.results.generation() || size != count || theoretical != model.peaks.theoreticalGBs ||
      read != model.peaks.readGBs) {
    // The latest runs only: drawing cost must not grow with the session (the results table
    // holds every run). Run numbers stay those of the whole session.
    constexpr size_t kLiveRuns = 500;
    const std::vector<Measurement>& all = live.lesson ? live.lessonRuns : model.results.rows();
    const size_t from = all.size() > kLiveRuns ? all.size() - kLiveRuns : 0;
    fig = liveBandwidthFigure(std::vector<Measurement>(all.begin() + long(from), all.end()), model.peaks, live.basis);
    if (live.lesson) {
      fig.spec.title = "The lesson so far: steps 1 to " + std::to_string(model.lesson.step + 1);
      fig.spec.emptyMessage = "This lesson has measured nothing up to this step";
    }
    if (from > 0) {
      for (Series& sr : fig.spec.series)
        for (double& x : sr.x) x += double(from);
      fig.spec.x.min += double(from);
      fig.spec.x.max += double(from);
      fig.spec.subtitle = (fig.spec.subtitle.empty() ? "" : fig.spec.subtitle + "; ") + "the latest " +
                          std::to_string(kLiveRuns) + " of " + std::to_string(all.size()) +
                          " runs (every run is in the results table)";
    }
    instance = model.instance;
    basis = live.basis;
    lessonStep = step;
    generation = model.results.generation();
    size = count;
    theoretical = model.peaks.theoreticalGBs;
    read = model.peaks.readGBs;
  }
  return fig;
}

void liveTab(Model& model, UiActions& actions) {
  const LiveRuns live = liveRuns(model);
  const Figure& fig = liveFigure(model, live);
  // On the screen's basis, named: the same number as the plot and the table show. In a lesson,
  // the current step's latest run (a later step's is not given away).
  const std::optional<Headline> head =
      live.lesson ? liveHeadline(std::vector<Measurement>(live.lessonRuns.end() - long(live.ofCurrentStep), live.lessonRuns.end()),
                                 model.peaks, live.basis)
                  : liveHeadline(model.results, model.peaks, live.basis);
  if (head) {
    ImGui::PushFont(fonts().large);
    ImGui::TextUnformatted(head->value.c_str());
    ImGui::PopFont();
    // Beside the value where both lines fit unwrapped, else under it (never over it).
    const float side = std::max(ImGui::CalcTextSize(head->config.c_str()).x, ImGui::CalcTextSize(head->detail.c_str()).x);
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + side <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
      ImGui::SameLine();
    ImGui::BeginGroup();  // wrapped, never clipped: a narrow panel still shows every word
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(head->config.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextUnformatted(head->detail.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    const LessonState& l = model.lesson;
    const size_t st = size_t(std::max(l.step, 0));
    const bool stepRuns = st < l.lesson.steps.size() && !l.lesson.steps[st].runs.empty();
    ImGui::TextWrapped("%s", live.lesson && !stepRuns ? "This lesson step measures nothing: the plot shows the lesson so far."
                             : live.lesson && model.measuring ? "Measuring this step's runs..."
                             : live.lesson && model.cpuModel() ? "This step's runs need an NVIDIA GPU or a recording made on one."
                             : live.lesson ? "This step's runs have no result yet."
                             : model.replay.active() && !model.replay.recording->fromGpu()
                                 ? "The recording was made with the CPU model: it holds no GPU runs."
                             : model.replay.replaying() ? "Replaying the recording's runs..."
                             : model.cpuModel()         ? "Live bandwidth needs an NVIDIA GPU."
                                                        : "No run yet.");
    ImGui::PopStyleColor();
  }
  ImGui::Checkbox("continuous", &model.continuous);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Measure again whenever the last run finished: change parameters and watch");
  sameLineIfFits(buttonWidth("Run (F5)", true));
  if (ImGui::SmallButton("Run (F5)")) actions.requestRun();
  sameLineIfFits(buttonWidth("PNG", true));
  exportButtons(model, fig, nullptr, actions);
  sameLineIfFits(buttonWidth("Table", true));
  if (ImGui::SmallButton("Table")) {  // formatted only when asked for: it grows with the runs
    const RunTables tables = runTables(model.results.rows(), model.peaks);  // matrix runs: their own columns
    if (!tables.reductions.rows.empty()) actions.requestExportTable(tables.reductions, fig.fileStem);
    if (!tables.matrix.rows.empty()) actions.requestExportTable(tables.matrix, fig.fileStem + "-matrix");
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Save the table as CSV, Markdown and LaTeX (booktabs)");
  plotFigure(model, fig, "live-plot");
}

}  // namespace

void drawBandwidthPanel(Model& model, UiActions& actions) {
  char* const blockKernels = model.fields.blockKernels;  // the window's own (Model::PanelFields)
  char* const nKernels = model.fields.nKernels;
  char* const typeKernels = model.fields.typeKernels;
  int& nMaxChoice = model.fields.nMaxChoice;
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
    bool fromLesson = false;
    const std::vector<Measurement> rows = ladderRowsShown(model, &fromLesson);
    sweepControls(model, actions, "kernel", nullptr, 0);
    sameLineIfFits(buttonWidth("PNG", true));
    Figure fig = ladderFigure(rows, model.peaks);
    if (fromLesson) fig.spec.title = "The kernel ladder: this lesson's runs so far";
    std::vector<Measurement> ladder = rows;
    fillLadderSpeedups(ladder);
    Table t = benchTable(ladder, model.peaks);
    exportButtons(model, fig, &t, actions);
    // The chart, and the seed's table under it.
    const float avail = ImGui::GetContentRegionAvail().y;
    ImGui::BeginChild("ladder-chart", ImVec2(0, rows.empty() ? avail : avail * 0.62f));
    plotFigure(model, fig, "ladder-plot");
    ImGui::EndChild();
    if (!rows.empty() && ImGui::BeginTable("ladder-table", 7, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                                                                   ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp)) {
      // Like for like: the ladder's final stages differ, so its times are end to end (comparisonBasis).
      const TimeBasis basis = comparisonBasis(ladder);
      const std::string by = std::string(" (") + timeBasisName(basis) + ")";
      for (const std::string& h : std::vector<std::string>{"kernel", "time ms" + by, "GB/s" + by, "% peak" + by, "step x" + by, "cum. x" + by, "check"})
        ImGui::TableSetupColumn(h.c_str());
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableHeadersRow();
      for (const Measurement& m : ladder) {
        if (!m.ok) continue;
        ImGui::TableNextRow();
        ImGui::TableNextColumn(); ImGui::TextUnformatted(m.config.kernel.c_str());
        ImGui::TableNextColumn(); ImGui::Text("%.4f", comparedTime(m, basis).median);
        ImGui::TableNextColumn(); ImGui::Text("%.0f", comparedGBs(m, basis));
        ImGui::TableNextColumn();
        ImGui::Text("%.1f", model.peaks.theoreticalGBs > 0 ? 100.0 * comparedGBs(m, basis) / model.peaks.theoreticalGBs : 0.0);
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
    exportButtons(model, fig, &t, actions);
    plotFigure(model, fig, axis);
    ImGui::EndTabItem();
  };
  auto none = [] {};
  sweepTab("Block size", fBlock, "block", blockKernels, sizeof model.fields.blockKernels, 0,
           [&](const auto& rows) { return blockSweepFigure(rows, model.peaks); }, none);
  const char* choices[] = {"2^24", "2^26", "2^28", "2^30", "largest that fits"};
  const uint64_t maxN[] = {uint64_t(1) << 24, uint64_t(1) << 26, uint64_t(1) << 28, uint64_t(1) << 30, 0};
  sweepTab("N", fN, "n", nKernels, sizeof model.fields.nKernels, maxN[nMaxChoice],
           [&](const auto& rows) {
             // The GPU the sweep ran on: a recording's, else the shown one.
             const bool recorded = model.replay.active() && model.replay.recording->fromGpu();
             return nSweepFigure(rows, model.peaks, recorded ? model.replay.recording->device : model.shownDevice());
           },
           [&] {
             ImGui::SetNextItemWidth(150 * uiScale());
             ImGui::Combo("up to", &nMaxChoice, choices, 5);
             sameLineIfFits(buttonWidth("PNG", true));
           });
  sweepTab("Types", fTypes, "type", typeKernels, sizeof model.fields.typeKernels, 0,
           [&](const auto& rows) { return typeSweepFigure(rows, model.peaks); }, none);
  ImGui::EndTabBar();
}

}  // namespace rl::gui
