// The student's own kernel on the GPU (docs/your-kernel.md): Harris's kernel 3 and the other
// good kernels of tests/data/usercode pass every case; seed 002's double-read maximum fails
// exactly the cases an independent model of its bug says; a write past the output is named with
// its offsets; an endless loop, an illegal address and __trap() give their messages and the next
// run works; too much shared memory is refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "gpu_support.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/compiler.hpp"
#include "reducelab/usercode/worker.hpp"
#include "test_support.hpp"

namespace uc = rl::usercode;
using nlohmann::json;

namespace {

std::string sourceDir() {
  const char* env = std::getenv("REDUCELAB_SOURCE_DIR");  // the GPU machine runs a copied tree
  return env && *env ? env : REDUCELAB_SOURCE_DIR;
}
std::string dataFile(const std::string& name) { return sourceDir() + "/tests/data/usercode/" + name; }
std::string binary() {
  const char* env = std::getenv("REDUCELAB_BINARY");
  return env && *env ? env : REDUCELAB_BINARY;
}

struct Check {
  int exitCode = -1;
  json report;
};

// `reducelab check FILE --format json ARGS` with a cache of its own.
Check check(const std::string& file, const std::string& args = "") {
  static const std::string cache = "XDG_CACHE_HOME=" + rl::test::freshTempDir("uc-gpu-cache");
  const rl::test::CommandResult r = rl::test::runReducelab("check " + dataFile(file) + " --format json " + args, cache);
  Check c;
  c.exitCode = r.exitCode;
  c.report = json::parse(r.out, nullptr, false);
  if (c.report.is_discarded()) ADD_FAILURE() << file << ": no JSON; stderr: " << r.err;
  return c;
}

int count(const json& report, const std::string& verdict) {
  return int(std::count_if(report["cases"].begin(), report["cases"].end(),
                           [&](const json& c) { return c["verdict"] == verdict; }));
}

void expectAllPass(const std::string& file, int cases) {
  const Check c = check(file);
  EXPECT_EQ(c.exitCode, 0) << file;
  EXPECT_EQ(c.report["summary"]["total"], cases) << file;
  EXPECT_EQ(c.report["summary"]["passed"], cases) << file;
  for (const json& k : c.report["cases"])
    if (k["verdict"] != "pass") ADD_FAILURE() << file << ": " << k["text"].get<std::string>();
}

}  // namespace

TEST(GpuUserKernel, HarrisKernel3PassesEveryCase) {
  REQUIRE_GPU();
  // 8 sizes x 3 blocks x the data per type and op: int32 sum 3, min 2, max 2; int64 3 + 3 + 3;
  // float32 2 + 2 + 2; float64 3 + 3 + 3 (31).
  expectAllPass("harris3.cu", 8 * 3 * 31);
}

TEST(GpuUserKernel, OtherContractsPass) {
  REQUIRE_GPU();
  // unrolled_template: blocks 128, 256, 512; int32 sum 3 + max 2, float32 sum 2 + max 2.
  expectAllPass("unrolled_template.cu", 8 * 3 * 9);
  // templated_type_op: default blocks; int64 sum 3 + min 3, float64 sum 3 + min 3.
  expectAllPass("templated_type_op.cu", 8 * 3 * 12);
  // grid_stride_cpu: blocks 128, 256, 1024; float32 sum 2 + max 2, int64 sum 3 + max 3.
  expectAllPass("grid_stride_cpu.cu", 8 * 3 * 10);
  // atomic_final: blocks 256, 512; int32 sum 3, float32 sum 2.
  expectAllPass("atomic_final.cu", 8 * 2 * 5);
}

namespace {

// What seed 002's kernel computes: with G = ceil(m / 2B) blocks, block b sees elements
// [bB, bB + B) of its m inputs only (the second read repeats the first), launched until one
// value remains. An independent model of the bug, not the checker's code.
float buggyMax(const std::vector<float>& x, unsigned block) {
  std::vector<float> in = x;
  for (;;) {
    const size_t m = in.size(), grid = (m + 2 * block - 1) / (2 * block);
    std::vector<float> out(grid, -INFINITY);
    for (size_t b = 0; b < grid; ++b)
      for (size_t i = b * block; i < std::min(m, (b + 1) * block); ++i) out[b] = std::max(out[b], in[i]);
    if (grid == 1) return out[0];
    in = std::move(out);
  }
}

}  // namespace

TEST(GpuUserKernel, DoubleReadMaxFailsExactlyTheCasesItsBugMisses) {
  REQUIRE_GPU();
  const Check c = check("double_read_max.cu", "--seed 2");
  EXPECT_EQ(c.exitCode, 3);
  int predictedFailures = 0;
  for (const json& k : c.report["cases"]) {
    rl::DataSpec d;
    d.pattern = *rl::parseDataPattern(k["pattern"].get<std::string>());
    d.seed = k["seed"].get<uint64_t>();
    d.lo = k["lo"].get<int64_t>();
    d.hi = k["hi"].get<int64_t>();
    const uint64_t n = k["n"].get<uint64_t>();
    std::vector<float> x(n);
    for (uint64_t i = 0; i < n; ++i) x[i] = rl::generateElement<float>(d, i);
    const float truth = *std::max_element(x.begin(), x.end());
    const bool misses = buggyMax(x, k["block"].get<unsigned>()) != truth;
    predictedFailures += misses;
    EXPECT_EQ(k["verdict"], misses ? "fail" : "pass") << k["text"].get<std::string>();
  }
  EXPECT_GT(predictedFailures, 0);  // the data does expose it
  EXPECT_EQ(c.report["summary"]["failed"], predictedFailures);
}

TEST(GpuUserKernel, WritePastTheOutputIsNamedWithItsOffset) {
  REQUIRE_GPU();
  const Check c = check("write_past_output.cu");
  EXPECT_EQ(c.exitCode, 3);
  ASSERT_EQ(c.report["cases"].size(), 8u * 3);  // block 256, int32 sum: ones, random, wide values
  for (const json& k : c.report["cases"]) {
    EXPECT_EQ(k["verdict"], "fail");
    EXPECT_EQ(k["got"], k["expected"]) << "the value itself is right";
    const std::vector<std::string> f = k["findings"].get<std::vector<std::string>>();
    if (k["n"] == 1u << 24) {
      // 2^24 -> 65536 -> 256 -> 1 values: each launch writes one int32 past its output.
      EXPECT_EQ(f, (std::vector<std::string>{
                       "guard zone: partials of launch 1: a write past its end at byte offset 262144 (element 65536 of "
                       "a 65536-element buffer)",
                       "guard zone: partials of launch 2: a write past its end at byte offset 1024 (element 256 of a "
                       "256-element buffer)",
                       "guard zone: output (launch 3): a write past its end at byte offset 4 (element 1 of a 1-element "
                       "buffer)"}));
    }
    if (k["n"] == 1u) {
      EXPECT_EQ(f, (std::vector<std::string>{"guard zone: output (launch 1): a write past its end at byte offset 4 "
                                             "(element 1 of a 1-element buffer)"}));
    }
  }
}

TEST(GpuUserKernel, FaultsAndHangsGiveTheirMessagesAndEndTheBattery) {
  REQUIRE_GPU();
  const Check hang = check("endless_loop.cu", "--timeout 2");
  EXPECT_EQ(hang.exitCode, 3);
  EXPECT_EQ(hang.report["cases"][0]["verdict"], "timeout");
  EXPECT_EQ(hang.report["cases"][0]["note"].get<std::string>().rfind("the kernel did not finish within 2", 0), 0u);
  EXPECT_EQ(count(hang.report, "not-run"), int(hang.report["cases"].size()) - 1);

  const Check wild = check("illegal_address.cu");
  EXPECT_EQ(wild.exitCode, 3);
  EXPECT_EQ(wild.report["cases"][0]["verdict"], "crash");
  EXPECT_NE(wild.report["cases"][0]["note"].get<std::string>().find("illegal memory access"), std::string::npos)
      << wild.report["cases"][0]["note"];

  const Check trap = check("trap.cu");
  EXPECT_EQ(trap.exitCode, 3);
  EXPECT_EQ(trap.report["cases"][0]["verdict"], "crash");
  EXPECT_NE(trap.report["cases"][0]["note"].get<std::string>().find("__trap()"), std::string::npos)
      << trap.report["cases"][0]["note"];

  const Check greedy = check("too_much_shared.cu");
  EXPECT_EQ(greedy.exitCode, 3);
  for (const json& k : greedy.report["cases"]) {
    EXPECT_EQ(k["verdict"], "fail");
    EXPECT_EQ(k["note"].get<std::string>().rfind(
                  "too much shared memory: block 256 asks for 262144 bytes of dynamic shared memory = 262144 bytes; this "
                  "GPU gives a block at most ",
                  0),
              0u)
        << k["note"];
  }
}

namespace {

// One run of `file` (int32 sum, block 256) over N ones in `worker`.
uc::RunOutcome runOnes(uc::KernelWorker& worker, const std::string& file, uint64_t n) {
  const rl::DeviceInfo d = worker.device();
  uc::CompileRequest q;
  q.source = rl::test::readFile(dataFile(file));
  q.file = file;
  q.type = rl::ElemType::Int32;
  q.op = rl::Op::Sum;
  q.sm = d.ccMajor * 10 + d.ccMinor;
  q.useCache = false;
  const uc::CompileResult b = uc::compileUserKernel(q);
  EXPECT_TRUE(b.ok()) << file;
  if (!b.ok()) return {};
  uc::RunRequest r;
  r.symbol = b.kernels.at(0).loweredName;
  r.nBytes = b.kernels.at(0).paramBytes.at(2);
  r.type = q.type;
  r.op = q.op;
  r.n = n;
  r.data.pattern = rl::DataPattern::Ones;
  r.plan = uc::planLaunch(b.contract, q.type, n, 256);
  return worker.run(r, b.cubin);
}

int32_t valueOf(const uc::RunOutcome& o) {
  int32_t v = 0;
  std::memcpy(&v, &o.resultBits, 4);
  return v;
}

}  // namespace

TEST(GpuUserKernel, TheNextRunWorksAfterAHangOrAFault) {
  REQUIRE_GPU();
  uc::WorkerOptions w;
  w.executable = binary();
  w.timeoutSeconds = 2;
  uc::KernelWorker worker(w);
  ASSERT_TRUE(worker.device().available) << worker.device().unavailableReason;

  const uc::RunOutcome first = runOnes(worker, "harris3.cu", 100000);
  ASSERT_EQ(first.status, uc::RunOutcome::Status::Ok) << first.message;
  EXPECT_EQ(valueOf(first), 100000);
  EXPECT_EQ(worker.restarts(), 0);

  const uc::RunOutcome hang = runOnes(worker, "endless_loop.cu", 1000);
  EXPECT_EQ(hang.status, uc::RunOutcome::Status::Timeout) << hang.message;
  EXPECT_FALSE(worker.running());
  const uc::RunOutcome afterHang = runOnes(worker, "harris3.cu", 1000);
  EXPECT_EQ(afterHang.status, uc::RunOutcome::Status::Ok) << afterHang.message;
  EXPECT_EQ(valueOf(afterHang), 1000);
  EXPECT_EQ(worker.restarts(), 1);

  const uc::RunOutcome wild = runOnes(worker, "illegal_address.cu", 1000);
  EXPECT_EQ(wild.status, uc::RunOutcome::Status::Fault) << wild.message;
  EXPECT_TRUE(wild.contextLost);
  const uc::RunOutcome afterFault = runOnes(worker, "harris3.cu", 777);
  EXPECT_EQ(afterFault.status, uc::RunOutcome::Status::Ok) << afterFault.message;
  EXPECT_EQ(valueOf(afterFault), 777);
  EXPECT_EQ(worker.restarts(), 2);
}
