// GPU (label gpu), an executable of its own: instrumented traces of unmodified kernels through
// the Compute Sanitizer patching API. The process subscribes before its first CUDA call (main()
// below; ctest runs each test in a fresh process). Each test skips, naming what is missing,
// without a GPU, without the SDK at build time, or without libsanitizer-public.so at run time.
//   --late-subscribe   make the CUDA context first, then subscribe (the finding in
//                      docs/instrumented-traces.md: what still works then)
//   --no-subscribe     never subscribe: the timing test measures unsubscribed launches only
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "gpu_support.hpp"
#include "reducelab/catalogue.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/instrumented.hpp"
#include "reducelab/trace.hpp"

using namespace rl;
using namespace rl::instrumented;

namespace {

std::string gSubscribeError = "not subscribed (--no-subscribe)";
bool gLate = false;
// Set when a patched launch faulted: the process's CUDA context is lost (sticky), so every later
// test of this process would fail for that fault, not its own: they skip, naming it. ctest runs
// each test in a process of its own (gtest_discover_tests); scripts/gpu-run.sh does the same.
std::string gContextLost;

#define REQUIRE_TRACER()                                                                                       \
  do {                                                                                                         \
    REQUIRE_GPU();                                                                                             \
    if (!instrumented::built())                                                                                \
      GTEST_SKIP() << "built without the Compute Sanitizer SDK (configure with -DREDUCELAB_SANITIZER_ROOT=...)"; \
    if (!gSubscribeError.empty()) GTEST_SKIP() << gSubscribeError;                                             \
    if (!gContextLost.empty())                                                                                 \
      GTEST_SKIP() << "an earlier test lost this process's CUDA context (" << gContextLost                     \
                   << "): run each test in a process of its own (ctest does, or --gtest_filter=...)";           \
  } while (0)

struct Traced {
  InstrumentedRun run;
  ConversionReport report;
  TraceData trace;
};

Traced instrumentedTrace(Engine& e, const RunConfig& c) {
  Traced t;
  t.run = e.runInstrumented(c, kDefaultCapacity);
  if (!t.run.run.ok) {
    ADD_FAILURE() << c.kernel << " block " << c.block << " " << name(c.type) << ": " << t.run.run.error;
    if (cudaDeviceSynchronize() != cudaSuccess)
      gContextLost = c.kernel + " block " + std::to_string(c.block) + " " + std::string(name(c.type)) + ": " + t.run.run.error;
    return t;
  }
  std::string err;
  t.trace = toTraceData(t.run.raw, t.run.convert, &t.report, &err);
  EXPECT_TRUE(t.trace.valid()) << c.kernel << ": " << err;
  return t;
}

class Agreement : public ::testing::TestWithParam<std::string> {};

// For every traceable reduction kernel, a few blocks, int32 and float64: the instrumented trace
// of the plain (untraced) kernel and the hand-placed trace of its traced twin hold the same
// accesses per warp: every shared and global access instruction with its lanes' addresses (the
// first iteration of a loop, as both keep it), hence the same banks (each shared access's
// conflict degree and wavefronts; this is finer than per barrier phase: the hand-placed trace
// has no barrier marks, but each of its warp-level accesses must equal one of the instrumented
// trace's, which sits in a known phase) and the same global-load totals over every iteration.
// Where they cannot agree by construction the test says so and checks the rest.
TEST_P(Agreement, InstrumentedTraceOfThePlainKernelEqualsTheHandPlacedOne) {
  REQUIRE_TRACER();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  const KernelInfo& k = *findKernel(GetParam());
  if (k.minCc > engine->device().ccMajor * 10 + engine->device().ccMinor)
    GTEST_SKIP() << k.key << " needs sm_" << k.minCc;
  int compared = 0;
  for (int block : {64, 256, 1024}) {
    if (block < k.minBlock) continue;
    for (ElemType type : {ElemType::Int32, ElemType::Float64}) {
      RunConfig c;
      c.kernel = std::string(k.key);
      c.block = block;
      c.type = type;
      // k14: one tile per block (its ring's phases would otherwise show every tile, the
      // hand-placed trace the first); the others: grid-stride loops of several iterations.
      c.n = k.id == KernelId::K14 ? (1u << 16) : (1u << 22);
      c.tracedBlock = 1;
      const std::string what = c.kernel + " block " + std::to_string(block) + " " + std::string(name(type));
      Traced in = instrumentedTrace(*engine, c);
      if (!gContextLost.empty()) return;  // nothing more can run in this process
      if (!in.trace.valid()) continue;
      std::vector<uint8_t> bytes;
      const TraceRun handRun = engine->runTracedToHost(c, &bytes);
      ASSERT_TRUE(handRun.ok) << what << ": " << handRun.error;
      const TraceData hand = TraceData::fromBuffer(bytes.data(), bytes.size(), &err);
      ASSERT_TRUE(hand.valid()) << what << ": " << err;
      // A last-block kernel's traced block is often the one that draws the last ticket (patched,
      // it is the slowest): its finish may need more steps than a trace holds. What is cut lies
      // after the ticket's phase, which the comparison leaves out anyway.
      int ticketPhase = -1;
      const TraceData instr = k.finals.front() == FinalStage::LastBlock ? throughTheTicketPhase(in.trace, &ticketPhase) : in.trace;
      const bool cutAfterTheTicket =
          ticketPhase >= 0 && in.trace.numSteps() > 0 && int(in.trace.steps.back().param) > ticketPhase;
      if (!in.report.overflow.empty() && cutAfterTheTicket)
        std::printf("%s: after the ticket's phase: %s\n", what.c_str(), in.report.overflow.c_str());
      else
        EXPECT_EQ(in.report.overflow, "") << what;
      EXPECT_EQ(checkTraceContent(in.trace), "") << what;
      // The result of the patched run is the untraced kernel's (k11's float atomics may add in
      // another order).
      if (k.id == KernelId::K11 && type == ElemType::Float64)
        EXPECT_NEAR(in.run.run.result.f, handRun.result.f, 1e-9 * std::fabs(handRun.result.f)) << what;
      else
        EXPECT_EQ(in.run.run.result.text(), handRun.result.text()) << what;

      AccessProfile a = accessProfile(instr), b = accessProfile(hand);
      int checks = 7;
      std::string exception;
      if (k.shape == GridShape::GridStride) {
        // The untraced grid-stride loop is the compiler's: unrolled, each copy of a load is an
        // instruction of its own with its own first execution, while the twin's detail is the
        // first iteration. Its loads are compared through the totals (every iteration's
        // requests, sectors and bytes); shared accesses, stores and atomics in full.
        dropGlobalLoadDetail(&a);
        dropGlobalLoadDetail(&b);
      }
      if (k.id == KernelId::K13) {
        // The untraced k13 issues `loadsInFlight` loads per group (U instructions, each with its
        // own first execution), the traced twin one per step of the grid; and at small N its grid
        // is one cluster that finishes in distributed shared memory. Banks and the global-load
        // totals must agree; the lane detail of the loads cannot.
        checks = 2 | 4;
        exception = "k13: lane detail of the loads differs by construction (loads in flight)";
      }
      if (k.id == KernelId::K14 && in.report.bulkCopies == 0) {
        checks &= ~4;
        exception = "k14: this driver reports no bulk copies: the global-load totals lack them";
      }
      EXPECT_EQ(compareProfiles(a, b, checks), "") << what;
      if (!exception.empty()) std::printf("%s: %s\n", what.c_str(), exception.c_str());
      std::printf("%s: %d phases, %d steps, %zu records, patching %.2f ms, %d later launches of the module ran patched, recording nothing\n",
                  what.c_str(), in.report.phases, in.report.steps, in.run.raw.records.size(), in.run.raw.patchMs,
                  in.run.raw.bystanderLaunches);
      // Shuffles: the hand-placed twin records each __shfl_down_sync lane; a 64-bit value is two
      // shfl instructions. (cg::reduce of k9 and redux.sync record no shuffle lanes.)
      if (b.shuffleLanes > 0 && k.id != KernelId::K13)
        EXPECT_EQ(a.shuffleLanes, b.shuffleLanes * (elemBytes(c.accType()) == 8 ? 2 : 1)) << what;
      // Values: k1-k7 store what their first step loads into sdata; where the instrumented trace
      // knows a value there (the stored one), it is the hand-placed twin's.
      bool firstStepStores = false;
      for (const trace::SlotInfo& s : hand.steps[0].slots)
        firstStepStores |= s.space == trace::kSpaceShared && s.access == trace::kStore;
      for (int th = 0; firstStepStores && th < hand.blockSize(); ++th) {
        const trace::LaneRecord& x = in.trace.lane(0, th);
        const trace::LaneRecord& y = hand.lane(0, th);
        if (!(x.flags & trace::kLaneValueKnown) || !(y.flags & trace::kLaneActive)) continue;
        EXPECT_EQ(x.value, y.value) << what << " thread " << th;
      }
      ++compared;
    }
  }
  std::printf("%s: %d instrumented traces compared with the hand-placed ones\n", k.key.data(), compared);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, Agreement, ::testing::ValuesIn(catalogueKeys(true)),
                         [](const auto& info) { return info.param; });

// CUB: the traced block of its first kernel reads exactly its share of the input (contiguous,
// each byte once, the shares of blocks 0, 1 and the last adjoining and ending at N), and the
// result stays exact while patched.
TEST(InstrumentedCub, TracedBlocksReadTheirShareAndTheResultStaysExact) {
  REQUIRE_TRACER();
  std::string err;
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  RunConfig c;
  c.kernel = "cub";
  c.n = (1u << 22) + 12;
  c.type = ElemType::Int32;
  c.reps = 1;
  c.warmup = 1;
  MeasureOptions mo;
  mo.cpuBaseline = false;
  const Measurement m = engine->measure(c, mo);
  ASSERT_TRUE(m.ok) << m.error;
  ASSERT_TRUE(m.check.pass) << m.check.note;
  const uint64_t inputBytes = c.n * 4;
  struct Share {
    uint64_t first = UINT64_MAX, end = 0, bytes = 0;
  };
  std::map<uint32_t, Share> shares;
  uint64_t grid = 0;
  for (uint32_t block : {0u, 1u, UINT32_MAX}) {
    c.tracedBlock = block == UINT32_MAX ? grid - 1 : block;
    Traced t = instrumentedTrace(*engine, c);
    ASSERT_TRUE(t.trace.valid());
    EXPECT_EQ(t.run.run.result.text(), m.result.text()) << "block " << c.tracedBlock << ": the patched run's result";
    grid = t.run.raw.gridBlocks();
    ASSERT_GT(grid, 2u) << "N = 2^22 should need CUB's multi-block kernel";
    EXPECT_NE(t.run.raw.function.find("DeviceReduceKernel"), std::string::npos) << t.run.raw.function;
    Share& s = shares[uint32_t(c.tracedBlock)];
    std::set<uint64_t> bytesSeen;
    for (const RawAccess& r : t.run.raw.records) {
      if (r.space != kRawGlobal || r.access != trace::kLoad || !t.run.convert.input.contains(r.address)) continue;
      const uint64_t off = r.address - t.run.convert.input.address;
      s.first = std::min(s.first, off);
      s.end = std::max(s.end, off + r.bytes);
      s.bytes += r.bytes;
      for (uint64_t b = off; b < off + r.bytes; b += 4) EXPECT_TRUE(bytesSeen.insert(b).second) << "byte " << b << " read twice";
    }
    EXPECT_EQ(s.bytes, s.end - s.first) << "block " << c.tracedBlock << " reads its share with holes";
    std::printf("cub block %llu of %llu: input bytes [%llu, %llu), %zu records, %s\n", (unsigned long long)c.tracedBlock,
                (unsigned long long)grid, (unsigned long long)s.first, (unsigned long long)s.end,
                t.run.raw.records.size(), t.run.raw.function.substr(0, 80).c_str());
  }
  ASSERT_EQ(shares.size(), 3u);
  EXPECT_EQ(shares[0].first, 0u);
  EXPECT_EQ(shares[1].first, shares[0].end);
  EXPECT_EQ(shares[uint32_t(grid - 1)].end, inputBytes);
}

// ---- a module loaded at run time: Harris's kernel 1, compiled by NVRTC from a string ----

const char* kHarrisSource = R"(
extern "C" __global__ void harris1(const float* __restrict__ in, float* out, unsigned int n) {
  extern __shared__ float partial[];
  const unsigned int t = threadIdx.x;
  const unsigned int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    if (t % (2 * stride) == 0) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
)";

struct Nvrtc {
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) logSize = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubinSize = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  std::string error;
};

Nvrtc loadNvrtc() {
  Nvrtc n;
  void* h = nullptr;
  for (const char* f : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
    if ((h = dlopen(f, RTLD_NOW | RTLD_LOCAL))) break;
  if (!h) {
    n.error = "NVRTC (libnvrtc.so.13) not found";
    return n;
  }
  n.create = reinterpret_cast<decltype(n.create)>(dlsym(h, "nvrtcCreateProgram"));
  n.compile = reinterpret_cast<decltype(n.compile)>(dlsym(h, "nvrtcCompileProgram"));
  n.logSize = reinterpret_cast<decltype(n.logSize)>(dlsym(h, "nvrtcGetProgramLogSize"));
  n.log = reinterpret_cast<decltype(n.log)>(dlsym(h, "nvrtcGetProgramLog"));
  n.cubinSize = reinterpret_cast<decltype(n.cubinSize)>(dlsym(h, "nvrtcGetCUBINSize"));
  n.cubin = reinterpret_cast<decltype(n.cubin)>(dlsym(h, "nvrtcGetCUBIN"));
  n.destroy = reinterpret_cast<decltype(n.destroy)>(dlsym(h, "nvrtcDestroyProgram"));
  if (!n.create || !n.compile || !n.logSize || !n.log || !n.cubinSize || !n.cubin || !n.destroy)
    n.error = "NVRTC lacks a function this test needs";
  return n;
}

std::vector<char> compileHarris(const DeviceInfo& d, std::string* error) {
  const Nvrtc nv = loadNvrtc();
  if (!nv.error.empty()) {
    *error = nv.error;
    return {};
  }
  nvrtcProgram prog;
  if (nv.create(&prog, kHarrisSource, "harris1.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    *error = "nvrtcCreateProgram failed";
    return {};
  }
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(d.ccMajor * 10 + d.ccMinor);
  const char* opts[] = {arch.c_str()};
  const nvrtcResult r = nv.compile(prog, 1, opts);
  std::vector<char> cubin;
  if (r != NVRTC_SUCCESS) {
    size_t size = 0;
    nv.logSize(prog, &size);
    std::string log(size, '\0');
    nv.log(prog, log.data());
    *error = "NVRTC: " + log;
  } else {
    size_t size = 0;
    nv.cubinSize(prog, &size);
    cubin.resize(size);
    nv.cubin(prog, cubin.data());
  }
  nv.destroy(&prog);
  return cubin;
}

template <class F>
F driver(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess || q != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<F>(fn);
}

// One float input of i % 7 (exact sums), the output of per-block sums, on the device.
struct HarrisData {
  unsigned n = 0, block = 256, grid = 0;
  float* in = nullptr;
  float* out = nullptr;
  std::vector<float> host;
  explicit HarrisData(unsigned count, unsigned threads = 256) : n(count), block(threads), grid((count + threads - 1) / threads) {
    host.resize(n);
    for (unsigned i = 0; i < n; ++i) host[i] = float(i % 7);
    cudaMalloc(&in, size_t(n) * 4);
    cudaMalloc(&out, size_t(grid) * 4);
    cudaMemcpy(in, host.data(), size_t(n) * 4, cudaMemcpyHostToDevice);
  }
  ~HarrisData() {
    cudaFree(in);
    cudaFree(out);
  }
  double blockSum(unsigned b) const {
    double s = 0;
    for (unsigned i = b * block; i < std::min(n, (b + 1) * block); ++i) s += host[i];
    return s;
  }
  ConvertOptions options() const {
    ConvertOptions o;
    o.input = {reinterpret_cast<uint64_t>(in), uint64_t(n) * 4};
    o.output = {reinterpret_cast<uint64_t>(out), uint64_t(grid) * 4};
    o.elemType = o.accType = ElemType::Float32;
    return o;
  }
};

// Traces block 5 of the NVRTC kernel launched through `launch`, and checks it against numbers
// derived by hand for Harris's kernel 1 at 256 threads, and against the catalogue k1's
// hand-placed trace of the same configuration.
void checkHarrisTrace(const std::function<cudaError_t(const HarrisData&)>& launch, const char* how) {
  HarrisData data(1u << 20);
  ArmRequest req;
  req.tracedBlock = 5;
  req.functionName = "harris1";
  ASSERT_EQ(observe(req), "");
  ASSERT_EQ(launch(data), cudaSuccess) << how;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(arm(req), "");
  ASSERT_EQ(launch(data), cudaSuccess) << how;
  std::string err;
  const RawTrace raw = finish(&err);
  ASSERT_EQ(err, "") << how;
  ConversionReport rep;
  const TraceData t = toTraceData(raw, data.options(), &rep, &err);
  ASSERT_TRUE(t.valid()) << how << ": " << err;
  std::vector<float> out(data.grid);
  cudaMemcpy(out.data(), data.out, out.size() * 4, cudaMemcpyDeviceToHost);
  EXPECT_EQ(double(out[5]), data.blockSum(5)) << how << ": the patched launch's result";
  // 256 threads: the load phase, 8 tree levels (s = 1..128), the result: 10 phases, one step
  // each; 9 barriers per thread.
  EXPECT_EQ(rep.phases, 10) << how;
  EXPECT_EQ(t.numSteps(), 10) << how;
  EXPECT_EQ(rep.barriers, 9u * 256) << how;
  const TraceSummary sum = summarize(t);
  // The load: 8 warps x 1 request of 32 x 4 contiguous bytes = 4 sectors each.
  EXPECT_EQ(sum.totalLoadRequests, 8u) << how;
  EXPECT_EQ(sum.totalLoadSectors, 32u) << how;
  EXPECT_EQ(sum.totalLoadBytes, 1024u) << how;
  EXPECT_EQ(t.header.globalBase, 5 * 256 * 4) << how;
  // Kernel 1 never conflicts: its active lanes read distinct words.
  EXPECT_EQ(sum.loadConflicts(), 0) << how;
  EXPECT_EQ(sum.storeConflicts(), 0) << how;
  // Level s (step log2(s) + 1): 256 / 2s active threads.
  for (int level = 0; level < 8; ++level) {
    int active = 0;
    for (int a : sum.steps[size_t(level + 1)].activeLanes) active += a;
    EXPECT_EQ(active, 256 >> (level + 1)) << how << " level " << level;
  }
  const trace::LaneRecord& result = t.lane(9, 0);
  EXPECT_TRUE(result.flags & trace::kLaneValueKnown);
  EXPECT_EQ(result.value, data.blockSum(5)) << how;
  // The catalogue's k1 (float32, 256 threads, the same N and block) traced by hand: the same
  // accesses per warp, banks and totals.
  std::string e2;
  auto engine = Engine::create(0, &e2);
  ASSERT_TRUE(engine) << e2;
  RunConfig c;
  c.kernel = "k1";
  c.type = ElemType::Float32;
  c.n = data.n;
  c.block = 256;
  c.tracedBlock = 5;
  std::vector<uint8_t> bytes;
  const TraceRun hr = engine->runTracedToHost(c, &bytes);
  ASSERT_TRUE(hr.ok) << hr.error;
  const TraceData hand = TraceData::fromBuffer(bytes.data(), bytes.size(), &e2);
  EXPECT_EQ(compareProfiles(accessProfile(t), accessProfile(hand), 7), "") << how;
  std::printf("%s: %zu records, patching %.2f ms, unpatching %.2f ms\n", how, raw.records.size(), raw.patchMs, raw.unpatchMs);
}

TEST(InstrumentedRunTimeModule, NvrtcKernelThroughCuModuleLoadData) {
  REQUIRE_TRACER();
  std::string err;
  const DeviceInfo d = queryDevice(0);
  const std::vector<char> cubin = compileHarris(d, &err);
  if (cubin.empty()) GTEST_SKIP() << err;
  using LoadData = CUresult (*)(CUmodule*, const void*);
  using GetFunction = CUresult (*)(CUfunction*, CUmodule, const char*);
  using Launch = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                              void**, void**);
  using Unload = CUresult (*)(CUmodule);
  const auto loadData = driver<LoadData>("cuModuleLoadData");
  const auto getFunction = driver<GetFunction>("cuModuleGetFunction");
  const auto launchKernel = driver<Launch>("cuLaunchKernel");
  const auto unload = driver<Unload>("cuModuleUnload");
  ASSERT_TRUE(loadData && getFunction && launchKernel && unload);
  cudaFree(nullptr);
  CUmodule mod = nullptr;
  ASSERT_EQ(loadData(&mod, cubin.data()), CUDA_SUCCESS);
  CUfunction fn = nullptr;
  ASSERT_EQ(getFunction(&fn, mod, "harris1"), CUDA_SUCCESS);
  checkHarrisTrace(
      [&](const HarrisData& h) {
        unsigned n = h.n;
        const float* in = h.in;
        float* out = h.out;
        void* args[] = {&in, &out, &n};
        return launchKernel(fn, h.grid, 1, 1, h.block, 1, 1, h.block * 4, nullptr, args, nullptr) == CUDA_SUCCESS
                   ? cudaSuccess
                   : cudaErrorLaunchFailure;
      },
      "cuModuleLoadData");
  unload(mod);
}

TEST(InstrumentedRunTimeModule, NvrtcKernelThroughCudaLibraryLoadData) {
  REQUIRE_TRACER();
  std::string err;
  const DeviceInfo d = queryDevice(0);
  const std::vector<char> cubin = compileHarris(d, &err);
  if (cubin.empty()) GTEST_SKIP() << err;
  cudaLibrary_t lib = nullptr;
  ASSERT_EQ(cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), cudaSuccess);
  cudaKernel_t kern = nullptr;
  ASSERT_EQ(cudaLibraryGetKernel(&kern, lib, "harris1"), cudaSuccess);
  checkHarrisTrace(
      [&](const HarrisData& h) {
        unsigned n = h.n;
        const float* in = h.in;
        float* out = h.out;
        void* args[] = {&in, &out, &n};
        return cudaLaunchKernel(reinterpret_cast<const void*>(kern), dim3(h.grid), dim3(h.block), args, h.block * 4, nullptr);
      },
      "cudaLibraryLoadData");
  cudaLibraryUnload(lib);
}

// The patched launch is slow (every block runs the patches), the next one is back to normal
// speed, and an idle subscription costs an unpatched launch nothing measurable. Prints the
// figures (docs/instrumented-traces.md); with --no-subscribe it measures the unpatched baseline.
TEST(InstrumentedTiming, OnlyThePatchedLaunchIsSlow) {
  REQUIRE_GPU();
  if (!instrumented::built()) GTEST_SKIP() << "built without the Compute Sanitizer SDK";
  std::string err;
  const DeviceInfo d = queryDevice(0);
  const std::vector<char> cubin = compileHarris(d, &err);
  if (cubin.empty()) GTEST_SKIP() << err;
  cudaLibrary_t lib = nullptr;
  ASSERT_EQ(cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), cudaSuccess);
  cudaKernel_t kern = nullptr;
  ASSERT_EQ(cudaLibraryGetKernel(&kern, lib, "harris1"), cudaSuccess);
  HarrisData data(1u << 24);
  unsigned n = data.n;
  const float* in = data.in;
  float* out = data.out;
  void* args[] = {&in, &out, &n};
  auto launch = [&](unsigned grid) {
    return cudaLaunchKernel(reinterpret_cast<const void*>(kern), dim3(grid), dim3(data.block), args, data.block * 4, nullptr);
  };
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  auto timed = [&]() {
    cudaEventRecord(a);
    launch(data.grid);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    return double(ms);
  };
  auto median = [&](int reps) {
    std::vector<double> v;
    for (int i = 0; i < reps; ++i) v.push_back(timed());
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  // Host cost of a launch: 2000 one-block launches enqueued, then waited for.
  auto hostUsPerLaunch = [&]() {
    launch(1);
    cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 2000; ++i) launch(1);
    cudaDeviceSynchronize();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 2000;
  };
  median(5);  // warm-up: module load, clocks
  const double before = median(21);
  const double hostBefore = hostUsPerLaunch();
  const char* mode = gSubscribeError.empty() ? (gLate ? "subscribed late" : "subscribed") : "not subscribed";
  std::printf("TIMING %s on %s: unpatched launch (N = 2^24 float, 256 threads) median %.4f ms; host %.2f us per launch\n",
              mode, d.name.c_str(), before, hostBefore);
  if (!gSubscribeError.empty()) {
    cudaLibraryUnload(lib);
    GTEST_SKIP() << "not subscribed: the baseline only (" << gSubscribeError << ")";
  }
  ArmRequest req;
  req.tracedBlock = 0;
  req.functionName = "harris1";
  ASSERT_EQ(observe(req), "");  // one untimed launch shows the tracer the module
  launch(data.grid);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(arm(req), "");
  const double patched = timed();
  const RawTrace raw = finish(&err);
  ASSERT_EQ(err, "");
  EXPECT_GT(raw.records.size(), 0u);
  const double after = median(21);
  const double hostAfter = hostUsPerLaunch();
  std::printf("TIMING patched launch %.4f ms (%.0fx), patching %.2f ms, unpatching %.2f ms; next launches median %.4f ms "
              "(%.3fx of before); host %.2f us per launch\n",
              patched, patched / before, raw.patchMs, raw.unpatchMs, after, after / before, hostAfter);
  EXPECT_GT(patched, 2 * before) << "the patched launch should run the patches in every block";
  EXPECT_LT(after, before * 1.25 + 0.005) << "the launches after finish() must be back to normal speed";
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaLibraryUnload(lib);
}

TEST(InstrumentedErrors, ArmingWithoutObservingAndFinishingUnarmedSayWhy) {
  REQUIRE_TRACER();
  std::string err;
  EXPECT_EQ(finish(&err).records.size(), 0u);
  EXPECT_NE(err.find("nothing is armed"), std::string::npos) << err;
  ArmRequest r;
  r.functionName = "no_such_kernel";
  EXPECT_NE(arm(r).find("was observed"), std::string::npos);
  ASSERT_EQ(observe(r), "");
  EXPECT_NE(arm(r).find("no launch of no_such_kernel was observed"), std::string::npos);
  // A block outside the grid: said, nothing patched.
  auto engine = Engine::create(0, &err);
  ASSERT_TRUE(engine) << err;
  RunConfig c;
  c.kernel = "cub";
  c.n = 1000;
  c.tracedBlock = 7;  // CUB reduces 1000 elements in one block
  const InstrumentedRun run = engine->runInstrumented(c, 1024);
  EXPECT_FALSE(run.run.ok);
  EXPECT_NE(run.run.error.find("does not exist"), std::string::npos) << run.run.error;
  // A buffer too small: the overflow is reported, not hidden.
  c.kernel = "k1";
  c.n = 1u << 20;
  c.block = 256;
  c.tracedBlock = 0;
  const InstrumentedRun small = engine->runInstrumented(c, 100);
  ASSERT_TRUE(small.run.ok) << small.run.error;
  EXPECT_EQ(small.raw.records.size(), 100u);
  EXPECT_GT(small.raw.attempted, 100u);
  ConversionReport rep;
  const TraceData t = toTraceData(small.raw, small.convert, &rep, &err);
  EXPECT_NE(rep.overflow.find("held 100 of"), std::string::npos) << rep.overflow;
}

}  // namespace

int main(int argc, char** argv) {
  bool subscribe = true;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--late-subscribe") == 0) gLate = true;
    else if (std::strcmp(argv[i], "--no-subscribe") == 0) subscribe = false;
    else args.push_back(argv[i]);
  }
  int count = int(args.size());
  args.push_back(nullptr);
  ::testing::InitGoogleTest(&count, args.data());
  const bool listing = GTEST_FLAG_GET(list_tests);
  if (subscribe && !listing) {
    if (gLate) cudaFree(nullptr);  // the context first: what a late subscriber finds
    gSubscribeError = rl::instrumented::subscribe();
  }
  return RUN_ALL_TESTS();
}
