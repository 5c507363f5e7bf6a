// The browser's file chooser behind the desktop's FileDialog (app/file_dialog.hpp): Open is the page's
// file picker (web/shell.html writes the chosen file into the in-memory file system and this poll()
// hands back its path); Save writes into the export folder, whose files the page downloads; a folder
// cannot be chosen (the browser puts downloads where its settings say).
#include "file_dialog.hpp"

#include <emscripten.h>

#include <cstdlib>
#include <filesystem>

namespace rl::app {

// reducelab.pick(): 0 while the picker is open, then 1 with the path written, or -1 when cancelled.
EM_JS(void, webPickStart, (), { window.reducelab.pick(); });
EM_JS(int, webPickState, (), { return window.reducelab.pickState; });
EM_JS(char*, webPickPath, (), { return stringToNewUTF8(window.reducelab.pickPath || ""); });

std::vector<std::string> zenityArguments(FileDialogKind, const std::string&, const std::string&) { return {}; }

FileDialog::~FileDialog() = default;
void FileDialog::closePipe() {}

std::string FileDialog::start(FileDialogKind kind, const std::string&, const std::string& startPath, const std::string&) {
  kind_ = kind;
  output_ = startPath;
  if (kind == FileDialogKind::Folder) return "in the browser, exports are downloads: the browser's settings say where they go";
  if (kind == FileDialogKind::Open) webPickStart();
  pid_ = 1;  // "running" until poll() answers
  return {};
}

std::optional<FileDialogResult> FileDialog::poll() {
  if (pid_ <= 0) return std::nullopt;
  FileDialogResult r;
  if (kind_ == FileDialogKind::Save) {  // into the export folder, downloaded from there
    r.status = FileDialogResult::Chosen;
    r.path = output_;
  } else {
    const int state = webPickState();
    if (state == 0) return std::nullopt;
    if (state > 0) {
      char* p = webPickPath();
      r.status = FileDialogResult::Chosen;
      r.path = p;
      std::free(p);
    } else {
      r.status = FileDialogResult::Cancelled;
    }
  }
  pid_ = -1;
  return r;
}

}  // namespace rl::app
