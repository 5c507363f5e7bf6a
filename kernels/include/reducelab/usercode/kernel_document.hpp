#pragma once
// The student's kernel as the editor holds it (docs/your-kernel.md, "The editor"): its text, the
// file it belongs to, an undo history, the file watched on disk, and an autosave so that editor
// text is never lost (written a moment after each change, read back after a crash). Plain C++:
// the GUI draws and edits it, the app saves, watches and autosaves it; tests drive it directly.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rl::usercode {

// What identifies a version of a file on disk without reading it.
struct FileStamp {
  bool exists = false;
  int64_t modifiedNs = 0, changedNs = 0;  // mtime, ctime
  uint64_t bytes = 0, inode = 0, device = 0;
  bool operator==(const FileStamp&) const = default;
};
FileStamp stampOf(const std::string& path);

// The largest kernel file the editor opens (a .cu file of a few hundred lines is ~20 KiB).
constexpr uint64_t kMaxKernelFileBytes = uint64_t(1) << 20;

// "" when the editor can edit `text` without changing bytes the user did not touch; else why not.
// ImGui's field keeps 16-bit characters: invalid UTF-8 and characters beyond U+FFFF would come back
// as U+FFFD on the first keystroke. Such a text is shown read-only (edit it in another editor:
// the file is watched).
std::string whyNotEditable(const std::string& text);

class KernelDocument {
 public:
  // Opens a kernel file: "" or why not (missing, a folder, too large, not text). On error the
  // document is unchanged.
  std::string open(const std::string& path);
  // A text that belongs to no file yet (a copy of a starter): Save asks where, offering `suggestedName`.
  void startUnsaved(std::string text, std::string suggestedName);
  // The text of an autosave put back: it differs from the file (or there is none), so it is modified.
  void restore(const std::string& path, std::string text);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  const std::string& suggestedName() const { return suggestedName_; }
  bool hasFile() const { return !path_.empty(); }
  bool modified() const { return text_ != saved_; }
  // Work a replacement would lose: changes to the file, or a copy edited since it was put here (a
  // copy as it came, never saved, is no work of the user's: another copy may replace it).
  bool unsavedWork() const { return path_.empty() ? text_ != pristine_ : modified(); }
  // "k3.cu", "k3.cu (not saved yet)"; "" when the editor is empty and bound to no file.
  std::string displayName() const;
  bool empty() const { return path_.empty() && text_.empty() && suggestedName_.empty(); }
  bool editable() const { return editable_; }
  const std::string& notEditableWhy() const { return notEditableWhy_; }
  // Bumps whenever the text changes, from any source (typing, undo, reload, open).
  uint64_t version() const { return version_; }

  // The editor's text after the user changed it; `cursor` is the byte offset of the caret after
  // the change. Changes less than `kMergeSeconds` apart, made by typing, are one undo step.
  void edit(std::string text, int cursor, double nowSeconds);
  static constexpr int kBurstChars = 8;  // keys one frame may bring; more at once is a paste
  static constexpr double kMergeSeconds = 2.0;  // generous: a slow frame (llvmpipe on a loaded machine) must not split a word
  bool canUndo() const { return !undo_.empty(); }
  bool canRedo() const { return !redo_.empty(); }
  // Back to the text before the last undo step; *cursor where its caret was. False: nothing to undo.
  bool undo(int* cursor);
  bool redo(int* cursor);

  // Writes the text atomically to `path` (default: the document's own file), which becomes the
  // document's file. "" or why not; the document stays modified when it fails.
  std::string save(const std::string& path = "");

  // The file on disk against what the document last read or wrote.
  enum class DiskChange {
    None,       // the same (or no file)
    Reloaded,   // it changed and the editor had no changes of its own: the new text is in
    Conflict,   // it changed and the editor has changes too: reloadFromDisk() or keepMine() decides
    Vanished,   // it was deleted or renamed: the editor keeps the text (modified), Save writes it back
    Unreadable, // it changed into something the editor cannot open: the text stays
  };
  // `why` (may be null): the message of Unreadable. A Conflict is reported once per change on disk.
  DiskChange checkDisk(std::string* why = nullptr);
  std::string reloadFromDisk();  // "" or why not
  void keepMine();               // the disk's change is ignored; the editor's text stays modified

 private:
  struct Snapshot {
    std::string text;
    int cursor = 0;
  };
  void replaceText(std::string text);
  void pushUndo(std::vector<Snapshot>& stack, Snapshot s);
  std::string onDisk(const std::string& text) const;  // the editor's text with the file's line endings

  std::string path_, text_, saved_, suggestedName_;
  std::string pristine_;               // a copy's text as it was put here (startUnsaved)
  FileStamp stamp_;                    // of the file as last read or written
  FileStamp conflictStamp_;            // the change on disk already reported as a conflict
  std::vector<Snapshot> undo_, redo_;  // text before each step, caret where it was
  bool crlf_ = false;                  // the file's lines end in CR LF: the editor holds LF, Save writes CR LF
  bool editable_ = true;
  std::string notEditableWhy_;
  double lastEditAt_ = -1e9;
  int lastCursor_ = 0;
  int64_t lastGrew_ = 0;  // the last edit's change of length (typing > 0, erasing < 0)
  uint64_t version_ = 0;
};

// ---- the autosave ----
// $XDG_STATE_HOME/reducelab/editor-autosave.json (else ~/.local/state/reducelab/...): the file the
// editor held and its text, written a moment after each change and when the app closes.
std::filesystem::path defaultAutosavePath();
struct Autosave {
  std::string file;       // "" for a copy not saved yet
  std::string suggestedName;
  std::string text;
  bool modified = false;  // the text differs from the file's when it was written
  std::string writtenAt;  // "2026-11-25 18:40:03 UTC"
};
// Two windows must not write over each other's text: one running window owns an autosave file,
// through a lock beside it (PATH.lock, flock: released when the process ends, crash or not).
// Another window gets a file of its own in the same folder (editor-autosave-PID-K.json) and
// restores nothing; it removes its file when it closes with nothing unsaved.
class AutosaveOwner {
 public:
  AutosaveOwner() = default;
  // Takes `path`'s lock, or picks a file of this window's own and says so in *note.
  static AutosaveOwner claim(const std::filesystem::path& path, std::string* note);
  AutosaveOwner(AutosaveOwner&& o) noexcept { *this = std::move(o); }
  AutosaveOwner& operator=(AutosaveOwner&& o) noexcept;
  AutosaveOwner(const AutosaveOwner&) = delete;
  AutosaveOwner& operator=(const AutosaveOwner&) = delete;
  ~AutosaveOwner();
  const std::filesystem::path& path() const { return path_; }
  bool owner() const { return owner_; }  // of the shared file: it restores it at start

 private:
  std::filesystem::path path_;
  bool owner_ = false;
  int lockFd_ = -1;
};

// "" or why not. Atomic: a crash while writing leaves the previous autosave whole.
std::string writeAutosave(const std::filesystem::path& path, const KernelDocument& doc);
// nullopt when there is none; *why says what was wrong with one that could not be read (it is
// left in place, never overwritten by an empty editor, so nothing is lost).
std::optional<Autosave> readAutosave(const std::filesystem::path& path, std::string* why);

// Puts the editor's document back as the autosave left it: the file re-read from disk, with the
// autosave's text on top when it differs. `kernelFile` (--kernel-file), when given, wins over the
// autosave's file; its autosaved text is restored only when it was for that same file. Returns
// what to tell the user ("Restored the unsaved text of k3.cu from 18:40:03"; "" when nothing was
// restored), or an error in *error.
std::string restoreDocument(KernelDocument* doc, const std::optional<Autosave>& autosave,
                            const std::string& kernelFile, std::string* error);

}  // namespace rl::usercode
