// The editor's autosave ($XDG_STATE_HOME/reducelab/editor-autosave.json, read at every start): a
// file that is accepted holds no NUL, and the text of an accepted one that the editor can keep
// byte for byte (whyNotEditable) is written and read back unchanged; the document's undo and redo
// walk back to the same texts.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/usercode/kernel_document.hpp"

namespace {

const std::filesystem::path& scratch() {
  static const std::filesystem::path p = [] {
    char dir[] = "/tmp/fuzz-autosave-XXXXXX";
    if (!mkdtemp(dir)) std::abort();
    return std::filesystem::path(dir);
  }();
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace uc = rl::usercode;
  const std::filesystem::path in = scratch() / "in.json", out = scratch() / "out.json";
  if (FILE* f = std::fopen(in.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  std::string why;
  const std::optional<uc::Autosave> a = uc::readAutosave(in, &why);
  if (!a) return 0;
  RL_FUZZ_CHECK(a->text.find('\0') == std::string::npos);
  uc::KernelDocument doc;
  doc.startUnsaved(a->text, a->suggestedName);
  RL_FUZZ_CHECK(doc.text() == a->text);
  RL_FUZZ_CHECK(doc.editable() == uc::whyNotEditable(a->text).empty());
  if (doc.editable()) {
    RL_FUZZ_CHECK(uc::writeAutosave(out, doc).empty());
    std::string again;
    const std::optional<uc::Autosave> b = uc::readAutosave(out, &again);
    RL_FUZZ_CHECK(b && b->text == a->text && b->suggestedName == a->suggestedName);
  }
  // Edits, undone and redone, give the texts back.
  const std::string first = doc.text();
  doc.edit(first + "x", int(first.size()) + 1, 1.0);
  doc.edit(first.substr(0, first.size() / 2), 0, 10.0);
  int cursor = 0;
  RL_FUZZ_CHECK(doc.undo(&cursor) && doc.text() == first + "x");
  RL_FUZZ_CHECK(doc.undo(&cursor) && doc.text() == first);
  RL_FUZZ_CHECK(doc.redo(&cursor) && doc.text() == first + "x");
  return 0;
}
