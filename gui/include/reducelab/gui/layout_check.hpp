#pragma once
// Layout checker: after ImGui::Render(), every piece of text the frame drew (ImGui widgets and
// our own ImDrawList::AddText alike) is found from its glyph quads in the draw lists, with the
// rectangle that clips it. Text that is cut by its clip rectangle, or that overlaps other text,
// is reported. Reads draw data only: the frame itself is unchanged.
#include <string>
#include <vector>

#include "reducelab/gui/model.hpp"

namespace rl::gui {

// One run of glyphs drawn together (one line of one text item).
struct TextRun {
  std::string window;  // ImGui window (child windows: "Parent/child_ID")
  std::string text;    // the glyphs' characters (what could be decoded)
  Rect rect;           // drawn glyph boxes (before clipping)
  Rect clip;           // the rectangle that clips them
  bool cutX = false, cutY = false;  // part of the text lies outside `clip` (or the CPU trimmed a glyph)
  bool scrollsX = false, scrollsY = false;  // the window scrolls: an edge may cut text there
};

struct LayoutIssue {
  std::string kind;  // "cut" or "overlap"
  std::string window;
  std::string text;   // the text concerned ("a" | "b" for overlaps)
  std::string describe() const { return kind + " in " + window + ": " + text; }
};

// The text runs of the frame just rendered (call after ImGui::Render()).
std::vector<TextRun> collectTextRuns();

// Windows whose text must be whole: the trace views, the plots, the lesson bar. Elsewhere
// (source, log, tables that scroll), text cut by a scrolling edge is normal.
bool isKeyWindow(const std::string& window);

// Cut text in key windows (or cut sideways where the window cannot scroll sideways), and
// overlapping text in any window.
std::vector<LayoutIssue> findLayoutIssues(const std::vector<TextRun>& runs);

}  // namespace rl::gui
