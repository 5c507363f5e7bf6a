#pragma once
#include <string>
// One function per panel (split per feature, as Tracy's TracyView_*.cpp).
#include "reducelab/gui/model.hpp"

namespace rl::gui {

void drawKernelPanel(Model& model, UiActions& actions);
void drawParametersPanel(Model& model, UiActions& actions);
void drawCentreViews(Model& model, UiActions& actions);
void drawResultsAndLog(Model& model, UiActions& actions);
void drawBandwidthPanel(Model& model, UiActions& actions);
void drawOccupancyPanel(Model& model, UiActions& actions);
void drawStatusContents(Model& model);

// Shared helpers.
void placeholder(const char* what, const char* arrivesWith);
void helpMarker(const char* text);  // "(?)" with a tooltip
// Rows of buttons and fields: the next item stays on this line only if `nextWidth` still fits,
// else it starts a new line (a row cut at the panel's edge hid "Run sweep" at large UI scales).
void sameLineIfFits(float nextWidth);
// Coloured text that wraps at the window's edge (ImGui::TextColored does not: a long note was cut).
void textWrappedColored(const ImVec4& colour, const char* fmt, ...) IM_FMTARGS(2);
float buttonWidth(const char* label, bool small = false);
// `full` when a widget with this label (plus `extra` pixels: a radio's circle) fits the width
// left in the window, else `brief`: narrow views (All four, projector scales) keep whole labels.
const std::string& labelThatFits(const std::string& full, const std::string& brief, float extra = 0);
// A figure's export buttons: one per figure format the registry offers to panels (plot.hpp).
// `idSuffix` tells apart the buttons of two figures in one window ("##occ").
void figureExportButtons(const Model& model, const Figure& fig, UiActions& actions, const char* idSuffix = "");
// "Saved PATH" (or the error) beside the export buttons of `key` for a few seconds after it was written.
void savedNotice(const Model& model, const std::string& key);
// Whether the notice of `key` shows now (for 8 s after the save), so a strip can make room for it.
bool savedNoticeShows(const Model& model, const std::string& key);
// "CSV, Markdown and LaTeX": what a table export writes (one file per table file format).
std::string tableExportFormatsText();

}  // namespace rl::gui
