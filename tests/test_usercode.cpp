// The student's own kernel without a GPU: the annotation parser, launch planning, the battery,
// the verdicts, NVRTC's log, the real NVRTC (loaded at run time; on this machine), the build
// cache, the missing-NVRTC message, the worker protocol and the parent's watchdog (with a fake
// worker), and the CLI's exit codes.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "reducelab/stats.hpp"
#include "reducelab/run_tables.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/formats/output_formats.hpp"
#include "reducelab/usercode/measure.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/check_json.hpp"
#include "reducelab/usercode/compiler.hpp"
#include "reducelab/usercode/contract.hpp"
#include "reducelab/usercode/line_table.hpp"
#include "reducelab/usercode/nvrtc.hpp"
#include "reducelab/usercode/worker.hpp"
#include "reducelab/usercode/user_kernel_backend.hpp"
#include "test_support.hpp"

namespace uc = rl::usercode;
using rl::ElemType;
using rl::Op;

namespace {

const std::string kData = rl::test::sourceDir() + "/tests/data/usercode/";

std::string source(const std::string& name) { return rl::test::readFile(kData + name); }

uc::ContractResult parse(const std::string& text) { return uc::parseContract(text, "k.cu"); }

const char* kHarrisBody =
    "__global__ void reduce(const T* in, T* out, unsigned int n) {\n"
    "  extern __shared__ T s[];\n"
    "  s[threadIdx.x] = in[0];\n"
    "  out[blockIdx.x] = s[0];\n"
    "}\n";

#define REQUIRE_NVRTC()                                                             \
  do {                                                                              \
    if (!uc::nvrtc().loaded) GTEST_SKIP() << "no NVRTC here: " << uc::nvrtc().error; \
  } while (0)

}  // namespace

// ---- the contract ----

TEST(UserContract, UnannotatedHarrisKernelGetsTheDefaultContract) {
  const uc::ContractResult r = parse(kHarrisBody);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().text();
  const uc::Contract& c = r.contract;
  EXPECT_EQ(c.kernel, "reduce");
  EXPECT_EQ(c.kernelLine, 1);
  EXPECT_FALSE(c.templated);
  EXPECT_EQ(c.grid, uc::GridRule::OnePerThread);
  EXPECT_EQ(c.final, uc::UserFinal::Gpu);
  EXPECT_EQ(c.blocks, (std::vector<int>{128, 256, 512}));
  EXPECT_EQ(c.ops, std::vector<Op>{Op::Sum});
  EXPECT_EQ(c.types, (std::vector<ElemType>{ElemType::Int32, ElemType::Float32}));
  EXPECT_EQ(c.dynamicSharedBytes(256, ElemType::Float64), 256u * 8);
  EXPECT_EQ(c.nameExpression(256), "reduce");
}

TEST(UserContract, AnnotationsSetEveryRule) {
  const uc::ContractResult r = parse(
      "// @reducelab grid: elements-per-thread 4\n"
      "// @reducelab blocks: 64, 1024\n"
      "//   @reducelab shared: 2 x block\n"
      "// @reducelab final: cpu\n"
      "// @reducelab passes: 2\n"
      "// @reducelab ops: max, min\n"
      "// @reducelab types: float64, int64\n" +
      std::string(kHarrisBody));
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().text();
  const uc::Contract& c = r.contract;
  EXPECT_EQ(c.grid, uc::GridRule::ElementsPerThread);
  EXPECT_EQ(c.elementsPerThread, 4u);
  EXPECT_EQ(c.blocks, (std::vector<int>{64, 1024}));
  EXPECT_EQ(c.dynamicSharedBytes(64, ElemType::Int32), 2u * 64 * 4);
  EXPECT_EQ(c.final, uc::UserFinal::Cpu);
  EXPECT_EQ(c.cpuPasses, 2);
  EXPECT_EQ(c.ops, (std::vector<Op>{Op::Max, Op::Min}));
  EXPECT_EQ(c.types, (std::vector<ElemType>{ElemType::Float64, ElemType::Int64}));
  EXPECT_EQ(c.kernelLine, 8);

  const uc::Contract w = parse("// @reducelab shared: warps\n// @reducelab grid: fixed 1024\n" + std::string(kHarrisBody)).contract;
  EXPECT_EQ(w.dynamicSharedBytes(100, ElemType::Float32), 4u * 4);  // ceil(100 / 32) warps
  EXPECT_EQ(w.grid, uc::GridRule::Fixed);
  EXPECT_EQ(w.fixedGrid, 1024u);
  EXPECT_EQ(parse("// @reducelab shared: none\n" + std::string(kHarrisBody)).contract.dynamicSharedBytes(256, ElemType::Int32), 0u);
  EXPECT_EQ(parse("// @reducelab shared: 1000 bytes\n" + std::string(kHarrisBody)).contract.dynamicSharedBytes(256, ElemType::Int32),
            1000u);
  // `output: zeroed` (seed 001's kernels write only where the output still holds 0): the plan
  // carries it to the worker, through the worker's protocol, and the contract says so in words.
  const uc::Contract z = parse("// @reducelab output: zeroed\n" + std::string(kHarrisBody)).contract;
  EXPECT_TRUE(z.zeroedOutput);
  EXPECT_FALSE(c.zeroedOutput);
  EXPECT_TRUE(uc::planLaunch(z, ElemType::Int32, 1000, 128).zeroedOutput);
  const std::vector<std::string> words = z.describe();
  EXPECT_NE(std::find(words.begin(), words.end(), "output: set to 0 before each launch (as the host's cudaMemset)"), words.end());
  uc::RunRequest q;
  q.symbol = "k", q.n = 1000, q.plan = uc::planLaunch(z, ElemType::Int32, 1000, 128);
  rl::remote::Frame f;
  f.type = "uc_run";
  f.body = uc::runRequestJson(q, {1, 2});
  uc::RunRequest back;
  std::vector<uint8_t> cubin;
  ASSERT_EQ(uc::decodeRunRequest(f, &back, &cubin), "");
  EXPECT_TRUE(back.plan.zeroedOutput);
  f.body["zeroed_output"] = "yes";  // not a boolean: refused, never read as true
  EXPECT_EQ(uc::decodeRunRequest(f, &back, &cubin), "field 'zeroed_output' is not true or false");
}

TEST(UserContract, ErrorsNameTheLine) {
  struct Case {
    std::string text;
    std::string expected;  // the diagnostic's text, whole
  } cases[] = {
      {"// a comment\n// @reducelab colour: blue\n", "k.cu:2:4: error: unknown key 'colour' (keys: kernel, template, types, "
                                                    "ops, blocks, grid, shared, final, passes, output)"},
      {"\n\n// @reducelab blocks: 128, 2048\n", "k.cu:3:4: error: blocks: '2048' is not a block size from 1 to 1024"},
      {"// @reducelab ops: sum\n// @reducelab ops: max\n", "k.cu:2:4: error: 'ops' is given twice (first on line 1)"},
      {"// @reducelab types: int32, half\n", "k.cu:1:4: error: types: 'half' is not int32, int64, float32 or float64"},
      {"// @reducelab grid: two per thread\n",
       "k.cu:1:4: error: grid: 'two per thread' is not one-per-thread, elements-per-thread K (1..2^20) or fixed G (1..2^31-1)"},
      {"// @reducelab final: host\n", "k.cu:1:4: error: final: 'host' is not gpu, cpu or atomic"},
      {"// @reducelab passes: 2\n",
       "k.cu:1: error: passes: applies to `final: cpu` only (the GPU final repeats the kernel until one value remains; the "
       "atomic final launches once)"},
      {"// @reducelab blocks 128\n", "k.cu:1:4: error: an annotation reads `// @reducelab KEY: VALUE` (keys: kernel, template, "
                                     "types, ops, blocks, grid, shared, final, passes, output)"},
      {"// @reducelab output: cleared\n", "k.cu:1:4: error: output: 'cleared' is not `zeroed` (the output set to 0 before each launch)"},
      {"// @reducelab kernel: missing\n", "k.cu:1: error: kernel: no __global__ function 'missing' in this file (there is reduce)"},
  };
  for (const Case& c : cases) {
    const uc::ContractResult r = parse(c.text + kHarrisBody);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.diagnostics.front().text(), c.expected) << c.text;
  }
}

TEST(UserContract, FindsTheKernelPastCommentsAttributesAndDeclarations) {
  const uc::ContractResult r = parse(
      "/* __global__ void fake(int* p); */\n"
      "// __global__ void alsoFake()\n"
      "const char* s = \"__global__ void inString(\";\n"
      "__global__ void __launch_bounds__(256) reduce(const T* in, T* out, unsigned int n);\n"
      "#define K __global__ void macro(int* p)\n"
      "__device__ T helper(T a) { return a; }\n"
      "__global__ void __launch_bounds__(256) reduce(const T* in, T* out, unsigned int n) {\n"
      "  out[0] = helper(in[0]);\n"
      "}\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().text();
  EXPECT_EQ(r.contract.kernel, "reduce");
  EXPECT_EQ(r.contract.kernelLine, 7);  // the definition, not the declaration
}

TEST(UserContract, SeveralKernelsNeedAName) {
  const std::string two = std::string(kHarrisBody) + "__global__ void other(int* p) { p[0] = 1; }\n";
  const uc::ContractResult r = parse(two);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.front().text(),
            "k.cu:6:17: error: this file has 2 __global__ functions (reduce, other): name the one ReduceLab launches with "
            "`// @reducelab kernel: NAME`");
  const uc::ContractResult named = parse("// @reducelab kernel: reduce\n" + two);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named.contract.kernel, "reduce");
  const uc::ContractResult none = parse("__device__ int f() { return 1; }\n");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.diagnostics.front().message.find("no __global__ function"), std::string::npos);
}

TEST(UserContract, TemplatesAreBoundInOrder) {
  const uc::Contract c = parse("template <class V, typename Combine>\n"
                               "__global__ void r(const V* in, V* out, unsigned n) {}\n")
                             .contract;
  EXPECT_TRUE(c.templated);
  EXPECT_EQ(c.nameExpression(256), "r<T, Op>");
  EXPECT_FALSE(c.perBlockInstances());
  const uc::Contract b = parse("template <unsigned int blockSize>\n"
                               "__global__ void r6(const T* in, T* out, unsigned n) {}\n")
                             .contract;
  EXPECT_TRUE(b.perBlockInstances());
  EXPECT_EQ(b.nameExpression(512), "r6<512>");
  const uc::Contract mixed = parse("// @reducelab template: BLOCK, T\n"
                                   "template <int B, class V>\n"
                                   "__global__ void r(const V* in, V* out, unsigned n) {}\n")
                                 .contract;
  EXPECT_EQ(mixed.nameExpression(128), "r<128, T>");
  const uc::ContractResult wrong = parse("// @reducelab template: T, Op\n"
                                         "template <class V>\n"
                                         "__global__ void r(const V* in, V* out, unsigned n) {}\n");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.diagnostics.front().text(), "k.cu:1: error: template: 2 arguments given, kernel r has 1 template parameters");
  const uc::ContractResult notTemplate = parse("// @reducelab template: T\n" + std::string(kHarrisBody));
  ASSERT_FALSE(notTemplate.ok());
  EXPECT_EQ(notTemplate.diagnostics.front().text(), "k.cu:1: error: template: kernel reduce is not a template");
}

// ---- launches ----

TEST(UserLaunch, GpuFinalRepeatsUntilOneValue) {
  const uc::Contract c = parse(kHarrisBody).contract;
  const uc::LaunchPlan p = uc::planLaunch(c, ElemType::Float32, uint64_t(1) << 24, 256);
  ASSERT_TRUE(p.error.empty()) << p.error;
  ASSERT_EQ(p.passes.size(), 3u);  // 2^24 -> 65536 -> 256 -> 1
  EXPECT_EQ(p.passes[0].n, uint64_t(1) << 24);
  EXPECT_EQ(p.passes[0].grid, 65536u);
  EXPECT_EQ(p.passes[1].n, 65536u);
  EXPECT_EQ(p.passes[1].grid, 256u);
  EXPECT_EQ(p.passes[2].n, 256u);
  EXPECT_EQ(p.passes[2].grid, 1u);
  EXPECT_EQ(p.dynamicSharedBytes, 1024u);
  EXPECT_EQ(p.cpuValues, 0u);
  // Each launch: 1 element per thread + 8 tree levels + 1; plus 2.
  EXPECT_EQ(p.chainBound, 3u * 10 + 2);
  const uc::LaunchPlan one = uc::planLaunch(c, ElemType::Int32, 1, 128);
  ASSERT_EQ(one.passes.size(), 1u);
  EXPECT_EQ(one.passes[0].grid, 1u);
}

TEST(UserLaunch, GridRulesAndFinals) {
  const uc::Contract two = parse("// @reducelab grid: elements-per-thread 2\n" + std::string(kHarrisBody)).contract;
  const uc::LaunchPlan a = uc::planLaunch(two, ElemType::Int32, 1000, 128);
  ASSERT_EQ(a.passes.size(), 2u);  // ceil(1000 / 256) = 4, then ceil(4 / 256) = 1
  EXPECT_EQ(a.passes[0].grid, 4u);
  EXPECT_EQ(a.passes[1].n, 4u);
  EXPECT_EQ(a.passes[1].grid, 1u);

  const uc::Contract fixed = parse("// @reducelab grid: fixed 1024\n" + std::string(kHarrisBody)).contract;
  const uc::LaunchPlan f = uc::planLaunch(fixed, ElemType::Int32, uint64_t(1) << 24, 256);
  ASSERT_EQ(f.passes.size(), 3u);  // min(1024, 65536), min(1024, 4), min(1024, 1)
  EXPECT_EQ(f.passes[0].grid, 1024u);
  EXPECT_EQ(f.passes[1].grid, 4u);
  EXPECT_EQ(f.passes[2].grid, 1u);
  EXPECT_EQ(f.chainBound, (64u + 8 + 1) + (1 + 8 + 1) + (1 + 8 + 1) + 2);  // 2^24 / (1024 x 256) = 64 per thread

  const uc::Contract cpu = parse("// @reducelab final: cpu\n" + std::string(kHarrisBody)).contract;
  const uc::LaunchPlan c = uc::planLaunch(cpu, ElemType::Int32, 100000, 256);
  ASSERT_EQ(c.passes.size(), 1u);
  EXPECT_EQ(c.cpuValues, 391u);  // ceil(100000 / 256)
  const uc::Contract cpu2 = parse("// @reducelab final: cpu\n// @reducelab passes: 2\n" + std::string(kHarrisBody)).contract;
  const uc::LaunchPlan c2 = uc::planLaunch(cpu2, ElemType::Int32, 100000, 256);
  ASSERT_EQ(c2.passes.size(), 2u);
  EXPECT_EQ(c2.cpuValues, 2u);  // ceil(391 / 256)

  const uc::Contract atomic = parse("// @reducelab final: atomic\n" + std::string(kHarrisBody)).contract;
  const uc::LaunchPlan t = uc::planLaunch(atomic, ElemType::Float32, 100000, 256);
  ASSERT_EQ(t.passes.size(), 1u);
  EXPECT_EQ(t.passes[0].grid, 391u);
}

TEST(UserLaunch, ImpossiblePlansSayWhy) {
  const uc::Contract c = parse(kHarrisBody).contract;
  EXPECT_EQ(uc::planLaunch(c, ElemType::Int32, 10, 1).error, "block 1 never reduces 10 partials to fewer (each launch must shrink them)");
  EXPECT_EQ(uc::planLaunch(c, ElemType::Int32, 0, 256).error, "N is 0");
  EXPECT_EQ(uc::planLaunch(c, ElemType::Int32, 1000, 2000).error, "block 2000 is not from 1 to 1024");
  EXPECT_EQ(uc::planLaunch(c, ElemType::Int32, 1000, 32, 10).error,
            "N = 1000 needs a grid of 32 blocks; the GPU launches at most 10");
}

// ---- the battery ----

TEST(UserBattery, SizesAroundTheBlock) {
  EXPECT_EQ(uc::batterySizes(256, false), (std::vector<uint64_t>{1, 2, 31, 33, 255, 257, 1048583, 16777216}));
  EXPECT_EQ(uc::batterySizes(32, false), (std::vector<uint64_t>{1, 2, 31, 33, 1048583, 16777216}));
  EXPECT_EQ(uc::batterySizes(1, true), (std::vector<uint64_t>{1, 2, 31, 33, 1048583, 16777216, 2147483655ull}));
}

TEST(UserBattery, DataCatchTheUsualMistakes) {
  auto names = [](ElemType t, Op o) {
    std::vector<std::string> n;
    for (const uc::DataCase& d : uc::batteryData(t, o)) n.push_back(d.name);
    return n;
  };
  EXPECT_EQ(names(ElemType::Float32, Op::Sum), (std::vector<std::string>{"ones", "random"}));
  EXPECT_EQ(names(ElemType::Int64, Op::Sum), (std::vector<std::string>{"ones", "random", "wide values"}));
  EXPECT_EQ(names(ElemType::Int32, Op::Max), (std::vector<std::string>{"all negative", "random"}));
  EXPECT_EQ(names(ElemType::Float64, Op::Min), (std::vector<std::string>{"all positive", "random", "wide values"}));
  for (ElemType t : {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64}) {
    const uc::DataCase neg = uc::batteryData(t, Op::Max).front();
    EXPECT_LT(neg.hi, 0);  // an identity of 0 beats every value
    const uc::DataCase pos = uc::batteryData(t, Op::Min).front();
    EXPECT_GT(pos.lo, 0);
  }
  const uc::DataCase wide = uc::batteryData(ElemType::Int64, Op::Sum).back();
  EXPECT_GT(wide.lo, int64_t(INT32_MAX));  // each value alone overflows 32 bits
}

TEST(UserBattery, EveryClaimedCombinationWithFreshSeeds) {
  const uc::Contract c = parse("// @reducelab ops: sum, max\n// @reducelab blocks: 128, 256\n" + std::string(kHarrisBody)).contract;
  std::string error;
  uc::BatteryOptions o;
  o.seed = 7;
  const std::vector<uc::CheckCase> all = uc::planBattery(c, o, &error);
  ASSERT_TRUE(error.empty()) << error;
  // int32: sum (ones, random, wide) + max (negative, random); float32: sum (2) + max (2); 8 sizes; 2 blocks.
  EXPECT_EQ(all.size(), size_t((3 + 2 + 2 + 2) * 8 * 2));
  std::set<uint64_t> seeds;
  for (const uc::CheckCase& k : all) seeds.insert(k.spec.seed);
  EXPECT_EQ(seeds.size(), all.size());
  o.seed = 8;
  const std::vector<uc::CheckCase> again = uc::planBattery(c, o, &error);
  EXPECT_NE(again.front().spec.seed, all.front().spec.seed);

  uc::BatteryOptions only;
  only.types = {ElemType::Float32};
  only.ops = {Op::Max};
  only.blocks = {256};
  const std::vector<uc::CheckCase> few = uc::planBattery(c, only, &error);
  ASSERT_EQ(few.size(), 2u * 8);
  EXPECT_EQ(few.front().label(), "float32 max, block 256, N=1, all negative");

  only.types = {ElemType::Float64};
  EXPECT_TRUE(uc::planBattery(c, only, &error).empty());
  EXPECT_EQ(error, "float64 is not a type the kernel claims (int32, float32; see `// @reducelab types:`)");
  only.types = {};
  only.blocks = {512};
  uc::planBattery(c, only, &error);
  EXPECT_EQ(error, "block 512 is not a block size the kernel claims (128, 256; see `// @reducelab blocks:`)");
}

namespace {

uc::CheckCase onesCase(uint64_t n) {
  uc::CheckCase k;
  k.type = ElemType::Int32;
  k.op = Op::Sum;
  k.block = 256;
  k.n = n;
  k.data = "ones";
  k.spec.pattern = rl::DataPattern::Ones;
  return k;
}

rl::Reference referenceOf(const uc::CheckCase& k) {
  rl::RunConfig c;
  c.type = k.type;
  c.op = k.op;
  c.n = k.n;
  c.data = k.spec.pattern;
  c.seed = k.spec.seed;
  c.rangeLo = k.spec.lo;
  c.rangeHi = k.spec.hi;
  return rl::computeReference(c, 1);
}

uint64_t bitsOf(int32_t v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, 4);
  return b;
}

}  // namespace

TEST(UserBattery, VerdictsFromValueGuardsAndInput) {
  const uc::Contract c = parse(kHarrisBody).contract;
  const uc::CheckCase k = onesCase(1000);
  const uc::LaunchPlan plan = uc::planLaunch(c, k.type, k.n, k.block);
  const rl::Reference ref = referenceOf(k);
  uc::RunOutcome run;
  run.status = uc::RunOutcome::Status::Ok;
  run.resultBits = bitsOf(1000);  // the sum of 1000 ones
  uc::CaseResult r = uc::judgeCase(k, plan, run, ref);
  EXPECT_EQ(r.verdict, uc::Verdict::Pass);
  EXPECT_EQ(r.text(), "PASS    int32 sum, block 256, N=1000, ones: got 1000, expected 1000 (exact)");

  run.resultBits = bitsOf(1001);  // one element read twice
  r = uc::judgeCase(k, plan, run, ref);
  EXPECT_EQ(r.verdict, uc::Verdict::Fail);
  EXPECT_EQ(r.text(), "FAIL    int32 sum, block 256, N=1000, ones: got 1001, expected 1000 (wrong value)");
  run.resultBits = 0x7f7f7f7f;  // the fill byte: read past the input, or never written (seed 001's kernels)
  r = uc::judgeCase(k, plan, run, ref);
  EXPECT_EQ(r.verdict, uc::Verdict::Fail);
  EXPECT_NE(r.note.find("every byte is 0x7f"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("read past the end of its input"), std::string::npos) << r.note;

  run.resultBits = bitsOf(1000);
  uc::GuardFinding g;
  g.buffer = "output (launch 2)";
  g.firstOffset = g.lastOffset = 4;
  g.bytesChanged = 4;
  g.bufferBytes = 4;
  g.elemBytes = 4;
  run.guards = {g};
  r = uc::judgeCase(k, plan, run, ref);
  EXPECT_EQ(r.verdict, uc::Verdict::Fail);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.text(),
            "FAIL    int32 sum, block 256, N=1000, ones: got 1000, expected 1000 (exact), but guard zone: output (launch "
            "2): a write past its end at byte offset 4 (element 1 of a 1-element buffer)");
  g.firstOffset = 5;  // a value whose first byte happens to equal the guard's: the element is the same
  g.lastOffset = 7;
  EXPECT_EQ(g.text(), "output (launch 2): a write past its end at byte offset 4 (element 1 of a 1-element buffer)");
  g.lastOffset = 12;
  EXPECT_EQ(g.text(), "output (launch 2): writes past its end at byte offsets 4 to 15 (elements 1 to 3 of a 1-element buffer)");
  g.firstOffset = -8;
  g.lastOffset = -5;
  EXPECT_EQ(g.text(), "output (launch 2): a write before its start at byte offset -8 (element -2 of a 1-element buffer)");

  run.guards.clear();
  run.inputChanged = 3;
  run.firstInputChange = 17;
  r = uc::judgeCase(k, plan, run, ref);
  EXPECT_EQ(r.verdict, uc::Verdict::Fail);
  EXPECT_EQ(r.findings.at(0), "input: the kernel changed 3 of its 1000 input elements (the first at element 17); `in` is const");

  uc::RunOutcome bad;
  for (auto [status, verdict] : {std::pair{uc::RunOutcome::Status::Fault, uc::Verdict::Crash},
                                 std::pair{uc::RunOutcome::Status::Timeout, uc::Verdict::Timeout},
                                 std::pair{uc::RunOutcome::Status::LaunchError, uc::Verdict::Fail},
                                 std::pair{uc::RunOutcome::Status::Skipped, uc::Verdict::Skipped}}) {
    bad.status = status;
    bad.message = "what happened";
    r = uc::judgeCase(k, plan, bad, ref);
    EXPECT_EQ(r.verdict, verdict);
    EXPECT_EQ(r.note, "what happened");
  }
}

TEST(UserBattery, FloatSumsWithinTheirTolerance) {
  const uc::Contract c = parse(kHarrisBody).contract;
  uc::CheckCase k = onesCase(1 << 20);
  k.type = ElemType::Float32;
  k.data = "random";
  k.spec.pattern = rl::DataPattern::Uniform;
  k.spec.seed = 12345;
  const rl::Reference ref = referenceOf(k);
  const uc::LaunchPlan plan = uc::planLaunch(c, k.type, k.n, k.block);
  uc::RunOutcome run;
  run.status = uc::RunOutcome::Status::Ok;
  auto judge = [&](float v) {
    std::memcpy(&run.resultBits, &v, 4);
    return uc::judgeCase(k, plan, run, ref).verdict;
  };
  EXPECT_EQ(judge(float(ref.exact)), uc::Verdict::Pass);
  EXPECT_EQ(judge(float(ref.exact) * 1.001f), uc::Verdict::Fail);  // far above chain x eps x sum|x|
  EXPECT_EQ(judge(float(ref.exact - 100.0L)), uc::Verdict::Fail);  // a hundred elements of about 1 missing
}

// ---- NVRTC's log ----

TEST(UserDiagnostics, ErrorsAndWarningsAtTheUsersLines) {
  const std::string src =
      "__global__ void reduce(const T* in, T* out, unsigned n){\n"
      "  int unused;\n"
      "\tout[0] =\tin[0].y; }\n";
  const std::string log =
      "u.cu(2): warning #177-D: variable \"unused\" was declared but never referenced\n"
      "    int unused;\n"
      "        ^\n"
      "\n"
      "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
      "\n"
      "u.cu(3): error: expression must have class type but it has type \"const T\"\n"
      "  \tout[0] =\tin[0].y; }\n"
      "  \t        \t^\n"
      "          detected during instantiation of \"void reduce(const U *, U *, unsigned int) [with U=T]\" at line 9 of "
      "other.cu\n"
      "\n"
      "u.cu(40): catastrophic error: could not open source file \"nothere.h\" (no directories in search list)\n"
      "  #include <nothere.h>\n"
      "                      ^\n"
      "2 errors detected in the compilation of \"reducelab-prelude.cuh\".\n"
      "ptxas warning : Registers are spilled to local memory in function '_Z1kv', 8 bytes spill stores\n"
      "ptxas error   : Entry function '_Z1kv' uses too much shared data (0x13880 bytes, 0xc000 max)\n";
  const std::vector<uc::Diagnostic> d = uc::parseNvrtcLog(log, "u.cu", src);
  ASSERT_EQ(d.size(), 6u);
  EXPECT_EQ(d[0].text(), "u.cu:2:7: warning: variable \"unused\" was declared but never referenced [#177-D]");
  EXPECT_EQ(d[1].text(), "u.cu:3:11: error: expression must have class type but it has type \"const T\"");
  EXPECT_EQ(d[2].text(),
            "other.cu:9: note: detected during instantiation of \"void reduce(const U *, U *, unsigned int) [with U=T]\"");
  // Line 40 is not in the source: no column is claimed.
  EXPECT_EQ(d[3].text(), "u.cu:40: error: could not open source file \"nothere.h\" (no directories in search list)");
  EXPECT_EQ(d[4].text(), "u.cu: warning: ptxas: Registers are spilled to local memory in function '_Z1kv', 8 bytes spill stores");
  EXPECT_EQ(d[5].text(), "u.cu: error: ptxas: Entry function '_Z1kv' uses too much shared data (0x13880 bytes, 0xc000 max)");
}

TEST(UserDiagnostics, PtxasResourcesPerEntry) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z6reduceIdEvPKT_PS0_j' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z6reduceIdEvPKT_PS0_j\n"
      "ptxas         .     384 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 1 barriers, 384 bytes cumulative stack size, 2048 bytes smem\n"
      "ptxas info    : Compile time = 46.202 ms\n"
      "ptxas info    : Function properties for _Z6helperPfi\n"
      "ptxas         .     64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function '_Z5otherPi' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z5otherPi\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, used 0 barriers\n";
  const auto r = uc::parsePtxasInfo(log);
  ASSERT_EQ(r.size(), 2u);
  const uc::KernelResources& a = r.at("_Z6reduceIdEvPKT_PS0_j");
  EXPECT_EQ(a.registers, 24);
  EXPECT_EQ(a.barriers, 1);
  EXPECT_EQ(a.staticSharedBytes, 2048);
  EXPECT_EQ(a.stackBytes, 384);
  EXPECT_EQ(a.spillStoreBytes, 16);
  EXPECT_EQ(a.spillLoadBytes, 12);
  EXPECT_EQ(a.text(), "24 registers, 2048 B static shared, 384 B stack, 16 B spill stores, 12 B spill loads, 1 barrier");
  const uc::KernelResources& b = r.at("_Z5otherPi");
  EXPECT_EQ(b.registers, 8);
  EXPECT_EQ(b.stackBytes, 0);
  EXPECT_EQ(b.text(), "8 registers, 0 B static shared, 0 B stack, no spills, 0 barriers");
}

TEST(UserDiagnostics, PtxParameterSizes) {
  const std::string ptx =
      ".visible .entry _Z6reducePKfPfj(\n"
      "\t.param .u64 .ptr .align 1 _Z6reducePKfPfj_param_0,\n"
      "\t.param .u64 _Z6reducePKfPfj_param_1,\n"
      "\t.param .u32 _Z6reducePKfPfj_param_2\n"
      ")\n"
      ".visible .entry _Z1sv4Pair(\n"
      "\t.param .align 8 .b8 _Z1sv4Pair_param_0[16]\n"
      ")\n";
  std::string error;
  EXPECT_EQ(uc::ptxEntryParamBytes(ptx, "_Z6reducePKfPfj", &error), (std::vector<int>{8, 8, 4}));
  EXPECT_EQ(uc::ptxEntryParamBytes(ptx, "_Z1sv4Pair", &error), std::vector<int>{16});
  EXPECT_TRUE(uc::ptxEntryParamBytes(ptx, "_Z4nonev", &error).empty());
  EXPECT_EQ(error, "entry _Z4nonev not found in the PTX");
}

// ---- NVRTC itself (this machine has it) ----

namespace {

uc::CompileRequest request(const std::string& file, ElemType t, Op o, const std::string& cacheDir) {
  uc::CompileRequest q;
  q.source = source(file);
  q.file = file;
  q.type = t;
  q.op = o;
  q.cacheDir = cacheDir;
  q.useCache = !cacheDir.empty();
  return q;
}

}  // namespace

TEST(UserCompile, HarrisKernelCompilesWithItsResources) {
  REQUIRE_NVRTC();
  const uc::CompileResult r = uc::compileUserKernel(request("harris3.cu", ElemType::Float32, Op::Sum, ""));
  ASSERT_TRUE(r.ok()) << (r.diagnostics.empty() ? r.environmentError : r.diagnostics.front().text());
  EXPECT_TRUE(r.diagnostics.empty());
  ASSERT_EQ(r.kernels.size(), 1u);
  const uc::KernelBuild& k = r.kernels[0];
  EXPECT_EQ(k.loweredName, "_Z7reduce3PKfPfj");  // reduce3(const float*, float*, unsigned int)
  EXPECT_EQ(k.paramBytes, (std::vector<int>{8, 8, 4}));
  EXPECT_TRUE(k.nSignKnown);
  EXPECT_FALSE(k.nSigned);
  EXPECT_TRUE(k.resources.known);
  EXPECT_GT(k.resources.registers, 0);
  EXPECT_EQ(k.resources.staticSharedBytes, 0);  // its shared memory is dynamic
  EXPECT_EQ(k.resources.barriers, 1);
  EXPECT_EQ(std::string(r.cubin.begin(), r.cubin.begin() + 4), "\x7f" "ELF");
  EXPECT_EQ(r.options.front(), "--gpu-architecture=sm_90");

  const uc::CompileResult i64 = uc::compileUserKernel(request("harris3.cu", ElemType::Int64, Op::Max, ""));
  ASSERT_TRUE(i64.ok());
  EXPECT_EQ(i64.kernels[0].loweredName, "_Z7reduce3PKxPxj");  // long long
}

// NVRTC 12.9+ caches builds where a driver is installed (the GPU machines) and a build it serves
// has no ptxas report: the second of two identical builds lost its registers and shared memory.
TEST(UserCompile, ASecondIdenticalBuildStillReportsItsResources) {
  REQUIRE_NVRTC();
  for (int i = 0; i < 3; ++i) {
    const uc::CompileResult r = uc::compileUserKernel(request("harris3.cu", ElemType::Int32, Op::Min, ""));
    ASSERT_TRUE(r.ok()) << r.environmentError;
    ASSERT_EQ(r.kernels.size(), 1u);
    EXPECT_TRUE(r.kernels[0].resources.known) << "build " << i << ": ptxas said nothing:\n" << r.log;
    EXPECT_GT(r.kernels[0].resources.registers, 0) << "build " << i;
  }
}

TEST(UserCompile, ErrorOnLineSevenIsReportedAtLineSeven) {
  REQUIRE_NVRTC();
  const uc::CompileResult r = uc::compileUserKernel(request("compile_error.cu", ElemType::Int32, Op::Sum, ""));
  EXPECT_EQ(r.status, uc::CompileStatus::CompileError);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].text(), "compile_error.cu:7:39: error: identifier \"undeclared_offset\" is undefined");
  EXPECT_TRUE(r.cubin.empty());
}

TEST(UserCompile, TemplateInstancesPerBlockAndTypeMismatch) {
  REQUIRE_NVRTC();
  const uc::CompileResult r = uc::compileUserKernel(request("unrolled_template.cu", ElemType::Int32, Op::Max, ""));
  ASSERT_TRUE(r.ok()) << (r.diagnostics.empty() ? r.environmentError : r.diagnostics.front().text());
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[1].block, 256);
  EXPECT_EQ(r.kernels[1].nameExpression, "reduceUnrolled<256>");
  EXPECT_EQ(r.kernels[1].loweredName, "_Z14reduceUnrolledILj256EEvPKiPij");
  EXPECT_EQ(r.kernelFor(512)->loweredName, "_Z14reduceUnrolledILj512EEvPKiPij");
  EXPECT_EQ(r.kernelFor(64), nullptr);

  const uc::CompileResult t = uc::compileUserKernel(request("templated_type_op.cu", ElemType::Float64, Op::Min, ""));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.kernels[0].paramBytes, (std::vector<int>{8, 8, 8}));  // unsigned long long n
  EXPECT_EQ(t.kernels[0].loweredName, "_Z15reduceTemplatedId5MinOpEvPKT_PS1_y");

  uc::CompileRequest wrongType;
  wrongType.file = "int_kernel.cu";
  wrongType.source = "__global__ void r(const int* in, int* out, unsigned int n) { out[0] = in[0]; }\n";
  wrongType.type = ElemType::Float32;
  const uc::CompileResult w = uc::compileUserKernel(wrongType);
  EXPECT_EQ(w.status, uc::CompileStatus::ContractError);
  ASSERT_FALSE(w.diagnostics.empty());
  EXPECT_EQ(w.diagnostics.back().text(),
            "int_kernel.cu:1: error: kernel r reads int elements, but this build is for T = float (float32): write the "
            "kernel with T, or claim the type it is written for (`// @reducelab types: ...`)");
  wrongType.source = "__global__ void r(const T* in, T* out) { out[0] = in[0]; }\n";
  const uc::CompileResult p = uc::compileUserKernel(wrongType);
  EXPECT_EQ(p.status, uc::CompileStatus::ContractError);
  EXPECT_EQ(p.diagnostics.back().text(),
            "int_kernel.cu:1: error: kernel r takes 2 parameters (8, 8 bytes); ReduceLab calls it as r(const T* in, T* "
            "out, n) with n a 32- or 64-bit integer");
}

TEST(UserCompile, StaticSharedOverTheLimitIsNamed) {
  REQUIRE_NVRTC();
  uc::CompileRequest q;
  q.file = "big.cu";
  q.source =
      "__global__ void r(const T* in, T* out, unsigned int n) {\n"
      "  __shared__ float big[20000];\n"
      "  big[threadIdx.x] = in[0];\n"
      "  __syncthreads();\n"
      "  out[0] = big[n];\n"
      "}\n";
  const uc::CompileResult r = uc::compileUserKernel(q);
  EXPECT_EQ(r.status, uc::CompileStatus::CompileError);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics.back().text(),
            "big.cu: error: the kernel declares 80000 bytes of static __shared__ memory; a block can have at most 49152 "
            "static (use extern __shared__ and `// @reducelab shared: ...` for more)");
}

TEST(UserCompile, CacheHitsAndDamagedEntriesAreRebuilt) {
  REQUIRE_NVRTC();
  const std::string dir = rl::test::freshTempDir("uc-cache");
  ASSERT_FALSE(dir.empty());
  const uc::CompileRequest q = request("harris3.cu", ElemType::Int32, Op::Sum, dir);
  const uc::CompileResult first = uc::compileUserKernel(q);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first.cacheHit);
  ASSERT_FALSE(first.cacheFile.empty());
  EXPECT_TRUE(std::filesystem::is_regular_file(first.cacheFile));
  const uc::CompileResult second = uc::compileUserKernel(q);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second.cacheHit);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.kernels.at(0).resources.registers, first.kernels.at(0).resources.registers);
  EXPECT_EQ(second.kernels.at(0).loweredName, first.kernels.at(0).loweredName);

  // Another source is another entry.
  uc::CompileRequest other = q;
  other.source += "\n// a comment changes the key\n";
  const uc::CompileResult third = uc::compileUserKernel(other);
  EXPECT_FALSE(third.cacheHit);
  EXPECT_NE(third.cacheFile, first.cacheFile);

  // One byte of the cubin flipped: the entry is not trusted.
  std::string bytes = rl::test::readFile(first.cacheFile);
  ASSERT_GT(bytes.size(), 100u);
  bytes[bytes.size() - 50] ^= 0x5a;
  std::ofstream(first.cacheFile, std::ios::binary | std::ios::trunc) << bytes;
  const uc::CompileResult damaged = uc::compileUserKernel(q);
  ASSERT_TRUE(damaged.ok());
  EXPECT_FALSE(damaged.cacheHit);
  EXPECT_EQ(damaged.cacheNote, "the cache entry " + first.cacheFile + " was damaged (its checksum does not match): rebuilt");
  EXPECT_EQ(damaged.cubin, first.cubin);
  // Cut short, and then garbage: rebuilt each time, and the rebuilt entry is good again.
  std::ofstream(first.cacheFile, std::ios::binary | std::ios::trunc) << bytes.substr(0, 40);
  EXPECT_NE(uc::compileUserKernel(q).cacheNote.find("its header or length is wrong"), std::string::npos);
  std::ofstream(first.cacheFile, std::ios::binary | std::ios::trunc) << "not a cache entry at all";
  EXPECT_FALSE(uc::compileUserKernel(q).cacheHit);
  EXPECT_TRUE(uc::compileUserKernel(q).cacheHit);
  std::filesystem::remove_all(dir);
}

TEST(UserCompile, MissingNvrtcGivesOneMessage) {
  uc::NvrtcSearch s;
  s.library = "/nonexistent/libnvrtc.so";
  const uc::NvrtcApi api = uc::loadNvrtc(s);
  EXPECT_FALSE(api.loaded);
  EXPECT_EQ(uc::nvrtcCandidates(s), std::vector<std::string>{"/nonexistent/libnvrtc.so"});
  EXPECT_EQ(api.error.rfind("NVRTC (the CUDA runtime compiler) could not be loaded from "
                            "REDUCELAB_NVRTC_LIB=/nonexistent/libnvrtc.so: ",
                            0),
            0u)
      << api.error;

  // Without the variable: CUDA_HOME, /usr/local/cuda, then the loader's path.
  uc::NvrtcSearch d;
  d.cudaHome = "/opt/cuda-x";
  const std::vector<std::string> c = uc::nvrtcCandidates(d);
  ASSERT_EQ(c.size(), 9u);
  EXPECT_EQ(c[0], "/opt/cuda-x/lib64/libnvrtc.so.13");
  EXPECT_EQ(c[3], "/usr/local/cuda/lib64/libnvrtc.so.13");
  EXPECT_EQ(c[6], "libnvrtc.so.13");

  const rl::test::CommandResult r =
      rl::test::runReducelab("compile " + kData + "harris3.cu", "REDUCELAB_NVRTC_LIB=/nonexistent/libnvrtc.so");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(rl::test::countLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("REDUCELAB_NVRTC_LIB=/nonexistent/libnvrtc.so"), std::string::npos);
  EXPECT_TRUE(r.out.empty());
}

// ---- the CLI ----

TEST(UserCli, CompileExitCodesAndDiagnostics) {
  REQUIRE_NVRTC();
  const std::string cache = "XDG_CACHE_HOME=" + rl::test::freshTempDir("uc-cli");
  rl::test::CommandResult ok = rl::test::runReducelab("compile " + kData + "harris3.cu --type float32 --op sum", cache);
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_NE(ok.out.find("compiled for sm_90"), std::string::npos);
  EXPECT_NE(ok.out.find("(0 from the cache)"), std::string::npos);
  EXPECT_NE(ok.out.find("float32  sum  reduce3: "), std::string::npos);
  ok = rl::test::runReducelab("compile " + kData + "harris3.cu --type float32 --op sum", cache);
  EXPECT_NE(ok.out.find("(1 from the cache)"), std::string::npos) << ok.out;

  const rl::test::CommandResult bad = rl::test::runReducelab("compile " + kData + "compile_error.cu", cache);
  EXPECT_EQ(bad.exitCode, 4);
  EXPECT_NE(bad.err.find(kData + "compile_error.cu:7:39: error: identifier \"undeclared_offset\" is undefined"),
            std::string::npos)
      << bad.err;

  const rl::test::CommandResult json =
      rl::test::runReducelab("compile " + kData + "harris3.cu --type int64 --op min --format json", cache);
  ASSERT_EQ(json.exitCode, 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["builds"][0]["kernels"][0]["symbol"], "_Z7reduce3PKxPxj");
  EXPECT_GT(j["builds"][0]["kernels"][0]["registers"].get<int>(), 0);

  EXPECT_EQ(rl::test::runReducelab("compile " + kData + "nothere.cu", cache).exitCode, 2);
  EXPECT_EQ(rl::test::runReducelab("compile " + kData + "harris3.cu --arch hopper", cache).exitCode, 2);
  EXPECT_EQ(rl::test::runReducelab("compile " + kData + "harris3.cu --type half", cache).exitCode, 2);
  const rl::test::CommandResult arch = rl::test::runReducelab("compile " + kData + "harris3.cu --arch sm_99", cache);
  EXPECT_EQ(arch.exitCode, 1);
  EXPECT_NE(arch.err.find("does not compile for sm_99"), std::string::npos) << arch.err;
}

TEST(UserCli, CheckWithoutGpuCompilesAndSaysWhatRunningNeeds) {
  REQUIRE_NVRTC();
  if (rl::queryDevice(0).available) GTEST_SKIP() << "this machine has a GPU: the GPU tests check it";
  const std::string cache = "XDG_CACHE_HOME=" + rl::test::freshTempDir("uc-cli");
  const rl::test::CommandResult r = rl::test::runReducelab("check " + kData + "harris3.cu", cache);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("the kernel compiled for sm_90; running it needs a GPU"), std::string::npos) << r.err;
  const rl::test::CommandResult e = rl::test::runReducelab("check " + kData + "compile_error.cu", cache);
  EXPECT_EQ(e.exitCode, 4);
  EXPECT_NE(e.err.find("compile_error.cu:7:39: error:"), std::string::npos) << e.err;
  const rl::test::CommandResult j = rl::test::runReducelab("check " + kData + "compile_error.cu --format json", cache);
  EXPECT_EQ(j.exitCode, 4);
  EXPECT_EQ(nlohmann::json::parse(j.out)["diagnostics"][0]["line"], 7);
  EXPECT_EQ(rl::test::runReducelab("check " + kData + "harris3.cu --block 64", cache).exitCode, 2);
}

// `reducelab trace --kernel-file`: usage errors before anything runs, and without a GPU one sentence.
TEST(UserCli, TraceOfAKernelFileSaysWhatItNeeds) {
  if (rl::queryDevice(0).available) GTEST_SKIP() << "this machine has a GPU: the GPU tests trace";
  const rl::test::CommandResult r = rl::test::runReducelab("trace --kernel-file " + kData + "harris3.cu");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("tracing your kernel needs a GPU"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.out, "");
  const rl::test::CommandResult b = rl::test::runReducelab("trace --kernel-file " + kData + "harris3.cu --block 64");
  EXPECT_EQ(b.exitCode, 2);
  EXPECT_NE(b.err.find("does not claim block 64"), std::string::npos) << b.err;
  const rl::test::CommandResult t = rl::test::runReducelab("trace --kernel-file " + kData + "harris3.cu --type int8");
  EXPECT_EQ(t.exitCode, 2);
  const rl::test::CommandResult c =
      rl::test::runReducelab("trace --kernel-file " + kData + "harris3.cu --block 256 --n 1000 --traced-block 4");
  EXPECT_EQ(c.exitCode, 2);
  EXPECT_NE(c.err.find("the first launch has 4 blocks"), std::string::npos) << c.err;
  const rl::test::CommandResult m = rl::test::runReducelab("trace --kernel-file /nonexistent/k.cu");
  EXPECT_EQ(m.exitCode, 2);
}

// ---- the worker's protocol and the parent's watchdog ----

TEST(UserWorker, MessagesRoundTripAndRefuseNonsense) {
  uc::RunRequest r;
  r.id = 42;
  r.symbol = "_Z7reduce3PKfPfj";
  r.nBytes = 8;
  r.type = ElemType::Float64;
  r.op = Op::Min;
  r.n = 1000;
  r.data = {rl::DataPattern::IntRange, 99, -5, 5};
  r.plan.block = 128;
  r.plan.dynamicSharedBytes = 1024;
  r.plan.final = uc::UserFinal::Cpu;
  r.plan.passes = {{1000, 8}};
  r.plan.cpuValues = 8;
  rl::remote::FrameReader reader;
  const std::string bytes = rl::remote::encodeFrame(uc::runRequestJson(r, {1, 2, 0xfe}));
  reader.feed(bytes.data(), bytes.size());
  rl::remote::Frame f;
  std::string error;
  ASSERT_EQ(reader.next(&f, &error), rl::remote::FrameReader::Status::Frame) << error;
  uc::RunRequest back;
  std::vector<uint8_t> cubin;
  ASSERT_EQ(uc::decodeRunRequest(f, &back, &cubin), "");
  EXPECT_EQ(back.id, 42u);
  EXPECT_EQ(back.symbol, r.symbol);
  EXPECT_EQ(back.nBytes, 8);
  EXPECT_EQ(back.type, ElemType::Float64);
  EXPECT_EQ(back.op, Op::Min);
  EXPECT_EQ(back.data.pattern, rl::DataPattern::IntRange);
  EXPECT_EQ(back.data.seed, 99u);
  EXPECT_EQ(back.data.lo, -5);
  EXPECT_EQ(back.plan.final, uc::UserFinal::Cpu);
  ASSERT_EQ(back.plan.passes.size(), 1u);
  EXPECT_EQ(back.plan.passes[0].grid, 8u);
  EXPECT_EQ(cubin, (std::vector<uint8_t>{1, 2, 0xfe}));

  f.body["n_bytes"] = 2;
  EXPECT_EQ(uc::decodeRunRequest(f, &back, &cubin), "field 'n_bytes' is not 4 or 8");
  f.body["n_bytes"] = 4;
  f.body["passes"] = nlohmann::json::array({nlohmann::json::array({0, 1})});
  EXPECT_EQ(uc::decodeRunRequest(f, &back, &cubin), "a pass is out of range");
  f.body["passes"] = nlohmann::json::array({nlohmann::json::array({1000, 8})});
  f.body["cubin"] = "01x2";
  EXPECT_EQ(uc::decodeRunRequest(f, &back, &cubin), "field 'cubin' is not hexadecimal");
  f.body.erase("symbol");
  EXPECT_EQ(uc::decodeRunRequest(f, &back, &cubin), "field 'symbol' is missing");

  uc::RunOutcome o;
  o.status = uc::RunOutcome::Status::Fault;
  o.message = "illegal memory access";
  o.contextLost = true;
  o.guards.push_back({"input", -4, -1, 4, 400, 4});
  rl::remote::Frame g;
  g.type = "uc_outcome";
  g.body = uc::runOutcomeJson(7, o);
  uint64_t id = 0;
  uc::RunOutcome ob;
  ASSERT_EQ(uc::decodeRunOutcome(g, &id, &ob), "");
  EXPECT_EQ(id, 7u);
  EXPECT_EQ(ob.status, uc::RunOutcome::Status::Fault);
  EXPECT_TRUE(ob.contextLost);
  ASSERT_EQ(ob.guards.size(), 1u);
  EXPECT_EQ(ob.guards[0].firstOffset, -4);
  g.body["status"] = "fine";
  EXPECT_EQ(uc::decodeRunOutcome(g, &id, &ob), "field 'status' has an unknown value");

  // A trace request and its answer: the block asked for, the trace's bytes, notes and hazards.
  r.traceBlock = 3;
  r.traceRecords = 5000;
  f.body = uc::runRequestJson(r, {1, 2, 0xfe});
  ASSERT_EQ(uc::decodeRunRequest(f, &back, &cubin), "");
  EXPECT_EQ(back.traceBlock, 3);
  EXPECT_EQ(back.traceRecords, 5000u);
  f.body["trace_block"] = -2;
  EXPECT_EQ(uc::decodeRunRequest(f, &back, &cubin), "field 'trace_block' is out of range");
  uc::RunOutcome t;
  t.status = uc::RunOutcome::Status::Ok;
  t.trace = {0xde, 0xad, 0x00, 0x01};
  t.traceNotes = {"values: known where a lane stored"};
  t.tracedFunction = "_Z7reduce3PKiPij";
  t.traceRecords = 3583;
  t.tracePhases = 10;
  rl::instrumented::Hazard h;
  h.kind = rl::instrumented::Hazard::Kind::CrossWarp;
  h.phase = 1;
  h.wordOffset = -8;
  h.first = {32, 1, 0, true, 0x120, 5};
  h.second = {0, 0, 0, false, 0x110, 9};
  h.occurrences = 2;
  h.message = "shared-memory race";
  t.hazards = {h};
  g.body = uc::runOutcomeJson(8, t);
  ASSERT_EQ(uc::decodeRunOutcome(g, &id, &ob), "");
  EXPECT_EQ(ob.trace, t.trace);
  EXPECT_EQ(ob.traceNotes, t.traceNotes);
  EXPECT_EQ(ob.tracedFunction, t.tracedFunction);
  EXPECT_EQ(ob.traceRecords, 3583u);
  EXPECT_EQ(ob.tracePhases, 10);
  ASSERT_EQ(ob.hazards.size(), 1u);
  EXPECT_EQ(ob.hazards[0].kind, rl::instrumented::Hazard::Kind::CrossWarp);
  EXPECT_EQ(ob.hazards[0].wordOffset, -8);
  EXPECT_EQ(ob.hazards[0].first.thread, 32u);
  EXPECT_EQ(ob.hazards[0].first.warp, 1);
  EXPECT_TRUE(ob.hazards[0].first.write);
  EXPECT_EQ(ob.hazards[0].second.pc, 0x110u);
  EXPECT_EQ(ob.hazards[0].occurrences, 2u);
  g.body["trace_hex"] = "abc";
  EXPECT_EQ(uc::decodeRunOutcome(g, &id, &ob), "field 'trace_hex' has a wrong length");
  g.body["trace_hex"] = "";
  g.body["hazards"][0]["kind"] = "spooky";
  EXPECT_EQ(uc::decodeRunOutcome(g, &id, &ob), "a hazard's kind is unknown");
}

namespace {

uc::RunRequest onesRun(uint64_t n) {
  uc::RunRequest r;
  r.symbol = "fake";
  r.type = ElemType::Int32;
  r.n = n;
  r.data.pattern = rl::DataPattern::Ones;
  r.plan.block = 256;
  r.plan.passes = {{n, 1}};
  return r;
}

int32_t valueOf(const uc::RunOutcome& o) {
  int32_t v = 0;
  std::memcpy(&v, &o.resultBits, 4);
  return v;
}

}  // namespace

TEST(UserWorker, WatchdogStopsAHangAndTheNextRunRestartsTheWorker) {
  const std::string marker = rl::test::freshTempDir("uc-worker") + "/first";
  uc::WorkerOptions w;
  w.executable = rl::test::builtFile(USERCODE_FAKE_WORKER);
  w.args = {"hang-once", marker};
  w.timeoutSeconds = 0.5;
  uc::KernelWorker worker(w);
  EXPECT_EQ(worker.device().name, "fake worker (tests)");
  const auto start = std::chrono::steady_clock::now();
  const uc::RunOutcome hung = worker.run(onesRun(10), {0x7f});
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(hung.status, uc::RunOutcome::Status::Timeout);
  EXPECT_EQ(hung.message.rfind("the kernel did not finish within 0.5 s (an endless loop", 0), 0u) << hung.message;
  EXPECT_GE(waited, 0.5);
  EXPECT_LT(waited, 5.0);
  EXPECT_FALSE(worker.running());
  const uc::RunOutcome next = worker.run(onesRun(10), {0x7f});
  EXPECT_EQ(next.status, uc::RunOutcome::Status::Ok) << next.message;
  EXPECT_EQ(valueOf(next), 10);
  EXPECT_EQ(worker.restarts(), 1);
}

TEST(UserWorker, AWorkerThatDiesIsNamedAndReplaced) {
  const std::string marker = rl::test::freshTempDir("uc-worker") + "/first";
  uc::WorkerOptions w;
  w.executable = rl::test::builtFile(USERCODE_FAKE_WORKER);
  w.args = {"crash-once", marker};
  uc::KernelWorker worker(w);
  const uc::RunOutcome died = worker.run(onesRun(5), {0x7f});
  EXPECT_EQ(died.status, uc::RunOutcome::Status::Fault);
  EXPECT_EQ(died.message,
            "the worker process ended during the run: it was killed by signal 6 (Aborted); its last words: fake worker: "
            "aborting as asked");
  const uc::RunOutcome next = worker.run(onesRun(5), {0x7f});
  EXPECT_EQ(next.status, uc::RunOutcome::Status::Ok) << next.message;
  EXPECT_EQ(valueOf(next), 5);
}

TEST(UserWorker, AWorkerThatNeverSaysHelloIsStopped) {
  uc::WorkerOptions w;
  w.executable = rl::test::builtFile(USERCODE_FAKE_WORKER);
  w.args = {"silent"};
  w.startSeconds = 0.3;
  uc::KernelWorker worker(w);
  const rl::DeviceInfo d = worker.device();
  EXPECT_FALSE(d.available);
  EXPECT_EQ(d.unavailableReason, "the worker did not start within 0.3 s");
  EXPECT_FALSE(worker.running());
  const uc::RunOutcome o = worker.run(onesRun(5), {0x7f});
  EXPECT_EQ(o.status, uc::RunOutcome::Status::WorkerError);
  EXPECT_EQ(o.message, "running your kernel needs a GPU: the worker did not start within 0.3 s");
}

// A timing request and its answer travel whole; a traced run is never timed.
TEST(UserWorker, TimingRequestsAndTheirRepetitionsRoundTrip) {
  uc::RunRequest r;
  r.symbol = "_Z7reduce3PKfPfj";
  r.type = ElemType::Float32;
  r.n = 1 << 20;
  r.plan.block = 256;
  r.plan.passes = {{1 << 20, 4096}, {4096, 16}, {16, 1}};
  r.timedReps = 20;
  r.timedWarmups = 3;
  r.warmL2 = true;
  rl::remote::Frame f;
  f.type = "uc_run";
  f.body = uc::runRequestJson(r, {1});
  uc::RunRequest back;
  std::vector<uint8_t> cubin;
  ASSERT_EQ(uc::decodeRunRequest(f, &back, &cubin), "");
  EXPECT_EQ(back.timedReps, 20);
  EXPECT_EQ(back.timedWarmups, 3);
  EXPECT_TRUE(back.warmL2);
  f.body["timed_reps"] = uc::kMaxTimedReps + 1;
  EXPECT_EQ(uc::decodeRunRequest(f, &back, &cubin), "field 'timed_reps' is out of range");
  f.body["timed_reps"] = 2;
  f.body["trace_block"] = 0;
  EXPECT_EQ(uc::decodeRunRequest(f, &back, &cubin), "a traced run is not timed (patched launches are slow)");

  uc::RunOutcome o;
  o.status = uc::RunOutcome::Status::Ok;
  o.repMs = {0.031, 0.0305, 0.032};
  o.repEndToEndMs = {0.041, 0.0405, 0.042};
  o.enqueueTimeouts = 1;
  rl::remote::Frame g;
  g.type = "uc_outcome";
  g.body = uc::runOutcomeJson(9, o);
  uint64_t id = 0;
  uc::RunOutcome ob;
  ASSERT_EQ(uc::decodeRunOutcome(g, &id, &ob), "");
  EXPECT_EQ(ob.repMs, o.repMs);
  EXPECT_EQ(ob.repEndToEndMs, o.repEndToEndMs);
  EXPECT_EQ(ob.enqueueTimeouts, 1);
  g.body["rep_e2e_ms"] = nlohmann::json::array({0.1});
  EXPECT_EQ(uc::decodeRunOutcome(g, &id, &ob), "the end-to-end times are not one per repetition");
  g.body["rep_e2e_ms"] = nlohmann::json::array({0.1, 0.1});
  g.body["rep_ms"] = nlohmann::json::array({0.1, -1.0});
  EXPECT_EQ(uc::decodeRunOutcome(g, &id, &ob), "a repetition's time is not a number of milliseconds");
  g.body["rep_ms"] = nlohmann::json::array({0.1, "fast"});
  EXPECT_EQ(uc::decodeRunOutcome(g, &id, &ob), "a repetition's time is not a number of milliseconds");
}

namespace {

// A check of harris3.cu (int32 sum, block 128) through the fake worker in MODE, with the
// companions' rows made up by the test.
struct TimedCheck {
  uc::CheckReport rep;
  int companionCalls = 0;
  rl::RunConfig companionConfig;
};
TimedCheck checkWithFakeWorker(const std::string& mode, uint64_t timeN) {
  TimedCheck t;
  uc::WorkerOptions w;
  w.executable = rl::test::builtFile(USERCODE_FAKE_WORKER);
  w.args = {mode};
  uc::KernelWorker worker(w);
  uc::CheckRequest q;
  q.file = kData + "harris3.cu";
  q.source = source("harris3.cu");
  q.battery.types = {ElemType::Int32};
  q.battery.ops = {Op::Sum};
  q.battery.blocks = {128};
  q.battery.seed = 5;
  q.cacheDir = rl::test::freshTempDir("uc-cache");
  q.timing.n = timeN;
  uc::CheckHooks hooks;
  hooks.measureOthers = [&t](const rl::RunConfig& c) {
    ++t.companionCalls;
    t.companionConfig = c;
    std::vector<uc::TimedRow> rows(3);
    rows[0].key = "cub", rows[0].label = "CUB DeviceReduce", rows[0].ms = rl::Stats::of({0.02}), rows[0].gbs = 1;
    rows[1].key = "k13", rows[1].label = "k13 tuned", rows[1].ms = rl::Stats::of({0.019}), rows[1].gbs = 1;
    rows[2].key = "k14", rows[2].label = "k14 bulk", rows[2].error = "not on this GPU";
    return rows;
  };
  t.rep = uc::runCheck(q, worker, hooks);
  worker.stop();
  return t;
}

}  // namespace

// A kernel that passes every case is timed at the asked N as the engine times ours, and shown
// beside CUB and our fastest kernel measured with the same type, operation, N and repetitions.
TEST(UserCheck, AKernelThatPassesIsTimedBesideCub) {
  REQUIRE_NVRTC();
  const uint64_t n = uint64_t(1) << 20;
  const TimedCheck t = checkWithFakeWorker("exact", n);
  ASSERT_EQ(t.rep.status, uc::CheckStatus::Ran) << t.rep.error;
  EXPECT_EQ(t.rep.summary.passed, t.rep.summary.total()) << t.rep.summaryText();
  const uc::TimingCheck& tc = t.rep.timing;
  ASSERT_TRUE(tc.ran) << tc.why;
  EXPECT_EQ(tc.c.n, n);
  EXPECT_EQ(tc.c.block, 128);
  EXPECT_EQ(tc.reps, 20);
  // The fake worker's repetition k takes n*4/2e9 + k*1e-6 ms: the median of 20 is that of k = 9 and 10.
  const double median = double(n) * 4 / 2e9 + 9.5e-6;
  EXPECT_NEAR(tc.yours.ms.median, median, 1e-12);
  EXPECT_EQ(tc.yours.ms.count, 20);
  EXPECT_NEAR(tc.yours.gbs, double(n) * 4 / (median * 1e-3) / 1e9, 1e-6);
  // The companions: measured once, on the timed case's type, operation, N and repetitions.
  EXPECT_EQ(t.companionCalls, 1);
  EXPECT_EQ(t.companionConfig.n, n);
  EXPECT_EQ(t.companionConfig.type, ElemType::Int32);
  EXPECT_EQ(t.companionConfig.reps, 20);
  EXPECT_FALSE(t.companionConfig.warmL2);
  ASSERT_NE(tc.cub(), nullptr);
  ASSERT_NE(tc.fastestOfOurs(), nullptr);
  EXPECT_EQ(tc.fastestOfOurs()->key, "k13");
  const std::string text = tc.text();
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.0f %% of CUB's speed", 100.0 * 0.02 / median);
  EXPECT_NE(text.find(pct), std::string::npos) << text;
  EXPECT_NE(text.find("k14 bulk"), std::string::npos) << text;
  EXPECT_NE(text.find("not measured: not on this GPU"), std::string::npos) << text;
  EXPECT_NE(text.find("cold (flushed) L2"), std::string::npos) << text;
  EXPECT_NE(t.rep.summaryText().find(pct), std::string::npos) << t.rep.summaryText();
  const nlohmann::json j = uc::checkReportJson(t.rep);
  EXPECT_TRUE(j["timing"]["ran"].get<bool>());
  EXPECT_NEAR(j["timing"]["yours"]["median_ms"].get<double>(), median, 1e-12);
  EXPECT_NEAR(j["timing"]["fraction_of_cub"].get<double>(), 0.02 / median, 1e-9);
  EXPECT_EQ(j["timing"]["fastest_of_ours"], "k13");
  EXPECT_EQ(j["exit_code"], 0);
}

// A wrong kernel is not timed (its time would say nothing), and the companions are not measured.
TEST(UserCheck, AKernelThatFailsACaseIsNotTimed) {
  REQUIRE_NVRTC();
  const TimedCheck t = checkWithFakeWorker("ok", uint64_t(1) << 20);  // answers N: only the ones pass
  ASSERT_EQ(t.rep.status, uc::CheckStatus::Ran) << t.rep.error;
  EXPECT_GT(t.rep.summary.failed, 0);
  EXPECT_FALSE(t.rep.timing.ran);
  EXPECT_NE(t.rep.timing.why.find("failed a case"), std::string::npos) << t.rep.timing.why;
  EXPECT_EQ(t.companionCalls, 0);
  EXPECT_EQ(t.rep.exitCode(), 3);
}

// The user's kernel as a row like ours: the worker's repetitions as the kernel and end-to-end
// times, the bandwidth of the median, the exact reference's verdict, the plan's geometry; and the
// row in the bench table beside ours.
TEST(UserMeasure, ARowLikeOursFromTheWorkersRepetitions) {
  REQUIRE_NVRTC();
  uc::WorkerOptions w;
  w.executable = rl::test::builtFile(USERCODE_FAKE_WORKER);
  w.args = {"exact"};
  uc::KernelWorker worker(w);
  uc::UserMeasureRequest q;
  q.file = kData + "harris3.cu";
  q.source = source("harris3.cu");
  q.cacheDir = rl::test::freshTempDir("uc-measure-cache");
  q.config.type = ElemType::Float32;
  q.config.op = Op::Sum;
  q.config.n = uint64_t(1) << 20;
  q.config.block = 256;
  q.config.reps = 7;
  q.peaks.theoreticalGBs = 4000;
  const rl::Measurement m = uc::measureUserKernel(q, worker);
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.config.kernel, "yours");
  EXPECT_EQ(m.kernelName, "your kernel (harris3.cu)");
  ASSERT_EQ(m.kernelMs.size(), 7u);
  ASSERT_EQ(m.endToEndMs.size(), 7u);
  const double median = double(q.config.n) * 4 / 2e9 + 3e-6;  // the fake's repetition k: n*4/2e9 + k*1e-6 ms
  EXPECT_NEAR(m.kernel.median, median, 1e-12);
  EXPECT_NEAR(m.endToEnd.median, median + 0.01, 1e-12);
  EXPECT_NEAR(m.bandwidthGBs, double(q.config.n) * 4 / (median * 1e-3) / 1e9, 1e-6);
  EXPECT_NEAR(m.pctTheoretical, 100 * m.bandwidthGBs / 4000, 1e-9);
  EXPECT_TRUE(m.haveReference);
  EXPECT_TRUE(m.check.pass) << m.check.note;
  // Harris 3's default launch: one value per block of 256, passes until one value remains.
  const std::vector<uint64_t> grids = {4096, 16, 1};
  EXPECT_EQ(m.geometry.passGrids, grids);
  EXPECT_EQ(m.geometry.block, 256u);
  EXPECT_EQ(m.geometry.final, rl::FinalStage::Gpu);
  const std::string table = rl::terminalFormat().table(rl::benchTable({m}, rl::Peaks{}));
  EXPECT_NE(table.find("your kernel (harris3.cu)"), std::string::npos) << table;
  EXPECT_NE(table.find("PASS"), std::string::npos) << table;
  // The same record in the session JSON (bench --format json), and back.
  const nlohmann::json session = rl::sessionJson(rl::SessionInfo{rl::assumedH200(), rl::Peaks{}, {}, "reduce"}, {m});
  std::string error;
  const std::vector<rl::Measurement> back = rl::measurementsFromJson(session, &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].config.kernel, "yours");
  EXPECT_EQ(back[0].kernelMs, m.kernelMs);
  EXPECT_EQ(back[0].check.pass, m.check.pass);
  // Opened in the window (a session file of bench --kernel-file): shown, nothing asked of a catalogue.
  const std::string file = rl::test::tempPath("user-row-session.json");
  { std::ofstream(file) << session.dump(); }
  const std::string png = rl::test::tempPath("user-row-session.png");
  const rl::test::CommandResult gui = rl::test::runReducelab("--headless --frames 8 --screenshot " + png + " " + file, "REDUCELAB_HIDE_GPU=1");
  EXPECT_EQ(gui.exitCode, 0) << gui.err;
  EXPECT_TRUE(rl::test::loadPng(png).ok());

  // What it cannot measure, it says: a type, operation or block it does not claim, another timing.
  rl::RunConfig c = q.config;
  q.config.block = 64;
  EXPECT_EQ(uc::measureUserKernel(q, worker).error, "the kernel does not claim block 64 (its @reducelab blocks)");
  q.config = c;
  q.config.timing = rl::TimingMode::Events;
  EXPECT_NE(uc::measureUserKernel(q, worker).error.find("--timing blocked"), std::string::npos);
  worker.stop();

  // A wrong answer is a row whose check fails, as ours would be.
  uc::WorkerOptions wrong = w;
  wrong.args = {"ok"};  // answers N
  uc::KernelWorker liar(wrong);
  q.config = c;
  const rl::Measurement bad = uc::measureUserKernel(q, liar);
  ASSERT_TRUE(bad.ok) << bad.error;
  EXPECT_FALSE(bad.check.pass);
  liar.stop();
}

// The user's kernel behind the Backend interface (user_kernel_backend.hpp), as the CLI and the
// editor use it: a run is the row measureUserKernel gives, a sweep plans from the kernel's claims
// (what it does not claim is skipped, with why), a trace is the worker's, and a kernel that
// faults costs its worker, not the backend.
TEST(UserKernelBackend, RunsSweepsAndTracesTheKernelThroughTheBackendInterface) {
  REQUIRE_NVRTC();
  uc::UserKernelSource src;
  src.file = kData + "harris3.cu";
  src.source = source("harris3.cu");  // claims every type, sum, min and max, blocks 128, 256, 512
  src.cacheDir = rl::test::freshTempDir("uc-backend-cache");
  src.peaks.theoreticalGBs = 4000;
  src.worker.executable = rl::test::builtFile(USERCODE_FAKE_WORKER);
  src.worker.args = {"traced"};
  std::unique_ptr<rl::Backend> b = uc::makeUserKernelBackend(src);
  EXPECT_EQ(b->name(), "your kernel (harris3.cu)");
  EXPECT_FALSE(b->device().available);  // no worker yet
  rl::RunConfig c;
  c.kernel = std::string(rl::kUserKernelKey);
  c.type = ElemType::Float32;
  c.n = uint64_t(1) << 16;
  c.block = 256;
  c.reps = 5;
  const std::vector<rl::Measurement> rows = rl::measureAll(*b, {c});
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].ok) << rows[0].error;
  EXPECT_EQ(rows[0].config.kernel, "yours");
  EXPECT_EQ(rows[0].kernelMs.size(), 5u);
  EXPECT_TRUE(rows[0].check.pass) << rows[0].check.note;
  EXPECT_NEAR(rows[0].pctTheoretical, 100 * rows[0].bandwidthGBs / 4000, 1e-9);
  EXPECT_EQ(b->device().name, "fake worker (tests)");  // known after the first poll that followed a run

  rl::SweepSpec s;
  s.axis = rl::SweepAxis::Block;
  s.base = c;
  const std::vector<rl::Measurement> blocks = rl::sweepAll(*b, s);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].config.block, 128);
  EXPECT_EQ(blocks[2].config.block, 512);
  for (const rl::Measurement& m : blocks) EXPECT_TRUE(m.ok && m.check.pass) << m.error;
  s.axis = rl::SweepAxis::Type;  // a copy that leaves out int64 and float64
  std::string narrow = src.source;
  const std::string every = "types: int32, int64, float32, float64";
  ASSERT_NE(narrow.find(every), std::string::npos);
  narrow.replace(narrow.find(every), every.size(), "types: int32, float32");
  std::vector<std::string> skipped;
  std::string error;
  const std::vector<rl::RunConfig> types = uc::planUserSweep(s, narrow, src.file, &skipped, &error);
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0].type, ElemType::Int32);
  EXPECT_EQ(types[1].type, ElemType::Float32);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0], "your kernel int64: not claimed (// @reducelab types)");
  s.axis = rl::SweepAxis::N;
  s.nMin = 1024, s.nMax = 4096;
  EXPECT_EQ(rl::sweepAll(*b, s).size(), 3u);
  s.axis = rl::SweepAxis::Kernel;  // the catalogue's axis: refused in a sentence
  EXPECT_TRUE(rl::sweepAll(*b, s).empty());
  EXPECT_TRUE(uc::planUserSweep(s, src.source, src.file, nullptr, &error).empty());
  EXPECT_EQ(error, "your kernel is swept over n, block or type; the kernel axis is the catalogue's");

  const rl::TraceResult t = rl::traceNow(*b, c, 60);
  ASSERT_TRUE(t.ok) << t.error;
  EXPECT_TRUE(t.gpuWritten);
  EXPECT_EQ(t.config.kernel, "yours");
  EXPECT_EQ(t.data.header.blockSize, 256u);
  EXPECT_NE(t.source.find("instrumented: your kernel (harris3.cu)"), std::string::npos) << t.source;
  rl::RunConfig ours = c;
  ours.kernel = "k3";
  EXPECT_EQ(b->tracesNot(ours), "the your kernel (harris3.cu) traces only itself");
  c.block = 64;  // not claimed: the trace says so
  const rl::TraceResult refused = rl::traceNow(*b, c, 60);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("does not claim block 64"), std::string::npos) << refused.error;
}

// A worker that crashes on its first run: that row says so, the next one is measured by a new
// worker, and the backend goes on.
TEST(UserKernelBackend, AWorkerThatDiesCostsOneRowNotTheBackend) {
  REQUIRE_NVRTC();
  uc::UserKernelSource src;
  src.file = kData + "harris3.cu";
  src.source = source("harris3.cu");
  src.cacheDir = rl::test::freshTempDir("uc-backend-crash-cache");
  const std::string marker = rl::test::freshTempDir("uc-backend-crash") + "/first";
  src.worker.executable = rl::test::builtFile(USERCODE_FAKE_WORKER);
  src.worker.args = {"crash-once", marker};
  std::unique_ptr<rl::Backend> b = uc::makeUserKernelBackend(src);
  rl::RunConfig c;
  c.kernel = std::string(rl::kUserKernelKey);
  c.type = ElemType::Int32;
  c.n = 1000;
  c.block = 128;
  c.reps = 3;
  const std::vector<rl::Measurement> rows = rl::measureAll(*b, {c, c});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].ok);
  EXPECT_NE(rows[0].error.find("signal 6"), std::string::npos) << rows[0].error;
  EXPECT_TRUE(rows[1].ok) << rows[1].error;
}

// sweep and record --kernel-file: the file and its claims against what is asked are checked
// before any GPU work; without a GPU, one message and nothing written.
TEST(UserCli, SweepAndRecordKernelFileRefuseWhatTheyCannotMeasure) {
  auto cmd = [](const std::string& args) { return rl::test::runReducelab(args, "REDUCELAB_HIDE_GPU=1"); };
  const std::string dir = rl::test::freshTempDir("uc-sweep-record");
  const std::string out = dir + "/out", rec = dir + "/class.reducelab";
  const std::string harris = " --kernel-file " + kData + "harris3.cu";
  rl::test::CommandResult r = cmd("sweep --axis kernel --out " + out + harris);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("the kernel axis is the catalogue's"), std::string::npos) << r.err;
  r = cmd("sweep --axis n --from " + kData + "harris3.cu --out " + out + harris);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("give one of them"), std::string::npos) << r.err;
  r = cmd("sweep --axis n --out " + out + " --kernel-file " + dir + "/absent.cu");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("absent.cu"), std::string::npos) << r.err;
  r = cmd("sweep --axis n --n-max 2^16 --out " + out + harris);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("needs an NVIDIA GPU"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));

  r = cmd("record --lesson upc --out " + rec + harris);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("not a lesson"), std::string::npos) << r.err;
  r = cmd("record --cpu-model --out " + rec + harris);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("leave out --cpu-model"), std::string::npos) << r.err;
  r = cmd("record --block 64 --out " + rec + harris);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("does not claim block 64"), std::string::npos) << r.err;
  r = cmd("record --sweep kernel --out " + rec + harris);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("the kernel axis is the catalogue's"), std::string::npos) << r.err;
  r = cmd("record --out " + rec + harris);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("recording your kernel needs an NVIDIA GPU"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(rec));
}

// bench --kernel-file: the file and what it is benched beside are checked before any GPU work.
TEST(UserCli, BenchKernelFileRefusesWhatItCannotMeasure) {
  auto bench = [](const std::string& args) { return rl::test::runReducelab("bench " + args, "REDUCELAB_HIDE_GPU=1"); };
  rl::test::CommandResult r = bench("--kernel-file " + rl::test::tempPath("absent.cu"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("No such file"), std::string::npos) << r.err;
  r = bench("--kernel-file " + kData + "harris3.cu --cpu-only");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("leave out --cpu-only"), std::string::npos) << r.err;
  r = bench("--kernel transpose --kernel-file " + kData + "harris3.cu");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("beside reductions"), std::string::npos) << r.err;
  r = bench("--kernel-file " + kData);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("it is a folder"), std::string::npos) << r.err;
  r = bench("--kernel-file " + kData + "harris3.cu");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("bench needs an NVIDIA GPU"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// check --require: a goal ReduceLab cannot judge is refused before anything runs.
TEST(UserCli, CheckRequireRefusesWhatItCannotJudge) {
  auto check = [](const std::string& args) { return rl::test::runReducelab("check " + kData + "harris3.cu " + args, "REDUCELAB_HIDE_GPU=1"); };
  rl::test::CommandResult r = check("--require fast");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--require: 'fast' is none of: pass, no hazard, no bank conflict, P% of cub at N"), std::string::npos) << r.err;
  r = check("--require '90% of cub at 2^16' --no-timing");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("needs the timing"), std::string::npos) << r.err;
  r = check("--require '90% of cub at 0'");
  EXPECT_EQ(r.exitCode, 2);
  r = check("--require pass --require 'no bank conflict' --format json");  // valid goals: then no GPU here
  EXPECT_EQ(r.exitCode, 1) << r.err;
}

TEST(UserWorker, TheRealWorkerWithoutAGpuSaysWhy) {
  if (rl::queryDevice(0).available) GTEST_SKIP() << "this machine has a GPU";
  uc::WorkerOptions w;
  w.executable = rl::test::builtFile(REDUCELAB_BINARY);
  uc::KernelWorker worker(w);
  const rl::DeviceInfo d = worker.device();
  EXPECT_FALSE(d.available);
  EXPECT_FALSE(d.unavailableReason.empty());
}

// The line table NVRTC writes with --generate-line-info: every row of the user's kernel lies in
// its file (after the prelude's #line), within its lines, and names the lines that hold code.
TEST(UserCompile, TheCubinsLineTablePlacesInstructionsOnTheUsersLines) {
  REQUIRE_NVRTC();
  const uc::CompileResult r = uc::compileUserKernel(request("missing_barrier.cu", ElemType::Int32, Op::Sum, ""));
  ASSERT_TRUE(r.ok()) << r.environmentError;
  std::string error;
  const uc::CubinLines lines = uc::CubinLines::read(r.cubin, &error);
  ASSERT_EQ(error, "");
  const std::string fn = r.kernels.at(0).loweredName;
  ASSERT_TRUE(lines.functions().count(fn)) << "no rows for " << fn;
  std::set<int> userLines;
  for (const uc::SourceLine& l : lines.functions().at(fn))
    if (l.file.find("missing_barrier.cu") != std::string::npos) userLines.insert(l.line);
  // Lines 11 (the load into shared memory), 12 (the barrier), 14 (the tree) and 16 (the store).
  for (int want : {11, 12, 14, 16}) EXPECT_TRUE(userLines.count(want)) << "line " << want;
  for (int l : userLines) EXPECT_TRUE(l >= 7 && l <= 17) << "line " << l << " is outside the kernel";
  // The first instruction has a line; an offset past the end keeps the last row's.
  EXPECT_TRUE(lines.at(fn, 0).has_value());
  EXPECT_TRUE(lines.at(fn, 1u << 20).has_value());
  EXPECT_FALSE(lines.at("noSuchKernel", 0).has_value());
  // Messages get the line beside the SASS offset (the user's file only).
  const uint64_t pc = lines.functions().at(fn).back().address;
  const uc::SourceLine last = *lines.at(fn, pc);
  char msg[96];
  std::snprintf(msg, sizeof msg, "written by warp 1 (SASS +0x%llx) and read", (unsigned long long)pc);
  const std::string annotated = uc::withSourceLines(msg, lines, fn, "missing_barrier.cu");
  if (last.file.find("missing_barrier.cu") != std::string::npos)
    EXPECT_NE(annotated.find("line " + std::to_string(last.line) + ", SASS +0x"), std::string::npos) << annotated;
  EXPECT_EQ(uc::withSourceLines(msg, lines, fn, "other.cu"), msg);
  EXPECT_EQ(uc::withSourceLines("no offsets here", lines, fn, "missing_barrier.cu"), "no offsets here");
  // An offset inside the prelude's inlined Op() (its rows name reducelab-prelude.cuh) gets the user's
  // line that called it, never a prelude line; without a file name nothing is placed.
  int preludeRows = 0;
  for (const uc::SourceLine& l : lines.functions().at(fn))
    if (l.file.find("prelude") != std::string::npos) {
      ++preludeRows;
      char m0[64];
      std::snprintf(m0, sizeof m0, "SASS +0x%llx", (unsigned long long)l.address);
      EXPECT_EQ(uc::withSourceLines(m0, lines, fn, ""), m0);
      char m[64];
      std::snprintf(m, sizeof m, "SASS +0x%llx", (unsigned long long)l.address);
      const std::string a = uc::withSourceLines(m, lines, fn, "/some/dir/missing_barrier.cu");
      EXPECT_NE(a.find("line 14, "), std::string::npos) << a << " (the tree's line)";
    }
  EXPECT_GT(preludeRows, 0) << "the inlined Op() has rows of its own";
  // A hex run too long for 64 bits is left as it is (it once went to std::stoull, which throws).
  EXPECT_EQ(uc::withSourceLines("SASS +0x123456789abcdef0123", lines, fn, "missing_barrier.cu"), "SASS +0x123456789abcdef0123");
}

// A kernel with more static shared memory than the file's size: .nv.shared.<kernel> is a NOBITS
// section (no bytes in the file) and was refused as "outside the file", so its lines vanished.
TEST(UserCompile, AKernelWithLargeStaticSharedMemoryHasItsLines) {
  REQUIRE_NVRTC();
  uc::CompileRequest q;
  q.source = "// @reducelab types: int64\n// @reducelab ops: sum\n// @reducelab blocks: 1024\n"
             "__global__ void big(const T* in, T* out, unsigned int n) {\n"
             "  __shared__ T s[4096];\n"
             "  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "  s[threadIdx.x] = i < n ? in[i] : Op::identity();\n"
             "  __syncthreads();\n"
             "  if (threadIdx.x == 0) { T a = Op::identity(); for (int k = 0; k < 1024; ++k) a = Op()(a, s[k]); out[blockIdx.x] = a; }\n"
             "}\n";
  q.file = "big.cu", q.type = ElemType::Int64, q.op = Op::Sum, q.sm = 90, q.useCache = false;
  const uc::CompileResult r = uc::compileUserKernel(q);
  ASSERT_TRUE(r.ok()) << r.environmentError << (r.diagnostics.empty() ? "" : r.diagnostics[0].text());
  ASSERT_GE(r.kernels.at(0).resources.staticSharedBytes, 32768);
  std::string error;
  const uc::CubinLines lines = uc::CubinLines::read(r.cubin, &error);
  EXPECT_EQ(error, "");
  EXPECT_TRUE(lines.functions().count(r.kernels[0].loweredName)) << error;
}

// A DW_LNE opcode whose length wraps the cursor (2^64 - 11) made the reader loop forever, and one
// that defines files without end grew memory: both now stop at the first bad length.
TEST(UserCompile, ALineTableWithAWrappingLengthEnds) {
  REQUIRE_NVRTC();
  const uc::CompileResult r = uc::compileUserKernel(request("harris3.cu", ElemType::Int32, Op::Sum, ""));
  ASSERT_TRUE(r.ok());
  std::vector<uint8_t> cubin = r.cubin;
  // Find .debug_line's program and put the bad opcode at its start.
  std::string error;
  ASSERT_FALSE(uc::CubinLines::read(cubin, &error).empty()) << error;
  const uint64_t shoff = *reinterpret_cast<const uint64_t*>(&cubin[0x28]);
  const uint16_t shnum = *reinterpret_cast<const uint16_t*>(&cubin[0x3c]), shstrndx = *reinterpret_cast<const uint16_t*>(&cubin[0x3e]);
  const auto sh = [&](int i, int field) { return &cubin[size_t(shoff) + size_t(i) * 64 + size_t(field)]; };
  const uint64_t strOff = *reinterpret_cast<const uint64_t*>(sh(shstrndx, 24));
  uint64_t lineOff = 0;
  for (int i = 0; i < shnum; ++i)
    if (std::string(reinterpret_cast<const char*>(&cubin[size_t(strOff + *reinterpret_cast<const uint32_t*>(sh(i, 0)))])) == ".debug_line")
      lineOff = *reinterpret_cast<const uint64_t*>(sh(i, 24));
  ASSERT_GT(lineOff, 0u);
  const uint32_t headerLength = *reinterpret_cast<const uint32_t*>(&cubin[size_t(lineOff + 6)]);
  const size_t program = size_t(lineOff + 10 + headerLength);
  for (uint8_t sub : {uint8_t(1), uint8_t(3)}) {
    std::vector<uint8_t> bad = cubin;
    const uint8_t op[] = {0x00, 0xf5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, sub};
    std::copy(std::begin(op), std::end(op), bad.begin() + long(program));
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(uc::CubinLines::read(bad, &error).empty());
    EXPECT_NE(error.find("bad extended opcode"), std::string::npos) << error;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  }
}

// A damaged cubin (the build cache's bytes, a truncated file) gives an error, never a crash.
TEST(UserCompile, ADamagedCubinHasNoLineTableAndSaysWhy) {
  REQUIRE_NVRTC();
  const uc::CompileResult r = uc::compileUserKernel(request("harris3.cu", ElemType::Int32, Op::Sum, ""));
  ASSERT_TRUE(r.ok());
  std::string error;
  EXPECT_TRUE(uc::CubinLines::read({}, &error).empty());
  EXPECT_NE(error, "");
  for (size_t cut : {size_t(16), size_t(64), r.cubin.size() / 3, r.cubin.size() / 2, r.cubin.size() - 1}) {
    std::vector<uint8_t> part(r.cubin.begin(), r.cubin.begin() + long(cut));
    (void)uc::CubinLines::read(part, &error);  // must return
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> bad = r.cubin;
    for (int k = 0; k < 8; ++k) bad[rng() % bad.size()] = uint8_t(rng());
    (void)uc::CubinLines::read(bad, &error);
  }
}

// A check's report travels from a remote server as the autograder's JSON and is read back: what
// the CLI prints and the GUI shows from the copy is what the server's report said (every field the
// readers keep, compared through the writer), and its traces come in the frames' payloads.
TEST(UserCheckJson, AReportReadBackWritesTheSameJson) {
  REQUIRE_NVRTC();
  TimedCheck t = checkWithFakeWorker("traced-wrong", uint64_t(1) << 20);  // wrong cases, a hazard check, a failure trace
  uc::CheckReport& r = t.rep;
  ASSERT_EQ(r.status, uc::CheckStatus::Ran) << r.error;
  ASSERT_TRUE(r.hazards.ran) << r.hazards.why;
  ASSERT_TRUE(r.failureTrace.ran) << r.failureTrace.why;
  rl::instrumented::Hazard h;  // one of each field, so the reader's hazard path is exercised
  h.kind = rl::instrumented::Hazard::Kind::IntraWarp;
  h.severity = rl::instrumented::Hazard::Severity::Warning;
  h.phase = 3, h.wordOffset = 132, h.occurrences = 7, h.message = "a made-up hazard";
  h.first = {5, 0, 5, true, 0x1a0, 0, 12};
  h.second = {37, 1, 5, false, 0x1c0, 0, 14};
  r.hazards.hazards.push_back(h);
  r.diagnostics.push_back({"k.cu", 9, 3, uc::Severity::Warning, "a warning"});
  const nlohmann::json sent = uc::checkReportJson(r);
  uc::CheckReport back;
  ASSERT_EQ(uc::checkReportFromJson(sent, &back), "");
  back.device = r.device;  // the event carries the device apart (remote::deviceJson)
  nlohmann::json again = uc::checkReportJson(back);
  for (const char* apart : {"builds", "contract"}) again[apart] = sent[apart];  // not kept by the reader
  EXPECT_EQ(again, sent);
  EXPECT_EQ(back.exitCode(), r.exitCode());
  EXPECT_EQ(back.summaryText(), r.summaryText());
  EXPECT_EQ(back.timing.text(), r.timing.text());
  EXPECT_EQ(back.hazards.text(), r.hazards.text());
  EXPECT_EQ(back.failureTrace.c.label(), r.failureTrace.c.label());

  // As a remote event: the frame, cut by the reader as the client cuts it, with the trace's bytes.
  uc::CheckEvent done;
  done.kind = uc::CheckEvent::Kind::Done;
  done.report = r;
  const std::string bytes = uc::encodeCheckEvent(done);
  rl::remote::FrameReader reader;
  reader.feed(bytes.data(), bytes.size());
  rl::remote::Frame f;
  std::string err;
  ASSERT_EQ(reader.next(&f, &err), rl::remote::FrameReader::Status::Frame) << err;
  uc::CheckEvent got;
  ASSERT_EQ(uc::decodeCheckEvent(f, &got), "");
  EXPECT_EQ(got.kind, uc::CheckEvent::Kind::Done);
  EXPECT_EQ(got.report.failureTrace.trace, r.failureTrace.trace);
  EXPECT_EQ(got.report.device.name, r.device.name);
  EXPECT_EQ(got.reportJson, sent);
  uc::CheckEvent hz;
  hz.kind = uc::CheckEvent::Kind::Hazards;
  hz.hazards = r.hazards;
  const std::string hb = uc::encodeCheckEvent(hz);
  reader.feed(hb.data(), hb.size());
  ASSERT_EQ(reader.next(&f, &err), rl::remote::FrameReader::Status::Frame) << err;
  ASSERT_EQ(uc::decodeCheckEvent(f, &got), "");
  EXPECT_EQ(got.hazards.trace, r.hazards.trace);
  EXPECT_EQ(got.hazards.text(), r.hazards.text());

  // What a server must not send: each refused in a sentence.
  auto refused = [&](const std::function<void(nlohmann::json&)>& spoil, const std::string& expected,
                     std::vector<uint8_t> payload = {}) {
    rl::remote::Frame bad;
    bad.type = "check_event";
    bad.body = {{"type", "check_event"}, {"kind", "done"}, {"report", sent}, {"device", rl::remote::deviceJson(r.device)}};
    spoil(bad.body);
    bad.payload = std::move(payload);
    uc::CheckEvent e;
    const std::string why = uc::decodeCheckEvent(bad, &e);
    EXPECT_NE(why.find(expected), std::string::npos) << why;
  };
  // A trace the reader would refuse is not sent: the report arrives without it (a bad trace
  // must not cost the whole report and the session).
  uc::CheckEvent badTrace = done;
  badTrace.report.failureTrace.trace.assign(64, 0xab);
  const std::string bt = uc::encodeCheckEvent(badTrace);
  reader.feed(bt.data(), bt.size());
  ASSERT_EQ(reader.next(&f, &err), rl::remote::FrameReader::Status::Frame) << err;
  ASSERT_EQ(uc::decodeCheckEvent(f, &got), "");
  EXPECT_TRUE(got.report.failureTrace.trace.empty());
  EXPECT_EQ(got.report.summaryText(), r.summaryText());
  refused([](nlohmann::json& b) { b["kind"] = "gossip"; }, "the kind 'gossip' is not known");
  refused([](nlohmann::json& b) { b["report"]["cases"][0]["block"] = 0; }, "field 'block' is out of range");
  refused([](nlohmann::json& b) { b["report"]["cases"][0]["verdict"] = "maybe"; }, "field 'verdict' is not a known name");
  refused([](nlohmann::json& b) { b["report"]["status"] = "fine"; }, "field 'status' is not a known name");
  refused([](nlohmann::json& b) { b["report"]["hazard_check"]["hazards"] = 5; }, "the hazards are not a list");
  refused([](nlohmann::json& b) { b["report"].erase("summary"); }, "field 'summary' is missing");
  refused([](nlohmann::json& b) { b["report"]["arch"] = "hopper"; }, "not sm_XY");
  refused([](nlohmann::json&) {}, "its trace is not one", std::vector<uint8_t>(64, 0xab));

  // The request: read back as sent; nonsense refused.
  uc::CheckRequest q;
  q.file = "k.cu", q.source = "__global__ void k() {}";
  q.battery.types = {ElemType::Int32, ElemType::Float64};
  q.battery.ops = {Op::Max};
  q.battery.blocks = {128, 256};
  q.battery.large = true;
  q.battery.seed = ~uint64_t(0) - 5;
  q.timing.n = uint64_t(1) << 22;
  rl::remote::Frame req;
  req.type = "check";
  req.body = uc::checkRequestMessage(q, 7.5);
  uc::CheckRequest qb;
  double timeout = 0;
  ASSERT_EQ(uc::decodeCheckRequest(req, &qb, &timeout), "");
  EXPECT_EQ(timeout, 7.5);
  EXPECT_EQ(qb.battery.seed, q.battery.seed);
  EXPECT_EQ(qb.battery.types, q.battery.types);
  EXPECT_EQ(qb.battery.blocks, q.battery.blocks);
  EXPECT_EQ(qb.timing.n, q.timing.n);
  EXPECT_TRUE(qb.battery.large);
  req.body["blocks"] = {0};
  EXPECT_EQ(uc::decodeCheckRequest(req, &qb, &timeout), "check: a block is not 1..1024");
  req.body = uc::checkRequestMessage(q, 1e9);
  EXPECT_EQ(uc::decodeCheckRequest(req, &qb, &timeout), "check: field 'timeout' is out of range");
}
