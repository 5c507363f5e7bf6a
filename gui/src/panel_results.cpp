// Results table (the seed's columns, from the same table builder as `reducelab bench`) and log.
// Runs of the matrix families (transpose, matmul) have their own columns (matrixTable, as in
// `reducelab bench --kernel transpose`): sizes, tile, % of copy, GFLOP/s; they get a second table.
#include <algorithm>

#include "reducelab/catalogue.hpp"
#include "reducelab/run_tables.hpp"
#include "reducelab/gui/lesson_view.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"

namespace rl::gui {

namespace {

struct CachedRow {
  std::vector<std::string> cells;
  std::vector<bool> failed;  // drawn in red
};

// The results table's formatted rows, built once per row: the store is append-only, so only new
// rows are formatted; everything is redone only when the store is cleared, the peaks change or
// the comparison basis flips (a row with another final stage arrives).
struct ResultsTableCache {
  uint64_t instance = 0;  // whose store: another window's rows are never shown here
  uint64_t generation = ~uint64_t(0);
  size_t formatted = 0;
  double theoreticalGBs = -1, readGBs = -1;
  TimeBasis basis = TimeBasis::Kernel;
  size_t firstOk = SIZE_MAX, prevOk = SIZE_MAX;
  BenchColumns columns;
  std::vector<CachedRow> rows;       // reduction runs
  std::vector<size_t> matrixRows;    // store indices of the matrix families' runs
  std::vector<std::string> matrixHeaders;
  std::vector<CachedRow> matrix;     // their formatted rows
};

CachedRow cachedRow(std::vector<std::string> cells) {
  CachedRow r;
  r.failed.reserve(cells.size());
  for (const std::string& c : cells) r.failed.push_back(c.rfind("FAIL", 0) == 0 || c.rfind("not run", 0) == 0);
  r.cells = std::move(cells);
  return r;
}

const ResultsTableCache& updateResultsCache(uint64_t instance, const ResultsStore& store, const Peaks& peaks) {
  static ResultsTableCache cache;
  ResultsTableCache& c = cache;
  const TimeBasis basis = store.basis();  // kept by the store as rows arrive
  const bool restart = c.instance != instance || c.generation != store.generation() || c.formatted > store.size() ||
                       c.theoreticalGBs != peaks.theoreticalGBs || c.readGBs != peaks.readGBs || basis != c.basis;
  if (restart) {
    c = {};
    c.instance = instance;
    c.generation = store.generation();
    c.theoreticalGBs = peaks.theoreticalGBs;
    c.readGBs = peaks.readGBs;
    c.basis = basis;
    c.columns = benchColumns(c.basis);
    c.matrixHeaders = matrixTable({}).headers;
  }
  for (size_t i = c.formatted; i < store.size(); ++i) {
    if (isMatrixRun(store[i])) {
      c.matrixRows.push_back(i);
      c.matrix.push_back(cachedRow(matrixTable({store[i]}).rows.front()));
      continue;
    }
    Measurement m = store[i];  // a copy of the new row only: speedups against earlier rows
    if (m.ok) {
      if (c.firstOk == SIZE_MAX) c.firstOk = i;
      const double t = comparedTime(m, c.basis).median;
      m.stepSpeedup = c.prevOk != SIZE_MAX && t > 0 ? comparedTime(store[c.prevOk], c.basis).median / t : 1.0;
      m.cumulativeSpeedup = t > 0 ? comparedTime(store[c.firstOk], c.basis).median / t : 1.0;
      c.prevOk = i;
    }
    c.rows.push_back(cachedRow(benchRow(m, peaks, c.basis)));
  }
  c.formatted = store.size();
  return c;
}

}  // namespace

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
      const ResultsTableCache& cache = updateResultsCache(model.instance, model.results, model.peaks);
      if (ImGui::SmallButton("Export table")) {  // built in full only when asked for
        const RunTables tables = runTables(model.results.rows(), model.peaks);
        if (!tables.reductions.rows.empty()) actions.requestExportTable(tables.reductions, "results");
        if (!tables.matrix.rows.empty()) actions.requestExportTable(tables.matrix, "results-matrix");
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s in the export folder", tableExportFormatsText().c_str());
      ImGui::SameLine();
      if (cache.rows.empty()) ImGui::TextDisabled("%zu runs of the matrix families", cache.matrix.size());
      else {
        // Short beside the button (a long sentence was cut at every projector size); why, on hover.
        ImGui::TextDisabled("%zu run%s, by %s time", cache.rows.size(), cache.rows.size() == 1 ? "" : "s", timeBasisName(cache.basis));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", timeBasisMeaning(cache.basis));
      }
      // One table per kind of run; with both, each takes half of the height left.
      const bool both = !cache.rows.empty() && !cache.matrix.empty();
      const float tableHeight = both ? std::max(ImGui::GetFrameHeight() * 3, ImGui::GetContentRegionAvail().y * 0.5f - ImGui::GetStyle().ItemSpacing.y) : 0.0f;
      auto drawTable = [&](const char* id, const std::vector<std::string>& headers, const std::vector<CachedRow>& rows) {
        const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX |
                                      ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
        if (!ImGui::BeginTable(id, int(headers.size()), flags, ImVec2(0, tableHeight))) return;
        ImGui::TableSetupScrollFreeze(2, 1);
        for (const auto& h : headers) ImGui::TableSetupColumn(h.c_str());
        ImGui::TableHeadersRow();
        // A new row comes into sight when the table showed the last one (scrolled up, it stays).
        int* seen = ImGui::GetStateStorage()->GetIntRef(ImGui::GetID("rows-seen"), 0);
        const bool follow = int(rows.size()) > *seen && ImGui::GetScrollY() >= ImGui::GetScrollMaxY() - 2.0f;
        *seen = int(rows.size());
        // Only the visible rows are drawn; their text was formatted once, when they arrived.
        ImGuiListClipper clipper;
        clipper.Begin(int(rows.size()));
        while (clipper.Step())
          for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const CachedRow& row = rows[size_t(i)];
            ImGui::TableNextRow();
            for (size_t c = 0; c < row.cells.size(); ++c) {
              ImGui::TableNextColumn();
              if (row.failed[c]) ImGui::TextColored(ImVec4(0.95f, 0.3f, 0.3f, 1), "%s", row.cells[c].c_str());
              else ImGui::TextUnformatted(row.cells[c].c_str());
            }
          }
        if (follow) ImGui::SetScrollHereY(1.0f);
        ImGui::EndTable();
      };
      if (!cache.rows.empty()) drawTable("results", cache.columns.headers, cache.rows);
      if (!cache.matrix.empty()) drawTable("results-matrix", cache.matrixHeaders, cache.matrix);
    }
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Occupancy", nullptr, fOcc)) {
    drawOccupancyPanel(model, actions);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Log")) {
    ImGui::BeginChild("log");
    ImGuiListClipper clipper;  // the log grows with every run: draw the visible lines only
    clipper.Begin(int(model.log.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const LogEntry& e = model.log[size_t(i)];
        ImVec4 c = e.level == LogLevel::Error  ? ImVec4(0.9f, 0.2f, 0.2f, 1)
                   : e.level == LogLevel::Warn ? ImVec4(0.9f, 0.6f, 0.1f, 1)
                                               : ImGui::GetStyleColorVec4(ImGuiCol_Text);
        ImGui::TextColored(c, "%s", e.text.c_str());
      }
    }
    if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace rl::gui
