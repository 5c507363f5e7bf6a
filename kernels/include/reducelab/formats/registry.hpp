#pragma once
// The kind of registry every output format is registered in, once, where its writer lives:
// kernels/ for tables and records (output_formats.hpp), gui/ for figures drawn by cairo
// (gui/plot.hpp), app/ for frames read back from GL (app/frame_formats.hpp). Each layer keeps its
// own registry of this kind, so dependencies still point down (app -> gui -> kernels). Commands
// and menus ask a registry which formats exist and what each does; none handles a format by name.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rl {

// What a format writes (FormatInfo::writes is a set of these bits).
enum FormatWrites : unsigned {
  kWritesTables = 1u << 0,   // a Table (table.hpp)
  kWritesRecords = 1u << 1,  // records as one document: measurements, a multi-GPU run, a trace
  kWritesFigures = 1u << 2,  // a plot (gui::PlotSpec)
  kWritesFrames = 1u << 3,   // the window's pixels as GL drew them
};

struct FormatInfo {
  std::string_view name;         // what --format takes: "csv"
  std::string_view extension;    // its files' ending: ".csv"
  std::string_view label;        // what buttons and prose call it: "CSV"
  std::string_view description;  // one line for help texts and tooltips
  unsigned writes = 0;           // FormatWrites bits
  std::string_view alias = {};   // a second name --format takes ("latex" for "tex"); never listed
};

template <class Format>
class FormatRegistry {
 public:
  // A name, alias or extension taken twice is a programming error, found at start-up.
  void add(Format f) {
    for (const Format& g : formats_)
      if (g.name == f.name || (!f.alias.empty() && (g.name == f.alias || g.alias == f.alias)) ||
          (!g.alias.empty() && g.alias == f.name) || g.extension == f.extension)
        throw std::logic_error("output format '" + std::string(f.name) + "' registered twice");
    formats_.push_back(std::move(f));
  }
  // By name or alias; nullptr when none has it.
  const Format* find(std::string_view name) const {
    for (const Format& f : formats_)
      if (f.name == name || (!f.alias.empty() && f.alias == name)) return &f;
    return nullptr;
  }
  // By a file name's extension (".csv"); nullptr when none writes it.
  const Format* findByExtension(std::string_view extension) const {
    for (const Format& f : formats_)
      if (!extension.empty() && f.extension == extension) return &f;
    return nullptr;
  }
  // In registration order: the order help texts list them and exports write them.
  const std::vector<Format>& all() const { return formats_; }

 private:
  std::vector<Format> formats_;
};

// "a, b, c": the names help texts and error messages list.
std::string joinNames(const std::vector<std::string_view>& names, std::string_view separator = ", ");
// "a", "a and b", "a, b and c": formats named in prose (tooltips, a report's links).
std::string proseList(const std::vector<std::string>& items);

}  // namespace rl
