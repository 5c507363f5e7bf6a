// Warp activity: warps x steps, the 32 lanes of each cell lit where the lane worked (a shader
// reading the trace buffer), with the seed-000 table computed from the same trace beside it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "reducelab/gui/gl_view.hpp"
#include "reducelab/gui/shader.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {
namespace {

GLuint warpGridProgram(std::string* error) { return windowProgram("fullscreen.vert", "warp_grid.frag", error); }

// The seed table's cells as text, and each column's width measured from its header and cells:
// the table is set with exactly these widths, so whether it fits is known before it is drawn
// (ImGui's auto-fit measured the previous frame and cut "32" to "3" at some scales).
struct SeedColumns {
  const char* headers[3];
  float columnW[3];
  float width;  // the whole table: columns, cell padding, borders, scrollbar
};

std::string lanesCell(const StepSummary& s) {
  int lo = 33, hi = 0;
  for (int a : s.activeLanes)
    if (a) lo = std::min(lo, a), hi = std::max(hi, a);
  if (hi == 0) return "-";
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

SeedColumns measureSeedColumns(const TraceState& t, const char* lanesHeader) {
  const ImGuiStyle& st = ImGui::GetStyle();
  SeedColumns c{{"step", "warps", lanesHeader}, {0, 0, 0}, 0};
  for (int k = 0; k < 3; ++k) c.columnW[k] = ImGui::CalcTextSize(c.headers[k]).x;
  for (const StepSummary& s : t.summary.steps) {
    c.columnW[0] = std::max(c.columnW[0], ImGui::CalcTextSize(s.label.c_str()).x);
    c.columnW[1] = std::max(c.columnW[1], ImGui::CalcTextSize(std::to_string(s.warpsWithWork).c_str()).x);
    c.columnW[2] = std::max(c.columnW[2], ImGui::CalcTextSize(lanesCell(s).c_str()).x);
  }
  for (float& w : c.columnW) w = std::ceil(w) + 1;
  c.width = c.columnW[0] + c.columnW[1] + c.columnW[2] + 6 * st.CellPadding.x + 4 /* borders */ + st.ScrollbarSize + 2;
  return c;
}

SeedColumns seedColumns(const TraceState& t, float room) {
  SeedColumns full = measureSeedColumns(t, "useful threads/warp");
  if (full.width <= room) return full;
  return measureSeedColumns(t, "lanes");
}

void drawSeedTable(const TraceState& t, const SeedColumns& cols, float width) {
  ImGui::BeginChild("seed-table", ImVec2(width, 0), false);
  ImGui::TextWrapped("From the trace, as in seed 000's table:");
  // No ScrollY: a scrolling table is a child window of its own, and ImGui 1.86 gives a child the
  // font scale of its parent only (All four's shrunken quarter -> full-size text in the table).
  // The seed-table child scrolls instead.
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("seed", 3, flags, ImVec2(std::min(width, cols.width), 0))) {
    for (int k = 0; k < 3; ++k) ImGui::TableSetupColumn(cols.headers[k], ImGuiTableColumnFlags_WidthFixed, cols.columnW[k]);
    ImGui::TableHeadersRow();
    for (const StepSummary& s : t.summary.steps) {
      ImGui::TableNextRow();
      if (s.step == t.step)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImGuiCol_HeaderActive));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.label.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d", s.warpsWithWork);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(lanesCell(s).c_str());
    }
    ImGui::EndTable();
  }
  ImGui::EndChild();
}

}  // namespace

void drawWarpActivity(Model& model) {
  TraceState& t = model.trace;
  const Palette& pal = palette(model.ui.theme);
  const float s = uiScale();
  // The table as wide as its cells need (a fixed width cut "32" to "3" at some scales), within
  // 45 % of the view.
  const float room = ImGui::GetContentRegionAvail().x * 0.45f;
  // Where even the short columns do not fit (a quarter of All four at a large scale), the grid
  // takes the whole width: the table is one tab away, whole.
  // Measured once a frame: the same columns decide the room and set the table.
  const SeedColumns cols = seedColumns(t, room);
  const bool showTable = cols.width <= room;
  const float tableW = showTable ? std::min(room, std::max(cols.width, std::min(300 * s, room))) : 0.0f;
  ImGui::BeginChild("warp-grid", ImVec2(showTable ? ImGui::GetContentRegionAvail().x - tableW - 8 * s : 0, 0), false,
                    ImGuiWindowFlags_NoScrollbar);
  const int warps = t.data.numWarps(), steps = t.data.numSteps();
  const float labelW = ImGui::CalcTextSize("w31").x + 8 * s;
  const float headerH = ImGui::GetTextLineHeightWithSpacing() + 4 * s;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 gridMin(origin.x + labelW, origin.y + headerH);
  const ImVec2 gridMax(origin.x + avail.x, origin.y + avail.y);
  ImGui::Dummy(avail);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float cw = (gridMax.x - gridMin.x) / float(steps), ch = (gridMax.y - gridMin.y) / float(warps);

  std::string error;
  const GLuint program = warpGridProgram(&error);
  if (!program) {
    dl->AddText(gridMin, pal.conflict, ("warp_grid shader failed: " + error).c_str());
  } else {
    const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    const TraceState* ts = &t;
    const ImVec2 size(gridMax.x - gridMin.x, gridMax.y - gridMin.y);
    addGlPass(dl, gridMin, gridMax, [ts, program, size, pal, bg, warps, steps] {
      glUseProgram(program);
      glBindVertexArray(emptyVertexArray());
      bindTraceLanes(*ts);
      glUniform1i(glGetUniformLocation(program, "uBlock"), ts->data.blockSize());
      glUniform2f(glGetUniformLocation(program, "uSize"), size.x, size.y);
      glUniform1i(glGetUniformLocation(program, "uWarps"), warps);
      glUniform1i(glGetUniformLocation(program, "uSteps"), steps);
      glUniform1i(glGetUniformLocation(program, "uStep"), ts->step);
      glUniform3f(glGetUniformLocation(program, "uActive"), pal.activeV.x, pal.activeV.y, pal.activeV.z);
      glUniform3f(glGetUniformLocation(program, "uIdle"), pal.idleV.x, pal.idleV.y, pal.idleV.z);
      glUniform3f(glGetUniformLocation(program, "uBackground"), bg.x, bg.y, bg.z);
      glUniform3f(glGetUniformLocation(program, "uHighlight"), pal.highlightV.x, pal.highlightV.y, pal.highlightV.z);
      glDisable(GL_BLEND);
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    });
  }
  // Labels: steps on top, warps on the left, active-lane counts in the cells that have room.
  float widest = 0;
  for (int st = 0; st < steps; ++st)
    widest = std::max(widest, ImGui::CalcTextSize(shortStepLabel(t.data.steps[size_t(st)]).c_str()).x);
  const int headerEvery = labelStride(cw, widest + 4 * s, steps);
  // The current step's header always shows; others on the stride, unless they would touch it.
  auto headerBox = [&](int st, float* x0, float* x1) {
    const float w = ImGui::CalcTextSize(shortStepLabel(t.data.steps[size_t(st)]).c_str()).x;
    const float c = std::clamp(gridMin.x + (float(st) + 0.5f) * cw, gridMin.x + w * 0.5f, gridMax.x - w * 0.5f);
    *x0 = c - w * 0.5f - 2 * s, *x1 = c + w * 0.5f + 2 * s;
    return c;
  };
  float curX0 = 0, curX1 = 0;
  if (steps > 0) headerBox(std::clamp(t.step, 0, steps - 1), &curX0, &curX1);
  float lastX1 = -1e30f;
  for (int st = 0; st < steps; ++st) {
    float x0, x1;
    const float cx = headerBox(st, &x0, &x1);
    const bool current = st == t.step;
    if (!current && (st % headerEvery != 0 || (x1 > curX0 && x0 < curX1) || x0 < lastX1)) continue;
    if (current && x0 < lastX1) continue;  // cannot happen with the checks above, kept for safety
    const std::string label = shortStepLabel(t.data.steps[size_t(st)]);
    centeredText(dl, ImVec2(cx, origin.y + headerH * 0.5f), current ? pal.accent : pal.text, label.c_str());
    lastX1 = x1;
  }
  const int labelEvery = labelStride(ch, ImGui::GetTextLineHeight(), warps);
  for (int w = 0; w < warps; w += labelEvery) {
    char b[16];
    std::snprintf(b, sizeof b, "w%d", w);
    const float lineH = ImGui::GetTextLineHeight();  // rows thinner than a line: the label stays inside the grid
    const float y = std::clamp(gridMin.y + float(w) * ch + (ch - lineH) * 0.5f, gridMin.y, gridMax.y - lineH);
    dl->AddText(ImVec2(origin.x + 2 * s, y), pal.dim, b);
  }
  const bool roomForCounts = cw > ImGui::CalcTextSize("32").x + 10 * s && ch > ImGui::GetTextLineHeight() * 0.9f;
  if (roomForCounts)
    for (int st = 0; st < steps; ++st)
      for (int w = 0; w < warps; ++w) {
        const int n = t.summary.steps[size_t(st)].activeLanes[size_t(w)];
        char b[8];
        std::snprintf(b, sizeof b, "%d", n);
        const ImVec2 c(gridMin.x + (float(st) + 0.5f) * cw, gridMin.y + (float(w) + 0.5f) * ch);
        centeredText(dl, c, n ? IM_COL32(255, 255, 255, 255) : pal.dim, b, n ? IM_COL32(0, 0, 0, 150) : 0);
      }
  // Hover: which warp, step and lanes; click selects the step and the warp.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (ImGui::IsWindowHovered() && mouse.x >= gridMin.x && mouse.x < gridMax.x && mouse.y >= gridMin.y &&
      mouse.y < gridMax.y) {
    const int st = std::clamp(int((mouse.x - gridMin.x) / cw), 0, steps - 1);
    const int w = std::clamp(int((mouse.y - gridMin.y) / ch), 0, warps - 1);
    const int lane = std::clamp(int((mouse.x - gridMin.x - float(st) * cw) / cw * 32), 0, 31);
    const trace::LaneRecord& r = t.data.lane(st, std::min(w * 32 + lane, t.data.blockSize() - 1));
    ImGui::BeginTooltip();
    ImGui::Text("warp %d, step %d (%s)", w, st, stepLabel(t.data.steps[size_t(st)]).c_str());
    ImGui::Text("%d of 32 lanes did work", t.summary.steps[size_t(st)].activeLanes[size_t(w)]);
    ImGui::Text("lane %d (thread %d): %s", lane, w * 32 + lane,
                (r.flags & trace::kLaneActive)
                    ? ("active, value " + (trace::laneValueKnown(t.data.header, r.flags) ? formatValue(r.value) : std::string("unknown (not stored)"))).c_str()
                    : "idle");
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(0)) {
      t.step = st;
      t.warp = w;
    }
  }
  ImGui::EndChild();
  if (!showTable) return;
  ImGui::SameLine(0.0f, 8 * s);  // the gap the grid's width left (ItemSpacing is larger in presentation)
  drawSeedTable(t, cols, tableW);
}

}  // namespace rl::gui
