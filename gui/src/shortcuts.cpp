#include "reducelab/gui/shortcuts.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace rl::gui {
namespace {

bool logActions() {
  static const bool on = [] {
    const char* e = std::getenv("REDUCELAB_LOG_ACTIONS");
    return e && *e && std::string(e) != "0";
  }();
  return on;
}

}  // namespace

const std::vector<Shortcut>& shortcuts() {
  using namespace keys;
  static const std::vector<Shortcut> table = {
      {Space, false, false, false, "Space", "play-pause", "play / pause the trace animation"},
      {Left, false, true, false, "Left", "step-back", "step back"},
      {Right, false, true, false, "Right", "step-forward", "step forward"},
      {Home, false, false, false, "Home", "first-step", "first step"},
      {End, false, false, false, "End", "last-step", "last step"},
      {N, false, false, false, "N", "lesson-next", "next lesson step"},
      {PageDown, false, false, false, "Page Down", "lesson-next", "next lesson step"},
      {P, false, false, false, "P", "lesson-back", "previous lesson step"},
      {PageUp, false, false, false, "Page Up", "lesson-back", "previous lesson step"},
      {F5, false, false, true, "F5", "run", "run the configuration"},
      {F11, false, false, true, "F11", "presentation", "presentation mode on / off"},
      {Escape, false, false, false, "Esc", "leave-presentation", "leave presentation mode"},
      {Digit1, false, false, false, "1", "present-views", "presenting: the trace views"},
      {Digit2, false, false, false, "2", "present-plots", "presenting: the bandwidth plots"},
      {Digit3, false, false, false, "3", "present-results", "presenting: the lesson table / results"},
      {F2, false, false, true, "F2", "toggle-left", "left panels"},
      {F3, false, false, true, "F3", "toggle-right", "right panel"},
      {F4, false, false, true, "F4", "toggle-bottom", "bottom panel"},
      {Equal, true, true, true, "Ctrl+=", "scale-up", "larger UI"},
      {KeypadAdd, true, true, true, "Ctrl++", "scale-up", "larger UI"},
      {Minus, true, true, true, "Ctrl+-", "scale-down", "smaller UI"},
      {KeypadSubtract, true, true, true, "Ctrl+-", "scale-down", "smaller UI"},
      {F12, false, false, true, "F12", "screenshot", "screenshot"},
      {O, true, false, true, "Ctrl+O", "open", "open a recording or session"},
      {S, true, false, true, "Ctrl+S", "save-kernel", "save your kernel (the editor's file)"},
      {Q, true, false, true, "Ctrl+Q", "quit", "quit"},
  };
  return table;
}

void runShortcut(const std::string& action, Model& model, UiActions& actions) {
  TraceState& t = model.trace;
  const int last = std::max(0, t.data.numSteps() - 1);
  if (action == "play-pause") t.playing = !t.playing;
  else if (action == "step-back") t.step = std::max(t.step - 1, 0), t.playing = false;
  else if (action == "step-forward") t.step = std::min(t.step + 1, last), t.playing = false;
  else if (action == "first-step") t.step = 0;
  else if (action == "last-step") t.step = last;
  else if (action == "lesson-next") {
    if (model.lesson.active) actions.requestLessonStep(model.lesson.step + 1);
  } else if (action == "lesson-back") {
    if (model.lesson.active) actions.requestLessonStep(model.lesson.step - 1);
  } else if (action == "run") {
    if (model.cpuModel()) model.addLog(LogLevel::Warn, "Run (F5): measuring needs an NVIDIA GPU");
    else if (!model.configError.empty()) model.addLog(LogLevel::Warn, "Run (F5): " + model.configError);
    else actions.requestRun();
  } else if (action == "presentation") actions.requestTogglePresentation();
  else if (action == "present-views") model.presenting = Model::Presenting::Views;
  else if (action == "present-plots") model.presenting = Model::Presenting::Plots;
  else if (action == "present-results") model.presenting = Model::Presenting::Results;
  else if (action == "leave-presentation") {
    if (model.presentation) actions.requestTogglePresentation();
  } else if (action == "toggle-left") model.ui.showLeft = !model.ui.showLeft;
  else if (action == "toggle-right") model.ui.showRight = !model.ui.showRight;
  else if (action == "toggle-bottom") model.ui.showBottom = !model.ui.showBottom;
  else if (action == "scale-up") model.ui.uiScale = std::min(model.ui.uiScale + 0.1f, 3.0f);
  else if (action == "scale-down") model.ui.uiScale = std::max(model.ui.uiScale - 0.1f, 0.5f);
  else if (action == "screenshot") actions.requestScreenshot();
  else if (action == "quit") actions.requestQuit();
  else if (action == "save-kernel") {
    if (!model.editor.doc.empty()) actions.requestEditor(EditorRequest::Save);
  } else if (action == "open") {
    if (!model.fileDialogOpen) actions.requestFileChoice(FileChoice::OpenRecording);
  }
  if (logActions())
    std::fprintf(stderr, "reducelab: action %s (playing=%d step=%d lesson_step=%d presentation=%d scale=%.2f)\n",
                 action.c_str(), int(t.playing), t.step, model.lesson.active ? model.lesson.step : -1,
                 int(model.presentation), double(model.ui.uiScale));
}

void handleShortcuts(Model& model, UiActions& actions) {
  const ImGuiIO& io = ImGui::GetIO();
  for (const Shortcut& s : shortcuts()) {
    if (s.ctrl != io.KeyCtrl) continue;
    if (io.WantTextInput && !s.whileTyping) continue;
    if (ImGui::IsKeyPressed(s.key, s.repeats)) runShortcut(s.action, model, actions);
  }
}

}  // namespace rl::gui
