// Bank conflicts: for the current step and the selected warp, the 32 banks as columns with each
// lane's access placed in its bank (one row per distinct word a bank must serve: a wavefront),
// conflicts in red with their n-way degree; below, the block's extra wavefronts per step.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {
namespace {

std::string slotName(const trace::StepHeader& h, int slot) {
  const trace::SlotInfo& s = h.slots[slot];
  int loadNo = 0;
  for (int k = 0; k <= slot; ++k)
    if (h.slots[k].space == trace::kSpaceShared && h.slots[k].access == trace::kLoad) ++loadNo;
  char b[64];
  if (s.access == trace::kStore) std::snprintf(b, sizeof b, "store (%d B)", s.bytes);
  else std::snprintf(b, sizeof b, "load %d (%d B)", loadNo, s.bytes);
  return b;
}

void drawConflictBars(Model& model, float height) {
  TraceState& t = model.trace;
  const Palette& pal = palette(model.ui.theme);
  const float s = uiScale();
  ImGui::TextWrapped("Extra wavefronts from bank conflicts, whole block, per step:");
  const ImVec2 o = ImGui::GetCursorScreenPos();
  // What is left under the (wrapped) heading: the bars never reach under the view's edge.
  const ImVec2 size(ImGui::GetContentRegionAvail().x, std::max(1.0f, std::min(height, ImGui::GetContentRegionAvail().y)));
  if (size.y < 2.5f * ImGui::GetTextLineHeight()) {
    ImGui::Dummy(size);
    return;
  }
  ImGui::InvisibleButton("conflict-bars", size);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  int most = 1;
  for (const StepSummary& st : t.summary.steps) most = std::max(most, st.wavefronts - st.idealWavefronts);
  const int steps = t.data.numSteps();
  const float bw = size.x / float(steps);
  const float labelH = ImGui::GetTextLineHeight();
  for (int i = 0; i < steps; ++i) {
    const StepSummary& st = t.summary.steps[size_t(i)];
    const int extra = st.wavefronts - st.idealWavefronts;
    const float h = (size.y - 2.2f * labelH) * float(extra) / float(most);
    const ImVec2 b0(o.x + float(i) * bw + 2 * s, o.y + size.y - labelH - h);
    const ImVec2 b1(o.x + float(i + 1) * bw - 2 * s, o.y + size.y - labelH);
    if (i == t.step) dl->AddRectFilled(ImVec2(b0.x - 1, o.y), ImVec2(b1.x + 1, b1.y), IM_COL32(80, 130, 240, 50));
    if (extra > 0) dl->AddRectFilled(b0, b1, pal.conflict);
    else dl->AddLine(ImVec2(b0.x, b1.y - 1), ImVec2(b1.x, b1.y - 1), pal.ok, 2.0f);
    char num[16];
    std::snprintf(num, sizeof num, "%d", extra);
    if (extra > 0 && bw > ImGui::CalcTextSize(num).x + 4) centeredText(dl, ImVec2((b0.x + b1.x) * 0.5f, b0.y - labelH * 0.5f), pal.text, num);
    const std::string lab = shortStepLabel(t.data.steps[size_t(i)]);
    if (ImGui::CalcTextSize(lab.c_str()).x <= bw)  // a label wider than its bar would cover its neighbours'
      centeredText(dl, ImVec2((b0.x + b1.x) * 0.5f, o.y + size.y - labelH * 0.5f), i == t.step ? pal.accent : pal.dim, lab.c_str());
  }
  if (ImGui::IsItemHovered()) {
    const int i = std::clamp(int((ImGui::GetIO().MousePos.x - o.x) / bw), 0, steps - 1);
    const StepSummary& st = t.summary.steps[size_t(i)];
    ImGui::SetTooltip("step %d (%s): %d shared-memory wavefronts, %d without conflicts (%d extra)", i,
                      st.label.c_str(), st.wavefronts, st.idealWavefronts, st.wavefronts - st.idealWavefronts);
    if (ImGui::IsMouseClicked(0)) t.step = i;
  }
}

}  // namespace

void drawBankConflicts(Model& model) {
  TraceState& t = model.trace;
  const Palette& pal = palette(model.ui.theme);
  const float s = uiScale();
  const trace::StepHeader& h = t.data.steps[size_t(t.step)];
  // Warp and access selectors.
  // The slider shrinks before its label is cut (a quarter of All four at a large scale); where even
  // a short slider leaves no room, the label goes and the tooltip names it.
  const float labelW = ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("warp").x;
  const float availX = ImGui::GetContentRegionAvail().x;
  const bool labelled = availX - labelW >= 60 * s;
  ImGui::SetNextItemWidth(labelled ? std::min(160 * s, availX - labelW) : availX);
  int warp = t.warp;
  if (ImGui::SliderInt(labelled ? "warp" : "##warp", &warp, 0, t.data.numWarps() - 1)) t.warp = warp;
  if (!labelled && ImGui::IsItemHovered()) ImGui::SetTooltip("warp");
  std::vector<int> slots;
  for (int k = 0; k < trace::kMaxSlots; ++k)
    if (h.slots[k].space == trace::kSpaceShared) slots.push_back(k);
  if (slots.empty()) {
    ImGui::TextWrapped("Step %d (%s) makes no shared-memory access.", t.step, stepLabel(h).c_str());
  } else {
    if (std::find(slots.begin(), slots.end(), t.slot) == slots.end()) t.slot = slots.front();
    const float circle = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
    for (int k : slots) {
      sameLineIfFits(circle + ImGui::CalcTextSize(slotName(h, k).c_str()).x);
      const std::string brief = std::to_string(k + 1) + "##slot";  // the slot number alone when narrow
      if (ImGui::RadioButton(labelThatFits(slotName(h, k), brief, circle).c_str(), t.slot == k)) t.slot = k;
    }
  }
  // A short view keeps the warp's banks (the lesson's point) and leaves the per-step bars out.
  const float availY = ImGui::GetContentRegionAvail().y;
  const bool bars = availY >= 16 * ImGui::GetTextLineHeightWithSpacing();
  const float barsH = bars ? std::min(std::max(90 * s, availY * 0.30f), availY * 0.45f) : 0.0f;
  ImGui::BeginChild("bank-grid", ImVec2(0, bars ? ImGui::GetContentRegionAvail().y - barsH - 8 * s : 0), false);
  std::vector<BankAccess> acc = bankAccesses(t.data, t.step, t.warp);
  const BankAccess* a = nullptr;
  for (const BankAccess& x : acc)
    if (x.slot == t.slot) a = &x;
  if (!a) {
    ImGui::TextWrapped("Warp %d makes no access in this slot at step %d (its lanes are idle).", t.warp, t.step);
  } else {
    const int wordsPerLane = a->bytes / 4;
    const int phaseLanes = a->phaseLanes;  // as the analysis served it (packed loads: wider phases)
    const int phases = 32 / phaseLanes;
    char sentence[160];
    if (a->degree > 1)
      std::snprintf(sentence, sizeof sentence, "%d-way bank conflict: %d wavefronts instead of %d (%d lanes in conflict)",
                    a->degree, a->wavefronts, a->idealWavefronts, a->conflictLanes);
    else
      std::snprintf(sentence, sizeof sentence, "No bank conflict: %d wavefront%s for %d active lanes", a->wavefronts,
                    a->wavefronts == 1 ? "" : "s", a->activeLanes);
    // Long sentences wrap at the view's edge; where even the wrapped sentence has no room (a tiny
    // quarter of All four), the grid alone shows it.
    const float wrapped = ImGui::CalcTextSize(sentence, nullptr, false, ImGui::GetContentRegionAvail().x).y;
    const bool roomForText = ImGui::GetContentRegionAvail().y >= wrapped + ImGui::GetTextLineHeightWithSpacing();
    if (roomForText) {
      ImGui::PushTextWrapPos(0.0f);
      textWrappedColored(ImGui::ColorConvertU32ToFloat4(a->degree > 1 ? pal.conflict : pal.ok), "%s", sentence);
      ImGui::PopTextWrapPos();
    }
    if (phases > 1 && roomForText) {
      helpMarker(wordsPerLane == 4 && phases == 4
                     ? "Accesses of 16 bytes are served a quarter of a warp at a time (8 lanes x 16 B = 128 B, "
                       "one wavefront): conflicts only count within each quarter."
                 : wordsPerLane == 4
                     ? "A 16-byte load whose lanes come in pairs with one address: two lanes share each returned "
                       "register, so half a warp at a time (conflicts only count within each half)."
                     : "Accesses of 8 bytes are served half a warp at a time (16 lanes x 8 B = 128 B, "
                       "one wavefront): conflicts only count within each half.");
    }
    // Per phase: bank -> distinct words (rows) -> lanes.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float cellW = (ImGui::GetContentRegionAvail().x - 4 * s) / 32.0f;
    // Rows shrink to fit every wavefront of every phase (a 4-way conflict showed 2.5 of its 4 rows);
    // lane numbers show where a row still holds them.
    int allRows = 0;
    for (int p = 0; p < phases; ++p) {
      std::map<int, std::map<int, int>> words;
      for (int l = p * phaseLanes; l < (p + 1) * phaseLanes; ++l)
        if (a->word[l] >= 0)
          for (int k = 0; k < wordsPerLane; ++k) words[(a->word[l] + k) % 32][a->word[l] + k] = 1;
      int rows = 1;
      for (auto& [b, w] : words) rows = std::max(rows, int(w.size()));
      allRows += rows + 1;  // + the bank numbers
    }
    const char* legend = "Columns: banks. Each row: one wavefront. Cell: the lane(s) of that word (n+ = broadcast).";
    const float spacingY = ImGui::GetStyle().ItemSpacing.y;
    const float legendH = ImGui::CalcTextSize(legend, nullptr, false, ImGui::GetContentRegionAvail().x).y + spacingY;
    // Phase captions ("lanes 0-15") give way first when even 4-pixel rows would not fit.
    bool phaseText = phases > 1;
    auto roomFor = [&](bool withText) {
      const float perPhase = (withText ? ImGui::GetTextLineHeightWithSpacing() : 0.0f) + 4 * s + spacingY;
      return ImGui::GetContentRegionAvail().y - float(phases) * perPhase;
    };
    if (phaseText && roomFor(true) < 4.0f * float(std::max(1, allRows))) phaseText = false;
    const float room = roomFor(phaseText);
    const float rowsNeed = float(std::max(1, allRows)) * (ImGui::GetTextLineHeight() + 6 * s);
    const bool showLegend = room - legendH >= rowsNeed * 0.8f;  // the legend goes before the rows shrink much
    const float gridRoom = room - (showLegend ? legendH : 0.0f) - 2;
    const float rowH = std::max(4.0f, std::min(ImGui::GetTextLineHeight() + 6 * s, gridRoom / float(std::max(1, allRows))));
    const bool rowText = rowH >= ImGui::GetTextLineHeight();
    for (int p = 0; p < phases; ++p) {
      std::map<int, std::map<int, std::vector<int>>> banks;  // bank -> word -> lanes
      for (int l = p * phaseLanes; l < (p + 1) * phaseLanes; ++l) {
        if (a->word[l] < 0) continue;
        for (int k = 0; k < wordsPerLane; ++k) banks[(a->word[l] + k) % 32][a->word[l] + k].push_back(l);
      }
      int rows = 1;
      for (auto& [b, words] : banks) rows = std::max(rows, int(words.size()));
      if (phaseText) ImGui::Text("lanes %d-%d", p * phaseLanes, (p + 1) * phaseLanes - 1);
      else if (p > 0) ImGui::Dummy(ImVec2(0, 4 * s));  // the halves stay apart
      const ImVec2 o = ImGui::GetCursorScreenPos();
      // Bank numbers: every bank where two digits and a gap fit in a cell, else every 2nd or 4th
      // (touching numbers read as one: "1011121314").
      const float numW = ImGui::CalcTextSize("31").x * 1.3f;
      const int every = cellW > numW ? 1 : 2 * cellW > numW ? 2 : 4 * cellW > numW ? 4 : 0;
      for (int b = 0; rowText && every > 0 && b < 32; b += every) {
        char num[8];
        std::snprintf(num, sizeof num, "%d", b);
        centeredText(dl, ImVec2(o.x + (float(b) + 0.5f) * cellW, o.y + rowH * 0.5f), pal.dim, num);
      }
      // Rounded corners only where a cell is large enough to show them: a rounded rectangle is dozens
      // of anti-aliased triangles, a plain one two, and a 32-way conflict fills 1,024 cells (on the
      // CPU model's rasterizer about 1.5 ms of a 19 ms frame at 1600x900).
      const float cellRounding = std::min(cellW, rowH) >= 12.0f * s ? 2.0f : 0.0f;
      for (int r = 0; r < rows; ++r)
        for (int b = 0; b < 32; ++b) {
          const ImVec2 c0(o.x + float(b) * cellW + 1, o.y + float(r + 1) * rowH + 1);
          const ImVec2 c1(c0.x + cellW - 2, c0.y + rowH - 2);
          auto it = banks.find(b);
          const int words = it == banks.end() ? 0 : int(it->second.size());
          if (r >= words) {
            dl->AddRect(c0, c1, pal.grid);
            continue;
          }
          auto w = std::next(it->second.begin(), r);
          const bool conflict = words > 1;
          const bool broadcast = w->second.size() > 1;
          dl->AddRectFilled(c0, c1, conflict ? pal.conflict : (broadcast ? pal.broadcast : pal.ok), cellRounding);
          char lab[16];
          std::snprintf(lab, sizeof lab, broadcast ? "%d+" : "%d", w->second.front());
          if (rowText && cellW > ImGui::CalcTextSize(lab).x + 2)
            centeredText(dl, ImVec2((c0.x + c1.x) * 0.5f, (c0.y + c1.y) * 0.5f), IM_COL32(0, 0, 0, 255), lab);
          if (ImGui::IsMouseHoveringRect(c0, c1)) {
            ImGui::BeginTooltip();
            ImGui::Text("bank %d, word %d (byte %d)%s", b, w->first, w->first * 4,
                        conflict ? ": a conflict, served in its own wavefront" : "");
            for (int lane : w->second)
              ImGui::Text("lane %d (thread %d) -> sdata byte %d", lane, t.warp * 32 + lane, a->word[lane] * 4);
            if (broadcast) ImGui::TextUnformatted("several lanes read this word: one broadcast, no conflict");
            ImGui::EndTooltip();
          }
        }
      ImGui::Dummy(ImVec2(32 * cellW, float(rows + 1) * rowH + 2 * s));
    }
    if (showLegend) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.dim);
      ImGui::TextWrapped("%s", legend);
      ImGui::PopStyleColor();
    }
  }
  ImGui::EndChild();
  if (bars) drawConflictBars(model, barsH - ImGui::GetTextLineHeightWithSpacing());
}

}  // namespace rl::gui
