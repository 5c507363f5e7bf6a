// The starters ("edit a copy", docs/your-kernel.md): one plain-CUDA file per catalogue reduction
// kernel in assets/kernels/starters/, compiled into the binary. Each names a catalogue kernel,
// its contract parses without a message, and it compiles with NVRTC for every type and operation
// it claims with no error and no warning; `reducelab starter` lists, writes, refuses to overwrite
// and rejects unknown keys. (That each passes the battery on a GPU: test_gpu_usercode.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "reducelab/catalogue.hpp"
#include "reducelab/usercode/compiler.hpp"
#include "reducelab/usercode/contract.hpp"
#include "reducelab/usercode/nvrtc.hpp"
#include "reducelab/usercode/starters.hpp"
#include "test_support.hpp"

namespace uc = rl::usercode;
namespace fs = std::filesystem;

namespace {

const std::string kStarterDir = rl::test::sourceDir() + "/assets/kernels/starters/";

// Runs `reducelab ARGS` in `dir` (the default output is KEY.cu in the current folder).
rl::test::CommandResult runIn(const std::string& dir, const std::string& args) {
  return rl::test::runReducelab(args, "cd '" + dir + "' &&");
}

}  // namespace

TEST(Starters, EachCopiesACatalogueReductionKernel) {
  std::vector<std::string> keys;
  for (const uc::Starter& s : uc::starters()) {
    keys.push_back(s.key);
    const rl::KernelInfo* k = rl::findKernel(s.key);
    ASSERT_NE(k, nullptr) << s.key << " is no catalogue key";
    EXPECT_EQ(k->family, rl::Family::Reduction) << s.key;
    EXPECT_EQ(s.fileName, s.key + ".cu");
    EXPECT_EQ(s.title, k->title);
    EXPECT_FALSE(uc::starterSource(s.key).empty()) << s.key;
    EXPECT_TRUE(uc::whyNoStarter(s.key).empty()) << s.key << " has a starter and a reason for none";
  }
  // In catalogue order; k9, k13 and k14 left out (with their reasons below).
  const std::vector<std::string> expected = {"k1", "k2", "k3", "k4", "k5s", "k6", "k7", "k8", "k10", "k11", "k12"};
  EXPECT_EQ(keys, expected);
}

TEST(Starters, EveryReductionKernelHasAStarterOrAReason) {
  for (const rl::KernelInfo& k : rl::catalogue()) {
    if (k.family != rl::Family::Reduction) continue;
    const bool has = uc::findStarter(k.key) != nullptr;
    const bool why = !uc::whyNoStarter(k.key).empty();
    EXPECT_NE(has, why) << k.key << ": a starter, or else the reason why not";
  }
  EXPECT_FALSE(uc::whyNoStarter("k9").empty());
  EXPECT_EQ(uc::findStarter("k99"), nullptr);
  EXPECT_EQ(uc::starterSource("k99"), "");
  EXPECT_EQ(uc::starterSource("k9"), "");
}

TEST(Starters, K5GivesItsCorrectFormK5s) {
  const uc::Starter* s = uc::findStarter("k5");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->key, "k5s");
  EXPECT_EQ(uc::starterSource("k5"), uc::starterSource("k5s"));
  EXPECT_NE(uc::starterSource("k5s").find("__syncwarp()"), std::string::npos);
  std::istringstream lines(uc::starterSource("k5s"));
  for (std::string line; std::getline(lines, line);)  // the header comment names it; the code has none
    if (line.rfind("//", 0) != 0) EXPECT_EQ(line.find("volatile"), std::string::npos) << line;
}

TEST(Starters, TheBinaryCarriesEveryFileAsItIs) {
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(kStarterDir))
    if (e.path().extension() == ".cu") files.insert(e.path().filename().string());
  std::set<std::string> listed;
  for (const uc::Starter& s : uc::starters()) listed.insert(s.fileName);
  EXPECT_EQ(files, listed) << "a file in assets/kernels/starters/ whose name is no catalogue key, or a missing one";
  for (const uc::Starter& s : uc::starters())
    EXPECT_EQ(uc::starterSource(s.key), rl::test::readFile(kStarterDir + s.fileName)) << s.fileName;
}

TEST(Starters, ContractsParseWithoutAMessageAndClaimEveryOpAndType) {
  for (const uc::Starter& s : uc::starters()) {
    const uc::ContractResult r = uc::parseContract(uc::starterSource(s.key), s.fileName);
    for (const uc::Diagnostic& d : r.diagnostics) ADD_FAILURE() << d.text();
    EXPECT_EQ(r.contract.ops.size(), 3u) << s.key;    // sum, min, max
    EXPECT_EQ(r.contract.types.size(), 4u) << s.key;  // int32, int64, float32, float64
    for (int b : r.contract.blocks) EXPECT_TRUE(b >= 32 && (b & (b - 1)) == 0) << s.key << ": block " << b;
    for (int b : {64, 128, 256, 512, 1024}) EXPECT_TRUE(r.contract.claimsBlock(b)) << s.key << ": block " << b;
  }
}

TEST(Starters, EachCompilesForEveryClaimWithoutAWarning) {
  if (!uc::nvrtc().loaded) GTEST_SKIP() << "no NVRTC here: " << uc::nvrtc().error;
  for (const uc::Starter& s : uc::starters()) {
    const std::string source = uc::starterSource(s.key);
    const uc::Contract c = uc::parseContract(source, s.fileName).contract;
    for (rl::ElemType t : c.types)
      for (rl::Op o : c.ops) {
        uc::CompileRequest q;
        q.source = source, q.file = s.fileName, q.type = t, q.op = o, q.sm = 90, q.useCache = false;
        const uc::CompileResult r = uc::compileUserKernel(q);
        const std::string what = s.fileName + " " + std::string(rl::name(t)) + " " + std::string(rl::name(o));
        EXPECT_TRUE(r.ok()) << what << ": " << r.environmentError << r.log;
        for (const uc::Diagnostic& d : r.diagnostics) ADD_FAILURE() << what << ": " << d.text();
        EXPECT_EQ(r.kernels.size(), c.perBlockInstances() ? c.blocks.size() : 1u) << what;
        for (const uc::KernelBuild& k : r.kernels) {
          EXPECT_TRUE(k.resources.known) << what << ": " << k.loweredName << " not in NVRTC's log:\n" << r.log;
          EXPECT_EQ(k.resources.spillStoreBytes + k.resources.spillLoadBytes, 0) << what << " spills";
        }
      }
  }
}

TEST(StarterCli, ListsTheStartersAndTheKernelsWithout) {
  const rl::test::CommandResult r = rl::test::runReducelab("starter");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  for (const uc::Starter& s : uc::starters()) EXPECT_NE(r.out.find("  " + s.key + " "), std::string::npos) << s.key;
  EXPECT_NE(r.out.find("Sequential addressing"), std::string::npos);
  EXPECT_NE(r.out.find("No starter: k9, k13, k14"), std::string::npos) << r.out;
}

TEST(StarterCli, WritesKeyDotCuHereAndRefusesToOverwriteWithoutForce) {
  const std::string dir = rl::test::freshTempDir("starter-cli");
  rl::test::CommandResult r = runIn(dir, "starter k3");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(rl::test::readFile(dir + "/k3.cu"), uc::starterSource("k3"));
  EXPECT_NE(r.out.find("reducelab check k3.cu"), std::string::npos) << r.out;

  std::ofstream(dir + "/k3.cu") << "my edits\n";
  r = runIn(dir, "starter k3");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_EQ(rl::test::readFile(dir + "/k3.cu"), "my edits\n");  // untouched
  r = runIn(dir, "starter k3 --force");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(rl::test::readFile(dir + "/k3.cu"), uc::starterSource("k3"));

  r = runIn(dir, "starter k8 -o mine.cu");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(rl::test::readFile(dir + "/mine.cu"), uc::starterSource("k8"));
  r = runIn(dir, "starter k5");  // the volatile form's correct copy, under its own name
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(rl::test::readFile(dir + "/k5s.cu"), uc::starterSource("k5s"));
  EXPECT_NE(r.err.find("k5s"), std::string::npos) << r.err;
}

TEST(StarterCli, WritesToStdout) {
  const rl::test::CommandResult r = rl::test::runReducelab("starter k12 -o -");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, uc::starterSource("k12"));
}

TEST(StarterCli, RejectsAnUnknownKeyWithoutWritingAFile) {
  const std::string dir = rl::test::freshTempDir("starter-cli-bad");
  for (const char* key : {"k99", "k9", "cub"}) {
    const rl::test::CommandResult r = runIn(dir, std::string("starter ") + key);
    EXPECT_EQ(r.exitCode, 2) << key;
    EXPECT_EQ(rl::test::countLines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("k1, k2, k3"), std::string::npos) << r.err;  // the keys listed
  }
  EXPECT_NE(runIn(dir, "starter k9").err.find("include path"), std::string::npos);
  EXPECT_EQ(runIn(dir, "starter -o x.cu").exitCode, 2);
  EXPECT_TRUE(fs::is_empty(dir));
}
