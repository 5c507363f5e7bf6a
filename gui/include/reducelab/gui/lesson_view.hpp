#pragma once
// A lesson on screen: the bar with the step's title, caption and Next/Back, and the lesson's table
// (what was measured beside the seed's figures), shared by the GUI tab and the headless export.
#include "reducelab/formats.hpp"
#include "reducelab/gui/model.hpp"

namespace rl::gui {

// The bar's height for this width (the caption wraps).
// The bar's height for the current step's text, at most maxHeight (the caption shrinks to fit).
float lessonBarHeight(const Model& model, float width, float maxHeight);
void drawLessonBar(Model& model, UiActions& actions);
void drawLessonTable(Model& model);
Table lessonTable(const LessonState& lesson, const Peaks& peaks, bool haveGpu);

}  // namespace rl::gui
