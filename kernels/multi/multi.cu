// `reducelab multi`: reduction across the GPUs of one machine, by hand over peer access and by
// NCCL (loaded at run time), timed like nccl-tests (per-GPU events, the slowest GPU's time), and
// checked: the scalar against the single-GPU reduction of the same data, the vector AllReduce
// element by element against a closed form.
//
// The local reduction on each GPU is a kernel of this file (16-byte loads, grid-stride, warp
// shuffles; the project's k10 idea) rather than the Engine's k10: the Engine copies its result to
// the host, and the combine here needs each partial to stay in its GPU's memory.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

#include "nccl_loader.hpp"
#include "reducelab/collective.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/multi.hpp"
#include "reducelab/type_dispatch.hpp"

namespace rl::multi {

bool builtWithNccl() { return REDUCELAB_HAVE_NCCL != 0; }

namespace {

constexpr int kBlock = 512;

std::string cudaText(cudaError_t e) { return cudaGetErrorString(e); }

#define RL_TRY(call)                                                                    \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) return std::string(#call ": ") + cudaGetErrorString(e_);     \
  } while (0)

// ---- kernels ----

template <class T>
__global__ void generateSlice(T* out, uint64_t n, uint64_t firstGlobal, DataSpec spec) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = generateElement<T>(spec, firstGlobal + i);
}

template <class T, class O>
__device__ T blockReduce(T v) {
  __shared__ T warpSums[kBlock / 32];
  for (int o = 16; o > 0; o >>= 1) v = O()(v, __shfl_down_sync(0xffffffffu, v, o));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < int(blockDim.x / 32) ? warpSums[lane] : O::template identity<T>();
    for (int o = 16; o > 0; o >>= 1) v = O()(v, __shfl_down_sync(0xffffffffu, v, o));
  }
  return v;
}

// One partial per block: 16-byte loads, grid-stride, then a shuffle tree.
template <class T, class O>
__global__ void __launch_bounds__(kBlock) localReduce(const T* __restrict__ in, uint64_t n, T* partials) {
  constexpr int W = 16 / sizeof(T);
  struct alignas(16) Vec { T v[W]; };
  const Vec* vin = reinterpret_cast<const Vec*>(in);
  const uint64_t nvec = n / W;
  T acc = O::template identity<T>();
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < nvec; i += stride) {
    const Vec x = vin[i];
#pragma unroll
    for (int k = 0; k < W; ++k) acc = O()(acc, x.v[k]);
  }
  for (uint64_t i = nvec * W + blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += stride) acc = O()(acc, in[i]);
  acc = blockReduce<T, O>(acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

template <class T, class O>
__global__ void __launch_bounds__(kBlock) finishPartials(const T* partials, int count, T* out) {
  T acc = O::template identity<T>();
  for (int i = threadIdx.x; i < count; i += blockDim.x) acc = O()(acc, partials[i]);
  acc = blockReduce<T, O>(acc);
  if (threadIdx.x == 0) *out = acc;
}

// The hand-written combine, on GPU 0: one warp loads the G partials (peer loads over NVLink),
// folds them, and stores the result to `targets` (GPU 0's result, and for AllReduce every GPU's:
// peer stores).
template <class T, class O>
__global__ void combinePeers(const T* const* partials, int gpus, T* const* targets, int targetCount) {
  T v = threadIdx.x < unsigned(gpus) ? *partials[threadIdx.x] : O::template identity<T>();
  for (int o = 16; o > 0; o >>= 1) v = O()(v, __shfl_down_sync(0xffffffffu, v, o));
  v = __shfl_sync(0xffffffffu, v, 0);
  if (threadIdx.x < unsigned(targetCount)) *targets[threadIdx.x] = v;
}

// Vector data whose element-wise fold over the GPUs is known in closed form (small integers:
// exact in every type, in any order).
template <class T>
__host__ __device__ T vectorValue(uint64_t i, int gpu) {
  return T((i % 101 * 7 + uint64_t(gpu) * 13) % 101);
}

template <class T>
__global__ void fillVector(T* out, uint64_t n, int gpu) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = vectorValue<T>(i, gpu);
}

template <class T, class O>
__global__ void verifyVector(const T* v, uint64_t n, int gpus, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    T expected = vectorValue<T>(i, 0);
    for (int g = 1; g < gpus; ++g) expected = O()(expected, vectorValue<T>(i, g));
    mine += v[i] != expected;
  }
  if (mine) atomicAdd(bad, mine);
}

// Hand-written two-shot AllReduce: GPU `me` folds its chunk of every GPU's input (peer loads)...
template <class T, class O>
__global__ void reduceChunkFromPeers(const T* const* inputs, int gpus, uint64_t first, uint64_t count, T* out) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
    T acc = inputs[0][first + i];
    for (int g = 1; g < gpus; ++g) acc = O()(acc, inputs[g][first + i]);
    out[first + i] = acc;
  }
}

// ... then loads the other GPUs' finished chunks (peer loads) into its own output.
template <class T>
__global__ void gatherChunksFromPeers(const T* const* outputs, int gpus, int me, uint64_t n, T* out) {
  const uint64_t base = n / uint64_t(gpus), extra = n % uint64_t(gpus);
  for (int c = 0; c < gpus; ++c) {
    if (c == me) continue;
    const uint64_t first = uint64_t(c) * base + std::min<uint64_t>(uint64_t(c), extra);
    const uint64_t count = base + (uint64_t(c) < extra ? 1 : 0);
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x)
      out[first + i] = outputs[c][first + i];
  }
}

__device__ unsigned long long globalTimerNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Every GPU's stream waits here until the host has queued the whole operation everywhere, so
// the GPUs start together (the host's launch loop is not timed). Gives up after `timeoutNs`.
__global__ void startGate(const volatile int* open, unsigned long long timeoutNs, int* timedOut) {
  const unsigned long long t0 = globalTimerNs();
  while (*open == 0) {
    if (globalTimerNs() - t0 > timeoutNs) {
      *timedOut = 1;
      return;
    }
    __nanosleep(200);
  }
}

// ---- host side ----

template <class T> struct Buffer {
  int device = 0;
  T* ptr = nullptr;
  size_t count = 0;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { release(); }
  void release() {
    if (ptr) {
      cudaSetDevice(device);
      cudaFree(ptr);
    }
    ptr = nullptr;
    count = 0;
  }
  cudaError_t allocate(int dev, size_t n) {
    release();
    device = dev;
    cudaSetDevice(dev);
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T));
    if (e != cudaSuccess) {
      cudaGetLastError();
      return e;
    }
    ptr = static_cast<T*>(p);
    count = n;
    return cudaSuccess;
  }
};

struct Gpu {
  int ordinal = 0;
  DeviceInfo info;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr, mark = nullptr;
  int grid = 0;
};

// The GPUs in use, their streams and events, the start gate, and timing.
class Group {
 public:
  ~Group() {
    for (Gpu& g : gpus) {
      cudaSetDevice(g.ordinal);
      if (g.start) cudaEventDestroy(g.start);
      if (g.stop) cudaEventDestroy(g.stop);
      if (g.mark) cudaEventDestroy(g.mark);
      if (g.stream) cudaStreamDestroy(g.stream);
    }
    for (size_t g = 0; g < phase_.size(); ++g) {
      cudaSetDevice(gpus[g].ordinal);
      cudaEventDestroy(phase_[g]);
    }
    if (gate) cudaFreeHost(gate);
  }
  std::string init(int count) {
    for (int d = 0; d < count; ++d) {
      Gpu g;
      g.ordinal = d;
      g.info = queryDevice(d);
      if (!g.info.available) return "GPU " + std::to_string(d) + ": " + g.info.unavailableReason;
      RL_TRY(cudaSetDevice(d));
      RL_TRY(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
      RL_TRY(cudaEventCreate(&g.start));
      RL_TRY(cudaEventCreate(&g.stop));
      RL_TRY(cudaEventCreateWithFlags(&g.mark, cudaEventDisableTiming));
      g.grid = g.info.smCount * 4;
      gpus.push_back(g);
    }
    RL_TRY(cudaHostAlloc(reinterpret_cast<void**>(&gate), 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    return "";
  }
  // Enables peer access between every pair that allows it; fills `access`.
  void enablePeers(std::vector<std::vector<bool>>* access) {
    const int n = int(gpus.size());
    access->assign(size_t(n), std::vector<bool>(size_t(n), false));
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        if (a == b) {
          (*access)[size_t(a)][size_t(b)] = true;
          continue;
        }
        int can = 0;
        cudaDeviceCanAccessPeer(&can, a, b);
        if (!can) continue;
        cudaSetDevice(a);
        const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
        if (e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled) (*access)[size_t(a)][size_t(b)] = true;
        cudaGetLastError();
      }
  }
  std::string syncAll() {
    for (Gpu& g : gpus) {
      RL_TRY(cudaSetDevice(g.ordinal));
      RL_TRY(cudaStreamSynchronize(g.stream));
    }
    return "";
  }
  // Times `enqueue` (which queues one operation on every GPU's stream): one untimed call, `warmup`
  // gated calls, then `reps` gated calls; *ms gets the slowest GPU's time of each.
  std::string time(int warmup, int reps, const std::function<std::string()>& enqueue, std::vector<double>* ms,
                   double budgetSeconds = 3.0) {
    if (std::string e = enqueue(); !e.empty()) return e;
    if (std::string e = syncAll(); !e.empty()) return e;
    ms->clear();
    const auto begin = std::chrono::steady_clock::now();
    // Opens the gate however this repetition ends, so no GPU waits on it after an error.
    struct GateOpener {
      int* flag;
      ~GateOpener() { __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST); }
    };
    for (int r = 0; r < warmup + reps; ++r) {
      gate[0] = 0;
      gate[1] = 0;
      GateOpener opener{gate};
      for (Gpu& g : gpus) {
        RL_TRY(cudaSetDevice(g.ordinal));
        startGate<<<1, 1, 0, g.stream>>>(gate, 2000000000ull, gate + 1);
        RL_TRY(cudaEventRecord(g.start, g.stream));
      }
      if (std::string e = enqueue(); !e.empty()) {
        __atomic_store_n(&gate[0], 1, __ATOMIC_SEQ_CST);
        syncAll();
        return e;
      }
      for (Gpu& g : gpus) {
        RL_TRY(cudaSetDevice(g.ordinal));
        RL_TRY(cudaEventRecord(g.stop, g.stream));
      }
      __atomic_store_n(&gate[0], 1, __ATOMIC_SEQ_CST);  // open: every GPU starts now
      double slowest = 0;
      for (Gpu& g : gpus) {
        RL_TRY(cudaSetDevice(g.ordinal));
        RL_TRY(cudaEventSynchronize(g.stop));
        float t = 0;
        RL_TRY(cudaEventElapsedTime(&t, g.start, g.stop));
        slowest = std::max(slowest, double(t));
      }
      if (__atomic_load_n(&gate[1], __ATOMIC_SEQ_CST))
        return "the start gate timed out (the host took over 2 s to queue one operation)";
      if (r >= warmup) ms->push_back(slowest);
      // Large operations: stop once the budget is spent (at least 5 timed repetitions).
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      if (r >= warmup + 4 && spent > budgetSeconds) break;
    }
    return "";
  }
  // Stream `waiter` waits for everything queued so far on stream `of`.
  std::string wait(int waiter, int of) {
    RL_TRY(cudaSetDevice(gpus[size_t(of)].ordinal));
    RL_TRY(cudaEventRecord(gpus[size_t(of)].mark, gpus[size_t(of)].stream));
    RL_TRY(cudaSetDevice(gpus[size_t(waiter)].ordinal));
    RL_TRY(cudaStreamWaitEvent(gpus[size_t(waiter)].stream, gpus[size_t(of)].mark, 0));
    return "";
  }
  // Every stream waits for every other (a device-side barrier between two phases).
  std::string barrier() {
    const int n = int(gpus.size());
    std::vector<cudaEvent_t> ev(static_cast<size_t>(n));
    for (int g = 0; g < n; ++g) {
      RL_TRY(cudaSetDevice(gpus[size_t(g)].ordinal));
      ev[size_t(g)] = phase_[size_t(g)];
      RL_TRY(cudaEventRecord(ev[size_t(g)], gpus[size_t(g)].stream));
    }
    for (int g = 0; g < n; ++g) {
      RL_TRY(cudaSetDevice(gpus[size_t(g)].ordinal));
      for (int o = 0; o < n; ++o)
        if (o != g) RL_TRY(cudaStreamWaitEvent(gpus[size_t(g)].stream, ev[size_t(o)], 0));
    }
    return "";
  }
  std::string initPhaseEvents() {
    phase_.resize(gpus.size());
    for (size_t g = 0; g < gpus.size(); ++g) {
      RL_TRY(cudaSetDevice(gpus[g].ordinal));
      RL_TRY(cudaEventCreateWithFlags(&phase_[g], cudaEventDisableTiming));
    }
    return "";
  }

  std::vector<Gpu> gpus;
  int* gate = nullptr;  // [0] open, [1] timed out (host-mapped)

 private:
  std::vector<cudaEvent_t> phase_;
};

#if REDUCELAB_HAVE_NCCL
ncclDataType_t ncclType(ElemType t) {
  switch (t) {
    case ElemType::Int32: return ncclInt32;
    case ElemType::Int64: return ncclInt64;
    case ElemType::Float32: return ncclFloat32;
    case ElemType::Float64: break;
  }
  return ncclFloat64;
}
ncclRedOp_t ncclOp(Op o) { return o == Op::Sum ? ncclSum : o == Op::Min ? ncclMin : ncclMax; }

// One communicator per GPU, created with NCCL_ALGO set to the algorithm: NCCL reads NCCL_ALGO
// when a communicator is created, so each algorithm gets its own set.
struct Comms {
  std::vector<ncclComm_t> comms;
  std::string error;
  ~Comms() {
    const bool failed = !asyncError().empty() || broken;
    for (ncclComm_t c : comms)
      if (c) (failed ? nccl().commAbort : nccl().commDestroy)(c);
  }
  bool broken = false;  // an operation failed: abort instead of destroy
  bool create(int count, const char* algo) {
    const NcclApi& api = nccl();
    if (!api.loaded) {
      error = "needs NCCL: " + api.error;
      return false;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 1);  // always, before NCCL runs
    const char* before = std::getenv("NCCL_ALGO");
    const std::string saved = before ? before : "";
    setenv("NCCL_ALGO", algo, 1);
    comms.assign(size_t(count), nullptr);
    std::vector<int> devs(static_cast<size_t>(count));
    for (int d = 0; d < count; ++d) devs[size_t(d)] = d;
    const ncclResult_t r = api.commInitAll(comms.data(), count, devs.data());
    if (before) setenv("NCCL_ALGO", saved.c_str(), 1);
    else unsetenv("NCCL_ALGO");
    if (r != ncclSuccess) {
      comms.clear();
      error = std::string("ncclCommInitAll (NCCL_ALGO=") + algo + "): " + api.text(r);
      return false;
    }
    return true;
  }
  std::string asyncError() const {
    for (ncclComm_t c : comms) {
      ncclResult_t a = ncclSuccess;
      if (nccl().commGetAsyncError(c, &a) == ncclSuccess && a != ncclSuccess) return nccl().text(a);
    }
    return "";
  }
};
#endif

// The whole measurement for one element type T and operator O.
template <class T, class O>
class Runner {
 public:
  Runner(const Options& o, Report* r) : opt_(o), rep_(r) {}

  void run() {
    const DeviceCount count = countDevices();
    const int visible = count.count;
    if (visible == 0) {
      rep_->error = "needs NVIDIA GPUs (" + (count.reason.empty() ? std::string("none visible") : count.reason) + ")";
      return;
    }
    rep_->gpusVisible = visible;
    rep_->gpusAsked = opt_.gpus;
    const int used = opt_.gpus > 0 ? std::min(opt_.gpus, visible) : visible;
    rep_->gpusUsed = used;
    if (opt_.gpus > visible)
      rep_->notMeasured.push_back("asked for " + std::to_string(opt_.gpus) + " GPUs, " + std::to_string(visible) +
                                  " visible: measured on " + std::to_string(visible) + "; the model animates " +
                                  std::to_string(opt_.gpus));
    if (std::string err = group_.init(used); !err.empty()) {
      rep_->error = err;
      return;
    }
    if (std::string err = group_.initPhaseEvents(); !err.empty()) {
      rep_->error = err;
      return;
    }
    for (const Gpu& g : group_.gpus) rep_->devices.push_back(g.info);
    group_.enablePeers(&rep_->peerAccess);
    allPeers_ = true;
    for (int a = 0; a < used; ++a)
      for (int b = 0; b < used; ++b) allPeers_ = allPeers_ && rep_->peerAccess[size_t(a)][size_t(b)];
    measureRoofs();
    if (used < 2)
      rep_->notMeasured.push_back("collectives across GPUs: need at least 2 GPUs, " + std::to_string(used) + " used");
    if (!allPeers_) rep_->notMeasured.push_back("hand-written rows: peer access is missing between some GPUs");
    loadNccl();
    if (opt_.scalar) scalar();
    if (!opt_.vectorBytes.empty()) vectors();
    rep_->ok = true;
  }

 private:
  int count() const { return int(group_.gpus.size()); }

  void measureRoofs() {
    const int n = count();
    rep_->hbmReadGBs.assign(size_t(n), 0);
    rep_->p2pGBs.assign(size_t(n), 0);
    for (int g = 0; g < n; ++g) {
      std::string err;
      if (auto engine = Engine::create(g, &err)) rep_->hbmReadGBs[size_t(g)] = engine->peaks(false).readGBs;
    }
    // GPU g -> GPU 0 copy bandwidth, 1 GiB (less if memory is short), median of 10.
    for (int g = 1; g < n; ++g) {
      size_t bytes = size_t(1) << 30;
      for (int d : {0, g}) bytes = std::min(bytes, size_t(group_.gpus[size_t(d)].info.freeMemBytes / 4) & ~size_t(255));
      Buffer<char> src, dst;
      if (bytes < (1 << 20) || src.allocate(g, bytes) != cudaSuccess || dst.allocate(0, bytes) != cudaSuccess) {
        rep_->notMeasured.push_back("peer copy bandwidth GPU " + std::to_string(g) + " -> 0: not enough memory");
        continue;
      }
      cudaSetDevice(g);
      cudaMemsetAsync(src.ptr, 1, bytes, group_.gpus[size_t(g)].stream);
      std::vector<double> ms;
      Gpu& gp = group_.gpus[size_t(g)];
      bool ok = true;
      for (int r = 0; r < 13 && ok; ++r) {
        cudaSetDevice(g);
        cudaEventRecord(gp.start, gp.stream);
        ok = cudaMemcpyPeerAsync(dst.ptr, 0, src.ptr, g, bytes, gp.stream) == cudaSuccess;
        cudaEventRecord(gp.stop, gp.stream);
        cudaEventSynchronize(gp.stop);
        float t = 0;
        cudaEventElapsedTime(&t, gp.start, gp.stop);
        if (r >= 3) ms.push_back(t);
      }
      if (ok && !ms.empty()) rep_->p2pGBs[size_t(g)] = double(bytes) / (Stats::of(ms).median * 1e-3) / 1e9;
      else rep_->notMeasured.push_back("peer copy bandwidth GPU " + std::to_string(g) + " -> 0: copy failed");
      cudaGetLastError();
    }
  }

  void loadNccl() {
#if REDUCELAB_HAVE_NCCL
    if ((!opt_.ring && !opt_.tree) || count() < 2) return;
    const NcclApi& api = nccl();
    if (!api.loaded) {
      ncclError_ = "needs NCCL: " + api.error;
      rep_->ncclLibrary = api.error;
      rep_->notMeasured.push_back("NCCL rows: " + ncclError_);
      return;
    }
    rep_->ncclVersion = api.versionText();
    rep_->ncclLibrary = api.library + ", loaded at run time; types from " REDUCELAB_NCCL_HEADER " (NCCL " +
                        std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." + std::to_string(NCCL_PATCH) + ")";
    rep_->ncclAlgoNote =
        "NCCL_ALGO=Ring / Tree set before ncclCommInitAll, one communicator set per algorithm; "
        "NCCL_NVLS_ENABLE=0. Inside one node NCCL's tree is a chain (its trees span nodes).";
    if (opt_.ring && !ring_.create(count(), "Ring")) rep_->notMeasured.push_back("NCCL ring: " + ring_.error);
    if (opt_.tree && !tree_.create(count(), "Tree")) rep_->notMeasured.push_back("NCCL tree: " + tree_.error);
#else
    if (opt_.ring || opt_.tree) {
      ncclError_ = "needs NCCL: this build has no NCCL support (nccl.h was not found when it was configured)";
      rep_->notMeasured.push_back("NCCL rows: " + ncclError_);
    }
#endif
  }

  static Row rowOf(const char* kind, const char* coll, const char* algo, int gpus, uint64_t count) {
    Row w;
    w.kind = kind;
    w.collective = coll;
    w.algorithm = algo;
    w.gpus = gpus;
    w.count = count;
    w.bytes = count * sizeof(T);
    return w;
  }

  void finishTiming(Row& w, const std::vector<double>& ms, double factor) {
    w.ms = Stats::of(ms);
    w.ok = w.ms.count > 0 && w.ms.median > 0;
    if (!w.ok) {
      w.error = "no timing";
      return;
    }
    w.algbwGBs = double(w.bytes) / (w.ms.median * 1e-3) / 1e9;
    w.busbwGBs = w.algbwGBs * factor;
  }

  // ---- scalar: N elements over the GPUs ----
  void scalar() {
    const int n = count();
    const uint64_t N = opt_.n;
    std::string err;
    auto chunks = collective::makeSchedule(collective::Algorithm::Ring, collective::Collective::AllReduce, n, N,
                                           sizeof(T), &err);
    const DataSpec spec{DataPattern::Uniform, 1, -1000, 1000};
    // Single-GPU reduction of all N on GPU 0: the reference the others must match.
    Row single = rowOf("scalar", "reduce", "single-gpu", 1, N);
    Buffer<T> whole, wholePartials, wholeResult;
    Gpu& g0 = group_.gpus[0];
    if (whole.allocate(0, N) != cudaSuccess || wholePartials.allocate(0, size_t(g0.grid)) != cudaSuccess ||
        wholeResult.allocate(0, 1) != cudaSuccess) {
      single.error = "GPU 0 cannot hold all " + formatCount(N) + " elements";
      rep_->rows.push_back(single);
      return;
    }
    cudaSetDevice(0);
    generateSlice<T><<<g0.grid, kBlock, 0, g0.stream>>>(whole.ptr, N, 0, spec);
    T singleValue{};
    {
      Group one;  // time it alone, through a group of GPU 0 only
      std::vector<double> ms;
      std::string e = one.init(1);
      if (e.empty()) {
        cudaStreamSynchronize(g0.stream);
        Gpu& s = one.gpus[0];
        e = one.time(opt_.warmup, opt_.reps, [&]() -> std::string {
          cudaSetDevice(0);
          localReduce<T, O><<<s.grid, kBlock, 0, s.stream>>>(whole.ptr, N, wholePartials.ptr);
          finishPartials<T, O><<<1, kBlock, 0, s.stream>>>(wholePartials.ptr, s.grid, wholeResult.ptr);
          RL_TRY(cudaGetLastError());
          return "";
        }, &ms);
        if (e.empty())
          if (cudaError_t c = cudaMemcpy(&singleValue, wholeResult.ptr, sizeof(T), cudaMemcpyDeviceToHost); c != cudaSuccess)
            e = cudaText(c);
      }
      if (!e.empty()) single.error = e;
      else finishTiming(single, ms, 1.0);
      single.result = text(singleValue);
      single.checked = false;
    }
    whole.release();
    wholePartials.release();
    rep_->rows.push_back(single);
    if (!single.ok || n < 2) return;

    // The slices, one per GPU, with the same global indices.
    std::vector<std::unique_ptr<Buffer<T>>> slice, partials, partial, result;
    for (int g = 0; g < n; ++g) {
      slice.push_back(std::make_unique<Buffer<T>>());
      partials.push_back(std::make_unique<Buffer<T>>());
      partial.push_back(std::make_unique<Buffer<T>>());
      result.push_back(std::make_unique<Buffer<T>>());
      const collective::Chunk c = chunks->chunks[size_t(g)];
      Gpu& gp = group_.gpus[size_t(g)];
      if (slice[size_t(g)]->allocate(g, c.count) != cudaSuccess || partials[size_t(g)]->allocate(g, size_t(gp.grid)) != cudaSuccess ||
          partial[size_t(g)]->allocate(g, 1) != cudaSuccess || result[size_t(g)]->allocate(g, 1) != cudaSuccess) {
        Row w = rowOf("scalar", "allreduce", "all", n, N);
        w.error = "GPU " + std::to_string(g) + " cannot hold its slice";
        rep_->rows.push_back(w);
        return;
      }
      cudaSetDevice(g);
      generateSlice<T><<<gp.grid, kBlock, 0, gp.stream>>>(slice[size_t(g)]->ptr, c.count, c.first, spec);
    }
    group_.syncAll();
    auto localAll = [&]() -> std::string {
      for (int g = 0; g < n; ++g) {
        Gpu& gp = group_.gpus[size_t(g)];
        RL_TRY(cudaSetDevice(g));
        localReduce<T, O><<<gp.grid, kBlock, 0, gp.stream>>>(slice[size_t(g)]->ptr, chunks->chunks[size_t(g)].count,
                                                             partials[size_t(g)]->ptr);
        finishPartials<T, O><<<1, kBlock, 0, gp.stream>>>(partials[size_t(g)]->ptr, gp.grid, partial[size_t(g)]->ptr);
        RL_TRY(cudaGetLastError());
      }
      return "";
    };
    // Peer pointer tables on GPU 0 for the combine.
    Buffer<const T*> partialPtrs;
    Buffer<T*> targetPtrs;
    std::vector<const T*> hp;
    std::vector<T*> ht;
    for (int g = 0; g < n; ++g) {
      hp.push_back(partial[size_t(g)]->ptr);
      ht.push_back(result[size_t(g)]->ptr);
    }
    partialPtrs.allocate(0, size_t(n));
    targetPtrs.allocate(0, size_t(n));
    cudaSetDevice(0);
    cudaMemcpy(partialPtrs.ptr, hp.data(), sizeof(T*) * size_t(n), cudaMemcpyHostToDevice);
    cudaMemcpy(targetPtrs.ptr, ht.data(), sizeof(T*) * size_t(n), cudaMemcpyHostToDevice);

    for (const char* coll : {"reduce", "allreduce"}) {
      const bool all = std::strcmp(coll, "allreduce") == 0;
      auto measureOne = [&](const char* algo, const std::function<std::string()>& combine) {
        Row w = rowOf("scalar", coll, algo, n, N);
        for (auto& r : result) {  // a sentinel: a result never written fails the check
          cudaSetDevice(r->device);
          cudaMemset(r->ptr, 0xFF, sizeof(T));
        }
        std::vector<double> ms;
        std::string e = group_.time(opt_.warmup, opt_.reps, [&]() -> std::string {
          if (std::string x = localAll(); !x.empty()) return x;
          return combine();
        }, &ms);
        if (e.empty()) e = group_.syncAll();
        if (!e.empty()) {
          w.error = e;
          rep_->rows.push_back(w);
          return;
        }
        finishTiming(w, ms, 1.0);  // bytes: the N elements read; GB/s as for one GPU
        checkScalar(w, singleValue, result, all ? n : 1, N);
        rep_->rows.push_back(w);
      };
      if (opt_.hand) {
        if (!allPeers_ || n > 32) {
          Row w = rowOf("scalar", coll, "hand", n, N);
          w.error = n > 32 ? "the combine is one warp: at most 32 GPUs" : "peer access is missing between some GPUs";
          rep_->rows.push_back(w);
        } else {
          measureOne("hand", [&]() -> std::string {
            for (int g = 1; g < n; ++g)
              if (std::string x = group_.wait(0, g); !x.empty()) return x;
            Gpu& gp = group_.gpus[0];
            RL_TRY(cudaSetDevice(0));
            combinePeers<T, O><<<1, 32, 0, gp.stream>>>(partialPtrs.ptr, n, targetPtrs.ptr, all ? n : 1);
            RL_TRY(cudaGetLastError());
            if (all)  // the others are done when GPU 0's stores have landed
              for (int g = 1; g < n; ++g)
                if (std::string x = group_.wait(g, 0); !x.empty()) return x;
            return "";
          });
        }
      }
#if REDUCELAB_HAVE_NCCL
      for (auto [algo, comms, wanted] : {std::tuple{"nccl-ring", &ring_, opt_.ring}, std::tuple{"nccl-tree", &tree_, opt_.tree}}) {
        if (!wanted) continue;
        // NCCL documents trees for AllReduce; a Reduce asked to use only Tree may be refused. It runs
        // on communicators of its own so a refusal cannot spoil the ones the AllReduce rows use.
        Comms own;
        if (!all && comms == &tree_ && !tree_.comms.empty()) {
          if (!own.create(n, "Tree")) {
            Row w = rowOf("scalar", coll, algo, n, N);
            w.error = own.error;
            rep_->rows.push_back(w);
            continue;
          }
          comms = &own;
        }
        if (comms->comms.empty()) {
          Row w = rowOf("scalar", coll, algo, n, N);
          w.error = ncclError_.empty() ? comms->error : ncclError_;
          rep_->rows.push_back(w);
          continue;
        }
        measureOne(algo, [&, comms = comms]() -> std::string {
          const NcclApi& api = nccl();
          api.groupStart();
          ncclResult_t r = ncclSuccess;
          for (int g = 0; g < n && r == ncclSuccess; ++g) {
            Gpu& gp = group_.gpus[size_t(g)];
            r = all ? api.allReduce(partial[size_t(g)]->ptr, result[size_t(g)]->ptr, 1, ncclType(elemTypeOf<T>()),
                                    ncclOp(opOf<O>()), comms->comms[size_t(g)], gp.stream)
                    : api.reduce(partial[size_t(g)]->ptr, result[size_t(g)]->ptr, 1, ncclType(elemTypeOf<T>()),
                                 ncclOp(opOf<O>()), 0, comms->comms[size_t(g)], gp.stream);
          }
          const ncclResult_t end = api.groupEnd();
          if (r != ncclSuccess || end != ncclSuccess) comms->broken = true;
          if (r != ncclSuccess) return std::string(all ? "ncclAllReduce: " : "ncclReduce: ") + api.text(r);
          if (end != ncclSuccess) return "ncclGroupEnd: " + api.text(end);
          if (std::string a = comms->asyncError(); !a.empty()) return "NCCL: " + a;
          return "";
        });
      }
#else
      for (auto [algo, wanted] : {std::pair{"nccl-ring", opt_.ring}, std::pair{"nccl-tree", opt_.tree}})
        if (wanted) {
          Row w = rowOf("scalar", coll, algo, n, N);
          w.error = ncclError_;
          rep_->rows.push_back(w);
        }
#endif
    }
  }

  static std::string text(T v) {
    if constexpr (std::is_integral_v<T>) return std::to_string(int64_t(v));
    else {
      char b[64];
      std::snprintf(b, sizeof b, "%.17g", double(v));
      return b;
    }
  }

  // Integers and min/max: equal to the single-GPU value. Float sums: within
  // chain x eps x |value| where the chain (the longest sequence of additions in either order)
  // grows with the elements per thread, the tree levels and the number of partial sums.
  void checkScalar(Row& w, T expected, std::vector<std::unique_ptr<Buffer<T>>>& results, int holders, uint64_t N) {
    w.checked = true;
    w.pass = true;
    const uint64_t threads = uint64_t(group_.gpus[0].grid) * kBlock;
    const double chain = double(N / threads + 1) * 2 + 64 + count();
    double worst = 0, tolerance = 0;
    for (int g = 0; g < holders; ++g) {
      T got{};
      cudaSetDevice(results[size_t(g)]->device);
      if (cudaMemcpy(&got, results[size_t(g)]->ptr, sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) {
        w.pass = false;
        w.check = "cannot read GPU " + std::to_string(g) + "'s result";
        return;
      }
      if (g == 0) w.result = text(got);
      w.holderResults.push_back(text(got));
      if constexpr (std::is_floating_point_v<T>) {
        if (opOf<O>() == Op::Sum) {
          tolerance = chain * double(std::numeric_limits<T>::epsilon()) * std::fabs(double(expected));
          const double d = std::fabs(double(got) - double(expected));
          worst = std::max(worst, std::isnan(d) ? INFINITY : d);
          if (!(d <= tolerance)) w.pass = false;
          continue;
        }
      }
      if (!(got == expected)) {
        w.pass = false;
        w.check = "GPU " + std::to_string(g) + " holds " + text(got) + ", the single-GPU reduction " + text(expected);
        return;
      }
    }
    char b[160];
    if (tolerance > 0) std::snprintf(b, sizeof b, "differs by %.3g from one GPU (tolerance %.3g), on %d GPU(s)", worst, tolerance, holders);
    else std::snprintf(b, sizeof b, "equal to one GPU's result, on %d GPU(s)", holders);
    w.check = b;
  }

  // ---- vector AllReduce: S bytes on every GPU ----
  void vectors() {
    const int n = count();
    if (n < 2) {
      for (uint64_t s : opt_.vectorBytes)
        for (const char* a : {"hand", "nccl-ring", "nccl-tree"}) {
          Row w = rowOf("vector", "allreduce", a, n, s / sizeof(T));
          w.bytes = s;
          w.error = "needs at least 2 GPUs";
          rep_->rows.push_back(w);
        }
      return;
    }
    // Buffers for the largest size that fits on every GPU (input + output + 1 GiB to spare).
    uint64_t maxCount = 0;
    for (uint64_t s : opt_.vectorBytes) maxCount = std::max(maxCount, s / sizeof(T));
    int64_t free = INT64_MAX;
    for (const Gpu& g : group_.gpus) {
      size_t f = 0, t = 0;
      cudaSetDevice(g.ordinal);
      cudaMemGetInfo(&f, &t);
      free = std::min(free, int64_t(f));
    }
    const uint64_t fits = free > (int64_t(1) << 30) ? uint64_t(free - (int64_t(1) << 30)) / 2 / sizeof(T) : 0;
    const uint64_t cap = std::min(maxCount, fits);
    std::vector<std::unique_ptr<Buffer<T>>> in, out;
    Buffer<unsigned long long> badCount[64];
    for (int g = 0; g < n; ++g) {
      in.push_back(std::make_unique<Buffer<T>>());
      out.push_back(std::make_unique<Buffer<T>>());
      if (cap == 0 || in.back()->allocate(g, cap) != cudaSuccess || out.back()->allocate(g, cap) != cudaSuccess ||
          badCount[g].allocate(g, 1) != cudaSuccess) {
        for (uint64_t s : opt_.vectorBytes) {
          Row w = rowOf("vector", "allreduce", "all", n, s / sizeof(T));
          w.bytes = s;
          w.error = "cannot allocate the vectors on GPU " + std::to_string(g);
          rep_->rows.push_back(w);
        }
        return;
      }
      Gpu& gp = group_.gpus[size_t(g)];
      cudaSetDevice(g);
      fillVector<T><<<gp.grid, kBlock, 0, gp.stream>>>(in.back()->ptr, cap, g);
    }
    group_.syncAll();
    Buffer<const T*> inPtrs[64];
    Buffer<const T*> outPtrs[64];
    {
      std::vector<const T*> hi, ho;
      for (int g = 0; g < n; ++g) {
        hi.push_back(in[size_t(g)]->ptr);
        ho.push_back(out[size_t(g)]->ptr);
      }
      for (int g = 0; g < n; ++g) {
        inPtrs[g].allocate(g, size_t(n));
        outPtrs[g].allocate(g, size_t(n));
        cudaSetDevice(g);
        cudaMemcpy(inPtrs[g].ptr, hi.data(), sizeof(T*) * size_t(n), cudaMemcpyHostToDevice);
        cudaMemcpy(outPtrs[g].ptr, ho.data(), sizeof(T*) * size_t(n), cudaMemcpyHostToDevice);
      }
    }
    const double factor = collective::busBandwidthFactor(collective::Collective::AllReduce, n);
    for (uint64_t bytes : opt_.vectorBytes) {
      const uint64_t elems = bytes / sizeof(T);
      auto measureOne = [&](const char* algo, const std::function<std::string()>& op) {
        Row w = rowOf("vector", "allreduce", algo, n, elems);
        w.bytes = elems * sizeof(T);
        if (elems == 0) {
          w.bytes = bytes;
          w.error = "smaller than one element";
          rep_->rows.push_back(w);
          return;
        }
        if (elems > cap) {
          w.error = "needs " + collective::formatBytes(2 * bytes) + " per GPU plus 1 GiB to spare";
          rep_->rows.push_back(w);
          return;
        }
        for (int g = 0; g < n; ++g) {
          cudaSetDevice(g);
          cudaMemsetAsync(out[size_t(g)]->ptr, 0xFF, elems * sizeof(T), group_.gpus[size_t(g)].stream);
        }
        std::vector<double> ms;
        std::string e = group_.time(opt_.warmup, opt_.reps, op, &ms);
        if (e.empty()) e = group_.syncAll();
        if (!e.empty()) {
          w.error = e;
          rep_->rows.push_back(w);
          return;
        }
        finishTiming(w, ms, factor);
        checkVector(w, out, badCount, elems);
        rep_->rows.push_back(w);
      };
      if (opt_.hand) {
        if (!allPeers_) {
          Row w = rowOf("vector", "allreduce", "hand", n, elems);
          w.error = "peer access is missing between some GPUs";
          rep_->rows.push_back(w);
        } else {
          measureOne("hand", [&]() -> std::string {
            const uint64_t base = elems / uint64_t(n), extra = elems % uint64_t(n);
            for (int g = 0; g < n; ++g) {
              Gpu& gp = group_.gpus[size_t(g)];
              const uint64_t first = uint64_t(g) * base + std::min<uint64_t>(uint64_t(g), extra);
              const uint64_t cnt = base + (uint64_t(g) < extra ? 1 : 0);
              RL_TRY(cudaSetDevice(g));
              reduceChunkFromPeers<T, O><<<gp.grid, kBlock, 0, gp.stream>>>(inPtrs[g].ptr, n, first, cnt, out[size_t(g)]->ptr);
              RL_TRY(cudaGetLastError());
            }
            if (std::string x = group_.barrier(); !x.empty()) return x;
            for (int g = 0; g < n; ++g) {
              Gpu& gp = group_.gpus[size_t(g)];
              RL_TRY(cudaSetDevice(g));
              gatherChunksFromPeers<T><<<gp.grid, kBlock, 0, gp.stream>>>(outPtrs[g].ptr, n, g, elems, out[size_t(g)]->ptr);
              RL_TRY(cudaGetLastError());
            }
            // The next operation may overwrite a chunk another GPU is still reading.
            return group_.barrier();
          });
        }
      }
#if REDUCELAB_HAVE_NCCL
      for (auto [algo, comms, wanted] : {std::tuple{"nccl-ring", &ring_, opt_.ring}, std::tuple{"nccl-tree", &tree_, opt_.tree}}) {
        if (!wanted) continue;
        if (comms->comms.empty()) {
          Row w = rowOf("vector", "allreduce", algo, n, elems);
          w.error = ncclError_.empty() ? comms->error : ncclError_;
          rep_->rows.push_back(w);
          continue;
        }
        measureOne(algo, [&, comms = comms]() -> std::string {
          const NcclApi& api = nccl();
          api.groupStart();
          ncclResult_t r = ncclSuccess;
          for (int g = 0; g < n && r == ncclSuccess; ++g)
            r = api.allReduce(in[size_t(g)]->ptr, out[size_t(g)]->ptr, elems, ncclType(elemTypeOf<T>()), ncclOp(opOf<O>()),
                              comms->comms[size_t(g)], group_.gpus[size_t(g)].stream);
          const ncclResult_t end = api.groupEnd();
          if (r != ncclSuccess || end != ncclSuccess) comms->broken = true;
          if (r != ncclSuccess) return "ncclAllReduce: " + api.text(r);
          if (end != ncclSuccess) return "ncclGroupEnd: " + api.text(end);
          if (std::string a = comms->asyncError(); !a.empty()) return "NCCL: " + a;
          return "";
        });
      }
#else
      for (auto [algo, wanted] : {std::pair{"nccl-ring", opt_.ring}, std::pair{"nccl-tree", opt_.tree}})
        if (wanted) {
          Row w = rowOf("vector", "allreduce", algo, n, elems);
          w.error = ncclError_;
          rep_->rows.push_back(w);
        }
#endif
    }
  }

  // Every element on every GPU against the closed form.
  void checkVector(Row& w, std::vector<std::unique_ptr<Buffer<T>>>& out, Buffer<unsigned long long>* bad, uint64_t elems) {
    w.checked = true;
    if (opt_.keepVectorOutputsUpTo >= elems * sizeof(T))
      for (int g = 0; g < count(); ++g) {
        std::vector<T> host(elems);
        cudaSetDevice(g);
        if (cudaMemcpy(host.data(), out[size_t(g)]->ptr, elems * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) {
          cudaGetLastError();
          w.outputs.clear();
          break;
        }
        w.outputs.emplace_back(host.begin(), host.end());
      }
    unsigned long long total = 0;
    std::string where;
    for (int g = 0; g < count(); ++g) {
      Gpu& gp = group_.gpus[size_t(g)];
      cudaSetDevice(g);
      cudaMemsetAsync(bad[g].ptr, 0, sizeof(unsigned long long), gp.stream);
      verifyVector<T, O><<<gp.grid, kBlock, 0, gp.stream>>>(out[size_t(g)]->ptr, elems, count(), bad[g].ptr);
      unsigned long long b = ~0ull;
      if (cudaMemcpyAsync(&b, bad[g].ptr, sizeof b, cudaMemcpyDeviceToHost, gp.stream) != cudaSuccess ||
          cudaStreamSynchronize(gp.stream) != cudaSuccess) {
        w.pass = false;
        w.check = "the check could not run on GPU " + std::to_string(g);
        cudaGetLastError();
        return;
      }
      total += b;
      if (b && where.empty()) where = " (first on GPU " + std::to_string(g) + ")";
    }
    w.pass = total == 0;
    w.check = total == 0 ? "all " + formatCount(elems) + " elements on " + std::to_string(count()) + " GPUs"
                         : std::to_string(total) + " of " + formatCount(elems) + " x " + std::to_string(count()) +
                               " elements wrong" + where;
  }

  const Options& opt_;
  Report* rep_;
  Group group_;
  bool allPeers_ = false;
  std::string ncclError_;
#if REDUCELAB_HAVE_NCCL
  Comms ring_, tree_;
#endif
};

}  // namespace

Report measure(const Options& o, const std::vector<std::string>& argv) {
  Report r;
  r.argv = argv;
  r.type = o.type;
  r.op = o.op;
  if (o.gpus < 0 || o.gpus > 64) {
    r.error = "--gpus must be 0 (all) to 64";
    return r;
  }
  withElemType(o.type, [&]<class T>(TypeTag<T>) {
    withOp(o.op, [&]<class O>(TypeTag<O>) {
      Runner<T, O> runner(o, &r);
      runner.run();
    });
  });
  return r;
}

}  // namespace rl::multi
