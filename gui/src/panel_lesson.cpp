#include <algorithm>
#include <cstdio>

#include "reducelab/gui/lesson_view.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"

namespace rl::gui {

Table lessonTable(const LessonState& lesson, const Peaks&, bool haveGpu) {
  Table t;
  t.caption = lesson.lesson.title;
  t.headers = {"run", "kernel", "type", "N", "block", "final", "time ms", "GB/s", "% of peak", "vs CPU", "result"};
  t.numeric = {false, false, false, true, true, false, true, true, true, true, true};
  for (const std::string& h : lesson.lesson.referenceColumns) {
    t.headers.push_back(h);
    t.numeric.push_back(false);
  }
  for (const LessonRow& row : lesson.rows) {
    const RunConfig& c = row.config;
    std::vector<std::string> r = {row.label, c.kernel, std::string(name(c.type)), formatCount(c.n), std::to_string(c.block),
                                  std::string(name(resolvedFinal(c)))};
    const Measurement* m = nullptr;
    for (const Measurement& x : row.runs)
      if (x.ok) m = &x;
    if (m) {
      r.push_back(fixed(m->kernel.median, 4));
      r.push_back(fixed(m->bandwidthGBs, 1));
      r.push_back(fixed(m->pctTheoretical, 1));
      r.push_back(m->haveCpu ? "x" + fixed(m->speedupVsCpu, 1) : "-");
      std::string result;
      std::vector<std::string> seen;
      for (const Measurement& x : row.runs)
        if (x.ok) {
          result += (result.empty() ? "" : " / ") + x.result.text();
          seen.push_back(x.distinctResults.size() == 1 ? x.distinctResults.front() : "many");
        }
      if (row.runs.size() > 1) {
        bool same = std::all_of(seen.begin(), seen.end(), [&](const std::string& v) { return v == seen.front(); });
        for (const Measurement& x : row.runs) same = same && x.distinctResults.size() == 1;
        result += same ? " (same bits)" : " (differ)";
      }
      if (m->haveReference && !m->check.pass) result += " FAIL";
      r.push_back(result);
    } else {
      const std::string why = !haveGpu ? "not measured: needs an NVIDIA GPU"
                              : !row.runs.empty() ? "not run: " + row.runs.back().error
                              : row.queued ? "measuring..." : "not run yet";
      r.insert(r.end(), {"-", "-", "-", "-", why});
    }
    for (size_t i = 0; i < lesson.lesson.referenceColumns.size(); ++i) r.push_back(i < row.reference.size() ? row.reference[i] : "");
    t.rows.push_back(r);
  }
  return t;
}

float lessonBarHeight(const Model& model, float width) {
  const LessonState& l = model.lesson;
  if (!l.active || l.lesson.steps.empty()) return 0;
  const LessonStep& st = l.lesson.steps[size_t(std::clamp(l.step, 0, int(l.lesson.steps.size()) - 1))];
  const float s = uiScale();
  const float captionW = std::max(200.0f, width - 260 * s - 2 * ImGui::GetStyle().WindowPadding.x);
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  const float h = ImGui::CalcTextSize((l.lesson.title + "  (step 10 of 10)").c_str(), nullptr, false, captionW).y +
                  ImGui::CalcTextSize(st.title.c_str(), nullptr, false, captionW).y +
                  ImGui::CalcTextSize(st.caption.c_str(), nullptr, false, captionW).y;
  return h + 2 * spacing + 2 * ImGui::GetStyle().WindowPadding.y + 4 * s;
}

void drawLessonBar(Model& model, UiActions& actions) {
  LessonState& l = model.lesson;
  const int steps = int(l.lesson.steps.size());
  const LessonStep& st = l.lesson.steps[size_t(std::clamp(l.step, 0, steps - 1))];
  const float s = uiScale();
  // N / P / Page Down / Page Up: shortcuts.cpp
  const float captionW = std::max(200.0f, ImGui::GetContentRegionAvail().x - 260 * s);
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + captionW);
  ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "%s  (step %d of %d)", l.lesson.title.c_str(),
                     l.step + 1, steps);
  ImGui::TextUnformatted(st.title.c_str());
  ImGui::TextUnformatted(st.caption.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - 240 * s);
  ImGui::BeginGroup();
  if (l.step == 0) ImGui::BeginDisabled();
  if (ImGui::Button("< Back", ImVec2(110 * s, 0))) actions.requestLessonStep(l.step - 1);
  if (l.step == 0) ImGui::EndDisabled();
  ImGui::SameLine();
  if (l.step >= steps - 1) ImGui::BeginDisabled();
  if (ImGui::Button("Next >", ImVec2(110 * s, 0))) actions.requestLessonStep(l.step + 1);
  if (l.step >= steps - 1) ImGui::EndDisabled();
  if (ImGui::SmallButton("Close lesson")) actions.requestCloseLesson();
  ImGui::SameLine();
  ImGui::TextDisabled("N / P keys");
  ImGui::EndGroup();
}

void drawLessonTable(Model& model) {
  if (!model.lesson.active) {
    ImGui::TextDisabled("No lesson open: Lessons menu, or `reducelab lesson upc`.");
    return;
  }
  const Table t = lessonTable(model.lesson, model.peaks, !model.cpuModel());
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("lesson-table", int(t.headers.size()), flags)) {
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const auto& h : t.headers) ImGui::TableSetupColumn(h.c_str());
    ImGui::TableHeadersRow();
    int first = model.lesson.step < int(model.lesson.firstRowOfStep.size()) ? model.lesson.firstRowOfStep[size_t(model.lesson.step)] : -1;
    const int next = model.lesson.step + 1 < int(model.lesson.firstRowOfStep.size())
                         ? model.lesson.firstRowOfStep[size_t(model.lesson.step + 1)] : int(t.rows.size());
    for (size_t i = 0; i < t.rows.size(); ++i) {
      ImGui::TableNextRow();
      if (int(i) >= first && int(i) < next)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImGuiCol_HeaderActive, 0.5f));
      for (const std::string& cell : t.rows[i]) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(cell.c_str());
      }
    }
    ImGui::EndTable();
  }
}

}  // namespace rl::gui
