#pragma once
// The desktop's file chooser through zenity (when it is on PATH), run as a child process so the
// frame loop never waits for it: start() returns at once and poll(), called once a frame, hands
// back the choice in a later frame. Where zenity is missing or fails, the caller falls back to
// the in-app path field.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace rl::app {

enum class FileDialogKind { Open, Save, Folder };

struct FileDialogResult {
  enum Status { Chosen, Cancelled, Failed } status = Failed;
  std::string path;   // Chosen: what the user picked
  std::string error;  // Failed: why (the caller then offers the in-app path field)
};

// zenity's arguments for a dialog (tests check them).
std::vector<std::string> zenityArguments(FileDialogKind kind, const std::string& title, const std::string& startPath);

class FileDialog {
 public:
  FileDialog() = default;
  ~FileDialog();  // a dialog still open is closed (SIGTERM) and reaped
  FileDialog(const FileDialog&) = delete;
  FileDialog& operator=(const FileDialog&) = delete;

  // Starts `program` (default "zenity", looked up on PATH). "" or why it could not start; one
  // dialog at a time.
  std::string start(FileDialogKind kind, const std::string& title, const std::string& startPath,
                    const std::string& program = "zenity");
  bool running() const { return pid_ > 0; }
  FileDialogKind kind() const { return kind_; }
  // Never blocks: nullopt while the dialog is open, then its result once.
  std::optional<FileDialogResult> poll();

 private:
  void closePipe();
  pid_t pid_ = -1;
  int pipe_ = -1;
  std::string output_;
  FileDialogKind kind_ = FileDialogKind::Open;
};

}  // namespace rl::app
