// Dialogs: the desktop's file chooser (zenity), its answer polled once a frame, and the in-app
// path field when no chooser can be started.
#include <filesystem>

#include "application.hpp"

namespace rl::app {

void Application::requestFileChoice(gui::FileChoice choice) {
  if (fileDialog_.running()) return;
  const FileDialogKind kind = choice == gui::FileChoice::OpenRecording ? FileDialogKind::Open
                              : choice == gui::FileChoice::SaveSession ? FileDialogKind::Save
                                                                       : FileDialogKind::Folder;
  const char* title = choice == gui::FileChoice::OpenRecording ? "Open a ReduceLab recording or session"
                      : choice == gui::FileChoice::SaveSession ? "Save the ReduceLab session"
                                                               : "ReduceLab export folder";
  namespace fs = std::filesystem;
  const std::string start = choice == gui::FileChoice::SaveSession ? (fs::path(model_.exportDir) / "session.reducelab").string()
                            : choice == gui::FileChoice::ExportFolder ? model_.exportDir + "/"
                                                                      : "";
  const std::string why = fileDialog_.start(kind, title, start, dialogProgram_);
  if (why.empty()) {
    dialogPurpose_ = choice;
    model_.fileDialogOpen = true;
    return;
  }
  model_.pathPrompt = {true, choice, choice == gui::FileChoice::ExportFolder ? model_.exportDir : "", why};
}

// Once a frame: the desktop's chooser answered? Its choice is used as if typed; a failure opens
// the in-app path field. True when something came back.
bool Application::pollFileDialog() {
  const std::optional<FileDialogResult> r = fileDialog_.poll();
  if (!r) return false;
  model_.fileDialogOpen = false;
  if (r->status == FileDialogResult::Chosen) {
    if (dialogPurpose_ == gui::FileChoice::SaveSession) saveSession(r->path, true);  // the chooser asked before replacing
    else requestPathChosen(dialogPurpose_, r->path);
  } else if (r->status == FileDialogResult::Failed) {
    model_.addLog(gui::LogLevel::Warn, r->error + ": type the path instead");
    model_.pathPrompt = {true, dialogPurpose_, dialogPurpose_ == gui::FileChoice::ExportFolder ? model_.exportDir : "", r->error};
  }
  return true;
}

void Application::requestPathChosen(gui::FileChoice choice, const std::string& path) {
  if (path.empty()) return;
  switch (choice) {
    case gui::FileChoice::OpenRecording:
      openRecording(path);
      break;
    case gui::FileChoice::SaveSession: {  // typed: an existing file is not replaced
      const std::string target = std::filesystem::path(path).has_extension() ? path : path + ".reducelab";
      saveSession(target, false);
      break;
    }
    case gui::FileChoice::ExportFolder:
      model_.exportDir = path;
      model_.addLog(gui::LogLevel::Info, "Export folder: " + path);
      break;
  }
}

}  // namespace rl::app
