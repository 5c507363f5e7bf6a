// Memory coalescing: a warp's 32 global-load addresses laid over 32-byte sectors and 128-byte
// lines (seed 004's lesson), the sectors per request, and an overview of every warp (shader).
#include <algorithm>
#include <cstdio>
#include <set>

#include "reducelab/gui/gl_view.hpp"
#include "reducelab/gui/shader.hpp"
#include "reducelab/gui/ui.hpp"
#include "reducelab/gui/panels.hpp"
#include "trace_views.hpp"

namespace rl::gui {
namespace {

GLuint coalescingProgram(std::string* error) { return windowProgram("fullscreen.vert", "coalescing.frag", error); }

int firstStepWithGlobalLoads(const TraceData& t) {
  for (int s = 0; s < t.numSteps(); ++s)
    for (const auto& slot : t.steps[size_t(s)].slots)
      if (slot.space == trace::kSpaceGlobal && slot.access != trace::kAtomic) return s;
  return -1;
}

}  // namespace

void drawCoalescing(Model& model) {
  TraceState& t = model.trace;
  const Palette& pal = palette(model.ui.theme);
  const float s = uiScale();
  const trace::StepHeader& h = t.data.steps[size_t(t.step)];
  std::vector<int> slots;
  for (int k = 0; k < trace::kMaxSlots; ++k)
    if (h.slots[k].space == trace::kSpaceGlobal && h.slots[k].access != trace::kAtomic) slots.push_back(k);
  if (slots.empty()) {
    ImGui::TextWrapped("Step %d (%s) makes no global loads or stores.", t.step, stepLabel(h).c_str());
    const int first = firstStepWithGlobalLoads(t.data);
    if (first >= 0) {
      char lab[64];
      std::snprintf(lab, sizeof lab, "Go to step %d (%s)", first, stepLabel(t.data.steps[size_t(first)]).c_str());
      if (ImGui::Button(labelThatFits(lab, "step " + std::to_string(first)).c_str())) t.step = first;
    }
    return;
  }
  if (std::find(slots.begin(), slots.end(), t.slot) == slots.end()) t.slot = slots.front();
  ImGui::SetNextItemWidth(160 * s);
  int warp = t.warp;
  if (ImGui::SliderInt("warp##co", &warp, 0, t.data.numWarps() - 1)) t.warp = warp;
  for (size_t i = 0; i < slots.size(); ++i) {
    ImGui::SameLine();
    char lab[32];
    std::snprintf(lab, sizeof lab, "%s %zu##co%d", h.slots[slots[i]].access == trace::kStore ? "store" : "load", i + 1,
                  slots[i]);
    if (ImGui::RadioButton(lab, t.slot == slots[i])) t.slot = slots[i];
  }
  const int bytes = h.slots[t.slot].bytes;
  const bool store = h.slots[t.slot].access == trace::kStore;
  // Sectors are counted on the real alignment: the region's offset 0 lies regionBase bytes
  // into its allocation (a tile's first element need not start a sector).
  const int64_t shift = regionBase(t.data.header, h.slots[t.slot].region);
  // The selected warp: addresses, sectors, lines.
  int lo = INT32_MAX, hi = INT32_MIN, lanes = 0;
  std::set<int> sectors, lines;
  for (int l = 0; l < 32; ++l) {
    const int th = t.warp * 32 + l;
    if (th >= t.data.blockSize()) break;
    const trace::LaneRecord& r = t.data.lane(t.step, th);
    if (!(r.flags & trace::kLaneActive) || !(r.flags & trace::slotBit(t.slot))) continue;
    ++lanes;
    lo = std::min(lo, r.addr[t.slot]);
    hi = std::max(hi, r.addr[t.slot] + bytes);
    for (int64_t b = shift + r.addr[t.slot]; b < shift + r.addr[t.slot] + bytes; ++b)
      sectors.insert(int(b / 32 - shift / 32)), lines.insert(int(b / 128 - shift / 128));
  }
  if (lanes == 0) {
    ImGui::TextWrapped("No lane of warp %d %s in this slot (outside the matrix or past the end of the input).", t.warp,
                       store ? "stores" : "loads");
    return;
  }
  const int requested = lanes * bytes, moved = int(sectors.size()) * 32;
  ImGui::TextWrapped("%d lanes x %d B = %d B requested; %zu sectors of 32 B (%d B) in %zu line%s of 128 B; efficiency %.0f%%",
              lanes, bytes, requested, sectors.size(), moved, lines.size(), lines.size() == 1 ? "" : "s",
              100.0 * requested / moved);
  if (t.data.steps[size_t(t.step)].kind == trace::kStepGridStride)
    textWrappedColored(ImGui::ColorConvertU32ToFloat4(pal.dim),
                       "First iteration shown; each lane makes up to %u iterations. All iterations: "
                       "%llu requests, %llu sectors, %llu B.",
                       t.data.steps[size_t(t.step)].maxIterations,
                       (unsigned long long)t.data.steps[size_t(t.step)].totalLoadRequests,
                       (unsigned long long)t.data.steps[size_t(t.step)].totalLoadSectors,
                       (unsigned long long)t.data.steps[size_t(t.step)].totalLoadBytes);
  const int base = (lo / 128) * 128, window = ((hi - base + 127) / 128) * 128;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x - 4 * s;
  const float laneRowH = ImGui::GetTextLineHeight() * 1.4f, sectorH = ImGui::GetTextLineHeight() * 1.6f;
  const float px = w / float(window);
  auto laneColor = [](int l) {
    const float t = float(l) / 31.0f;
    return ImGui::ColorConvertFloat4ToU32(ImVec4(0.20f + 0.78f * t, 0.55f + 0.07f * t, 0.95f - 0.85f * t, 1));
  };
  for (int l = 0; l < 32; ++l) {
    const int th = t.warp * 32 + l;
    if (th >= t.data.blockSize()) break;
    const trace::LaneRecord& r = t.data.lane(t.step, th);
    if (!(r.flags & trace::kLaneActive) || !(r.flags & trace::slotBit(t.slot))) continue;
    const float x0 = o.x + float(r.addr[t.slot] - base) * px, x1 = x0 + float(bytes) * px;
    dl->AddRectFilled(ImVec2(x0 + 0.5f, o.y + 2), ImVec2(std::max(x0 + 1.5f, x1 - 0.5f), o.y + laneRowH), laneColor(l));
    char lab[8];
    std::snprintf(lab, sizeof lab, "%d", l);
    if ((x1 - x0) > ImGui::CalcTextSize(lab).x + 2 || l % 8 == 0)
      centeredText(dl, ImVec2((x0 + x1) * 0.5f, o.y + laneRowH + ImGui::GetTextLineHeight() * 0.6f), pal.text, lab);
    if (ImGui::IsMouseHoveringRect(ImVec2(x0, o.y), ImVec2(x1, o.y + laneRowH)))
      ImGui::SetTooltip("lane %d: bytes %d..%d from the slot's base (sector %d, line %d)", l, r.addr[t.slot],
                        r.addr[t.slot] + bytes - 1, r.addr[t.slot] / 32, r.addr[t.slot] / 128);
  }
  const float sy = o.y + laneRowH + ImGui::GetTextLineHeight() * 1.3f;
  for (int sec = 0; sec < window / 32; ++sec) {
    const float x0 = o.x + float(sec * 32) * px, x1 = x0 + 32 * px;
    const bool used = sectors.count((base + sec * 32) / 32) > 0;
    dl->AddRectFilled(ImVec2(x0 + 1, sy), ImVec2(x1 - 1, sy + sectorH), used ? pal.ok : pal.idle, 2.0f);
  }
  for (int ln = 0; ln <= window / 128; ++ln) {
    const float x = o.x + float(ln * 128) * px;
    dl->AddLine(ImVec2(x, o.y), ImVec2(x, sy + sectorH + 4), pal.text, 2.0f);
  }
  // The legend in the words that fit the view's width (a quarter of All four is narrow).
  for (const char* legend : {"lanes (top) over 32-byte sectors; thick lines: 128-byte lines", "lanes over 32 B sectors", ""})
    if (ImGui::CalcTextSize(legend).x <= w) {
      dl->AddText(ImVec2(o.x, sy + sectorH + 4), pal.dim, legend);
      break;
    }
  ImGui::Dummy(ImVec2(w, sy + sectorH + ImGui::GetTextLineHeightWithSpacing() + 8 * s - o.y));

  // Every warp of the block: the same picture, one row each (shader over the trace buffer), where
  // the view has room for it below the warp's picture.
  if (ImGui::GetContentRegionAvail().y < 3 * ImGui::GetTextLineHeightWithSpacing()) return;
  ImGui::TextUnformatted("All warps of the block:");
  const ImVec2 g0 = ImGui::GetCursorScreenPos();
  const ImVec2 gs(ImGui::GetContentRegionAvail().x, std::max(40.0f, ImGui::GetContentRegionAvail().y - 4));
  ImGui::Dummy(gs);
  std::string error;
  const GLuint program = coalescingProgram(&error);
  if (!program) {
    dl->AddText(g0, pal.conflict, ("coalescing shader failed: " + error).c_str());
    return;
  }
  const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  const ImVec4 sectorC = ImGui::ColorConvertU32ToFloat4(pal.grid), lineC = ImGui::ColorConvertU32ToFloat4(pal.text);
  const TraceState* ts = &t;
  const int slot = t.slot;
  addGlPass(dl, g0, ImVec2(g0.x + gs.x, g0.y + gs.y), [=] {
    glUseProgram(program);
    glBindVertexArray(emptyVertexArray());
    bindTraceLanes(*ts);
    glUniform1i(glGetUniformLocation(program, "uBlock"), ts->data.blockSize());
    glUniform2f(glGetUniformLocation(program, "uSize"), gs.x, gs.y);
    glUniform1i(glGetUniformLocation(program, "uWarps"), ts->data.numWarps());
    glUniform1i(glGetUniformLocation(program, "uStep"), ts->step);
    glUniform1i(glGetUniformLocation(program, "uSlot"), slot);
    glUniform1i(glGetUniformLocation(program, "uBytes"), bytes);
    glUniform1i(glGetUniformLocation(program, "uWindow"), window);
    glUniform3f(glGetUniformLocation(program, "uBackground"), bg.x, bg.y, bg.z);
    glUniform3f(glGetUniformLocation(program, "uSector"), sectorC.x, sectorC.y, sectorC.z);
    glUniform3f(glGetUniformLocation(program, "uLine"), lineC.x, lineC.y, lineC.z);
    glDisable(GL_BLEND);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  });
}

}  // namespace rl::gui
