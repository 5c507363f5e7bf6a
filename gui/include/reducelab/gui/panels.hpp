#pragma once
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

}  // namespace rl::gui
