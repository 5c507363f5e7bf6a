#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "reducelab/formats/output_formats.hpp"
#include "reducelab/formats/table_writers.hpp"
#include "reducelab/gui/lesson_view.hpp"

#include "reducelab/family.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {

namespace {

// Which time a lesson's rows are compared by: the shared rule (basisOfFinals), over the rows of
// families with a final stage. Known before anything is measured, so the headers do not change.
struct ComparedTime {
  bool endToEnd = false;
  std::string label;  // "kernel time" / "end to end time"
  std::string gbs;    // "GB/s (kernel)"
};
ComparedTime comparedTime(const std::vector<LessonRow>& rows) {
  TimeBasis basis = TimeBasis::Kernel;
  const RunConfig* first = nullptr;
  for (const LessonRow& r : rows) {
    const KernelFamily* f = familyOf(r.config);
    if (f && !f->scalarResult()) continue;  // a transpose or a product: no final stage
    if (!first) first = &r.config;
    else if (basisOfFinals(finalWorkOf(*first), finalWorkOf(r.config)) == TimeBasis::EndToEnd) basis = TimeBasis::EndToEnd;
  }
  return {basis == TimeBasis::EndToEnd, std::string(timeBasisName(basis)) + " time", bandwidthLabel(basis)};
}

}  // namespace

TimeBasis lessonBasis(const LessonState& lesson) {
  return comparedTime(lesson.rows).endToEnd ? TimeBasis::EndToEnd : TimeBasis::Kernel;
}

std::vector<Measurement> lessonRunsSoFar(const LessonState& lesson, size_t* ofCurrentStep) {
  std::vector<Measurement> out;
  const size_t step = size_t(std::max(lesson.step, 0));
  const size_t begin = step < lesson.firstRowOfStep.size() ? size_t(lesson.firstRowOfStep[step]) : lesson.rows.size();
  const size_t end = step + 1 < lesson.firstRowOfStep.size() ? size_t(lesson.firstRowOfStep[step + 1]) : lesson.rows.size();
  size_t current = 0;
  for (size_t r = 0; r < std::min(end, lesson.rows.size()); ++r)
    for (const Measurement& m : lesson.rows[r].runs) {
      out.push_back(m);
      current += r >= begin;
    }
  if (ofCurrentStep) *ofCurrentStep = current;
  return out;
}

std::vector<Measurement> ladderRowsShown(const Model& model, bool* fromLesson) {
  *fromLesson = false;
  const auto swept = model.sweep.rows.find("kernel");
  if (swept != model.sweep.rows.end() && !swept->second.empty()) return swept->second;
  std::vector<Measurement> out;
  if (!model.lesson.active) return out;
  for (Measurement& m : lessonRunsSoFar(model.lesson))
    if (const KernelFamily* f = familyOf(m.config); m.ok && f && f->formsLadder()) out.push_back(std::move(m));
  *fromLesson = !out.empty();
  return out;
}

namespace {

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

// An absolute error: exact 0, else three significant digits.
static std::string errorCell(double e) {
  if (e == 0) return "0";
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", e);
  return b;
}

Table lessonTable(const LessonState& lesson, const Peaks& peaks, bool haveGpu) {
  const std::vector<const LessonRun*> runOf = runsOfRows(lesson);
  bool haveSeed = false, likeSeedColumn = false;
  std::string seedMethodLabel;
  const ComparedTime compared = comparedTime(lesson.rows);
  for (const LessonRun* r : runOf) {
    if (!r) continue;
    haveSeed = haveSeed || !r->seed.empty();
    // A seed timed its own way (seed-method:) shows ours timed so, with or without seed: times
    // (seed 003's Tabla 13 gives its figures as reference columns).
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
  columns.push_back({"GB/s", {compared.gbs, true}});
  columns.push_back({"% of peak", {"% of peak (" + compared.label + ")", true}});
  for (const char* h : {"vs CPU", "result"}) columns.push_back({h, {h, true}});
  columns.push_back({"CPU ms", {"CPU loop ms", true}});
  // A result's error against the exact value: for families whose result is one value (not a matrix).
  const bool scalar = std::any_of(lesson.rows.begin(), lesson.rows.end(), [](const LessonRow& row) {
    const KernelFamily* f = familyOf(row.config);
    return f && f->scalarResult();
  });
  if (scalar)
    for (const char* h : {"error", "CPU loop error"}) columns.push_back({h, {h, true}});
  columns.push_back({"occupancy", {"theoretical occupancy", true}});
  // The columns the lesson's families add (the matrices: % of the measured copy, GFLOP/s, sizes
  // and tile), in the families' order, each once.
  for (const KernelFamily* f : families()) {
    bool used = false;
    for (const LessonRow& row : lesson.rows) used = used || familyOf(row.config) == f;
    if (used)
      for (const std::string& h : f->extraColumns())
        if (std::none_of(columns.begin(), columns.end(), [&](const auto& col) { return col.first == h; }))
          columns.push_back({h, {h == "% copy" ? "% of copy" : h, h != "size" && h != "tile"}});
  }
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
  // What each run is next to its name (the type fell off a 1600 px screen at the far end).
  for (const char* id : {"type", "kernel"}) {
    auto it = std::find_if(columns.begin(), columns.end(), [&](const auto& c) { return c.first == id; });
    if (it == columns.end()) continue;
    auto col = *it;
    columns.erase(it);
    columns.insert(columns.begin() + 1, col);
  }
  // Columns the lesson asks to show (show-columns:) come next, before the times: they are its
  // point (the precision lesson's errors, with the result they are errors of).
  {
    std::vector<std::string> front;
    for (const std::string& c : lesson.lesson.shownColumns) {
      if (c == "error" || c == "CPU loop error")
        if (std::find(front.begin(), front.end(), "result") == front.end()) front.push_back("result");
      front.push_back(c);
    }
    if (!front.empty())  // the seed's own figures beside them, to compare
      for (size_t i = 0; i < lesson.lesson.referenceColumns.size(); ++i) front.push_back("ref" + std::to_string(i));
    size_t at = 3;  // after run, kernel, type
    for (const std::string& id : front) {
      auto it = std::find_if(columns.begin(), columns.end(), [&](const auto& c) { return c.first == id; });
      if (it == columns.end()) continue;
      auto col = *it;
      columns.erase(it);
      columns.insert(columns.begin() + std::min(at++, columns.size()), col);
    }
  }
  // Units and sources (the GUI's header tooltips, the exports' column list); the columns a step
  // needs are shown, the rest on demand (right-click a header).
  const std::string basisWords = compared.endToEnd ? "end-to-end" : "kernel";
  const std::map<std::string, std::string> notes = {
      {"time", "our run on this GPU: median " + basisWords + " time of the repetitions, ms"},
      {"floor", "the step's bytes read once at this GPU's " +
                    std::string(peaks.readGBs > 0 ? "measured read peak" : "theoretical peak") + ": no kernel can be faster"},
      {"seed time", "the time the seed document printed, on its GPU, timed its way"},
      {"seed floor at peak", "the same bytes at the seed GPU's theoretical peak (memory clock x bus width, assets/seed_gpus.txt)"},
      {"seed % of its peak", "the bandwidth the seed's time implies as a share of its GPU's peak; over 100 % is impossible"},
      {"seed check", "IMPOSSIBLE: faster than reading the input once at the seed GPU's peak, so not a kernel time"},
      {"like", "our run timed the seed's way (its span and statistic), ms"},
      {"seed GB/s", "bytes read (N x element size) / the seed's time, in 10^9 B/s; a figure the seed printed itself "
                    "may differ (2^30-byte GB, other bytes counted)"},
      {"seed GPU", "the GPU the seed measured on"},
      {"seed GPU peak GB/s", "memory clock x bus width of the seed's GPU, 10^9 B/s"},
      {"seed MB read", "N x element size, 10^6 B"},
      {"GB/s", "the bytes the run moves / the time column, 10^9 B/s: a reduction reads N x element size; a transpose "
               "reads and writes every element (on each of its passes); a product reads A and B and writes C"},
      {"% of peak", "GB/s / this GPU's theoretical peak (memory clock x bus width)"},
      {"vs CPU", "the seeds' CPU loop's time / our end-to-end time"},
      {"CPU ms", "the seeds' CPU code for this run on one core of this machine, median ms: a reduction's loop, a "
                 "matrix product's triple loop, a transpose's double loop"},
      {"result", "the kernel's result; FAIL where it differs from the exact CPU reference beyond the type's tolerance"},
      {"error", "|result - exact|: the exact sum is computed on the CPU in long double with compensation"},
      {"CPU loop error", "|the seeds' CPU loop's result - exact|: a sequential loop in the element type (as the seeds' CPU code)"},
      {"occupancy", "resident warps per SM the launch allows (threads, blocks, registers, shared memory) over the SM's "
                    "maximum: the CUDA occupancy calculator's figure"},
      {"N", "elements reduced"},
      {"final", "how the partial sums are finished: cpu, gpu (a second pass), atomic, lastblock"}};
  std::set<std::string> onDemand(lessonColumnsOnDemand().begin(), lessonColumnsOnDemand().end());
  for (const std::string& c : lesson.lesson.shownColumns) onDemand.erase(c);
  for (const auto& [id, col] : columns) {
    t.headers.push_back(col.header);
    t.numeric.push_back(col.numeric);
    const auto note = notes.find(id);
    t.notes.push_back(note != notes.end() ? note->second
                      : id.rfind("ref", 0) == 0 ? "from the lesson file: the seed's own figures"
                                                : "");
    t.onDemand.push_back(onDemand.count(id) > 0);
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
    // The seed's method needs no other measurement where it changes neither the repetitions nor the
    // L2 (a run without seed figures is not measured twice: it shows '-' for such a method).
    if (run && !run->seedMethodConfig && run->seedMethod && m) {
      const SeedMethod& sm = *run->seedMethod;
      const bool same = (sm.reps <= 0 || sm.reps == m->config.reps) && (sm.warmL2 < 0 || (sm.warmL2 == 1) == m->config.warmL2);
      if (same) like = m;
    }
    cell["floor"] = floorPeak > 0 ? timeCell(bytesMoved(c) / (floorPeak * 1e9) * 1e3) : "-";
    if (const KernelInfo* k = findKernel(c.kernel)) {
      for (auto& [column, value] : familyOf(*k).configCells(*k, c)) cell[column] = value;
      if (!familyOf(*k).hasOperation()) cell["final"] = "-";  // no final stage: the kernel writes the whole output
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
      // Against the exact sum for floats; integers against what their accumulator must give
      // (the exact sum wrapped to its width: a wrap is not an error of the kernel).
      const KernelFamily* fam = familyOf(c);
      auto errorOf = [&](const Value& v) {
        if (v.isInt) return errorCell(std::fabs(double(v.i) - double(m->reference.expected.i)));
        return errorCell(std::fabs(v.f - double(m->reference.exact)));
      };
      const bool oneValue = fam && fam->scalarResult() && m->haveReference;
      cell["error"] = oneValue ? errorOf(m->result) : "-";
      cell["CPU loop error"] = oneValue && m->haveCpu ? errorOf(m->cpu.result) : "-";
      const ResourceUsage& r = m->resources;
      cell["occupancy"] = c.kernel != "cub" && r.occupancy > 0 ? fixed(100 * r.occupancy, 0) + " %" : "-";
      cell["CPU ms"] = m->haveCpu ? fixed(m->cpu.ms.median, 3) : "-";
    } else {
      for (const char* k : {"time", "GB/s", "% of peak", "vs CPU", "occupancy", "CPU ms"}) cell[k] = "-";
      // Recorded without a GPU: what this machine measured (the seeds' CPU loop) is still shown.
      const Measurement* cpuOnly = nullptr;
      for (const Measurement* x : ours)
        if (x->haveCpu) cpuOnly = x;
      cell["result"] = cpuOnly ? "no GPU; CPU loop " + timeCell(cpuOnly->cpu.ms.median) + ", result " + cpuOnly->cpu.result.text()
                       : !haveGpu ? "not measured: needs an NVIDIA GPU"
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

float lessonBarHeight(const Model& model, float width, float maxHeight) {
  const LessonState& l = model.lesson;
  if (!l.active || l.lesson.steps.empty()) return 0;
  const LessonStep& st = l.lesson.steps[size_t(std::clamp(l.step, 0, int(l.lesson.steps.size()) - 1))];
  const float s = uiScale();
  const float captionW = std::max(200.0f, width - 260 * s - 2 * ImGui::GetStyle().WindowPadding.x);
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  const float h = ImGui::CalcTextSize((l.lesson.title + "  (step 10 of 10)").c_str(), nullptr, false, captionW).y +
                  ImGui::CalcTextSize(st.title.c_str(), nullptr, false, captionW).y +
                  ImGui::CalcTextSize(st.caption.c_str(), nullptr, false, captionW).y;
  // A long caption at a projector scale would leave the views a sliver: the bar stops at
  // maxHeight and its caption shrinks (drawLessonBar).
  return std::min(h + 2 * spacing + 2 * ImGui::GetStyle().WindowPadding.y + 4 * s, std::max(maxHeight, 0.0f));
}

namespace {
// The caption's font scale (1 down to 0.7) at which it fits `height` when wrapped at `width`.
float captionScaleToFit(const std::string& caption, float width, float height) {
  for (float f = 1.0f; f > 0.7f; f -= 0.05f)
    if (ImGui::CalcTextSize(caption.c_str(), nullptr, false, width / f).y * f <= height) return f;
  return 0.7f;  // and the caption scrolls
}
}  // namespace

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
  ImGui::PopTextWrapPos();
  // The caption takes what is left of the bar, in smaller type when the bar was capped.
  const float captionH = std::max(ImGui::GetTextLineHeight(), ImGui::GetContentRegionAvail().y);
  // Presenting, the caption keeps its size (read from the back of the room) and scrolls instead.
  const float f = model.presentation ? 1.0f : captionScaleToFit(st.caption, captionW, captionH);
  ImGui::BeginChild("lesson-caption", ImVec2(captionW, captionH), false);
  ImGui::SetWindowFontScale(f);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(st.caption.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
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
  // An exercise step: its goals' verdict after the editor's Check, in sight of the class even when
  // the editor's Checks tab is not (a projector's small window).
  const EditorState& e = model.editor;
  if (!st.exercise.empty() && !st.requirements.empty()) {
    if (e.checking) {
      ImGui::TextDisabled("Checking...");
    } else if (!e.goalResults.empty()) {
      const int met = int(std::count_if(e.goalResults.begin(), e.goalResults.end(), [](const usercode::GoalResult& g) { return g.met; }));
      const Palette& pal = palette(model.ui.theme);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(met == int(e.goalResults.size()) ? pal.ok : pal.conflict), "Goals: %d of %zu met", met,
                         e.goalResults.size());
      if (ImGui::IsItemHovered()) {
        std::string tip;
        for (const usercode::GoalResult& g : e.goalResults)
          tip += std::string(tip.empty() ? "" : "\n") + (g.met ? "met " : "not yet ") + g.requirement.text() + ": " + g.why;
        ImGui::SetTooltip("%s", tip.c_str());
      }
    } else {
      ImGui::TextDisabled("Goals: press Check");
    }
  }
  ImGui::EndGroup();
}

namespace {

std::string demonstrationTitle(const LessonPitfall& p) {
  std::string t = pitfallTitle(p.request.kind);
  if (p.result) t += " (" + p.result->source + ")";
  return t;
}

void drawTable(const Table& t, const char* id) {
  // As tall as its rows; a horizontal scroll bar only when the columns are wider than the window.
  const ImGuiStyle& st = ImGui::GetStyle();
  float width = 0;
  for (size_t c = 0; c < t.headers.size(); ++c) {
    float w = ImGui::CalcTextSize(t.headers[c].c_str()).x;
    for (const auto& row : t.rows)
      if (c < row.size()) w = std::max(w, ImGui::CalcTextSize(row[c].c_str()).x);
    width += w + 2 * st.CellPadding.x + 1;
  }
  const bool scroll = width > ImGui::GetContentRegionAvail().x;
  ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  ImVec2 size(0, 0);
  if (scroll) {
    flags |= ImGuiTableFlags_ScrollX;
    const float rowH = ImGui::GetTextLineHeight() + 2 * st.CellPadding.y + 1;
    size.y = rowH * float(t.rows.size() + 1) + st.ScrollbarSize + 2;
  }
  if (!ImGui::BeginTable(id, int(t.headers.size()), flags, size)) return;
  for (const auto& hd : t.headers) ImGui::TableSetupColumn(hd.c_str());
  ImGui::TableHeadersRow();
  for (const auto& row : t.rows) {
    ImGui::TableNextRow();
    for (const std::string& cell : row) {
      ImGui::TableNextColumn();
      const bool wrong = cell == "WRONG" || cell == "CHANGED";
      if (wrong) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.9f, 0.25f, 0.2f, 1.0f));
      ImGui::TextUnformatted(cell.c_str());
      if (wrong) ImGui::PopStyleColor();
    }
  }
  ImGui::EndTable();
}

}  // namespace

void drawLessonPitfalls(Model& model) {
  LessonState& l = model.lesson;
  if (l.step < 0 || l.step >= int(l.firstPitfallOfStep.size())) return;
  const LessonStep& st = l.lesson.steps[size_t(l.step)];
  const int first = l.firstPitfallOfStep[size_t(l.step)];
  for (int k = first; k < first + int(st.pitfalls.size()) && k < int(l.pitfalls.size()); ++k) {
    const LessonPitfall& p = l.pitfalls[size_t(k)];
    ImGui::PushID(k);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram));
    ImGui::TextWrapped("%s", demonstrationTitle(p).c_str());
    ImGui::PopStyleColor();
    // The seed's lines beside the fix.
    if (ImGui::BeginTable("code", 2, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchSame)) {
      const auto [seedHeading, fixHeading] = pitfallCodeHeadings(p.request.kind);
      ImGui::TableSetupColumn(seedHeading.c_str());
      ImGui::TableSetupColumn(fixHeading.c_str());
      ImGui::TableHeadersRow();
      ImGui::TableNextRow();
      ImGui::PushFont(fonts().mono);
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", pitfallSeedCode(p.request.kind).c_str());
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", pitfallFixCode(p.request.kind).c_str());
      ImGui::PopFont();
      ImGui::EndTable();
    }
    if (!p.result) {
      ImGui::TextDisabled(p.queued ? "running..." : "not run yet");
    } else if (!p.result->ok) {
      ImGui::TextWrapped("Not run: %s", p.result->error.c_str());
    } else {
      // The measured facts first, then what they mean (a short screen still shows the table).
      const Table t = pitfallTable(*p.result);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", t.caption.c_str());
      ImGui::PopStyleColor();
      ImGui::PushFont(fonts().mono);
      drawTable(t, "pitfall-table");
      ImGui::PopFont();
      for (const std::string& f : pitfallFindings(*p.result)) {
        ImGui::Bullet();
        ImGui::TextWrapped("%s", f.c_str());
      }
    }
    ImGui::PopID();
    ImGui::Spacing();
  }
}

void drawLessonPitfallsWindow(Model& model) {
  const LessonState& l = model.lesson;
  if (!l.active || l.step < 0 || l.step >= int(l.lesson.steps.size()) || l.lesson.steps[size_t(l.step)].pitfalls.empty())
    return;
  // Over the centre and the right panel (the live plots have nothing to show in this lesson).
  Rect area;
  for (const char* name : {"Views", "Results", "Bandwidth"}) {
    const auto it = model.layout.find(name);
    if (it == model.layout.end() || it->second.w <= 0 || it->second.h <= 0) continue;
    const Rect& r = it->second;
    if (area.w <= 0) {
      area = r;
      continue;
    }
    const float x1 = std::max(area.x + area.w, r.x + r.w), y1 = std::max(area.y + area.h, r.y + r.h);
    area.x = std::min(area.x, r.x), area.y = std::min(area.y, r.y);
    area.w = x1 - area.x, area.h = y1 - area.y;
  }
  if (area.w <= 0 || area.h <= 0) return;
  ImGui::SetNextWindowPos(ImVec2(area.x, area.y));
  ImGui::SetNextWindowSize(ImVec2(area.w, area.h));
  ImGui::SetNextWindowBgAlpha(1.0f);  // the views underneath must not show through
  const std::string title = pitfallWindowHeading(l.lesson.steps[size_t(l.step)].pitfalls.front().kind) + ": step " +
                            std::to_string(l.step + 1) + "###lesson-pitfalls";
  if (ImGui::Begin(title.c_str(), nullptr, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                               ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_HorizontalScrollbar))
    drawLessonPitfalls(model);
  ImGui::End();
  model.layout["pitfalls"] = area;
}

std::string pitfallMarkdown(const LessonPitfall& p) {
  const auto [seedHeading, fixHeading] = pitfallCodeHeadings(p.request.kind);
  std::string md = "### " + demonstrationTitle(p) + "\n\n" + seedHeading + ":\n\n```cuda\n" + pitfallSeedCode(p.request.kind) +
                   "\n```\n\n" + fixHeading + ":\n\n```cuda\n" + pitfallFixCode(p.request.kind) + "\n```\n\n";
  if (!p.result) return md + "Not run.\n\n";
  if (!p.result->ok) return md + "Not run: " + p.result->error + "\n\n";
  for (const std::string& f : pitfallFindings(*p.result)) md += "- " + f + "\n";
  const Table t = pitfallTable(*p.result);
  return md + "\n" + t.caption + ":\n\n" + markdownTable(t) + "\n";
}

std::vector<std::string> lessonPitfallFiles(const LessonState& lesson) {
  std::vector<std::string> out;
  std::map<std::string, int> seen;
  for (const LessonPitfall& p : lesson.pitfalls) {
    const std::string stem = (isTransferDemo(p.request.kind) ? "transfers-" : "pitfall-") + std::string(name(p.request.kind));
    const int n = ++seen[stem];
    out.push_back(stem + (n == 1 ? "" : "-" + std::to_string(n)) + std::string(dataFormat().extension));
  }
  return out;
}

void drawLessonTable(Model& model) {
  if (!model.lesson.active) {
    ImGui::TextDisabled("No lesson open: Lessons menu, or `reducelab lesson upc`.");
    return;
  }
  if (model.lesson.step >= 0 && model.lesson.step < int(model.lesson.lesson.steps.size()) &&
      !model.lesson.lesson.steps[size_t(model.lesson.step)].pitfalls.empty())
    ImGui::TextDisabled("This step's demonstration is shown in its own window, over the views.");
  if (model.lesson.rows.empty()) return;  // a lesson of pitfalls only: no measured runs to list
  // A GPU recording's rows were measured on a GPU, whatever this machine has.
  const bool recordedOnGpu = model.replay.active() && model.replay.recording->fromGpu();
  const Table t = lessonTable(model.lesson, model.peaks, !model.cpuModel() || recordedOnGpu);
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("lesson-table", int(t.headers.size()), flags | ImGuiTableFlags_Hideable)) {
    ImGui::TableSetupScrollFreeze(1, 1);
    for (size_t c = 0; c < t.headers.size(); ++c)
      ImGui::TableSetupColumn(t.headers[c].c_str(), c < t.onDemand.size() && t.onDemand[c] ? ImGuiTableColumnFlags_DefaultHide : 0);
    // The header row by hand: each header's tooltip says its unit and source.
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (size_t c = 0; c < t.headers.size(); ++c) {
      if (!ImGui::TableSetColumnIndex(int(c))) continue;
      ImGui::TableHeader(t.headers[c].c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s%s(right-click: show or hide columns)", c < t.notes.size() ? t.notes[c].c_str() : "",
                          c < t.notes.size() && !t.notes[c].empty() ? "\n" : "");
    }
    int first = model.lesson.step < int(model.lesson.firstRowOfStep.size()) ? model.lesson.firstRowOfStep[size_t(model.lesson.step)] : -1;
    const int next = model.lesson.step + 1 < int(model.lesson.firstRowOfStep.size())
                         ? model.lesson.firstRowOfStep[size_t(model.lesson.step + 1)] : int(t.rows.size());
    for (size_t i = 0; i < t.rows.size(); ++i) {
      ImGui::TableNextRow();
      if (int(i) >= first && int(i) < next)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImGuiCol_HeaderActive, 0.5f));
      // A new step brings its rows into sight, once (the user may scroll away afterwards).
      if (int(i) == first && model.lesson.tableScrolledToStep != model.lesson.step) {
        ImGui::SetScrollHereY(0.25f);
        model.lesson.tableScrolledToStep = model.lesson.step;
      }
      for (const std::string& cell : t.rows[i]) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(cell.c_str());
      }
    }
    ImGui::EndTable();
  }
}

}  // namespace rl::gui
