// The output format registries (issue 22, item 5): each format registered once where its writer
// lives, each writes something its reader reads back, every --format lists exactly the registry's
// names, and no source outside the registries handles a format by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "figure_export.hpp"
#include "png_writer.hpp"
#include "reducelab/formats/output_formats.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/gui/plot.hpp"
#include "test_support.hpp"

namespace {

using rl::FormatInfo;
using rl::OutputFormat;

// What README.md and docs/architecture.md promise: name -> extension. A format added to a
// registry is added here too, with its documentation.
const std::map<std::string, std::string> kDocumentedOutputFormats = {
    {"table", ".txt"}, {"csv", ".csv"}, {"md", ".md"}, {"tex", ".tex"}, {"json", ".json"}};
const std::map<std::string, std::string> kDocumentedFigureFormats = {{"pdf", ".pdf"}, {"svg", ".svg"}, {"png", ".png"}};

template <class Format>
std::map<std::string, std::string> extensionsByName(const rl::FormatRegistry<Format>& r) {
  std::map<std::string, std::string> out;
  for (const Format& f : r.all()) out[std::string(f.name)] = std::string(f.extension);
  return out;
}

rl::Table sampleTable() {
  rl::Table t;
  t.caption = "Sample: a | b, \"quoted\" & 50 %";
  t.headers = {"kernel", "N", "GB/s", "note"};
  t.numeric = {false, true, true, false};
  t.rows = {{"k7", "2^24", "4012.5", "a, b"}, {"cub", "2^10", "12.0", "say \"hi\" | x_y"}};
  t.setValue(0, 1, "16777216");
  t.setValue(1, 1, "1024");
  return t;
}

}  // namespace

TEST(OutputFormats, TheRegistriesHoldTheDocumentedWritersAndOneFormatPerRole) {
  EXPECT_EQ(extensionsByName(rl::outputFormats()), kDocumentedOutputFormats);
  EXPECT_EQ(extensionsByName(rl::gui::figureFormats()), kDocumentedFigureFormats);
  EXPECT_EQ(extensionsByName(rl::app::frameFormats()), (std::map<std::string, std::string>{{"png", ".png"}}));
  EXPECT_EQ(rl::terminalFormat().name, "table");
  EXPECT_EQ(rl::dataFormat().name, "csv");
  EXPECT_EQ(rl::documentFormat().name, "md");
  EXPECT_EQ(rl::outputFormats().find("latex"), rl::outputFormats().find("tex"));  // sweep took "latex"
  int terminal = 0, data = 0, document = 0;
  for (const OutputFormat& f : rl::outputFormats().all()) {
    terminal += f.terminal, data += f.data, document += f.document;
    EXPECT_FALSE(f.label.empty() || f.description.empty()) << f.name;
    EXPECT_EQ(f.table != nullptr, (f.writes & rl::kWritesTables) != 0) << f.name;
    EXPECT_EQ(f.records != nullptr, (f.writes & rl::kWritesRecords) != 0) << f.name;
    EXPECT_EQ(f.block != nullptr, f.prose) << f.name << ": a prose format shows preformatted lines";
  }
  EXPECT_EQ(terminal, 1);
  EXPECT_EQ(data, 1);
  EXPECT_EQ(document, 1);
  for (const rl::gui::FigureWriter& f : rl::gui::figureFormats().all()) EXPECT_NE(f.render, nullptr) << f.name;
  // A name, alias or extension registered twice is refused.
  rl::FormatRegistry<FormatInfo> r;
  r.add({.name = "csv", .extension = ".csv", .writes = rl::kWritesTables});
  EXPECT_THROW(r.add({.name = "csv", .extension = ".x", .writes = rl::kWritesTables}), std::logic_error);
  EXPECT_THROW(r.add({.name = "y", .extension = ".csv", .writes = rl::kWritesTables}), std::logic_error);
  EXPECT_THROW(r.add({.name = "z", .extension = ".z", .writes = rl::kWritesTables, .alias = "csv"}), std::logic_error);
}

TEST(OutputFormats, EveryTableWriterWritesATableItsReaderReadsBack) {
  const rl::Table t = sampleTable();
  int read = 0;
  for (const OutputFormat& f : rl::outputFormats().all()) {
    if (!(f.writes & rl::kWritesTables)) continue;
    const std::string text = f.table(t);
    EXPECT_NE(text.find("k7"), std::string::npos) << f.name << ":\n" << text;
    EXPECT_NE(text.find("cub"), std::string::npos) << f.name << ":\n" << text;
    if (f.block) EXPECT_NE(f.block("line one\nline two\n").find("line two"), std::string::npos) << f.name;
    if (!f.readTable) continue;
    ++read;
    const rl::Table back = f.readTable(text);
    EXPECT_EQ(back.headers, t.headers) << f.name;
    ASSERT_EQ(back.rows.size(), t.rows.size()) << f.name;
    for (size_t r = 0; r < t.rows.size(); ++r)
      for (size_t c = 0; c < t.headers.size(); ++c) EXPECT_EQ(back.rows[r][c], t.value(r, c)) << f.name << " " << r << "," << c;
  }
  EXPECT_GE(read, 1) << "CSV has a reader";
}

TEST(OutputFormats, EveryRecordWriterWritesASessionItsReaderReadsBack) {
  const std::string text = rl::test::readFile(rl::test::sourceDir() + "/docs/data/h200-sweep-block.json");
  std::string error;
  const std::vector<rl::Measurement> rows = rl::measurementsFromJson(nlohmann::json::parse(text), &error);
  ASSERT_FALSE(rows.empty()) << error;
  const rl::SessionInfo info{rl::deviceFromJson(nlohmann::json::parse(text)), {}, {"reducelab", "test"}, "again"};
  const nlohmann::json session = rl::sessionJson(info, rows);
  int read = 0;
  for (const OutputFormat& f : rl::outputFormats().all()) {
    if (!(f.writes & rl::kWritesRecords)) continue;
    const std::string written = f.records(session);
    ASSERT_FALSE(written.empty()) << f.name;
    if (!f.readRecords) continue;
    ++read;
    const nlohmann::json back = f.readRecords(written);
    EXPECT_EQ(back, session) << f.name;
    const std::vector<rl::Measurement> again = rl::measurementsFromJson(back, &error);
    ASSERT_EQ(again.size(), rows.size()) << f.name << ": " << error;
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(again[i].config.kernel, rows[i].config.kernel);
      EXPECT_EQ(again[i].config.block, rows[i].config.block);
      EXPECT_EQ(again[i].kernelMs, rows[i].kernelMs);
    }
  }
  EXPECT_GE(read, 1) << "JSON has a reader";
}

TEST(OutputFormats, EveryFigureWriterWritesAFileOfItsKind) {
  rl::gui::PlotSpec spec;
  spec.title = "Registry check";
  rl::gui::Series s;
  s.name = "k7";
  s.x = {1, 2, 4};
  s.y = {10, 20, 15};
  spec.series.push_back(s);
  // How each kind of file starts (its own specification, not the code under test).
  const std::map<std::string, std::string> magic = {{".pdf", "%PDF-"}, {".png", "\x89PNG\r\n\x1a\n"}, {".svg", "<?xml"}};
  for (const rl::gui::FigureWriter& f : rl::gui::figureFormats().all()) {
    std::string error;
    const std::string bytes = f.render(spec, {}, &error);
    ASSERT_FALSE(bytes.empty()) << f.name << ": " << error;
    const auto m = magic.find(std::string(f.extension));
    if (m == magic.end()) {
      ADD_FAILURE() << "no check for " << f.extension << " files: add how they start to this test";
      continue;
    }
    EXPECT_EQ(bytes.rfind(m->second, 0), 0u) << f.name;
    const std::string path = rl::test::tempPath("registry-figure" + std::string(f.extension));
    std::ofstream(path, std::ios::binary) << bytes;
    if (f.extension == ".png") {  // read back: the default size at twice the layout's pixels
      const rl::test::Image img = rl::test::loadPng(path);
      EXPECT_EQ(img.width, 2 * rl::gui::FigureOptions{}.width);
      EXPECT_EQ(img.height, 2 * rl::gui::FigureOptions{}.height);
    } else if (f.extension == ".svg") {
      EXPECT_NE(bytes.find("</svg>"), std::string::npos);
    } else if (rl::test::haveTool("pdftotext")) {
      EXPECT_NE(rl::test::pdfText(path).find("Registry check"), std::string::npos);
    }
  }
  // multi --chart: by the file's extension, else the fallback (SVG)
  EXPECT_EQ(rl::gui::figureFormatFor("out/chart.pdf").name, "pdf");
  EXPECT_EQ(rl::gui::figureFormatFor("chart.png").name, "png");
  EXPECT_EQ(rl::gui::figureFormatFor("chart").name, "svg");
  EXPECT_EQ(rl::gui::figureFormatFor("chart.PDF").name, "svg");
}

TEST(OutputFormats, EveryFrameWriterWritesPixelsThatReadBack) {
  const int w = 5, h = 3;
  std::vector<uint8_t> rgba(size_t(w) * h * 4);
  for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = i % 4 == 3 ? 255 : uint8_t(i * 7);
  for (const rl::app::FrameWriter& f : rl::app::frameFormats().all()) {
    const std::string path = rl::test::tempPath("registry-frame" + std::string(f.extension));
    ASSERT_EQ(f.write(path, w, h, rgba), "") << f.name;
    const rl::test::Image img = rl::test::loadPng(path);
    ASSERT_EQ(img.width, w) << f.name;
    ASSERT_EQ(img.height, h) << f.name;
    EXPECT_EQ(img.rgba, rgba) << f.name;
    EXPECT_NE(f.write(path, 0, 0, {}), "") << f.name << ": no image is refused";
  }
}

namespace {

// The names a --format help line offers: "--format TEXT=table   a, b, c or d (default ...)".
std::vector<std::string> helpNames(const std::string& help, std::string* line) {
  std::istringstream in(help);
  static const std::regex option(R"(^\s*--format )");
  for (std::string l; std::getline(in, l);) {
    if (!std::regex_search(l, option)) continue;
    const size_t at = l.find("--format ");
    *line = l;
    std::string text = l.substr(at + 9);
    text = text.substr(text.find_first_of(' '));                         // past "TEXT" / "TEXT=table"
    text = text.substr(text.find_first_not_of(' '));
    if (text.rfind("Comma list of ", 0) == 0) text = text.substr(14);
    if (const size_t paren = text.find(" ("); paren != std::string::npos) text = text.substr(0, paren);
    std::vector<std::string> names;
    const std::regex item(R"(([a-z]+)(, or |, | or |$))");
    for (std::sregex_iterator it(text.begin(), text.end(), item), end; it != end; ++it) names.push_back((*it)[1]);
    return names;
  }
  return {};
}

std::vector<std::string> strings(const std::vector<std::string_view>& v) { return {v.begin(), v.end()}; }

}  // namespace

TEST(CliFormats, EveryFormatOptionListsExactlyTheRegistrysNamesAndEachWorks) {
  const std::vector<std::string> tablesAndRecords = strings(rl::outputFormatNames(rl::kWritesTables | rl::kWritesRecords));
  std::vector<std::string> exports = strings(rl::app::exportFormatNames());
  exports.push_back("all");
  // Independent of the registry: sweep writes every figure format and every export file format.
  EXPECT_EQ(exports.size(), kDocumentedFigureFormats.size() + kDocumentedOutputFormats.size());
  for (const auto& [command, expected] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"bench", tablesAndRecords}, {"trace", tablesAndRecords}, {"multi", tablesAndRecords}, {"sweep", exports}}) {
    const rl::test::CommandResult r = rl::test::runReducelab(command + " --help");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    std::string line;
    EXPECT_EQ(helpNames(r.out, &line), expected) << command << ": " << line;
  }
  // An unknown format: the one message, naming the registry's formats.
  const std::string listed = rl::joinNames(rl::outputFormatNames(rl::kWritesTables | rl::kWritesRecords));
  for (const std::string& args : {std::string("bench --cpu-only --no-cpu --n 2^10"), std::string("trace --cpu-model --kernel k3 --n 2^12"),
                                  std::string("multi --model --sizes 1K")}) {
    const rl::test::CommandResult r = rl::test::runReducelab(args + " --format nope");
    EXPECT_EQ(r.exitCode, 2) << args;
    EXPECT_EQ(r.err, "reducelab: error: --format 'nope' is not one of: " + listed + "\n") << args;
    for (const std::string& name : tablesAndRecords) {  // every listed format writes something
      const rl::test::CommandResult ok = rl::test::runReducelab(args + " --format " + name);
      EXPECT_EQ(ok.exitCode, 0) << args << " --format " << name << ": " << ok.err;
      EXPECT_FALSE(ok.out.empty()) << args << " --format " << name;
    }
  }
  const rl::test::CommandResult r = rl::test::runReducelab(
      "sweep --from " + rl::test::sourceDir() + "/docs/data/h200-sweep-n.json --format png,nope --out " +
      rl::test::tempPath("registry-sweep"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.err, "reducelab: error: --format 'nope' is not one of: " + rl::joinNames(rl::app::exportFormatNames()) + ", all\n");
}

namespace {

// A line of source that handles a format by name: a registered name or extension compared with
// something or taken apart by `case`, two of them on one line (a list of formats), or a string
// listing several names ("table, csv or json"). Comments are left out.
struct NameScanner {
  std::set<std::string> names, extensions;
  std::vector<std::regex> nameInAList;  // a name as an item of a written list

  static std::string withoutComment(const std::string& line) {
    bool quoted = false;
    for (size_t i = 0; i + 1 < line.size(); ++i) {
      if (line[i] == '\\' && quoted) ++i;
      else if (line[i] == '"') quoted = !quoted;
      else if (!quoted && line[i] == '/' && line[i + 1] == '/') return line.substr(0, i);
    }
    return line;
  }

  bool flags(const std::string& rawLine) const {
    const std::string line = withoutComment(rawLine);
    static const std::regex literal(R"re("((?:[^"\\]|\\.)*)")re");
    std::set<std::string> registered;
    int namesInOneLiteral = 0;
    for (std::sregex_iterator it(line.begin(), line.end(), literal), end; it != end; ++it) {
      const std::string s = (*it)[1];
      const size_t at = size_t(it->position());
      if (names.count(s) || extensions.count(s)) {
        registered.insert(s);
        const std::string before = line.substr(0, at), after = line.substr(at + it->length());
        static const std::regex compared(R"(([=!]=|\bcase)\s*$)"), comparedAfter(R"(^\s*[=!]=)");
        if (std::regex_search(before, compared) || std::regex_search(after, comparedAfter)) return true;
      }
      int inThis = 0;
      for (const std::regex& n : nameInAList)
        if (std::regex_search(s, n)) ++inThis;
      namesInOneLiteral = std::max(namesInOneLiteral, inThis);
    }
    return registered.size() >= 2 || namesInOneLiteral >= 2;
  }
};

NameScanner registeredNames() {
  NameScanner s;
  auto add = [&](const FormatInfo& f) {
    s.names.insert(std::string(f.name));
    if (!f.alias.empty()) s.names.insert(std::string(f.alias));
    s.extensions.insert(std::string(f.extension));
  };
  for (const auto& f : rl::outputFormats().all()) add(f);
  for (const auto& f : rl::gui::figureFormats().all()) add(f);
  for (const auto& f : rl::app::frameFormats().all()) add(f);
  for (const std::string& n : s.names) s.nameInAList.emplace_back("(^|[ ,])" + n + "(,| or |$)");
  return s;
}

}  // namespace

TEST(Sources, TheFormatScannerFindsASwitchOnFormatNames) {
  const NameScanner s = registeredNames();
  for (const char* bad : {R"(if (format == "csv") return csvTable(t);)", R"(    else if (item == "tex" || x) f.tex = true;)",
                          R"(if ("json" != o.format) {)", R"(  case "md": return 1;)",
                          R"(for (const char* ext : {".png", ".svg"}) names.push_back(stem + ext);)",
                          R"(if (ext == ".pdf") pdf = true;)", R"(add_option("--format", f, "table, csv or json");)"})
    EXPECT_TRUE(s.flags(bad)) << bad;
  for (const char* fine : {R"(j["meta"] = {{"json", version(1, 0, 0)}};  // "csv" == "md")",
                           R"(const std::string lesson = "lesson.md";)", R"(if (format.writes & kWritesRecords) {)",
                           R"(names.push_back(stem + std::string(f->extension));)", R"(std::string s = "a \" == \"csv";)"})
    EXPECT_FALSE(s.flags(fine)) << fine;
}

TEST(Sources, NoFormatIsHandledByNameOutsideItsRegistry) {
  namespace fs = std::filesystem;
  const NameScanner scanner = registeredNames();
  // Where the formats are registered: the only places that name them.
  const std::set<std::string> registries = {"kernels/core/formats/output_formats.cpp", "gui/src/plot_cairo.cpp",
                                            "gui/src/plot_web.cpp", "app/png_writer.cpp"};  // plot_web: the browser's
  // `check` and `compile` print the student's kernel's diagnostics as text or JSON: not tables,
  // records or figures, so not in the registries (yet). Exactly these lines, nothing else.
  const std::set<std::string> allowed = {
      "app/cmd_check.cpp:  if (o.format != \"text\" && o.format != \"json\") return fail(2, \"--format must be text or json, got '\" + o.format + \"'\");",
      "app/cmd_compile.cpp:  if (o.format != \"text\" && o.format != \"json\") return fail(2, \"--format must be text or json, got '\" + o.format + \"'\");",
      "app/cmd_compile.cpp:  if (o.format == \"json\") {"};
  const fs::path root = rl::test::sourceDir();
  int files = 0;
  std::vector<std::string> found;
  for (const char* dir : {"app", "gui", "kernels"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh" && ext != ".h")) continue;
      const std::string rel = fs::relative(e.path(), root).string();
      if (registries.count(rel)) continue;
      ++files;
      std::ifstream in(e.path());
      int n = 0;
      for (std::string line; std::getline(in, line);) {
        ++n;
        if (scanner.flags(line) && !allowed.count(rel + ":" + line)) found.push_back(rel + ":" + std::to_string(n) + ": " + line);
      }
    }
  EXPECT_GT(files, 100) << "the sources were not found under " << root;
  for (const std::string& f : found)
    ADD_FAILURE() << "a format handled by name outside its registry (ask outputFormats(), gui::figureFormats() or "
                     "app::frameFormats() instead; docs/architecture.md, Output formats):\n  "
                  << f;
}
