// Reduction tree / data flow: for the first elements of the block, which element is added into
// which at each step, with the values - the classic diagram of seeds 000 and 001, drawn from
// the trace (shared-memory positions, or lanes for the register-based kernels).
#include <algorithm>
#include <cstdio>
#include <map>

#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {
namespace {

struct Flow {
  int position = -1;  // where the result lands (shared index or thread)
  int partner = -1;   // where the other operand came from, -1 if none
  double value = 0;
  bool known = true;  // instrumented traces know a value only where the lane stored it
};

// Where each active lane's work lands at `step`, and what it combined.
std::vector<Flow> flowsAt(const TraceData& t, int step, bool registers) {
  std::vector<Flow> out;
  const trace::StepHeader& h = t.steps[size_t(step)];
  const int acc = int(t.header.accBytes);
  int store = -1;
  std::vector<int> loads;
  for (int k = 0; k < trace::kMaxSlots; ++k) {
    if (h.slots[k].space != trace::kSpaceShared) continue;
    if (h.slots[k].access == trace::kStore) store = k;
    else loads.push_back(k);
  }
  for (int th = 0; th < t.blockSize(); ++th) {
    const trace::LaneRecord& r = t.lane(step, th);
    if (!(r.flags & trace::kLaneActive)) continue;
    Flow f;
    f.value = r.value;
    f.known = trace::laneValueKnown(t.header, r.flags);
    if (h.kind == trace::kStepShuffle) {
      f.position = th;
      f.partner = (th / 32) * 32 + r.addr[0];
    } else if (registers || store < 0) {
      f.position = th;  // register-based step: the lane itself
    } else {
      f.position = r.addr[store] / acc;
      for (int k : loads)
        if ((r.flags & trace::slotBit(k)) && r.addr[k] / acc != f.position) f.partner = r.addr[k] / acc;
    }
    out.push_back(f);
  }
  return out;
}


}  // namespace

void drawReductionTree(Model& model) {
  TraceState& t = model.trace;
  const Palette& pal = palette(model.ui.theme);
  const float s = uiScale();
  const bool registers = [&] {
    for (const auto& h : t.data.steps)
      if (h.kind == trace::kStepShuffle || h.kind == trace::kStepWarpReduce) return true;
    return false;
  }();
  int& columnsChoice = model.fields.treeColumns;  // the window's own
  uint64_t& shownVersion = model.fields.treeTraceVersion;
  if (columnsChoice == 0 || (registers && columnsChoice == 16 && t.version != shownVersion)) columnsChoice = registers ? 32 : 16;
  shownVersion = t.version;
  ImGui::TextUnformatted("Elements shown:");
  for (int c : {16, 32, 64}) {
    char lab[16];
    std::snprintf(lab, sizeof lab, "%d", c);
    sameLineIfFits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(lab).x);
    if (ImGui::RadioButton(lab, columnsChoice == c)) columnsChoice = c;
  }
  const char* columnsNote = registers ? "columns: threads (registers and shuffles)" : "columns: sdata[] positions";
  sameLineIfFits(ImGui::CalcTextSize(columnsNote).x);
  textWrappedColored(ImGui::ColorConvertU32ToFloat4(pal.dim), "%s", columnsNote);
  const int K = std::min(columnsChoice, t.data.blockSize());
  const int steps = t.data.numSteps();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  float labelW = 0;
  for (const auto& h : t.data.steps) labelW = std::max(labelW, ImGui::CalcTextSize(stepLabel(h).c_str()).x);
  labelW += 8 * s;
  // Partners beyond the shown columns get a "+ [a..b]" note in a margin of its own (it was drawn
  // over the last nodes).
  char widest[48];
  std::snprintf(widest, sizeof widest, "+ [%d..%d]", t.data.blockSize() - 1, t.data.blockSize() - 1);
  const float noteW = t.data.blockSize() > K ? ImGui::CalcTextSize(widest).x + 6 * s : 0.0f;
  const float colW = std::max(1.0f, (avail.x - labelW - noteW) / float(K));
  // Every step's row fits the view; step names show on the rows that have room for a line.
  const float rowH = std::max(2.0f, (avail.y - 4 * s) / float(std::max(1, steps)));
  const int labelEvery = labelStride(rowH, ImGui::GetTextLineHeight(), steps);
  ImGui::Dummy(ImVec2(avail.x, rowH * float(steps)));
  auto center = [&](int pos, int row) {
    return ImVec2(o.x + labelW + (float(pos) + 0.5f) * colW, o.y + (float(row) + 0.5f) * rowH);
  };
  const float r = std::min(colW, rowH) * 0.42f;
  std::map<int, double> last;  // position -> latest value
  const float lineH = ImGui::GetTextLineHeight();
  auto labelY = [&](int st) { return std::clamp(center(0, st).y - lineH * 0.5f, o.y, o.y + rowH * float(steps) - lineH); };
  const float curY = labelY(std::clamp(t.step, 0, std::max(0, steps - 1)));
  float lastLabelBottom = -1e30f, lastNoteBottom = -1e30f;
  for (int st = 0; st < steps; ++st) {
    const bool future = st > t.step;
    const ImU32 label = st == t.step ? pal.accent : (future ? pal.dim : pal.text);
    {  // the current step's name always; others on the stride where they touch neither it nor the last one
      const float y = labelY(st);
      const bool current = st == t.step;
      const bool apart = y >= lastLabelBottom && (current || y + lineH <= curY || y >= curY + lineH);
      if ((current || st % labelEvery == 0) && apart) {
        dl->AddText(ImVec2(o.x, y), label, stepLabel(t.data.steps[size_t(st)]).c_str());
        lastLabelBottom = y + lineH;
      }
    }
    if (st == t.step)
      dl->AddRectFilled(ImVec2(o.x + labelW, o.y + float(st) * rowH), ImVec2(o.x + avail.x, o.y + float(st + 1) * rowH),
                        IM_COL32(80, 130, 240, 40));
    int outLo = INT32_MAX, outHi = -1;  // partners beyond the shown columns, one label per row
    for (const Flow& f : flowsAt(t.data, st, registers)) {
      if (f.position < 0 || f.position >= K) continue;
      const ImU32 edge = future ? pal.grid : pal.accent;
      const ImVec2 c = center(f.position, st);
      if (f.partner >= 0 && st > 0) {
        if (f.partner < K) {
          dl->AddLine(center(f.partner, st - 1), c, edge, 1.5f * s);
        } else {  // a short stub from the upper right: the partner is further along sdata[]
          dl->AddLine(ImVec2(c.x + colW * 0.45f, c.y - rowH * 0.55f), c, edge, 1.5f * s);
          outLo = std::min(outLo, f.partner);
          outHi = std::max(outHi, f.partner);
        }
        if (last.count(f.position)) dl->AddLine(center(f.position, st - 1), c, pal.grid, 1.0f);
      }
      dl->AddCircleFilled(c, r, future ? pal.idle : pal.active);
      if (!future) {  // the value inside its circle, or only in the tooltip where it does not fit
        const std::string v = f.known ? formatValue(f.value) : "?";
        const ImVec2 vs = ImGui::CalcTextSize(v.c_str());
        if (vs.x <= 2 * r + 2 && vs.y * 0.75f <= 2 * r) centeredText(dl, c, pal.text, v.c_str(), IM_COL32(0, 0, 0, 140));
      }
      if (ImGui::IsMouseHoveringRect(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r)))
        ImGui::SetTooltip("step %d (%s): position %d = %s%s", st, stepLabel(t.data.steps[size_t(st)]).c_str(),
                          f.position, f.known ? formatValue(f.value).c_str() : "unknown (not stored)",
                          f.partner >= 0 ? (" (combined with " + std::to_string(f.partner) + ")").c_str() : "");
      last[f.position] = f.value;
    }
    if (outHi >= 0 && labelY(st) >= lastNoteBottom) {  // rows thinner than a line: notes that fit
      char lab[48];
      std::snprintf(lab, sizeof lab, "+ [%d..%d]", outLo, outHi);
      const ImVec2 sz = ImGui::CalcTextSize(lab);
      const ImVec2 p(o.x + avail.x - sz.x - 2, labelY(st));
      lastNoteBottom = p.y + lineH;
      dl->AddRectFilled(p, ImVec2(p.x + sz.x, p.y + sz.y), ImGui::GetColorU32(ImGuiCol_WindowBg));
      dl->AddText(p, future ? pal.dim : pal.accent, lab);
    }
  }
}

}  // namespace rl::gui
