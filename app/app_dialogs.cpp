// Dialogs: the desktop's file chooser (zenity), its answer polled once a frame, and the in-app
// path field when no chooser can be started.
#include <filesystem>

#include "application.hpp"

namespace rl::app {

void Application::requestFileChoice(gui::FileChoice choice) {
  if (fileDialog_.running()) return;
  namespace fs = std::filesystem;
  FileDialogKind kind = FileDialogKind::Open;
  const char* title = "";
  std::string start;
  switch (choice) {
    case gui::FileChoice::OpenRecording: title = "Open a ReduceLab recording or session"; break;
    case gui::FileChoice::SaveSession:
      kind = FileDialogKind::Save, title = "Save the ReduceLab session";
      start = (fs::path(model_.exportDir) / "session.reducelab").string();
      break;
    case gui::FileChoice::ExportFolder:
      kind = FileDialogKind::Folder, title = "ReduceLab export folder";
      start = model_.exportDir + "/";
      break;
    case gui::FileChoice::OpenKernel: title = "Open your kernel (.cu)"; break;
    case gui::FileChoice::SaveKernelAs:
      kind = FileDialogKind::Save, title = "Save your kernel";
      start = model_.editor.doc.hasFile() ? model_.editor.doc.path() : model_.editor.doc.suggestedName();
      break;
  }
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
    else if (dialogPurpose_ == gui::FileChoice::SaveKernelAs) saveKernel(r->path);
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
    case gui::FileChoice::OpenKernel:
      openKernelFile(path);
      break;
    case gui::FileChoice::SaveKernelAs: {  // typed: an existing file other than the kernel's own is not replaced
      std::error_code ec;
      const bool own = model_.editor.doc.hasFile() && std::filesystem::equivalent(path, model_.editor.doc.path(), ec);
      if (std::filesystem::exists(path, ec) && !own) {
        model_.editor.notice = path + " exists already: choose another name (the desktop's chooser asks before replacing)";
        model_.editor.noticeIsError = true;
        model_.addLog(gui::LogLevel::Warn, model_.editor.notice);
        break;
      }
      saveKernel(path);
      break;
    }
    case gui::FileChoice::ExportFolder:
      model_.exportDir = path;
      model_.addLog(gui::LogLevel::Info, "Export folder: " + path);
      break;
  }
}

}  // namespace rl::app
