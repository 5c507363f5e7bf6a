#include <algorithm>
#include <cstdio>
#include <map>

#include "reducelab/gui/lesson_view.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"

namespace rl::gui {

namespace {

// Which time a set of rows is compared by, and its label. Rows whose final stages differ are
// compared with the final stage included (launches + copy of partials + CPU final): a kernel
// time would leave out the CPU's share of one row and not of the other. Kept in one place so it
// can switch to the engine's shared rule.
struct ComparedTime {
  bool endToEnd = false;
  std::string label;
};
ComparedTime comparedTime(const std::vector<LessonRow>& rows) {
  bool differ = false;
  for (const LessonRow& r : rows) differ = differ || resolvedFinal(r.config) != resolvedFinal(rows.front().config);
  if (differ) return {true, "time incl. final stage"};
  return {false, "kernel time"};
}

// A time for a table cell, in the unit that keeps it readable.
std::string timeCell(double ms) {
  return ms < 1.0 ? fixed(ms * 1e3, 2) + " us" : fixed(ms, 3) + " ms";
}

// The lesson's run behind each row (rows are the runs in file order).
std::vector<const LessonRun*> runsOfRows(const LessonState& lesson) {
  std::vector<const LessonRun*> out;
  for (const LessonStep& st : lesson.lesson.steps)
    for (const LessonRun& r : st.runs) out.push_back(&r);
  out.resize(lesson.rows.size(), nullptr);
  return out;
}

// A row's measurement under the seed's settings (it has its own reps / warm L2), or ours.
bool isSeedMethodRun(const LessonRun* run, const Measurement& m) {
  return run && run->seedMethodConfig && m.config.reps == run->seedMethodConfig->reps &&
         m.config.warmL2 == run->seedMethodConfig->warmL2;
}

// Several seed figures of one row share a cell, " / " between them.
template <class F>
std::string joined(const std::vector<SeedFigure>& figs, F cell) {
  std::string out;
  for (const SeedFigure& f : figs) out += (out.empty() ? "" : " / ") + cell(f);
  return out;
}

}  // namespace

Table lessonTable(const LessonState& lesson, const Peaks& peaks, bool haveGpu) {
  const std::vector<const LessonRun*> runOf = runsOfRows(lesson);
  bool haveSeed = false, likeSeedColumn = false;
  std::string seedMethodLabel;
  const ComparedTime compared = lesson.rows.empty() ? ComparedTime{false, "kernel time"} : comparedTime(lesson.rows);
  for (const LessonRun* r : runOf) {
    if (!r || r->seed.empty()) continue;
    haveSeed = true;
    if (r->seedMethod) {
      if (seedMethodLabel.empty()) seedMethodLabel = r->seedMethod->label;
      likeSeedColumn = likeSeedColumn || r->seedMethodConfig || r->seedMethod->mean || r->seedMethod->endToEnd != compared.endToEnd;
    }
  }
  // The floor: the step's bytes read once at the peak of the GPU this ran on.
  const double floorPeak = peaks.readGBs > 0 ? peaks.readGBs : peaks.theoreticalGBs;

  // Columns by name, in the order shown: the times and the check first (ours, the floor, the
  // seed's time, its floor, its share of its GPU's peak, the verdict, ours measured the seed's
  // way), so the lesson panel shows the comparison before it has to scroll.
  struct Column {
    std::string header;
    bool numeric;
  };
  std::vector<std::pair<std::string, Column>> columns = {{"run", {"run", false}},
                                                         {"time", {compared.label + " ms", true}}};
  if (haveSeed) {
    columns.push_back({"floor", {"floor at peak", true}});
    columns.push_back({"seed time", {likeSeedColumn || seedMethodLabel.empty() ? "seed time" : "seed time (" + seedMethodLabel + ")", false}});
    for (const char* h : {"seed floor at peak", "seed % of its peak", "seed check"}) columns.push_back({h, {h, false}});
  }
  if (likeSeedColumn) columns.push_back({"like", {"like the seed: " + seedMethodLabel + " ms", true}});
  if (haveSeed)
    for (const char* h : {"seed GB/s", "seed GPU", "seed GPU peak GB/s", "seed MB read"}) columns.push_back({h, {h, false}});
  for (const char* h : {"GB/s", "% of peak", "vs CPU", "result"}) columns.push_back({h, {h, true}});
  // The matrix families: % of the measured copy (transpose), GFLOP/s (matmul), sizes and tile.
  bool matrix = false, matmul = false;
  for (const LessonRow& row : lesson.rows)
    if (const KernelInfo* k = findKernel(row.config.kernel); k && isMatrixFamily(*k)) {
      matrix = true;
      matmul = matmul || k->family == Family::Matmul;
    }
  if (matrix) columns.push_back({"% copy", {"% of copy", true}});
  if (matmul)
    for (const char* h : {"GFLOP/s", "% peak FLOP"}) columns.push_back({h, {h, true}});
  if (matrix)
    for (const char* h : {"size", "tile"}) columns.push_back({h, {h, false}});
  for (const char* h : {"kernel", "type", "N", "block", "final"}) columns.push_back({h, {h, std::string(h) == "N" || std::string(h) == "block"}});
  for (size_t i = 0; i < lesson.lesson.referenceColumns.size(); ++i)
    columns.push_back({"ref" + std::to_string(i), {lesson.lesson.referenceColumns[i], false}});

  Table t;
  t.caption = lesson.lesson.title;
  if (haveSeed)
    t.caption += std::string(". floor at peak: the step's bytes read once at ") +
                 (peaks.readGBs > 0 ? "the measured read peak" : "the theoretical peak") +
                 " of this GPU. Seed columns: each seed time against its own GPU's peak (memory clock x bus width); "
                 "IMPOSSIBLE: faster than reading the input once at that peak, so not a kernel time";
  for (const auto& [id, col] : columns) {
    t.headers.push_back(col.header);
    t.numeric.push_back(col.numeric);
  }
  for (size_t ri = 0; ri < lesson.rows.size(); ++ri) {
    const LessonRow& row = lesson.rows[ri];
    const LessonRun* run = runOf[ri];
    const RunConfig& c = row.config;
    std::map<std::string, std::string> cell = {{"run", row.label}, {"kernel", c.kernel}, {"type", std::string(name(c.type))},
                                               {"N", formatCount(c.n)}, {"block", std::to_string(c.block)},
                                               {"final", std::string(name(resolvedFinal(c)))}};
    const Measurement* m = nullptr;
    const Measurement* like = nullptr;
    std::vector<const Measurement*> ours;
    for (const Measurement& x : row.runs) {
      if (isSeedMethodRun(run, x)) {
        if (x.ok) like = &x;
        continue;
      }
      ours.push_back(&x);
      if (x.ok) m = &x;
    }
    if (run && !run->seedMethodConfig) like = m;  // the seed's method needs no other measurement
    cell["floor"] = floorPeak > 0 ? timeCell(bytesMoved(c) / (floorPeak * 1e9) * 1e3) : "-";
    if (const KernelInfo* k = findKernel(c.kernel); k && isMatrixFamily(*k)) {
      cell["size"] = std::to_string(c.rows) + " x " + std::to_string(c.cols) +
                     (k->family == Family::Matmul ? " x " + std::to_string(c.inner) : "");
      cell["tile"] = std::to_string(effectiveTile(*k, c));
      cell["final"] = "-";  // no final stage: the kernel writes the whole output
      cell["N"] = formatCount(c.n);
    }
    cell["like"] = "-";
    if (like && run && run->seedMethod) {
      const Stats& st = run->seedMethod->endToEnd ? like->endToEnd : like->kernel;
      cell["like"] = fixed(run->seedMethod->mean ? st.mean : st.median, 4);
    }
    if (m) {
      const double ms = compared.endToEnd ? m->endToEnd.median : m->kernel.median;
      const double gbs = ms > 0 ? m->bytesRead / (ms * 1e-3) / 1e9 : 0;
      cell["time"] = fixed(ms, 4);
      cell["GB/s"] = fixed(gbs, 1);
      cell["% of peak"] = peaks.theoreticalGBs > 0 ? fixed(100.0 * gbs / peaks.theoreticalGBs, 1) : "-";
      cell["vs CPU"] = m->haveCpu ? "x" + fixed(m->speedupVsCpu, 1) : "-";
      cell["% copy"] = peaks.copyGBs > 0 && m->bytesRead > 0 ? fixed(100.0 * gbs / peaks.copyGBs, 1) : "-";
      cell["GFLOP/s"] = m->gflops > 0 ? fixed(m->gflops, 1) : "-";
      cell["% peak FLOP"] = m->pctPeakFlops > 0 ? fixed(m->pctPeakFlops, 1) : "-";
      std::string result;
      std::vector<std::string> seen;
      for (const Measurement* x : ours)
        if (x->ok) {
          result += (result.empty() ? "" : " / ") + x->result.text();
          seen.push_back(x->distinctResults.size() == 1 ? x->distinctResults.front() : "many");
        }
      if (ours.size() > 1) {
        bool same = std::all_of(seen.begin(), seen.end(), [&](const std::string& v) { return v == seen.front(); });
        for (const Measurement* x : ours) same = same && x->distinctResults.size() == 1;
        result += same ? " (same bits)" : " (differ)";
      }
      if (m->haveReference && !m->check.pass) result += " FAIL";
      cell["result"] = result;
    } else {
      for (const char* k : {"time", "GB/s", "% of peak", "vs CPU"}) cell[k] = "-";
      cell["result"] = !haveGpu ? "not measured: needs an NVIDIA GPU"
                       : !ours.empty() ? "not run: " + ours.back()->error
                       : row.queued ? "measuring..." : "not run yet";
    }
    for (size_t i = 0; i < lesson.lesson.referenceColumns.size(); ++i)
      cell["ref" + std::to_string(i)] = i < row.reference.size() ? row.reference[i] : "";
    if (haveSeed && run) {
      const std::vector<SeedFigure>& figs = run->seed;
      cell["seed GPU"] = joined(figs, [](const SeedFigure& f) { return f.gpu.name; });
      cell["seed GPU peak GB/s"] = joined(figs, [](const SeedFigure& f) { return fixed(f.gpu.peakGBs(), 1); });
      cell["seed MB read"] = joined(figs, [](const SeedFigure& f) { return fixed(f.bytes() / 1e6, 2); });
      cell["seed time"] = joined(figs, [](const SeedFigure& f) { return f.timeText; });
      cell["seed floor at peak"] = joined(figs, [](const SeedFigure& f) { return timeCell(f.floorMs()); });
      cell["seed GB/s"] = joined(figs, [](const SeedFigure& f) { return fixed(f.impliedGBs(), 1); });
      cell["seed % of its peak"] = joined(figs, [](const SeedFigure& f) { return fixed(f.shareOfPeak() * 100, 1) + " %"; });
      cell["seed check"] = joined(figs, [](const SeedFigure& f) { return f.abovePeak() ? std::string("IMPOSSIBLE") : std::string("ok"); });
    }
    std::vector<std::string> r;
    for (const auto& [id, col] : columns) r.push_back(cell.count(id) ? cell[id] : "");
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
