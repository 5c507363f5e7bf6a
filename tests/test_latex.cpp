// Every LaTeX table the app writes compiles with pdflatex (Debian's texlive) and fits the page:
// no overfull line wider than 1 pt, long tables break across pages, wide ones turn landscape or
// split. The PDF's first page is rendered (pdftoppm) and must show something.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "reducelab/formats/table_writers.hpp"
#include "reducelab/run_tables.hpp"
#include "reducelab/formats/session_json.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using rl::test::commandOutput;
using rl::test::readFile;
using rl::test::runReducelab;

namespace {

std::string sourceDir() {
  return rl::test::sourceDir();
}

// Compiles `tex` inside an article; returns "" or what went wrong (with the log's complaint).
std::string compiles(const std::string& tex, const std::string& name, int* pages) {
  const fs::path dir = rl::test::tempPath("latex-" + name);
  fs::create_directories(dir);
  std::ofstream(dir / "table.tex") << tex;
  std::ofstream(dir / "doc.tex") << "\\documentclass{article}\n\\usepackage{booktabs,longtable,pdflscape}\n"
                                    "\\begin{document}\n\\input{table}\n\\end{document}\n";
  const std::string out = commandOutput("cd '" + dir.string() +
                                        "' && pdflatex -interaction=nonstopmode -halt-on-error doc.tex 2>&1; echo rc=$?");
  if (out.find("rc=0") == std::string::npos) return "pdflatex failed:\n" + out.substr(out.size() > 3000 ? out.size() - 3000 : 0);
  const std::string log = readFile((dir / "doc.log").string());
  const std::regex overfull("Overfull \\\\hbox \\(([0-9.]+)pt too wide\\)");
  for (std::sregex_iterator it(log.begin(), log.end(), overfull), end; it != end; ++it)
    if (std::stod((*it)[1].str()) > 1.0) return "the table does not fit the page: " + it->str();
  std::smatch m;
  if (std::regex_search(log, m, std::regex("Output written on doc.pdf \\(([0-9]+) page"))) *pages = std::stoi(m[1].str());
  commandOutput("cd '" + dir.string() + "' && pdftoppm -png -r 40 -f 1 -l 1 doc.pdf page");
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".png") {
      const rl::test::Image img = rl::test::loadPng(e.path().string());
      if (!img.ok() || rl::test::lumaStdDev(img) < 2.0) return "the first page renders empty";
      return {};
    }
  return "pdftoppm rendered nothing";
}

class LatexTables : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rl::test::haveTool("pdflatex") || !rl::test::haveTool("pdftoppm")) GTEST_SKIP() << "texlive or poppler-utils missing";
  }
};

}  // namespace

TEST_F(LatexTables, SweepTablesCompileAndTheLongOneBreaksAcrossPages) {
  for (const char* axis : {"n", "block", "type"}) {
    const std::string dir = rl::test::tempPath(std::string("latex-sweep-") + axis);
    auto r = runReducelab("sweep --from " + sourceDir() + "/docs/data/h200-sweep-" + axis + ".json --format tex,csv --out " + dir);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string tex = readFile(dir + "/sweep-" + axis + ".tex");
    int pages = 0;
    EXPECT_EQ(compiles(tex, std::string("sweep-") + axis, &pages), "") << axis;
    if (std::string(axis) == "n") {
      EXPECT_NE(tex.find("\\begin{longtable}"), std::string::npos);  // 104 rows
      EXPECT_GE(pages, 2);
      EXPECT_NE(tex.find("$2^{35}$"), std::string::npos);  // N as a power, not 2\textasciicircum{}35
      // CSV: N is a number.
      const rl::Table csv = rl::parseCsv(readFile(dir + "/sweep-n.csv"));
      EXPECT_EQ(csv.rows.back()[2], "34359738368");
    }
  }
}

TEST_F(LatexTables, WideLessonTablesTurnLandscapeOrSplitAndStillCompile) {
  for (const char* lesson : {"upc", "max", "harris"}) {
    const std::string dir = rl::test::tempPath(std::string("latex-lesson-") + lesson);
    auto r = runReducelab(std::string("lesson ") + lesson + " --headless --out " + dir);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string tex = readFile(dir + "/lesson.tex");
    int pages = 0;
    EXPECT_EQ(compiles(tex, std::string("lesson-") + lesson, &pages), "") << lesson;
    EXPECT_NE(tex.find("\\begin{landscape}"), std::string::npos) << lesson << ": its table is wider than a portrait page";
  }
}

TEST_F(LatexTables, BenchTableOfSavedRunsCompiles) {
  std::string error;
  const auto j = nlohmann::json::parse(readFile(sourceDir() + "/docs/data/h200-sweep-type.json"));
  const std::vector<rl::Measurement> rows = rl::measurementsFromJson(j, &error);
  ASSERT_FALSE(rows.empty()) << error;
  int pages = 0;
  EXPECT_EQ(compiles(rl::latexTable(rl::benchTable(rows, rl::peaksFromJson(j))), "bench", &pages), "");
}

TEST(TableFormats, LatexEscapesTextAndSetsPowersAsMath) {
  rl::Table t;
  t.caption = "50% of 100_000 & more";
  t.headers = {"run", "N"};
  t.numeric = {false, true};
  t.rows = {{"a_b #1 {x} ~y", "2^10"}};
  const std::string tex = rl::latexTable(t);
  EXPECT_NE(tex.find("50\\% of 100\\_000 \\& more"), std::string::npos) << tex;
  EXPECT_NE(tex.find("a\\_b \\#1 \\{x\\} \\textasciitilde{}y & $2^{10}$"), std::string::npos) << tex;
  EXPECT_EQ(tex.find("landscape"), std::string::npos);  // two narrow columns fit a portrait page
}
