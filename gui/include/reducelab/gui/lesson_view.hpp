#pragma once
// A lesson on screen: the bar with the step's title, caption and Next/Back, and the lesson's table
// (what was measured beside the seed's figures), shared by the GUI tab and the headless export.
#include "reducelab/table.hpp"
#include "reducelab/gui/model.hpp"

namespace rl::gui {

// The bar's height for this width (the caption wraps).
// The bar's height for the current step's text, at most maxHeight (the caption shrinks to fit).
float lessonBarHeight(const Model& model, float width, float maxHeight);
void drawLessonBar(Model& model, UiActions& actions);
void drawLessonTable(Model& model);
Table lessonTable(const LessonState& lesson, const Peaks& peaks, bool haveGpu);
// The time the lesson's rows are compared by (the lesson table's headers name it): the Live tab
// uses it too while the lesson is open, so the screen tells one story.
TimeBasis lessonBasis(const LessonState& lesson);
// The lesson so far: the runs of the rows of steps up to the current one, in row order (the Live
// tab's plot while a lesson is open: a recording's later steps are not given away on step 1), and
// how many of them belong to the current step (at the end).
std::vector<Measurement> lessonRunsSoFar(const LessonState& lesson, size_t* ofCurrentStep = nullptr);
// What the Ladder tab draws: the kernel sweep when one was run; else, with a lesson open, the
// lesson's reduction runs so far (a step's `panel ladder` at the end of Harris's lesson showed an
// empty chart after the lesson had measured k1..k7). *fromLesson says which.
std::vector<Measurement> ladderRowsShown(const Model& model, bool* fromLesson);
// Seed 002's pitfalls of the current step: the seed's code beside the fix, the findings and the
// table, labelled with where they ran (GPU or CPU model). Drawn in the lesson tab.
void drawLessonPitfalls(Model& model);
// The same in a window over the views and the plots, while the lesson's step has pitfalls (the
// bottom panel is too short for the code, the findings and the table).
void drawLessonPitfallsWindow(Model& model);
// The same as Markdown for lesson.md, and the file each pitfall's table is written to (in the
// registry's data format, CSV).
std::string pitfallMarkdown(const LessonPitfall& p);
std::vector<std::string> lessonPitfallFiles(const LessonState& lesson);

}  // namespace rl::gui
