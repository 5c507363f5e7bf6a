#pragma once
// The trace views, in one table: the one word the command line (`--view NAME`) and lessons
// (`view NAME`) use, and the tab's label in the window. The GUI's CentreView is this enum
// (gui/model.hpp); its tabs are drawn from this table, in its order. No other code spells a
// view's name or label (tests/test_views.cpp checks). A new view: docs/architecture.md, "Views".
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace rl {

enum class ViewId { WarpActivity, BankConflicts, ReductionTree, Coalescing, All, Source, Editor };

struct ViewInfo {
  ViewId id;
  std::string_view name;  // "warp": --view and a lesson's `view` line (one word, lower case)
  const char* label;      // "Warp activity": the tab in the window
};

// In the order of the tabs, which is the enum's.
inline constexpr std::array<ViewInfo, 7> kViews = {{
    {ViewId::WarpActivity, "warp", "Warp activity"},
    {ViewId::BankConflicts, "bank", "Bank conflicts"},
    {ViewId::ReductionTree, "tree", "Reduction tree"},
    {ViewId::Coalescing, "coalescing", "Coalescing"},
    {ViewId::All, "all", "All four"},
    {ViewId::Source, "source", "Source"},
    {ViewId::Editor, "editor", "Editor"},
}};

// Shown when nothing chose a view (the command line's default, a lesson step without `view`).
inline constexpr ViewId kDefaultView = ViewId::WarpActivity;

constexpr const ViewInfo& viewInfo(ViewId id) { return kViews[std::size_t(id)]; }

// The view of that name (exact, as typed), or nullptr.
const ViewInfo* findView(std::string_view name);

// "warp, bank, tree, coalescing, all, source, editor": for help texts and error messages.
std::string viewNames();

}  // namespace rl
