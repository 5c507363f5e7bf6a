// Reduction tree / data flow: for the first elements of the block, which element is added into
// which at each step, with the values - the classic diagram of seeds 000 and 001, drawn from
// the trace (shared-memory positions, or lanes for the register-based kernels).
#include <algorithm>
#include <cstdio>
#include <map>

#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {
namespace {

struct Flow {
  int position = -1;  // where the result lands (shared index or thread)
  int partner = -1;   // where the other operand came from, -1 if none
  double value = 0;
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

uint64_t shownVersion_ = 0;

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
  static int columnsChoice = 0;  // 0: the default, 16 (shared-memory trees) or 32 (a warp's lanes)
  if (columnsChoice == 0 || (registers && columnsChoice == 16 && t.version != shownVersion_)) columnsChoice = registers ? 32 : 16;
  shownVersion_ = t.version;
  ImGui::TextUnformatted("Elements shown:");
  for (int c : {16, 32, 64}) {
    ImGui::SameLine();
    char lab[16];
    std::snprintf(lab, sizeof lab, "%d", c);
    if (ImGui::RadioButton(lab, columnsChoice == c)) columnsChoice = c;
  }
  ImGui::SameLine(0, 20 * s);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.dim), "%s",
                     registers ? "columns: threads (registers and shuffles)" : "columns: sdata[] positions");
  const int K = std::min(columnsChoice, t.data.blockSize());
  const int steps = t.data.numSteps();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  float labelW = 0;
  for (const auto& h : t.data.steps) labelW = std::max(labelW, ImGui::CalcTextSize(stepLabel(h).c_str()).x);
  labelW += 8 * s;
  const float colW = (avail.x - labelW) / float(K);
  const float rowH = std::max(ImGui::GetTextLineHeight() * 1.3f, (avail.y - 4 * s) / float(steps));
  ImGui::Dummy(ImVec2(avail.x, rowH * float(steps)));
  auto center = [&](int pos, int row) {
    return ImVec2(o.x + labelW + (float(pos) + 0.5f) * colW, o.y + (float(row) + 0.5f) * rowH);
  };
  const float r = std::min(colW, rowH) * 0.30f;
  std::map<int, double> last;  // position -> latest value
  for (int st = 0; st < steps; ++st) {
    const bool future = st > t.step;
    const ImU32 label = st == t.step ? pal.accent : (future ? pal.dim : pal.text);
    dl->AddText(ImVec2(o.x, center(0, st).y - ImGui::GetTextLineHeight() * 0.5f), label,
                stepLabel(t.data.steps[size_t(st)]).c_str());
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
      if (!future) {
        const std::string v = formatValue(f.value);
        if (ImGui::CalcTextSize(v.c_str()).x < colW - 2) centeredText(dl, c, pal.text, v.c_str(), IM_COL32(0, 0, 0, 140));
      }
      if (ImGui::IsMouseHoveringRect(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r)))
        ImGui::SetTooltip("step %d (%s): position %d = %s%s", st, stepLabel(t.data.steps[size_t(st)]).c_str(),
                          f.position, formatValue(f.value).c_str(),
                          f.partner >= 0 ? (" (combined with " + std::to_string(f.partner) + ")").c_str() : "");
      last[f.position] = f.value;
    }
    if (outHi >= 0) {
      char lab[48];
      std::snprintf(lab, sizeof lab, "+ [%d..%d]", outLo, outHi);
      const ImVec2 sz = ImGui::CalcTextSize(lab);
      const ImVec2 p(o.x + avail.x - sz.x - 2, o.y + float(st) * rowH + 1);
      dl->AddRectFilled(p, ImVec2(p.x + sz.x, p.y + sz.y), ImGui::GetColorU32(ImGuiCol_WindowBg));
      dl->AddText(p, future ? pal.dim : pal.accent, lab);
    }
  }
}

}  // namespace rl::gui
