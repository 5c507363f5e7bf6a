// The editor of your own kernel (docs/your-kernel.md, "The editor"): the text in the Source view's
// colours with line numbers, the compiler's messages at their lines, undo and redo, the file's
// state (modified, watched, changed on disk), and under it the messages and the checks' cases.
// ImGui's multi-line field does the editing (caret, selection, clipboard); its own text is drawn
// transparent and the coloured text drawn over it, at the same monospaced cells.
#include <imgui.h>
#include <imgui_internal.h>  // ClearActiveID: the field takes a new text only when inactive

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "code_colours.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/shortcuts.hpp"
#include "reducelab/gui/ui.hpp"
#include "reducelab/platform.hpp"
#include "trace_views.hpp"

namespace rl::gui {
namespace {

constexpr int kTabColumns = 4;  // ImGui's fonts advance a tab by four spaces

// The editing field's own buffer, and what the frame loop asks of the field through its callback.
struct EditorField {
  uint64_t owner = 0;  // the EditorState whose text it shows (EditorState::fieldOwner: a later window's
                       // state may sit at a freed one's address, so never its address)
  std::string buffer;
  uint64_t shownVersion = ~uint64_t(0);
  int cursor = 0;             // the caret's byte offset, as the field last reported it
  int selectionStart = 0, selectionEnd = 0;
  int moveCaret = -1;         // >= 0: put the caret here once the field is active
  bool refocus = false;       // give the field the keyboard (once)
  bool active = false;        // the field had the keyboard last frame
  int scrolledFor = -1;       // the caret offset the view last scrolled to
  double caretMovedAt = 0;    // the caret blinks from here
  // The text's lines and widest line, worked out once per change of the buffer, not every frame.
  uint64_t textGeneration = 1, layoutGeneration = 0;
  std::vector<int> lineStarts;
  int widestColumns = 0;
};

EditorField& field() {
  static EditorField f;
  return f;
}

int fieldCallback(ImGuiInputTextCallbackData* d) {
  EditorField& f = *static_cast<EditorField*>(d->UserData);
  if (d->EventFlag == ImGuiInputTextFlags_CallbackResize) {  // the text outgrew the buffer
    f.buffer.resize(size_t(d->BufTextLen));
    d->Buf = f.buffer.data();
    return 0;
  }
  if (f.moveCaret >= 0) {
    d->CursorPos = d->SelectionStart = d->SelectionEnd = std::clamp(f.moveCaret, 0, d->BufTextLen);
    f.moveCaret = -1;
  }
  f.cursor = d->CursorPos;
  f.selectionStart = d->SelectionStart;
  f.selectionEnd = d->SelectionEnd;
  return 0;
}

// Byte offsets where each line starts (a last line without '\n' included).
std::vector<int> lineStarts(const std::string& text) {
  std::vector<int> starts = {0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(int(i + 1));
  return starts;
}

// The screen column of byte `offset` in `line` (tabs four columns; a UTF-8 sequence one).
int columnOf(std::string_view line, size_t offset) {
  int col = 0;
  for (size_t i = 0; i < offset && i < line.size(); ++i) {
    const unsigned char c = (unsigned char)line[i];
    if (c == '\t') col += kTabColumns;
    else if ((c & 0xC0) != 0x80) ++col;
  }
  return col;
}

// The field's lines and its widest line in columns, for the text now in its buffer.
void updateLayout(EditorField& f) {
  if (f.layoutGeneration == f.textGeneration) return;
  f.lineStarts = lineStarts(f.buffer);
  f.widestColumns = 0;
  const int lines = int(f.lineStarts.size());
  for (int l = 0; l < lines; ++l) {
    const int begin = f.lineStarts[size_t(l)];
    const int end = l + 1 < lines ? f.lineStarts[size_t(l + 1)] - 1 : int(f.buffer.size());
    f.widestColumns = std::max(f.widestColumns, columnOf(std::string_view(f.buffer).substr(size_t(begin)), size_t(end - begin)));
  }
  f.layoutGeneration = f.textGeneration;
}

ImU32 colourOf(CodeKind k, const Palette& pal) {
  switch (k) {
    case CodeKind::Keyword: return pal.accent;
    case CodeKind::Cuda: return pal.active;
    case CodeKind::Comment: return pal.ok;
    case CodeKind::Literal: return pal.broadcast;
    case CodeKind::Text: break;
  }
  return pal.text;
}

void putCaretOn(int offset) {
  EditorField& f = field();
  f.moveCaret = offset;
  f.refocus = true;
  f.scrolledFor = -1;
}

// The document's text into the field. An active field keeps its own copy of the text (and sizes
// its buffers by it), so it is deactivated first and given the keyboard back in the next frame,
// with the caret where it was: pushing a longer text through its callback overran those buffers.
void showDocument(EditorState& e) {
  EditorField& f = field();
  if (f.shownVersion == e.doc.version()) return;
  if (f.active) {
    ImGui::ClearActiveID();
    if (f.moveCaret < 0) f.moveCaret = f.cursor;
    f.refocus = true;
    f.active = false;
  }
  f.buffer = e.doc.text();
  f.shownVersion = e.doc.version();
  ++f.textGeneration;
}

void undoOrRedo(EditorState& e, bool redo) {
  int cursor = 0;
  if (!(redo ? e.doc.redo(&cursor) : e.doc.undo(&cursor))) return;
  e.caretOffset = cursor;
}

// The toolbar: a copy of a catalogue kernel, save, compile, check, undo and redo.
void drawToolbar(Model& model, UiActions& actions) {
  EditorState& e = model.editor;
  const bool mayReplace = !e.doc.unsavedWork();
  const char* replaceWhy = "Your kernel has changes that are not saved: save them (Ctrl+S) first";
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, ImGui::CalcTextSize("Edit a copy of k10 ...").x + 30 * uiScale()));
  if (!mayReplace) ImGui::BeginDisabled();
  if (ImGui::BeginCombo("##copy", "Edit a copy of ...")) {
    for (const EditorStarter& s : e.starters)
      if (ImGui::Selectable(s.title.c_str())) actions.requestEditCopy(s.key);
    if (e.starters.empty()) ImGui::TextDisabled("No starters in this build");
    ImGui::EndCombo();
  }
  if (!mayReplace) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", mayReplace ? "Start from a catalogue kernel written as plain CUDA for the contract "
                                         "(docs/your-kernel.md)"
                                       : replaceWhy);
  sameLineIfFits(buttonWidth("Open..."));
  if (!mayReplace) ImGui::BeginDisabled();
  if (ImGui::Button("Open...") && !model.fileDialogOpen) actions.requestFileChoice(FileChoice::OpenKernel);
  if (!mayReplace) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", mayReplace ? "Open a .cu file (or start with --kernel-file FILE.cu)" : replaceWhy);
  const bool hasText = !e.doc.empty();
  if (!hasText) ImGui::BeginDisabled();
  sameLineIfFits(buttonWidth("Save"));
  if (ImGui::Button("Save")) actions.requestEditor(EditorRequest::Save);
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Save your kernel (Ctrl+S)");
  sameLineIfFits(buttonWidth("Save as..."));
  if (ImGui::Button("Save as...") && !model.fileDialogOpen) actions.requestFileChoice(FileChoice::SaveKernelAs);
  sameLineIfFits(buttonWidth("Compile"));
  const bool compiling = e.build == EditorState::Build::Compiling;
  if (compiling) ImGui::BeginDisabled();
  if (ImGui::Button("Compile")) actions.requestEditor(EditorRequest::Compile);
  if (compiling) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Compile with NVRTC for every type and operation the kernel claims (no GPU needed). "
                      "The editor also compiles a moment after you stop typing.");
  sameLineIfFits(buttonWidth(e.checking ? "Stop check" : "Check"));
  if (e.checking) {
    if (ImGui::Button("Stop check")) actions.requestEditor(EditorRequest::CancelCheck);
  } else {
    if (e.running) ImGui::BeginDisabled();  // one job at a time on the worker
    if (ImGui::Button("Check")) actions.requestEditor(EditorRequest::Check);
    if (e.running) ImGui::EndDisabled();
  }
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Run the battery on the GPU: every claimed type, operation and block size against the exact "
                      "reference, guard zones around every buffer, shared-memory hazards (reducelab check)");
  sameLineIfFits(buttonWidth("Run as a row"));
  const bool busy = e.checking || e.running || model.measuring;
  if (busy) ImGui::BeginDisabled();
  if (ImGui::Button("Run as a row")) actions.requestEditor(EditorRequest::Run);
  if (busy) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", busy ? "Waits for the check, run or measurements in progress"
                                 : "Measure your kernel at the Parameters panel's type, operation, N, block, repetitions and L2 "
                                   "mode, timed as ours: a row in Results and the plot beside our kernels' (reducelab bench "
                                   "--kernel-file)");
  if (!hasText) ImGui::EndDisabled();
  sameLineIfFits(buttonWidth("Undo") + buttonWidth("Redo") + ImGui::GetStyle().ItemSpacing.x);
  if (!e.doc.canUndo()) ImGui::BeginDisabled();
  if (ImGui::Button("Undo")) undoOrRedo(e, false);
  if (!e.doc.canUndo()) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Undo (Ctrl+Z)");
  ImGui::SameLine();
  if (!e.doc.canRedo()) ImGui::BeginDisabled();
  if (ImGui::Button("Redo")) undoOrRedo(e, true);
  if (!e.doc.canRedo()) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Redo (Ctrl+Y or Ctrl+Shift+Z)");
}

// The file, its state and the latest build, in one line; the notice and a conflict under it.
void drawStatus(Model& model, UiActions& actions) {
  EditorState& e = model.editor;
  const Palette& pal = palette(model.ui.theme);
  std::string what = e.doc.displayName();
  if (e.doc.modified() && e.doc.hasFile()) what += " (modified)";
  if (e.doc.hasFile()) what += ", watched";
  ImGui::TextWrapped("%s", what.c_str());
  if (e.doc.hasFile() && ImGui::IsItemHovered())
    ImGui::SetTooltip("%s\nSaved in another editor, it comes back here, is compiled and (after a Check) checked again.",
                      e.doc.path().c_str());
  ImU32 colour = pal.dim;
  std::string build;
  switch (e.build) {
    case EditorState::Build::None: build = "Not compiled yet."; break;
    case EditorState::Build::Compiling: build = "Compiling..."; break;
    case EditorState::Build::Ok: build = e.buildSummary, colour = pal.ok; break;
    case EditorState::Build::Errors: build = e.buildSummary, colour = pal.conflict; break;
    case EditorState::Build::Environment: build = e.buildSummary, colour = pal.conflict; break;
  }
  if (e.build != EditorState::Build::Compiling && e.builtVersion != e.doc.version() && e.build != EditorState::Build::None)
    build += "  (of an earlier text)";
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", build.c_str());
  ImGui::PopStyleColor();
  if (!e.doc.editable()) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.conflict);
    ImGui::TextWrapped("Read-only here: %s. Edit it in your own editor: the file is watched.", e.doc.notEditableWhy().c_str());
    ImGui::PopStyleColor();
  }
  if (!e.notice.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, e.noticeIsError ? pal.conflict : pal.accent);
    ImGui::TextWrapped("%s", e.notice.c_str());
    ImGui::PopStyleColor();
  }
  if (e.conflict) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.conflict);
    ImGui::TextWrapped("%s changed on disk, and the editor has changes of its own.", e.doc.displayName().c_str());
    ImGui::PopStyleColor();
    if (ImGui::Button("Reload from disk")) actions.requestEditor(EditorRequest::ReloadFromDisk);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The file's text replaces the editor's, which stays one Undo away");
    ImGui::SameLine();
    if (ImGui::Button("Keep mine")) actions.requestEditor(EditorRequest::KeepMine);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The editor's text stays; Save writes it over the file");
  }
}

// The text: line numbers, messages at their lines, the coloured code over the editing field.
void drawText(Model& model, float height) {
  EditorState& e = model.editor;
  EditorField& f = field();
  // Another window's document (or a new one at the same address: versions only grow): start afresh.
  if (f.owner != e.fieldOwner || (f.shownVersion != ~uint64_t(0) && e.doc.version() < f.shownVersion))
    f = EditorField{}, f.owner = e.fieldOwner;
  const Palette& pal = palette(model.ui.theme);
  ImGuiIO& io = ImGui::GetIO();
  // The document changed outside the field (opened, reloaded, undone): the field shows it.
  showDocument(e);
  if (e.caretOffset >= 0) putCaretOn(e.caretOffset), e.caretOffset = -1;
  updateLayout(f);
  const std::vector<int>& starts = f.lineStarts;
  if (e.caretLine > 0) {
    putCaretOn(starts[size_t(std::min<int>(e.caretLine, int(starts.size())) - 1)]);
    e.caretLine = 0;
  }

  ImGui::PushFont(fonts().mono);
  const float lineH = ImGui::GetTextLineHeight();
  // The advance ImGui's field lays text out with (CalcTextSize rounds up to whole pixels).
  const float cellW = ImGui::GetFont()->GetCharAdvance('M') * ImGui::GetFontSize() / ImGui::GetFont()->FontSize;
  const ImVec2 pad = ImGui::GetStyle().FramePadding;
  const int lines = int(starts.size());
  const int widest = f.widestColumns;
  char digits[16];
  std::snprintf(digits, sizeof digits, "%d", std::max(lines, 99));
  const float gutterW = ImGui::CalcTextSize(digits).x + cellW * 2;

  ImGui::BeginChild("editor-text", ImVec2(0, height), true, ImGuiWindowFlags_HorizontalScrollbar);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 fieldSize(std::max(avail.x - gutterW, (widest + 8) * cellW + 2 * pad.x),
                         std::max(avail.y, (lines + 1) * lineH + 2 * pad.y));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(gutterW, fieldSize.y));
  ImGui::SameLine(0, 0);

  // Keys the field must not see: undo and redo are the document's (its own are off), so that
  // the toolbar, the keys and a reload share one history.
  if (f.active && io.KeyCtrl) {
    if (ImGui::IsKeyPressed(keys::Z, true)) undoOrRedo(e, io.KeyShift);
    else if (ImGui::IsKeyPressed(keys::Y, true)) undoOrRedo(e, true);
    if (e.caretOffset >= 0) f.moveCaret = e.caretOffset, e.caretOffset = -1;
    showDocument(e);
  }
  if (f.refocus && !f.active) ImGui::SetKeyboardFocusHere();
  f.refocus = false;
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(0, 0, 0, 0));  // the coloured text is drawn over it
  ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(0, 0, 0, 0));
  // No horizontal scroll of its own: the field is as wide as the text and this child scrolls, so
  // the coloured text and the field's cells stay in step. Read-only for a text ImGui would change
  // by editing it (invalid UTF-8, characters beyond U+FFFF: kernel_document.hpp).
  ImGuiInputTextFlags flags = ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_NoUndoRedo |
                              ImGuiInputTextFlags_CallbackResize | ImGuiInputTextFlags_CallbackAlways |
                              ImGuiInputTextFlags_NoHorizontalScroll;
  if (!e.doc.editable()) flags |= ImGuiInputTextFlags_ReadOnly;
  const int cursorBefore = f.cursor;
  const bool changed = ImGui::InputTextMultiline("##kernel-text", f.buffer.data(), f.buffer.capacity() + 1, fieldSize,
                                                 flags, fieldCallback, &f);
  ImGui::PopStyleColor(2);
  const bool wasActive = f.active;
  f.active = ImGui::IsItemActive();
  const ImVec2 textMin(ImGui::GetItemRectMin().x + pad.x, ImGui::GetItemRectMin().y + pad.y);
  if (changed) {
    f.buffer.resize(std::char_traits<char>::length(f.buffer.c_str()));
    ++f.textGeneration;
    // Esc puts back the text the field had when it was activated: never what the user means in
    // an editor (every edit since the click). The document's text stays.
    if (wasActive && !f.active && ImGui::IsKeyPressed(keys::Escape, false)) {
      f.buffer = e.doc.text();
    } else {
      e.doc.edit(f.buffer, f.cursor, ImGui::GetTime());
    }
    f.shownVersion = e.doc.version();
  }
  if (f.cursor != cursorBefore || changed) f.caretMovedAt = ImGui::GetTime();

  // Messages by line (the first of each line's severity wins the colour: errors over warnings).
  std::map<int, const usercode::Diagnostic*> byLine;
  if (e.builtVersion == e.doc.version())
    for (const usercode::Diagnostic& d : e.diagnostics)
      if (d.line > 0 && (!byLine.count(d.line) || d.severity == usercode::Severity::Error)) byLine[d.line] = &d;

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float scrollY = ImGui::GetScrollY();
  const float visibleH = ImGui::GetWindowHeight();
  const int firstLine = std::max(0, int((scrollY - pad.y) / lineH) - 1);
  const int lastLine = std::min(lines - 1, int((scrollY + visibleH) / lineH) + 1);
  updateLayout(f);  // the field may have changed the text this frame
  const std::vector<int>& refreshed = f.lineStarts;
  const int shownLines = int(refreshed.size());
  const int colLo = std::max(0, int((ImGui::GetScrollX() - gutterW) / cellW) - 1);
  const int colHi = colLo + int(ImGui::GetWindowWidth() / cellW) + 2;
  for (int l = firstLine; l <= std::min(lastLine, shownLines - 1); ++l) {
    const float y = textMin.y + l * lineH;
    const auto diag = byLine.find(l + 1);
    if (diag != byLine.end()) {
      const ImU32 c = diag->second->severity == usercode::Severity::Error ? pal.conflict : pal.broadcast;
      dl->AddRectFilled(ImVec2(origin.x, y), ImVec2(origin.x + gutterW - cellW * 0.5f, y + lineH), (c & 0x00FFFFFF) | 0x60000000);
    }
    std::snprintf(digits, sizeof digits, "%d", l + 1);
    dl->AddText(ImVec2(origin.x + gutterW - cellW - ImGui::CalcTextSize(digits).x, y), pal.dim, digits);
    const int begin = refreshed[size_t(l)];
    const int end = l + 1 < shownLines ? refreshed[size_t(l + 1)] - 1 : int(f.buffer.size());
    const std::string_view line = std::string_view(f.buffer).substr(size_t(begin), size_t(end - begin));
    // Pieces of one colour without tabs, each at its own column, only those in view (a line of
    // a megabyte costs one pass over its bytes, not one per run).
    int col = 0;
    for (const CodeRun& r : colourRuns(line)) {
      size_t p = r.begin;
      while (p < r.end && col <= colHi) {
        const int pieceCol = col;
        size_t q = p;
        while (q < r.end && line[q] != '\t') col += ((unsigned char)line[q++] & 0xC0) != 0x80;
        if (q > p && col > colLo) {
          size_t a = p;
          int ac = pieceCol;
          auto next = [&](size_t i) {
            ++i;
            while (i < q && ((unsigned char)line[i] & 0xC0) == 0x80) ++i;
            return i;
          };
          while (a < q && ac < colLo) a = next(a), ++ac;
          size_t b = a;
          for (int bc = ac; b < q && bc <= colHi; ++bc) b = next(b);
          if (b > a) dl->AddText(ImVec2(textMin.x + ac * cellW, y), colourOf(r.kind, pal), line.data() + a, line.data() + b);
        }
        if (q < r.end) col += kTabColumns, ++q;  // the tab
        p = q;
      }
      if (col > colHi) break;
    }
    if (diag != byLine.end()) {  // a wavy line under the line's text (what is in view of it)
      const float x0 = textMin.x + colLo * cellW;
      const float x1 = textMin.x + std::min(colHi, std::max(4, columnOf(line, line.size()))) * cellW;
      const ImU32 c = diag->second->severity == usercode::Severity::Error ? pal.conflict : pal.broadcast;
      for (float x = x0; x < x1; x += cellW)
        dl->AddLine(ImVec2(x, y + lineH), ImVec2(std::min(x + cellW * 0.5f, x1), y + lineH - 2), c),
            dl->AddLine(ImVec2(std::min(x + cellW * 0.5f, x1), y + lineH - 2), ImVec2(std::min(x + cellW, x1), y + lineH), c);
    }
  }
  // The caret (the field's own is drawn in its transparent text colour), blinking as ImGui's does.
  if (f.active) {
    const int c = std::clamp(f.cursor, 0, int(f.buffer.size()));
    const int line = int(std::upper_bound(refreshed.begin(), refreshed.end(), c) - refreshed.begin()) - 1;
    const int col = columnOf(std::string_view(f.buffer).substr(size_t(refreshed[size_t(line)])), size_t(c - refreshed[size_t(line)]));
    const ImVec2 p(textMin.x + col * cellW, textMin.y + line * lineH);
    if (std::fmod(ImGui::GetTime() - f.caretMovedAt, 1.2) < 0.8)
      dl->AddLine(ImVec2(p.x, p.y), ImVec2(p.x, p.y + lineH), pal.text, std::max(1.0f, uiScale()));
    // Keep the caret in view after it moved (the field is as large as the text: this child scrolls).
    if (f.scrolledFor != c) {
      f.scrolledFor = c;
      const ImVec2 win = ImGui::GetWindowPos();
      const float top = p.y - win.y + ImGui::GetScrollY(), left = p.x - win.x + ImGui::GetScrollX();
      if (top < ImGui::GetScrollY()) ImGui::SetScrollY(std::max(0.0f, top - lineH));
      else if (top + 2 * lineH > ImGui::GetScrollY() + ImGui::GetWindowHeight()) ImGui::SetScrollY(top + 2 * lineH - ImGui::GetWindowHeight());
      if (left < ImGui::GetScrollX() + gutterW) ImGui::SetScrollX(std::max(0.0f, left - gutterW - 4 * cellW));
      else if (left + 2 * cellW > ImGui::GetScrollX() + ImGui::GetWindowWidth()) ImGui::SetScrollX(left + 4 * cellW - ImGui::GetWindowWidth());
    }
  }
  // A message's text when the pointer is on its line's number.
  const ImVec2 mouse = io.MousePos;
  if (ImGui::IsWindowHovered() && mouse.x >= origin.x && mouse.x < origin.x + gutterW) {
    const int l = int((mouse.y - textMin.y) / lineH) + 1;
    std::string tip;
    for (const usercode::Diagnostic& d : e.diagnostics)
      if (d.line == l && e.builtVersion == e.doc.version()) tip += (tip.empty() ? "" : "\n") + d.text();
    if (!tip.empty()) {
      ImGui::PopFont();
      ImGui::SetTooltip("%s", tip.c_str());
      ImGui::PushFont(fonts().mono);
    }
  }
  ImGui::EndChild();
  ImGui::PopFont();
}

void drawMessages(Model& model) {
  EditorState& e = model.editor;
  const Palette& pal = palette(model.ui.theme);
  if (e.diagnostics.empty()) {
    ImGui::TextDisabled("%s", e.build == EditorState::Build::Ok ? "No errors or warnings." : "No messages.");
    return;
  }
  for (size_t i = 0; i < e.diagnostics.size(); ++i) {
    const usercode::Diagnostic& d = e.diagnostics[i];
    ImGui::PushStyleColor(ImGuiCol_Text, d.severity == usercode::Severity::Error ? pal.conflict : pal.text);
    ImGui::PushID(int(i));
    if (ImGui::Selectable(d.text().c_str()) && d.line > 0) e.caretLine = d.line;
    ImGui::PopID();
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered() && d.line > 0) ImGui::SetTooltip("Go to line %d", d.line);
  }
}

// The timing beside CUB and our fastest kernel: what was timed, then one row per kernel.
void drawTiming(const usercode::TimingCheck& t) {
  if (!t.ran) {
    ImGui::TextWrapped("Timing not run: %s", t.why.c_str());
    return;
  }
  ImGui::TextWrapped("Timed at %s %s, N=%s, block %d, random data: median of %d after %d warm-up, %s L2",
                     std::string(name(t.c.type)).c_str(), std::string(name(t.c.op)).c_str(), formatCount(t.c.n).c_str(),
                     t.c.block, t.reps, t.warmups, t.warmL2 ? "warm" : "cold (flushed)");
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("timing", 5, tf)) return;
  ImGui::TableSetupColumn("kernel");
  ImGui::TableSetupColumn("median ms");
  ImGui::TableSetupColumn("min - max ms");
  ImGui::TableSetupColumn("GB/s");
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  const usercode::TimedRow* cub = t.cub();
  const usercode::TimedRow* ours = t.fastestOfOurs();
  auto row = [](const usercode::TimedRow& r, const std::string& note) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.label.c_str());
    if (!r.error.empty()) {
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      ImGui::TextWrapped("not measured: %s", r.error.c_str());
      return;
    }
    ImGui::TableNextColumn();
    ImGui::Text("%.4f", r.ms.median);
    ImGui::TableNextColumn();
    ImGui::Text("%.4f - %.4f", r.ms.min, r.ms.max);
    ImGui::TableNextColumn();
    ImGui::Text("%.1f", r.gbs);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(note.c_str());
  };
  char vs[64] = "";
  if (cub && t.yours.ms.median > 0) std::snprintf(vs, sizeof vs, "%.0f %% of CUB's speed", 100.0 * cub->ms.median / t.yours.ms.median);
  row(t.yours, vs);
  if (cub) row(*cub, "");
  if (ours) row(*ours, "our fastest here");
  for (const usercode::TimedRow& r : t.others)
    if (!r.error.empty()) row(r, "");
  ImGui::EndTable();
}

void drawChecks(Model& model, UiActions& actions) {
  EditorState& e = model.editor;
  const Palette& pal = palette(model.ui.theme);
  if (e.checking) {
    const float frac = e.casesTotal > 0 ? float(e.casesDone) / float(e.casesTotal) : 0.0f;
    char label[64];
    std::snprintf(label, sizeof label, "%d of %d cases", e.casesDone, e.casesTotal);
    ImGui::ProgressBar(frac, ImVec2(-1, 0), label);
  }
  if (!e.checkSummary.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, e.checkExit == 0 ? pal.ok : e.checkExit < 0 ? pal.text : pal.conflict);
    ImGui::TextWrapped("%s", e.checkSummary.c_str());
    ImGui::PopStyleColor();
  } else if (!e.checking) {
    ImGui::TextDisabled("Check runs the battery of `reducelab check` on the GPU.");
  }
  // The step's goals first: what the exercise asks, each met or not, and why.
  if (!e.goalResults.empty()) {
    const bool all = std::all_of(e.goalResults.begin(), e.goalResults.end(), [](const usercode::GoalResult& g) { return g.met; });
    ImGui::TextUnformatted(all ? "Every goal of this step is met:" : "Goals of this step:");
    for (const usercode::GoalResult& g : e.goalResults) {
      ImGui::PushStyleColor(ImGuiCol_Text, g.met ? pal.ok : pal.conflict);
      ImGui::TextWrapped("  %s %s: %s", g.met ? "met" : "not yet", g.requirement.text().c_str(), g.why.c_str());
      ImGui::PopStyleColor();
    }
  } else if (!e.goals.empty() && e.checking) {
    ImGui::TextDisabled("Goals of this step: judged when the check is done");
  }
  if (!e.hazards.empty()) ImGui::TextWrapped("%s", e.hazards.c_str());
  // The hazard check's traced block, drawn by the warp, bank and coalescing views like ours.
  if (!e.tracedCase.empty()) {
    if (ImGui::SmallButton("Show in the views")) actions.requestEditor(EditorRequest::ShowTrace);
    ImGui::SameLine();
    ImGui::TextDisabled(e.traceInViews ? "the views show %s" : "traced: %s", e.tracedCase.c_str());
  }
  if (e.timing) drawTiming(*e.timing);
  if (e.cases.empty()) return;
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY |
                             ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("cases", 5, tf, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("verdict");
  ImGui::TableSetupColumn("case");
  ImGui::TableSetupColumn("expected");
  ImGui::TableSetupColumn("got");
  ImGui::TableSetupColumn("note", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  // Failures first: the first failing case is the one to look at.
  std::vector<const usercode::CaseResult*> order;
  for (const auto& c : e.cases) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return (a->verdict != usercode::Verdict::Pass) > (b->verdict != usercode::Verdict::Pass);
  });
  for (const usercode::CaseResult* c : order) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool pass = c->verdict == usercode::Verdict::Pass;
    ImGui::PushStyleColor(ImGuiCol_Text, pass ? pal.ok : c->verdict == usercode::Verdict::Skipped ? pal.dim : pal.conflict);
    ImGui::TextUnformatted(std::string(usercode::name(c->verdict)).c_str());
    ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c->c.label().c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c->expected.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c->got.c_str());
    ImGui::TableNextColumn();
    std::string note = c->note;
    for (const std::string& f : c->findings) note += (note.empty() ? "" : "; ") + f;
    ImGui::TextUnformatted(note.c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void drawKernelEditor(Model& model, UiActions& actions) {
  EditorState& e = model.editor;
  drawToolbar(model, actions);
  drawStatus(model, actions);
  if (e.doc.empty()) {
    ImGui::Spacing();
    ImGui::TextWrapped("Write your own reduction kernel here: start from a copy of a catalogue kernel (Edit a copy of ...), "
                       "open a .cu file, or start ReduceLab with --kernel-file FILE.cu. The contract (signature, launch, "
                       "annotations) is in docs/your-kernel.md; the kernel compiles without a GPU, and Check runs it on one.");
    if (platform::kBrowser) {  // the one sentence of what the browser cannot do, capitalised
      const std::string limits = platform::kBrowserLimits;
      ImGui::Spacing();
      ImGui::TextWrapped("%c%s.", char(std::toupper(static_cast<unsigned char>(limits[0]))), limits.c_str() + 1);
    }
    return;
  }
  // The messages and checks under the text: a quarter, between four and twelve lines; the checks
  // of a kernel, with their summary, timing and cases, nearly half (the text still has the rest).
  const float lineH = ImGui::GetTextLineHeightWithSpacing();
  const bool checks = (e.checksInFront || e.showChecks) && (e.checking || !e.cases.empty());
  const float below = std::clamp(ImGui::GetContentRegionAvail().y * (checks ? 0.45f : 0.25f), lineH * 4, lineH * (checks ? 22 : 12));
  // The text gives way first (down to three lines): the messages under it keep their four lines
  // (their tab bar and the first message were cut in a short Views panel).
  drawText(model, std::max(ImGui::GetTextLineHeightWithSpacing() * 3, ImGui::GetContentRegionAvail().y - below));
  if (ImGui::BeginTabBar("editor-results")) {
    char label[64];
    std::snprintf(label, sizeof label, "Messages (%zu)###messages", e.diagnostics.size());
    if (ImGui::BeginTabItem(label)) {
      ImGui::BeginChild("messages");
      drawMessages(model);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Resources###resources")) {
      ImGui::BeginChild("resources", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
      if (e.resources.empty()) ImGui::TextDisabled("Registers, shared memory, spills and occupancy: after a compile without errors.");
      for (const std::string& line : e.resources) ImGui::TextUnformatted(line.c_str());
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    const ImGuiTabItemFlags checkFlags = e.showChecks ? ImGuiTabItemFlags_SetSelected : 0;
    e.showChecks = false;
    e.checksInFront = false;
    if (ImGui::BeginTabItem("Checks###checks", nullptr, checkFlags)) {
      e.checksInFront = true;
      ImGui::BeginChild("checks");
      drawChecks(model, actions);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
}

}  // namespace rl::gui
