// Every registered family and every kernel has its pieces (docs/adding-a-family.md and
// docs/adding-a-kernel.md list them): a family without kernels, names, a validation that accepts
// its own kernels' defaults, a geometry, a CPU model or a sweep rule fails here, and so does a
// kernel without its source, notes, descriptor or family. Each family's parameters go through
// every reader and writer, and no code outside kernels/families/ names a family or its parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "reducelab/family.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/lesson.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/remote_protocol.hpp"
#include "reducelab/trace.hpp"
#include "settings.hpp"
#include "test_support.hpp"

using namespace rl;

TEST(Families, EachRegisteredFamilyHasItsPieces) {
  std::set<std::string_view> names, lists;
  for (const KernelFamily* f : families()) {
    SCOPED_TRACE(std::string(f->name()));
    EXPECT_FALSE(f->name().empty());
    EXPECT_FALSE(f->heading().empty());
    EXPECT_TRUE(names.insert(f->name()).second) << "two families of one name";
    EXPECT_TRUE(lists.insert(f->listName()).second) << "two families answer --kernel " << f->listName();
    EXPECT_EQ(&familyOf(f->id()), f);
    // A family whose one kernel is the student's file is in no --kernel list; the others answer theirs.
    EXPECT_EQ(familyByListName(f->listName()), f->listName().empty() ? nullptr : f);
    EXPECT_EQ(f->listName().empty(), f->sourceKernel() != nullptr);
    // It sweeps some axis, and says why for each it does not.
    int swept = 0;
    for (SweepAxis a : {SweepAxis::Block, SweepAxis::N, SweepAxis::Type, SweepAxis::Kernel, SweepAxis::Tile, SweepAxis::Size})
      swept += f->sweepRefusal(a).empty();
    EXPECT_GT(swept, 0);
    // Its kernels (the catalogue's, or the one compiled from the student's file): at least one;
    // each, as the GUI picks it, is a valid run with a plan, amounts and (traceable ones) a
    // CPU-model trace.
    std::vector<const KernelInfo*> own;
    for (const KernelInfo& k : catalogue())
      if (&familyOf(k) == f) own.push_back(&k);
    if (const KernelInfo* k = f->sourceKernel()) {
      EXPECT_EQ(findKernel(k->key), nullptr) << "the student's kernel is in no catalogue";
      EXPECT_EQ(findAnyKernel(k->key), k);
      EXPECT_TRUE(f->descriptorComplete(*k));
      EXPECT_TRUE(runsUserSource(k->key));
      own.push_back(k);
    }
    int kernels = 0;
    for (const KernelInfo* kp : own) {
      const KernelInfo& k = *kp;
      ++kernels;
      EXPECT_EQ(&familyOf(k), f);
      SCOPED_TRACE(std::string(k.key));
      RunConfig c;
      c.kernel = std::string(k.key);
      c.n = 100003;
      c.block = std::max(256, k.minBlock);
      f->adopt(k, c, nullptr);
      f->normalize(k, c);
      ASSERT_EQ(validateRow(c, nullptr), "");
      EXPECT_EQ(validate(c, nullptr), f->sourceKernel() ? "unknown kernel 'yours' (known: " + kernelKeys() + ")" : "")
          << "only the catalogue's kernels are launched by this build";
      const Geometry g = f->geometry(k, c, 132 * 4);
      EXPECT_GT(g.grid(), 0u);
      EXPECT_GT(g.block, 0u);
      EXPECT_GT(f->bytesMoved(k, c), 0.0);
      EXPECT_GT(f->inputElements(k, c), 0u);
      EXPECT_GT(f->chainBound(k, g, c.n), 0u);
      EXPECT_FALSE(f->shape(k, c).empty());
      if (f->measuresFlops()) EXPECT_GT(f->flopsDone(k, c), 0.0);
      if (!k.traceable) continue;
      std::string err;
      const TraceData t = modelTrace(c, assumedGeometry(c, assumedH200()).grid(), 9, &err);
      EXPECT_TRUE(t.valid()) << err;
      EXPECT_EQ(checkTraceContent(t), "");
    }
    EXPECT_GT(kernels, 0) << "a family with no kernel";
  }
}

TEST(Families, EveryKernelBelongsToARegisteredFamilyAndHasItsSourceAndNotes) {
  for (const KernelInfo& k : catalogue()) {
    SCOPED_TRACE(std::string(k.key));
    bool registered = false;
    for (const KernelFamily* f : families()) registered = registered || f->id() == k.family;
    EXPECT_TRUE(registered) << "its family is not in families.cpp";
    EXPECT_TRUE(familyOf(k).descriptorComplete(k));
    EXPECT_FALSE(kernelSource(k).empty()) << k.sourceFile << " is not embedded (kernels/cuda/<stem>.cuh)";
    EXPECT_FALSE(kernelNotes(k).empty()) << "assets/kernels/" << k.key << ".md is missing";
  }
}

// The student's own kernel is a family (kernels/families/yours/): the rules, amounts and shape of
// its rows are its family's answers (the sentences the readers gave when it was a special case),
// it has no CPU model and it is in no --kernel list, nor named among them.
TEST(Families, TheStudentsKernelIsAFamilyInNoList) {
  RunConfig c;
  c.kernel = std::string(kUserKernelKey);
  c.n = 1000, c.block = 100, c.type = ElemType::Float64;
  const KernelFamily* f = familyOf(c);
  ASSERT_NE(f, nullptr);
  ASSERT_NE(f->sourceKernel(), nullptr);
  EXPECT_EQ(f->sourceKernel()->key, kUserKernelKey);
  EXPECT_EQ(findKernel(c.kernel), nullptr);
  EXPECT_TRUE(runsUserSource(c.kernel));
  EXPECT_FALSE(runsUserSource("k1"));
  EXPECT_FALSE(runsUserSource(""));
  EXPECT_EQ(validateRow(c, nullptr), "");  // any block of 1..1024: the file's contract claims its own
  EXPECT_NE(validate(c, nullptr), "");     // no engine or CPU model of this build runs it
  EXPECT_EQ(runShape(c), "N=" + formatCount(1000) + " b100");
  EXPECT_EQ(inputElements(c), 1000u);
  EXPECT_EQ(bytesMoved(c), 8000.0);
  EXPECT_EQ(flopsDone(c), 0.0);
  EXPECT_TRUE(f->scalarResult());
  EXPECT_TRUE(f->parameters().empty());
  EXPECT_EQ(f->sweepRefusal(SweepAxis::Block), "");
  EXPECT_EQ(f->sweepRefusal(SweepAxis::Tile), "your kernel is swept over n, block or type; the tile axis is the catalogue's");
  RunConfig bad = c;
  bad.block = 0;
  EXPECT_EQ(validateRow(bad, nullptr), "the block size must be between 1 and 1024");
  bad = c, bad.n = 0;
  EXPECT_EQ(validateRow(bad, nullptr), "N must be at least 1");
  bad = c, bad.accumulate = Accumulate::Wide;
  EXPECT_EQ(validateRow(bad, nullptr), "a kernel of your own accumulates in its element type");
  bad = c, bad.reps = 0;
  EXPECT_EQ(validateRow(bad, nullptr), "repetitions must be between 1 and 100000");
  std::string why;
  EXPECT_FALSE(f->model(*f->sourceKernel(), c, 10, 9, &why).valid());
  EXPECT_NE(why.find("no CPU model"), std::string::npos) << why;
  // In no --kernel list: neither its key, nor an empty list name, answers one.
  for (const char* text : {"yours", ""}) {
    std::string err;
    EXPECT_TRUE(parseKernelList(text, &err).empty()) << text;
    EXPECT_EQ(err.rfind("unknown kernel '" + std::string(text) + "' (known: all, transpose, matmul, k", 0), 0u) << err;
  }
}

namespace {

// A value of p that differs from its default and that kernel k takes: one of its tiles other than
// the default, or an odd side.
uint64_t otherValue(const FamilyParameter& p, const KernelInfo& k) {
  if (p.role == ParameterRole::Tile) return uint64_t(k.tiles.size() > 1 ? k.tiles[1] : k.tiles[0]);
  if (p.max < 78) return p.defaultValue == p.max ? p.min : p.max;  // a small count: its largest
  return p.defaultValue == 77 ? 78 : 77;
}

// The first kernel of family f that has a traced twin (the CLI's trace needs one).
const KernelInfo* traceableKernelOf(const KernelFamily& f) {
  for (const KernelInfo& k : catalogue())
    if (&familyOf(k) == &f && k.traceable) return &k;
  return nullptr;
}

}  // namespace

// Each family's parameter list is complete, and the merged list has each key once in the order
// --help shows.
TEST(FamilyParameters, EachIsDeclaredWholeAndOnce) {
  std::vector<std::string> merged;
  for (const FamilyParameter& p : allFamilyParameters()) merged.push_back(p.key);
  EXPECT_EQ(merged, (std::vector<std::string>{"rows", "cols", "inner", "tile", "repeat", "gpu-passes", "grid"}));
  for (const KernelFamily* f : families()) {
    SCOPED_TRACE(std::string(f->name()));
    std::set<std::string> keys, axes;
    for (const FamilyParameter& p : f->parameters()) {
      SCOPED_TRACE(p.key);
      EXPECT_TRUE(keys.insert(p.key).second);
      EXPECT_TRUE(axes.insert(p.axis).second);
      EXPECT_FALSE(p.axis.empty() || p.label.empty() || p.help.empty() || p.what.empty() || p.allowed.empty());
      ASSERT_TRUE(p.get && p.set && p.used);
      EXPECT_LE(p.min, p.defaultValue);
      EXPECT_LE(p.defaultValue, p.max);
      EXPECT_EQ(anyParameterByKey(p.key)->axis, p.axis);  // a key shared by families means one thing
      RunConfig c;  // a new configuration holds the defaults
      c.kernel = std::string(traceableKernelOf(*f)->key);
      normalizeConfig(c);
      EXPECT_EQ(p.get(c), p.defaultValue);
    }
  }
}

// Every parameter of every family survives each reader and writer: a session record, the remote
// protocol, a lesson line and the command line (as `trace --format json` reports the run).
TEST(FamilyParameters, EachRoundTripsThroughJsonLessonsAndTheCommandLine) {
  int checked = 0;
  for (const KernelFamily* f : families()) {
    if (f->parameters().empty()) continue;  // the student's kernel: N, block, type and op alone
    ASSERT_NE(traceableKernelOf(*f), nullptr) << f->name();
    for (const FamilyParameter& p : f->parameters()) {
      SCOPED_TRACE(std::string(f->name()) + " " + p.key);
      // A kernel the parameter applies to: a grid-stride one for a grid of blocks.
      const KernelInfo* k = traceableKernelOf(*f);
      if (p.role == ParameterRole::Blocks)
        for (const KernelInfo& g : catalogue())
          if (&familyOf(g) == f && g.shape == GridShape::GridStride && !g.policyTuned && g.traceable) {
            k = &g;
            break;
          }
      ++checked;
      const uint64_t v = otherValue(p, *k);
      RunConfig c;
      c.kernel = std::string(k->key);
      c.type = ElemType::Float32;
      // A count applies beside what it counts: the reductions' GPU passes before a CPU final.
      const bool count = p.role == ParameterRole::Count;
      if (count) c.final = FinalStage::Cpu;
      normalizeConfig(c);
      p.set(c, v);
      normalizeConfig(c);
      ASSERT_EQ(validate(c, nullptr), "");
      ASSERT_EQ(p.get(c), v);
      // A session record (its axis) and back.
      Measurement m;
      m.config = c;
      m.ok = true;
      m.geometry.final = resolvedFinal(c);  // as the engine plans every measured record
      m.kernelMs = m.endToEndMs = {1.0};
      m.kernel = m.endToEnd = Stats::of(m.kernelMs);
      std::string err;
      const std::vector<Measurement> back = measurementsFromJson(sessionJson(SessionInfo{{}, {}, {"test"}, "t"}, {m}), &err);
      ASSERT_EQ(back.size(), 1u) << err;
      EXPECT_EQ(p.get(back[0].config), v) << "session record";
      // The remote protocol (its key).
      RunConfig r;
      ASSERT_EQ(remote::runConfigFromJson(remote::runConfigJson(c), &r), "");
      EXPECT_EQ(p.get(r), v) << "remote protocol";
      // The GUI's settings file (the last configuration).
      rl::app::Settings settings;
      settings.lastConfig = c;
      settings.haveLastConfig = true;
      const std::string path = rl::test::tempPath("family-settings-" + p.key + ".json");
      ASSERT_EQ(rl::app::saveSettings(path, settings), "");
      const rl::app::Settings loaded = rl::app::loadSettings(path, &err);
      ASSERT_TRUE(loaded.haveLastConfig) << err;
      EXPECT_EQ(p.get(loaded.lastConfig), v) << "settings";
      // A lesson's `set` line, the parameter written before the kernel.
      const std::string text = "title: t\nstep: s\nset " + p.key + "=" + std::to_string(v) + " kernel=" + c.kernel +
                               (count ? " final=cpu" : "") + "\n";
      const std::optional<Lesson> lesson = parseLesson(text, "t.lesson", &err);
      ASSERT_TRUE(lesson) << err;
      EXPECT_EQ(p.get(lesson->steps.at(0).config), v) << "lesson";
      // The command line: --key value, as the trace's JSON reports the run's parameters.
      const rl::test::CommandResult cli = rl::test::runReducelab(
          "trace --cpu-model --kernel " + c.kernel + " --" + p.key + " " + std::to_string(v) + (count ? " --final cpu" : "") +
          " --format json");
      ASSERT_EQ(cli.exitCode, 0) << cli.err;
      const nlohmann::json j = nlohmann::json::parse(cli.out);
      EXPECT_EQ(j.at("matrix").at(p.key).get<uint64_t>(), v) << "command line";
    }
  }
  EXPECT_GT(checked, 0) << "no family declares a parameter";
}

namespace {

// A line of source (comments left out) that names a family's own parameters or a family by
// enumerator: Family::Reduction/Transpose/Matmul, a family's parameter struct, a parameter's
// record axis ("Rows") or option ("--rows") as a string, or its key ("rows") as a string where
// the key is not also a sweep axis ("tile" names the tile sweep as well).
struct FamilyNameScanner {
  std::vector<std::regex> patterns;
  // What a line may do with a family's name all the same: make a row of the student's kernel for
  // its backend (`c.kernel = std::string(kUserKernelKey);`): naming the kernel it runs, not a branch.
  std::vector<std::regex> exempt;

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
    std::string line = withoutComment(rawLine);
    for (const std::regex& r : exempt) line = std::regex_replace(line, r, "");
    for (const std::regex& r : patterns)
      if (std::regex_search(line, r)) return true;
    return false;
  }
};

FamilyNameScanner familyNames() {
  FamilyNameScanner s;
  s.patterns.emplace_back(R"(\bFamily::(Reduction|Transpose|Matmul|Yours)\b)");
  // The student's kernel by its key: its family answers (familyOf, findAnyKernel, runsUserSource).
  s.patterns.emplace_back(R"(\bkUserKernelKey\b|"yours"|\bvalidateUserRow\b)");
  s.exempt.emplace_back(R"(\.kernels?\s*=\s*\{?\s*std::string\((rl::)?kUserKernelKey\)\s*\}?\s*;)");
  s.patterns.emplace_back(R"(\b(ReductionParams|TransposeParams|MatmulParams)\b)");
  s.patterns.emplace_back(R"(\bisMatrixFamily\b)");
  for (const FamilyParameter& p : allFamilyParameters()) {
    s.patterns.emplace_back("\"" + p.axis + "\"");
    s.patterns.emplace_back("\"--" + p.key + "\"");
    if (!parseSweepAxis(p.key)) s.patterns.emplace_back("\"" + p.key + "\"");
  }
  return s;
}

}  // namespace

TEST(Sources, TheFamilyScannerFindsAFamilyNamedOutsideItsFolder) {
  const FamilyNameScanner s = familyNames();
  for (const char* bad : {R"(if (k.family == Family::Matmul) return c.inner;)", R"(  const bool r = f != Family::Reduction;)",
                          R"(if (c.kernel == kUserKernelKey) yours->queueRun(c);)", R"(if (m.config.kernel != "yours") continue;)",
                          R"(const bool user = m.config.kernel == rl::kUserKernelKey;  // no catalogue entry)",
                          R"(if (std::find(v.begin(), v.end(), kUserKernelKey) != v.end()) return;)",
                          R"(c.kernel = std::string(kUserKernelKey); if (x.kernel == kUserKernelKey) return;)",
                          R"(std::string e = validateUserRow(c);)", R"(if (k.family == Family::Yours) return;)",
                          R"(const auto& p = std::get<TransposeParams>(c.params);)", R"(if (isMatrixFamily(*k)) {)",
                          R"(point.push_back({"Rows", std::to_string(r)});)", R"(cmd->add_option("--inner", t.inner);)",
                          R"(j["cols"] = c.cols;)"})
    EXPECT_TRUE(s.flags(bad)) << bad;
  for (const char* fine : {R"(for (const FamilyParameter& p : f->parameters()) j[p.key] = p.get(c);)",
                           R"(if (axis == "tile") return;  // "rows" in a comment)", R"(const std::string s = "the rows";)",
                           R"(const Family family = k.family;)", R"(  c.kernel = std::string(kUserKernelKey);)",
                           R"(  mine.kernels = {std::string(kUserKernelKey)};)", R"(        m.config.kernel = std::string(rl::kUserKernelKey);)",
                           R"(if (runsUserSource(c.kernel)) return;  // kernel "yours")"})
    EXPECT_FALSE(s.flags(fine)) << fine;
}

TEST(Sources, NoFamilyOrItsParametersAreNamedOutsideItsFolder) {
  namespace fs = std::filesystem;
  const FamilyNameScanner scanner = familyNames();
  // Where a family may be named outside kernels/families/: the parameter structs' declaration, the
  // student's kernel's key's (the catalogue, which keeps it out of its lists), and the families'
  // launchers: the CUDA ones (their own code, in kernels/cuda/ because nvcc builds it) and the
  // student's kernel's backend, which compiles its file and runs it in its worker (its check
  // report's "yours" timing row is a field of its own format).
  const std::set<std::string> allowedFiles = {"kernels/include/reducelab/family_params.hpp",
                                              "kernels/include/reducelab/catalogue.hpp",
                                              "kernels/cuda/launch_transpose.cuh", "kernels/cuda/launch_matmul.cuh"};
  const std::vector<std::string> allowedFolders = {"kernels/families/", "kernels/usercode/",
                                                   "kernels/include/reducelab/usercode/"};
  // "rows" that are not a matrix's: the layout dump's sweep rows, a multi-GPU report's rows; "grid"
  // that is a launch's grid as planned or traced, not the --grid parameter.
  const std::set<std::string> allowedLines = {
      "app/cmd_trace.cpp:          {\"grid\", t.header.gridSize},",
      "kernels/usercode/contract.cpp:    else if (key == \"grid\") grid(a, value);",
      "kernels/usercode/check_json.cpp:          {\"grid\", f.grid}};",
      "kernels/usercode/check_json.cpp:    r.failureTrace.grid = y.unsignedInteger(\"grid\", ~uint64_t(0));",
      "kernels/core/run_tables.cpp:  c.headers = {\"kernel\", \"name\", \"final\", \"grid\", \"kernel ms\", \"min ms\", \"max ms\", \"e2e ms\", \"GB/s\" + by,",
      "kernels/core/run_tables.cpp:  t.headers = {\"kernel\", \"name\", \"type\", \"size\", \"tile\", \"threads\", \"grid\", \"time ms\", \"min ms\", \"max ms\", \"e2e ms\",",
      "app/app_frame_loop.cpp:                {\"rows\", sweepRows}};",
      "kernels/core/multi_record.cpp:  j[\"rows\"] = rows;",
      "kernels/core/multi_record.cpp:  if (!j.contains(\"rows\") || !j[\"rows\"].is_array()) return fail(\"the file has no \\\"rows\\\" array\");",
      "kernels/core/multi_record.cpp:    for (const auto& w : j[\"rows\"]) {"};
  const fs::path root = rl::test::sourceDir();
  int files = 0;
  std::vector<std::string> found;
  for (const char* dir : {"app", "gui", "kernels"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh" && ext != ".h")) continue;
      const std::string rel = fs::relative(e.path(), root).string();
      if (allowedFiles.count(rel) ||
          std::any_of(allowedFolders.begin(), allowedFolders.end(), [&](const std::string& d) { return rel.starts_with(d); }))
        continue;
      ++files;
      std::ifstream in(e.path());
      int n = 0;
      for (std::string line; std::getline(in, line);) {
        ++n;
        if (scanner.flags(line) && !allowedLines.count(rel + ":" + line)) found.push_back(rel + ":" + std::to_string(n) + ": " + line);
      }
    }
  EXPECT_GT(files, 100) << "the sources were not found under " << root;
  for (const std::string& f : found)
    ADD_FAILURE() << "a family or one of its own parameters named outside kernels/families/ (ask the family: "
                     "familyOf(k), KernelFamily::parameters(), runsUserSource(key); docs/adding-a-family.md):\n  "
                  << f;
}

// Views open on the step that shows their point, not on the last one (k2's last step, 'result',
// makes no shared access; mm-tiled's is 'store C'): for every traceable kernel the bank view opens
// on its most conflicted step where it has conflicts, the warp view where lanes wait, and each
// opening step has what its view draws.
TEST(TellingStep, EveryViewOpensOnAStepThatShowsItsPoint) {
  int conflicted = 0;
  for (const KernelInfo& k : catalogue()) {
    if (!k.traceable) continue;
    RunConfig c;
    c.kernel = std::string(k.key);
    c.block = 256;
    normalizeConfig(c);
    std::string err;
    const TraceData t = modelTrace(c, assumedGeometry(c, assumedH200()).grid(), 9, &err);
    ASSERT_TRUE(t.valid()) << k.key << ": " << err;
    const TraceSummary sum = summarize(t);
    SCOPED_TRACE(std::string(k.key));
    const StepSummary& bank = sum.steps.at(size_t(tellingStep(t, sum, ViewId::BankConflicts)));
    int worst = 0;
    for (const StepSummary& s : sum.steps) worst = std::max(worst, s.wavefronts - s.idealWavefronts);
    EXPECT_EQ(bank.wavefronts - bank.idealWavefronts, worst);
    if (sum.totalWavefronts > 0) EXPECT_GT(bank.wavefronts, 0) << "the bank view opens on a step without shared access";
    conflicted += worst > 0;
    const StepSummary& warp = sum.steps.at(size_t(tellingStep(t, sum, ViewId::WarpActivity)));
    int active = 0;
    for (int a : warp.activeLanes) active += a;
    bool anyIdle = false;
    for (const StepSummary& s : sum.steps) {
      int n = 0;
      for (int a : s.activeLanes) n += a;
      anyIdle = anyIdle || (n > 0 && n < t.blockSize());
    }
    if (anyIdle) EXPECT_TRUE(active > 0 && active < t.blockSize()) << "the warp view opens where no lane waits";
    EXPECT_EQ(tellingStep(t, sum, ViewId::ReductionTree), t.numSteps() - 1);
    EXPECT_EQ(requestedStep(t, sum, ViewId::BankConflicts, -1), t.numSteps() - 1);
    EXPECT_EQ(requestedStep(t, sum, ViewId::BankConflicts, 1 << 20), t.numSteps() - 1);
  }
  EXPECT_GT(conflicted, 1) << "k1/k2 and the naive transpose have bank conflicts";
}
