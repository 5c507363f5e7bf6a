#pragma once
// Internal to gui/: the trace views and what they share.
#include <imgui.h>

#include <string>

#include "reducelab/gui/model.hpp"

namespace rl::gui {

struct Palette {
  ImU32 active, idle, background, highlight, conflict, broadcast, ok, text, dim, accent, grid;
  ImVec4 activeV, idleV, backgroundV, highlightV;
};
const Palette& palette(Theme theme);

void drawTraceControls(Model& model, UiActions& actions);
void drawWarpActivity(Model& model);
void drawBankConflicts(Model& model);
void drawReductionTree(Model& model);
void drawCoalescing(Model& model);

// Short column label for a step ("load", "256", "+16", "shfl 8", ...).
std::string shortStepLabel(const trace::StepHeader& s);
// Binds the trace's lane records (at trace::kLanesOffset) to SSBO binding 0.
void bindTraceLanes(const TraceState& t);
// Shared text helpers.
std::string formatValue(double v);
// Every how many cells a label fits (>= 1). Cells of no size (a grid squeezed to nothing at a
// large UI scale) label only the first one: a loop stepping by this never runs backwards or forever.
int labelStride(float cellPx, float labelPx, int cells);
void centeredText(ImDrawList* dl, ImVec2 center, ImU32 color, const char* text, ImU32 box = 0);

}  // namespace rl::gui
