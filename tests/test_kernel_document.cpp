// The editor's document (kernel_document.hpp): undo steps, saving, the file watched on disk and
// the autosave that brings back editor text after a crash. No GPU, no window.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "reducelab/usercode/kernel_document.hpp"

namespace fs = std::filesystem;
using rl::usercode::Autosave;
using rl::usercode::KernelDocument;
using Change = rl::usercode::KernelDocument::DiskChange;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("rl-doc-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}
std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
// A later modification time than the last write, as an editor saving a second later gives.
void touchLater(const std::string& path) {
  const auto t = fs::last_write_time(path);
  fs::last_write_time(path, t + std::chrono::seconds(2));
}

}  // namespace

TEST(KernelDocument, TypingIsOneUndoStepAndUndoRedoWalkTheHistory) {
  KernelDocument d;
  d.startUnsaved("", "k3.cu");
  std::string text;
  double t = 0;
  for (char c : std::string("abc")) {  // one burst of typing
    text += c;
    d.edit(text, int(text.size()), t += 0.1);
  }
  text += "\n\nlater";  // a paste, later
  d.edit(text, int(text.size()), t += 5);
  ASSERT_EQ(d.text(), "abc\n\nlater");
  int cursor = -1;
  ASSERT_TRUE(d.undo(&cursor));
  EXPECT_EQ(d.text(), "abc");
  EXPECT_EQ(cursor, 3);
  ASSERT_TRUE(d.undo(&cursor));
  EXPECT_EQ(d.text(), "");
  EXPECT_FALSE(d.undo(&cursor));
  ASSERT_TRUE(d.redo(&cursor));
  ASSERT_TRUE(d.redo(&cursor));
  EXPECT_EQ(d.text(), "abc\n\nlater");
  EXPECT_FALSE(d.redo(&cursor));
  // A new edit after an undo drops the redo history.
  d.undo(&cursor);
  d.edit("abX", 3, t += 5);
  EXPECT_FALSE(d.canRedo());
}

// On a loaded machine one frame can bring several typed characters at once: still one burst, one
// undo step (the Xvfb test once left " typ" after Ctrl+Z: "ed-by-xdotool" had come in one frame).
TEST(KernelDocument, KeysThatArriveTogetherAreStillOneBurst) {
  KernelDocument d;
  d.startUnsaved("int x;\n", "k3.cu");
  std::string text = "int x;\n";
  double t = 10;
  int cursor = 6;
  for (const std::string chunk : {" ", "t", "yp", "ed-by", "-xdotool"}) {  // frames of 1, 2, 5 and 8 characters
    text.insert(size_t(cursor), chunk);
    cursor += int(chunk.size());
    d.edit(text, cursor, t += 0.3);
  }
  for (int i = 0; i < 3; ++i) {  // and Backspace held, two characters a frame
    text.erase(size_t(cursor) - 2, 2);
    cursor -= 2;
    d.edit(text, cursor, t += 0.3);
  }
  ASSERT_EQ(d.text(), "int x; typed-by-x\n");
  int at = -1;
  ASSERT_TRUE(d.undo(&at));
  EXPECT_EQ(d.text(), "int x; typed-by-xdotool\n");  // the deletions are a burst of their own
  ASSERT_TRUE(d.undo(&at));
  EXPECT_EQ(d.text(), "int x;\n");  // the typing is one step
  // A paste of many characters at once is a step of its own, even soon after typing.
  d.edit("int x; /* a pasted comment of some length */\n", 44, t += 0.3);
  d.edit("int x; /* a pasted comment of some length */a\n", 45, t += 0.3);
  ASSERT_TRUE(d.undo(&at));
  ASSERT_TRUE(d.undo(&at));
  EXPECT_EQ(d.text(), "int x;\n");
}

TEST(KernelDocument, SaveWritesTheFileAndClearsModified) {
  TempDir dir;
  KernelDocument d;
  d.startUnsaved("__global__ void k() {}\n", "k1.cu");
  EXPECT_TRUE(d.modified());
  EXPECT_EQ(d.displayName(), "k1.cu (not saved yet)");
  EXPECT_NE(d.save(), "");  // no file yet: it says so and writes nothing
  const std::string path = dir.file("k1.cu");
  ASSERT_EQ(d.save(path), "");
  EXPECT_FALSE(d.modified());
  EXPECT_EQ(readFile(path), "__global__ void k() {}\n");
  EXPECT_EQ(d.displayName(), "k1.cu");
  // A failed save leaves the document modified and the target untouched.
  d.edit("changed", 7, 1);
  EXPECT_NE(d.save(dir.file("no-such-folder/k1.cu")), "");
  EXPECT_TRUE(d.modified());
  EXPECT_FALSE(fs::exists(dir.file("no-such-folder")));
}

TEST(KernelDocument, OpenRefusesWhatIsNoKernelTextAndKeepsTheDocument) {
  TempDir dir;
  KernelDocument d;
  const std::string good = dir.file("a.cu");
  writeFile(good, "kernel text");
  ASSERT_EQ(d.open(good), "");
  EXPECT_NE(d.open(dir.file("missing.cu")), "");
  EXPECT_NE(d.open(dir.path.string()), "");  // a folder
  writeFile(dir.file("bin.cu"), std::string("ab\0cd", 5));
  EXPECT_NE(d.open(dir.file("bin.cu")).find("not a text file"), std::string::npos);
  EXPECT_EQ(d.path(), good);
  EXPECT_EQ(d.text(), "kernel text");
}

TEST(KernelDocument, WatchingTheFileReloadsUnchangedTextAndReportsConflictsOnce) {
  TempDir dir;
  const std::string path = dir.file("k.cu");
  writeFile(path, "one");
  KernelDocument d;
  ASSERT_EQ(d.open(path), "");
  EXPECT_EQ(d.checkDisk(), Change::None);
  // Saved in another editor: the document had no changes, so the new text comes in.
  const uint64_t v = d.version();
  writeFile(path, "two");
  touchLater(path);
  EXPECT_EQ(d.checkDisk(), Change::Reloaded);
  EXPECT_EQ(d.text(), "two");
  EXPECT_GT(d.version(), v);
  EXPECT_FALSE(d.modified());
  int cursor;
  ASSERT_TRUE(d.undo(&cursor));  // the reload is one undo step
  EXPECT_EQ(d.text(), "one");
  d.redo(&cursor);
  // Changed in both places: a conflict, reported once; the editor's text is never replaced by itself.
  d.edit("mine", 4, 10);
  writeFile(path, "theirs");
  touchLater(path);
  EXPECT_EQ(d.checkDisk(), Change::Conflict);
  EXPECT_EQ(d.checkDisk(), Change::None);
  EXPECT_EQ(d.text(), "mine");
  d.keepMine();
  EXPECT_TRUE(d.modified());
  EXPECT_EQ(d.checkDisk(), Change::None);
  // Reload instead: the file's text, the editor's one undo away.
  writeFile(path, "theirs again");
  touchLater(path);
  ASSERT_EQ(d.checkDisk(), Change::Conflict);
  ASSERT_EQ(d.reloadFromDisk(), "");
  EXPECT_EQ(d.text(), "theirs again");
  ASSERT_TRUE(d.undo(&cursor));
  EXPECT_EQ(d.text(), "mine");
  // Deleted: the editor keeps its text, and Save puts the file back.
  fs::remove(path);
  EXPECT_EQ(d.checkDisk(), Change::Vanished);
  EXPECT_EQ(d.checkDisk(), Change::None);
  EXPECT_TRUE(d.modified());
  ASSERT_EQ(d.save(), "");
  EXPECT_EQ(readFile(path), "mine");
}

TEST(KernelDocument, AutosaveRoundTripsAndRestoresUnsavedTextOverTheFile) {
  TempDir dir;
  const fs::path autosave = dir.path / "state" / "editor-autosave.json";
  const std::string path = dir.file("k.cu");
  writeFile(path, "on disk");
  KernelDocument d;
  ASSERT_EQ(d.open(path), "");
  d.edit("typed but not saved \xff (bad UTF-8 too)", 5, 1);
  ASSERT_EQ(rl::usercode::writeAutosave(autosave, d), "");
  std::string why;
  const std::optional<Autosave> a = rl::usercode::readAutosave(autosave, &why);
  ASSERT_TRUE(a) << why;
  EXPECT_TRUE(a->modified);
  EXPECT_EQ(a->file, fs::absolute(path).string());
  // The app crashed: a new editor gets the text back, over the file, which is one undo away.
  KernelDocument next;
  std::string error;
  const std::string note = rl::usercode::restoreDocument(&next, a, "", &error);
  EXPECT_EQ(error, "");
  EXPECT_NE(note.find("Restored the unsaved text of k.cu"), std::string::npos) << note;
  EXPECT_NE(next.text().find("typed but not saved"), std::string::npos);
  EXPECT_TRUE(next.modified());
  int cursor;
  ASSERT_TRUE(next.undo(&cursor));
  EXPECT_EQ(next.text(), "on disk");
  // --kernel-file names another file: that file opens, the autosave of another file is not put over it.
  const std::string other = dir.file("other.cu");
  writeFile(other, "other");
  KernelDocument third;
  EXPECT_EQ(rl::usercode::restoreDocument(&third, a, other, &error), "");
  EXPECT_EQ(third.text(), "other");
  EXPECT_FALSE(third.modified());
}

TEST(KernelDocument, AnUnsavedCopyIsRestoredAndADamagedAutosaveIsLeftAlone) {
  TempDir dir;
  const fs::path autosave = dir.path / "editor-autosave.json";
  KernelDocument d;
  d.startUnsaved("a copy of k3", "k3.cu");
  ASSERT_EQ(rl::usercode::writeAutosave(autosave, d), "");
  std::string why;
  KernelDocument next;
  std::string error;
  const std::string note = rl::usercode::restoreDocument(&next, rl::usercode::readAutosave(autosave, &why), "", &error);
  EXPECT_NE(note.find("k3.cu (not saved yet)"), std::string::npos) << note;
  EXPECT_EQ(next.text(), "a copy of k3");
  EXPECT_EQ(next.suggestedName(), "k3.cu");
  // A damaged autosave: nothing restored, a message, and the file kept for the user.
  writeFile(autosave.string(), "{\"format\": \"reducelab-editor-autosave\", \"text\": ");
  EXPECT_FALSE(rl::usercode::readAutosave(autosave, &why));
  EXPECT_NE(why.find("cannot be read"), std::string::npos);
  EXPECT_TRUE(fs::exists(autosave));
}

TEST(KernelDocument, CrLfFilesAreEditedAsLfAndSavedAsCrLf) {
  TempDir dir;
  const std::string path = dir.file("dos.cu");
  writeFile(path, "a\r\nb\r\n");
  KernelDocument d;
  ASSERT_EQ(d.open(path), "");
  EXPECT_EQ(d.text(), "a\nb\n");
  EXPECT_FALSE(d.modified());
  d.edit("a\nb\nc\n", 6, 1);
  ASSERT_EQ(d.save(), "");
  EXPECT_EQ(readFile(path), "a\r\nb\r\nc\r\n");
}

TEST(KernelDocument, TextTheFieldWouldChangeIsReadOnlyWithTheReason) {
  EXPECT_EQ(rl::usercode::whyNotEditable("plain ascii\n\ttabs and \xc3\xa9 (e acute)\n"), "");
  const std::string latin1 = rl::usercode::whyNotEditable("ok\n// caf\xe9\n");
  EXPECT_NE(latin1.find("line 2"), std::string::npos) << latin1;
  EXPECT_NE(latin1.find("not UTF-8"), std::string::npos) << latin1;
  EXPECT_NE(rl::usercode::whyNotEditable("// \xf0\x9f\x98\x80\n").find("beyond U+FFFF"), std::string::npos);
  EXPECT_NE(rl::usercode::whyNotEditable("\xed\xa0\x80"), "");  // a surrogate
  EXPECT_NE(rl::usercode::whyNotEditable("\xc0\xaf"), "");      // an overlong '/'
  TempDir dir;
  writeFile(dir.file("l1.cu"), "// caf\xe9\n");
  KernelDocument d;
  ASSERT_EQ(d.open(dir.file("l1.cu")), "");
  EXPECT_FALSE(d.editable());
  EXPECT_EQ(d.text(), "// caf\xe9\n");  // shown as it is, never rewritten
}

TEST(KernelDocument, AFileDeletedAndBackIsReloadedWhenTheEditorHadNoChanges) {
  TempDir dir;
  const std::string path = dir.file("k.cu");
  writeFile(path, "one");
  KernelDocument d;
  ASSERT_EQ(d.open(path), "");
  fs::remove(path);
  EXPECT_EQ(d.checkDisk(), Change::Vanished);
  writeFile(path, "two");  // an editor that saves by delete and write
  EXPECT_EQ(d.checkDisk(), Change::Reloaded);
  EXPECT_EQ(d.text(), "two");
}

TEST(KernelDocument, AnAutosaveWithANulByteIsRefused) {
  TempDir dir;
  const fs::path a = dir.path / "editor-autosave.json";
  writeFile(a.string(), R"({"format": "reducelab-editor-autosave", "version": 1, "file": "", "modified": true, "text": "a\u0000b"})");
  std::string why;
  EXPECT_FALSE(rl::usercode::readAutosave(a, &why));
  EXPECT_NE(why.find("NUL"), std::string::npos) << why;
}

TEST(KernelDocument, ACopyAsItCameIsNoWorkToLoseAnEditedOneIs) {
  KernelDocument d;
  d.startUnsaved("copy of k3", "k3.cu");
  EXPECT_TRUE(d.modified());       // not saved anywhere
  EXPECT_FALSE(d.unsavedWork());   // but another copy may replace it
  d.edit("copy of k3, changed", 5, 1.0);
  EXPECT_TRUE(d.unsavedWork());
  int cursor;
  d.undo(&cursor);
  EXPECT_FALSE(d.unsavedWork());
}
