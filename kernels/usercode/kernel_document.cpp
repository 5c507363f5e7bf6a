#include "reducelab/usercode/kernel_document.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "reducelab/atomic_file.hpp"

namespace rl::usercode {

namespace fs = std::filesystem;

FileStamp stampOf(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return {};
  FileStamp s;
  s.exists = true;
  s.modifiedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.changedNs = int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  s.bytes = uint64_t(st.st_size);
  s.inode = uint64_t(st.st_ino);
  s.device = uint64_t(st.st_dev);
  return s;
}

std::string whyNotEditable(const std::string& text) {
  size_t line = 1;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = (unsigned char)text[i];
    if (c == '\n') ++line;
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 4) return "line " + std::to_string(line) + " holds a character beyond U+FFFF (an emoji?), which the editor cannot keep";
    bool ok = len > 0 && i + size_t(len) <= text.size();
    for (int k = 1; ok && k < len; ++k) ok = ((unsigned char)text[i + size_t(k)] & 0xC0) == 0x80;
    if (ok && len == 2) ok = c >= 0xC2;                                               // no overlong forms
    if (ok && len == 3) ok = !(c == 0xE0 && (unsigned char)text[i + 1] < 0xA0) &&   // overlong
                             !(c == 0xED && (unsigned char)text[i + 1] >= 0xA0);   // surrogates
    if (!ok) return "line " + std::to_string(line) + " is not UTF-8 text (a Latin-1 comment?), which the editor would change";
    i += size_t(len);
  }
  return {};
}

namespace {

// The file's text, refused when it is no text a kernel can be (a binary picked by mistake).
std::string readKernelText(const std::string& path, std::string* text) {
  std::string t;
  if (std::string e = readTextFile(path, &t, kMaxKernelFileBytes); !e.empty()) return e;
  if (t.find('\0') != std::string::npos) return path + " is not a text file (it holds NUL bytes)";
  *text = std::move(t);
  return {};
}

std::string fileName(const std::string& path) { return fs::path(path).filename().string(); }

// CR LF line ends as LF (ImGui's field gives a CR no width: the caret went off by one); *crlf says
// whether the file had them, so Save writes them back.
std::string withoutCr(std::string text, bool* crlf) {
  *crlf = text.find("\r\n") != std::string::npos;
  if (!*crlf) return text;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i)
    if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) out += text[i];
  return out;
}

constexpr size_t kUndoBytes = size_t(64) << 20;  // the history's texts together, at most

}  // namespace

std::string KernelDocument::onDisk(const std::string& text) const {
  if (!crlf_) return text;
  std::string out;
  out.reserve(text.size() + text.size() / 20);
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

void KernelDocument::pushUndo(std::vector<Snapshot>& stack, Snapshot s) {
  stack.push_back(std::move(s));
  size_t bytes = 0;
  for (const Snapshot& x : stack) bytes += x.text.size();
  while (stack.size() > 1 && (stack.size() > 500 || bytes > kUndoBytes)) {
    bytes -= stack.front().text.size();
    stack.erase(stack.begin());
  }
}

std::string KernelDocument::open(const std::string& path) {
  const FileStamp before = stampOf(path);  // before reading: a change while reading is seen later
  std::string t;
  if (std::string e = readKernelText(path, &t); !e.empty()) return e;
  path_ = path;
  suggestedName_ = fileName(path);
  t = withoutCr(std::move(t), &crlf_);
  saved_ = t;
  stamp_ = before;
  conflictStamp_ = {};
  undo_.clear(), redo_.clear();
  replaceText(std::move(t));
  return {};
}

void KernelDocument::startUnsaved(std::string text, std::string suggestedName) {
  path_.clear();
  saved_.clear();
  pristine_ = text;
  stamp_ = {}, conflictStamp_ = {};
  suggestedName_ = std::move(suggestedName);
  undo_.clear(), redo_.clear();
  replaceText(std::move(text));
}

void KernelDocument::restore(const std::string& path, std::string text) {
  if (!path.empty() && open(path).empty()) {
    if (text != text_) {
      undo_.push_back({text_, 0});  // the file's text stays one undo away
      replaceText(std::move(text));
    }
    return;
  }
  // No file (never saved, or gone since): the text alone, modified until it is saved.
  std::string name = path.empty() ? suggestedName_ : fileName(path);
  startUnsaved(std::move(text), name.empty() ? "kernel.cu" : name);
  path_ = path;
  pristine_.clear();  // restored text is the user's work
}

std::string KernelDocument::displayName() const {
  if (!path_.empty()) return fileName(path_);
  if (suggestedName_.empty()) return text_.empty() ? "" : "untitled.cu (not saved yet)";
  return suggestedName_ + " (not saved yet)";
}

void KernelDocument::replaceText(std::string text) {
  text_ = std::move(text);
  notEditableWhy_ = whyNotEditable(text_);
  editable_ = notEditableWhy_.empty();
  ++version_;
}

void KernelDocument::edit(std::string text, int cursor, double nowSeconds) {
  if (text == text_) {
    lastCursor_ = cursor;
    return;
  }
  // One undo step per burst of typing: a few characters typed (or erased) where the caret was, soon
  // after the last. A loaded machine's frame may bring several keys at once; a paste brings more.
  // Typing and erasing are bursts of their own.
  const int64_t grew = int64_t(text.size()) - int64_t(text_.size());
  const bool sameWay = lastGrew_ == 0 || ((grew > 0) == (lastGrew_ > 0) && std::abs(lastGrew_) <= kBurstChars);  // not after a paste
  const bool atCaret = cursor - lastCursor_ == grew || (grew < 0 && cursor == lastCursor_);  // Delete keeps the caret
  const bool typing = grew != 0 && std::abs(grew) <= kBurstChars && atCaret && sameWay &&
                      nowSeconds - lastEditAt_ < kMergeSeconds && !undo_.empty();
  lastGrew_ = grew;
  if (!typing) pushUndo(undo_, {text_, lastCursor_});
  redo_.clear();
  lastEditAt_ = nowSeconds;
  lastCursor_ = cursor;
  replaceText(std::move(text));
}

bool KernelDocument::undo(int* cursor) {
  if (undo_.empty()) return false;
  pushUndo(redo_, {text_, lastCursor_});
  Snapshot s = std::move(undo_.back());
  undo_.pop_back();
  lastCursor_ = s.cursor;
  lastEditAt_ = -1e9;  // the next keystroke starts a new step
  if (cursor) *cursor = s.cursor;
  replaceText(std::move(s.text));
  return true;
}

bool KernelDocument::redo(int* cursor) {
  if (redo_.empty()) return false;
  pushUndo(undo_, {text_, lastCursor_});
  Snapshot s = std::move(redo_.back());
  redo_.pop_back();
  lastCursor_ = s.cursor;
  lastEditAt_ = -1e9;
  if (cursor) *cursor = s.cursor;
  replaceText(std::move(s.text));
  return true;
}

std::string KernelDocument::save(const std::string& path) {
  const std::string target = path.empty() ? path_ : path;
  if (target.empty()) return "this kernel has no file yet: choose where to save it";
  if (std::string e = writeTextAtomic(target, onDisk(text_)); !e.empty()) return e;
  path_ = target;
  suggestedName_ = fileName(target);
  saved_ = text_;
  stamp_ = stampOf(target);
  conflictStamp_ = {};
  return {};
}

KernelDocument::DiskChange KernelDocument::checkDisk(std::string* why) {
  if (path_.empty()) return DiskChange::None;
  const FileStamp now = stampOf(path_);
  if (now == stamp_) return DiskChange::None;
  if (!now.exists) {
    if (!stamp_.exists) return DiskChange::None;  // reported already
    stamp_ = now;  // saved_ stays: the file coming back unchanged, or changed while the editor was not, is no conflict
    return DiskChange::Vanished;
  }
  std::string t;
  bool crlf = false;
  if (std::string e = readKernelText(path_, &t); !e.empty()) {
    stamp_ = now;  // reported once; the next change is looked at again
    if (why) *why = e;
    return DiskChange::Unreadable;
  }
  t = withoutCr(std::move(t), &crlf);
  crlf_ = crlf;
  if (t == saved_ || t == text_) {  // touched, not changed, or now holding the editor's own text
    stamp_ = now;
    saved_ = std::move(t);
    return DiskChange::None;
  }
  if (!modified()) {
    stamp_ = now;
    saved_ = t;
    pushUndo(undo_, {text_, lastCursor_});  // the reload is one undo step
    redo_.clear();
    lastEditAt_ = -1e9;
    replaceText(std::move(t));
    return DiskChange::Reloaded;
  }
  if (now == conflictStamp_) return DiskChange::None;
  conflictStamp_ = now;
  return DiskChange::Conflict;
}

std::string KernelDocument::reloadFromDisk() {
  const FileStamp before = stampOf(path_);
  std::string t;
  if (std::string e = readKernelText(path_, &t); !e.empty()) return e;
  t = withoutCr(std::move(t), &crlf_);
  pushUndo(undo_, {text_, lastCursor_});  // the editor's own text stays one undo away
  redo_.clear();
  lastEditAt_ = -1e9;
  saved_ = t;
  stamp_ = before;
  conflictStamp_ = {};
  replaceText(std::move(t));
  return {};
}

void KernelDocument::keepMine() {
  // What is on disk now is what a Save would replace: the editor stays modified against it.
  const FileStamp before = stampOf(path_);
  std::string t;
  bool crlf = false;
  if (readKernelText(path_, &t).empty()) saved_ = withoutCr(std::move(t), &crlf);
  stamp_ = before;
  conflictStamp_ = {};
}

// ---- the autosave ----

fs::path defaultAutosavePath() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  const char* home = std::getenv("HOME");
  fs::path dir;
  if (xdg && *xdg) dir = fs::path(xdg) / "reducelab";
  else if (home && *home) dir = fs::path(home) / ".local" / "state" / "reducelab";
  else dir = fs::temp_directory_path() / "reducelab";
  return dir / "editor-autosave.json";
}

namespace {

std::string utcNow() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

constexpr const char* kAutosaveFormat = "reducelab-editor-autosave";

// The path made absolute without throwing (the working folder may be gone by the time the app exits).
std::string absolutePath(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  return ec ? path : p.string();
}

}  // namespace

AutosaveOwner AutosaveOwner::claim(const std::filesystem::path& path, std::string* note) {
  AutosaveOwner a;
  a.path_ = path;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  const std::string lock = path.string() + ".lock";
  a.lockFd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (a.lockFd_ >= 0 && ::flock(a.lockFd_, LOCK_EX | LOCK_NB) == 0) {
    a.owner_ = true;
    return a;
  }
  if (a.lockFd_ >= 0) ::close(a.lockFd_), a.lockFd_ = -1;
  // Another window holds it (or the lock cannot be made): a file of this window's own.
  static int windows = 0;
  const std::string own = "editor-autosave-" + std::to_string(::getpid()) + "-" + std::to_string(++windows) + ".json";
  a.path_ = path.parent_path() / own;
  if (note)
    *note = "Another ReduceLab window keeps the editor's autosave (" + path.string() + "): this one autosaves to " +
            a.path_.string() + " and restored nothing";
  return a;
}

AutosaveOwner& AutosaveOwner::operator=(AutosaveOwner&& o) noexcept {
  if (this != &o) {
    if (lockFd_ >= 0) ::close(lockFd_);
    path_ = std::move(o.path_);
    owner_ = o.owner_;
    lockFd_ = o.lockFd_;
    o.lockFd_ = -1;
    o.owner_ = false;
  }
  return *this;
}

AutosaveOwner::~AutosaveOwner() {
  if (lockFd_ >= 0) ::close(lockFd_);  // closing releases the flock
}

std::string writeAutosave(const fs::path& path, const KernelDocument& doc) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return "cannot create " + path.parent_path().string() + ": " + ec.message();
  nlohmann::json j = {{"format", kAutosaveFormat},
                      {"version", 1},
                      {"file", doc.path().empty() ? std::string() : absolutePath(doc.path())},
                      {"suggested_name", doc.suggestedName()},
                      {"modified", doc.modified()},
                      {"written_at", utcNow()},
                      {"text", doc.text()}};
  // The editor holds only text it can keep byte for byte (whyNotEditable), which JSON holds as is;
  // `replace` only keeps a damaged byte from making the whole autosave unwritable.
  return writeTextAtomic(path.string(), j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

std::optional<Autosave> readAutosave(const fs::path& path, std::string* why) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::string text;
  if (std::string e = readTextFile(path.string(), &text, kMaxKernelFileBytes * 8); !e.empty()) {
    if (why) *why = e;
    return std::nullopt;
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.value("format", "") != kAutosaveFormat || j.value("version", 0) != 1)
      throw std::runtime_error("not an editor autosave of this version");
    Autosave a;
    a.file = j.at("file").get<std::string>();
    a.suggestedName = j.value("suggested_name", "");
    a.text = j.at("text").get<std::string>();
    a.modified = j.at("modified").get<bool>();
    a.writtenAt = j.value("written_at", "");
    if (a.text.find('\0') != std::string::npos) throw std::runtime_error("its text holds a NUL byte");
    return a;
  } catch (const std::exception& e) {
    if (why) *why = "the editor's autosave " + path.string() + " cannot be read (" + e.what() + "); it is left as it is";
    return std::nullopt;
  }
}

std::string restoreDocument(KernelDocument* doc, const std::optional<Autosave>& autosave, const std::string& kernelFile,
                            std::string* error) {
  auto sameFile = [](const std::string& a, const std::string& b) {
    std::error_code ec;
    return !a.empty() && !b.empty() && fs::equivalent(a, b, ec);
  };
  if (!kernelFile.empty()) {
    if (std::string e = doc->open(kernelFile); !e.empty()) {
      if (error) *error = e;
      return {};
    }
    if (autosave && autosave->modified && sameFile(autosave->file, kernelFile) && autosave->text != doc->text()) {
      doc->restore(kernelFile, autosave->text);
      return "Restored the unsaved text of " + doc->displayName() + " from " + autosave->writtenAt +
             " (the file on disk is one undo away)";
    }
    return {};
  }
  if (!autosave) return {};
  if (!autosave->file.empty() && !autosave->modified) {
    if (std::string e = doc->open(autosave->file); !e.empty()) {  // moved away since: its text stays
      doc->restore(autosave->file, autosave->text);
      return "Reopened the editor's text of " + autosave->file + " from " + autosave->writtenAt + " (" + e + ")";
    }
    return {};
  }
  if (autosave->file.empty()) {
    doc->startUnsaved(autosave->text, autosave->suggestedName);
    return autosave->text.empty() ? std::string()
                                  : "Restored the editor's unsaved text (" + doc->displayName() + ") from " + autosave->writtenAt;
  }
  doc->restore(autosave->file, autosave->text);
  return "Restored the unsaved text of " + doc->displayName() + " from " + autosave->writtenAt;
}

}  // namespace rl::usercode
