// The launch + measurement engine: input generation on the device, the passes of each kernel,
// CUDA-event timing with warm-up and cold L2, the CPU final stage, checks against the exact
// reference, resources and occupancy, and the measured bandwidth peaks.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "cub_reduce.hpp"
#include "launch.hpp"
#include "launch_common.cuh"
#include "reducelab/atomic_file.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/type_dispatch.hpp"

namespace rl {
namespace {

using kernels::KernelEntry;
using kernels::LaunchArgs;
using kernels::VariantKey;

std::string cudaText(cudaError_t e) { return cudaGetErrorString(e); }

// ---- device buffers ----
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }
  cudaError_t reserve(size_t bytes) {
    if (bytes <= bytes_) return cudaSuccess;
    release();
    cudaError_t e = cudaMalloc(&ptr_, bytes);
    if (e != cudaSuccess) {
      ptr_ = nullptr;
      cudaGetLastError();
      return e;
    }
    bytes_ = bytes;
    return cudaSuccess;
  }
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

template <class T>
__global__ void generateKernel(T* out, uint64_t n, DataSpec spec) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = generateElement<T>(spec, i);
}

// Reads 16-byte vectors, four in flight per thread, and folds them so the loads stay live:
// the measured read ceiling.
__global__ void readStreamKernel(const int4* __restrict__ p, uint64_t nvec, int* sink) {
  int acc = 0;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x * 4;
  for (uint64_t base = blockIdx.x * uint64_t(blockDim.x) * 4 + threadIdx.x; base < nvec; base += stride) {
    int4 r[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const uint64_t j = base + uint64_t(u) * blockDim.x;
      r[u] = j < nvec ? p[j] : make_int4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) acc ^= r[u].x ^ r[u].y ^ r[u].z ^ r[u].w;
  }
  if (acc == 0x7fffffff) *sink = acc;  // practically never: keeps the loads
}

// ---- the CPU final stage: the seeds' loop over the partials, with the kernels' operators ----
Value finishOnCpu(Op op, ElemType acc, const void* partials, uint64_t count) {
  return withElemType(acc, [&]<class T>(TypeTag<T>) {
    return withOp(op, [&]<class O>(TypeTag<O>) {
      const T* p = static_cast<const T*>(partials);
      T r = p[0];
      for (uint64_t i = 1; i < count; ++i) r = O()(r, p[i]);
      Value v;
      v.isInt = std::is_integral_v<T>;
      if constexpr (std::is_integral_v<T>) v.i = int64_t(r);
      else v.f = double(r);
      return v;
    });
  });
}

std::filesystem::path configDir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && *xdg) return std::filesystem::path(xdg) / "reducelab";
  if (home && *home) return std::filesystem::path(home) / ".config" / "reducelab";
  return std::filesystem::temp_directory_path() / "reducelab";
}

struct InputKey {
  ElemType type;
  uint64_t n;
  DataPattern pattern;
  uint64_t seed;
  int64_t lo, hi;
  auto operator<=>(const InputKey&) const = default;
};

class CudaEngine final : public Engine {
 public:
  explicit CudaEngine(DeviceInfo d) : dev_(std::move(d)) {
    cudaSetDevice(dev_.ordinal);
    cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    cudaEventCreate(&e0_);
    cudaEventCreate(&e1_);
    cudaEventCreate(&e2_);
  }
  ~CudaEngine() override {
    cudaEventDestroy(e0_);
    cudaEventDestroy(e1_);
    cudaEventDestroy(e2_);
    cudaStreamDestroy(stream_);
    if (hostPartials_) cudaFreeHost(hostPartials_);
  }

  const DeviceInfo& device() const override { return dev_; }
  Peaks peaks(bool remeasure) override;
  ResourceUsage resources(const RunConfig& c, std::string* error) override;
  Geometry geometry(const RunConfig& c, std::string* error) override;
  Measurement measure(const RunConfig& c, const MeasureOptions& o) override;
  TraceRun runTraced(const RunConfig& c, void* traceBuffer, size_t traceBytes) override;
  std::vector<double> readInput(const RunConfig& c, uint64_t first, uint64_t count) override;
  TraceRun runTracedToHost(const RunConfig& c, std::vector<uint8_t>* bytes) override {
    const size_t size = trace::bufferBytes(unsigned(c.block));
    if (cudaError_t e = traceBuf_.reserve(size); e != cudaSuccess) {
      TraceRun t;
      t.error = "cannot allocate the trace buffer: " + cudaText(e);
      return t;
    }
    TraceRun t = runTraced(c, traceBuf_.get(), size);
    if (!t.ok) return t;
    bytes->resize(size);
    if (cudaError_t e = cudaMemcpy(bytes->data(), traceBuf_.get(), size, cudaMemcpyDeviceToHost);
        e != cudaSuccess) {
      t.ok = false;
      t.error = "reading the trace back failed: " + cudaText(e);
    }
    return t;
  }

 private:
  const KernelEntry* entry(const KernelInfo& k, const RunConfig& c, ElemType in, bool traced) const {
    VariantKey key{k.id, c.op, in, c.accType(), traced, k.blockTemplated ? c.block : 0};
    return kernels::registry().find(key);
  }
  uint64_t residentBlocks(const KernelInfo& k, const RunConfig& c, size_t smem);
  std::string prepareInput(const RunConfig& c);
  std::string prepareScratch(const RunConfig& c, const Geometry& g);
  // Enqueues every launch of the reduction. Returns "" or the error.
  std::string launchAll(const KernelInfo& k, const RunConfig& c, const Geometry& g,
                        trace::TraceHeader* trace);
  std::string readResult(const RunConfig& c, const KernelInfo& k, const Geometry& g, Value* out);
  std::string plan(const RunConfig& c, const KernelInfo** k, Geometry* g);
  // Cold L2: *read* a buffer of twice the L2 size, so the input is evicted and L2 holds only
  // clean lines. (Writing it, e.g. with cudaMemset, would leave up to a whole L2 of dirty lines
  // that the next kernel's reads must first write back to DRAM: on the H200 that is 60 MB, 6%
  // of a 1 GiB reduction's traffic.)
  void flushL2() {
    readStreamKernel<<<dev_.smCount * 4, 512, 0, stream_>>>(
        static_cast<const int4*>(flush_.get()), flush_.bytes() / 16, static_cast<int*>(result_.get()) + 4);
  }

  DeviceInfo dev_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr, e2_ = nullptr;
  DeviceBuffer input_, partialsA_, partialsB_, result_, counter_, flush_, cubTemp_, traceBuf_;
  std::optional<InputKey> inputKey_;
  void* hostPartials_ = nullptr;
  size_t hostPartialsBytes_ = 0;
  size_t cubTempBytes_ = 0;
  const void* lastOut_ = nullptr;
};

uint64_t CudaEngine::residentBlocks(const KernelInfo& k, const RunConfig& c, size_t smem) {
  const KernelEntry* e = entry(k, c, c.type, false);
  int perSM = 0;
  if (!e || cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, e->func, c.block, smem) != cudaSuccess) {
    cudaGetLastError();
    perSM = std::max(1, dev_.maxThreadsPerSM / c.block);
  }
  return uint64_t(std::max(perSM, 1)) * uint64_t(dev_.smCount);
}

std::string CudaEngine::plan(const RunConfig& c, const KernelInfo** kp, Geometry* g) {
  if (std::string err = validate(c, &dev_); !err.empty()) return err;
  const KernelInfo* k = findKernel(c.kernel);
  *kp = k;
  // Shared memory does not depend on the grid: plan once to learn it, then with residency.
  Geometry probe = planGeometry(*k, c, 1);
  *g = planGeometry(*k, c, residentBlocks(*k, c, probe.smemBytes));
  if (k->id != KernelId::Cub && !entry(*k, c, c.type, false))
    return "no instantiation of kernel " + std::string(k->key) + " for this configuration";
  return {};
}

Geometry CudaEngine::geometry(const RunConfig& c, std::string* error) {
  const KernelInfo* k = nullptr;
  Geometry g;
  std::string err = plan(c, &k, &g);
  if (error) *error = err;
  return g;
}

std::string CudaEngine::prepareInput(const RunConfig& c) {
  const InputKey key{c.type, c.n, c.data, c.seed, c.rangeLo, c.rangeHi};
  if (inputKey_ && *inputKey_ == key) return {};
  inputKey_.reset();
  const size_t bytes = size_t(c.n) * elemBytes(c.type);
  if (bytes > input_.bytes()) input_.release();  // free first: the new buffer may need the room
  if (cudaError_t e = input_.reserve(bytes); e != cudaSuccess)
    return "cannot allocate " + std::to_string(bytes >> 20) + " MiB for the input: " + cudaText(e);
  const DataSpec spec = dataSpecOf(c);
  const unsigned grid = unsigned(std::min<uint64_t>((c.n + 255) / 256, uint64_t(dev_.smCount) * 32));
  withElemType(c.type, [&]<class T>(TypeTag<T>) {
    generateKernel<<<grid, 256, 0, stream_>>>(static_cast<T*>(input_.get()), c.n, spec);
  });
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess) return "input generation failed: " + cudaText(e);
  inputKey_ = key;
  return {};
}

std::string CudaEngine::prepareScratch(const RunConfig& c, const Geometry& g) {
  const size_t acc = elemBytes(c.accType());
  const size_t partialBytes = (size_t(g.grid()) + 1) * acc;
  cudaError_t e;
  if ((e = partialsA_.reserve(partialBytes)) != cudaSuccess ||
      (e = partialsB_.reserve(partialBytes)) != cudaSuccess || (e = result_.reserve(32)) != cudaSuccess)
    return "cannot allocate the partials: " + cudaText(e);
  if (!counter_.get()) {
    if ((e = counter_.reserve(sizeof(unsigned))) != cudaSuccess) return cudaText(e);
    cudaMemset(counter_.get(), 0, sizeof(unsigned));
  }
  if (hostPartialsBytes_ < partialBytes) {
    if (hostPartials_) cudaFreeHost(hostPartials_);
    if ((e = cudaMallocHost(&hostPartials_, partialBytes)) != cudaSuccess) {
      hostPartials_ = nullptr;
      hostPartialsBytes_ = 0;
      return "cannot allocate pinned host memory: " + cudaText(e);
    }
    hostPartialsBytes_ = partialBytes;
  }
  if (c.kernel == "cub") {
    size_t need = 0;
    e = kernels::cubReduce(c.op, c.type, c.accumulate, input_.get(), result_.get(), c.n, nullptr,
                           &need, stream_);
    if (e != cudaSuccess) return "CUB temp-storage query failed: " + cudaText(e);
    if ((e = cubTemp_.reserve(std::max<size_t>(need, 16))) != cudaSuccess) return cudaText(e);
    cubTempBytes_ = need;
  }
  if (!c.warmL2 && !flush_.get()) {
    const size_t flushBytes = size_t(std::max<int64_t>(dev_.l2Bytes, 1 << 20)) * 2;
    if ((e = flush_.reserve(flushBytes)) != cudaSuccess) return "cannot allocate the L2 flush buffer";
    cudaMemsetAsync(flush_.get(), 0, flush_.bytes(), stream_);
  }
  return {};
}

std::string CudaEngine::launchAll(const KernelInfo& k, const RunConfig& c, const Geometry& g,
                                  trace::TraceHeader* trace) {
  if (k.id == KernelId::Cub) {
    size_t bytes = cubTempBytes_;
    cudaError_t e = kernels::cubReduce(c.op, c.type, c.accumulate, input_.get(), result_.get(), c.n,
                                       cubTemp_.get(), &bytes, stream_);
    lastOut_ = result_.get();
    return e == cudaSuccess ? std::string() : "CUB: " + cudaText(e);
  }
  LaunchArgs a;
  a.stream = stream_;
  a.block = g.block;
  a.smemBytes = g.smemBytes;
  a.counter = static_cast<unsigned*>(counter_.get());
  const void* in = input_.get();
  uint64_t n = c.n;
  void* outs[2] = {partialsA_.get(), partialsB_.get()};
  for (size_t p = 0; p < g.passGrids.size(); ++p) {
    const bool single = g.final == FinalStage::Atomic || g.final == FinalStage::LastBlock;
    void* out = single ? result_.get() : outs[p % 2];
    const KernelEntry* e = entry(k, c, p == 0 ? c.type : c.accType(), p == 0 && trace);
    if (!e) return "missing instantiation for pass " + std::to_string(p + 1);
    a.in = in;
    a.out = out;
    a.n = n;
    a.grid = unsigned(g.passGrids[p]);
    a.trace = p == 0 ? trace : nullptr;
    a.tracedBlock = unsigned(c.tracedBlock);
    a.partials = partialsA_.get();
    if (cudaError_t err = e->launch(a); err != cudaSuccess)
      return "launch of pass " + std::to_string(p + 1) + " failed: " + cudaText(err);
    in = out;
    n = g.passGrids[p];
    lastOut_ = out;
  }
  return {};
}

std::string CudaEngine::readResult(const RunConfig& c, const KernelInfo&, const Geometry& g,
                                   Value* out) {
  const size_t acc = elemBytes(c.accType());
  const uint64_t count = g.final == FinalStage::Cpu ? g.partials : 1;
  cudaError_t e = cudaMemcpyAsync(hostPartials_, lastOut_, count * acc, cudaMemcpyDeviceToHost, stream_);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess) return "reading the result failed: " + cudaText(e);
  *out = finishOnCpu(c.op, c.accType(), hostPartials_, count);
  return {};
}

Measurement CudaEngine::measure(const RunConfig& c, const MeasureOptions& o) {
  Measurement m;
  m.config = c;
  const KernelInfo* k = nullptr;
  if (std::string err = plan(c, &k, &m.geometry); !err.empty()) {
    m.error = err;
    return m;
  }
  m.kernelName = std::string(k->name);
  std::string err;
  m.resources = resources(c, &err);
  if (err.empty()) err = prepareInput(c);
  if (err.empty()) err = prepareScratch(c, m.geometry);
  if (!err.empty()) {
    m.error = err;
    return m;
  }
  auto fail = [&](std::string why) {
    m.error = std::move(why);
    cudaGetLastError();
    return m;
  };
  // Warm-up: module load, first-touch and clocks stay out of the numbers.
  for (int w = 0; w < c.warmup; ++w) {
    if (std::string e = launchAll(*k, c, m.geometry, nullptr); !e.empty()) return fail(e);
  }
  if (cudaError_t e = cudaStreamSynchronize(stream_); e != cudaSuccess) return fail(cudaText(e));
  std::set<std::string> distinct;
  for (int r = 0; r < c.reps; ++r) {
    if (o.cancel && o.cancel()) return fail("cancelled");
    if (!c.warmL2) flushL2();  // outside the timed region
    cudaEventRecord(e0_, stream_);
    if (std::string e = launchAll(*k, c, m.geometry, nullptr); !e.empty()) return fail(e);
    cudaEventRecord(e1_, stream_);
    Value v;
    if (std::string e = readResult(c, *k, m.geometry, &v); !e.empty()) return fail(e);
    cudaEventRecord(e2_, stream_);  // after the copy and the CPU final loop
    if (cudaError_t e = cudaEventSynchronize(e2_); e != cudaSuccess) return fail(cudaText(e));
    float kms = 0, ems = 0;
    cudaEventElapsedTime(&kms, e0_, e1_);
    cudaEventElapsedTime(&ems, e0_, e2_);
    m.kernelMs.push_back(kms);
    m.endToEndMs.push_back(ems);
    m.result = v;
    distinct.insert(v.isInt ? std::to_string(v.i) : [&] {
      char b[40];
      std::snprintf(b, sizeof b, "%.17g", v.f);
      return std::string(b);
    }());
  }
  m.distinctResults.assign(distinct.begin(), distinct.end());
  m.kernel = Stats::of(m.kernelMs);
  m.endToEnd = Stats::of(m.endToEndMs);
  m.bytesRead = double(c.n) * double(elemBytes(c.type));
  m.bandwidthGBs = m.kernel.median > 0 ? m.bytesRead / (m.kernel.median * 1e-3) / 1e9 : 0;
  m.endToEndGBs = m.endToEnd.median > 0 ? m.bytesRead / (m.endToEnd.median * 1e-3) / 1e9 : 0;
  const Peaks pk = peaks(false);
  m.pctTheoretical = pk.theoreticalGBs > 0 ? 100.0 * m.bandwidthGBs / pk.theoreticalGBs : 0;
  m.pctMeasuredRead = pk.readGBs > 0 ? 100.0 * m.bandwidthGBs / pk.readGBs : 0;
  if (o.knownReference) {
    m.reference = *o.knownReference;
    m.haveReference = true;
    m.check = checkResult(c, m.result, m.reference, sequentialChainBound(*k, m.geometry, c.n));
  } else if (o.reference) {
    m.reference = computeReference(c);
    m.haveReference = true;
    m.check = checkResult(c, m.result, m.reference, sequentialChainBound(*k, m.geometry, c.n));
  }
  if (o.knownCpu) {
    m.cpu = *o.knownCpu;
    m.haveCpu = m.cpu.reps > 0;
    m.speedupVsCpu = m.haveCpu && m.endToEnd.median > 0 ? m.cpu.ms.median / m.endToEnd.median : 0;
  } else if (o.cpuBaseline) {
    m.cpu = runCpuBaseline(c, c.reps, 3.0, o.cancel);
    m.haveCpu = m.cpu.reps > 0;
    m.speedupVsCpu = m.haveCpu && m.endToEnd.median > 0 ? m.cpu.ms.median / m.endToEnd.median : 0;
  }
  m.ok = true;
  return m;
}

ResourceUsage CudaEngine::resources(const RunConfig& c, std::string* error) {
  ResourceUsage r;
  const KernelInfo* k = findKernel(c.kernel);
  if (!k) {
    if (error) *error = "unknown kernel";
    return r;
  }
  if (k->id == KernelId::Cub) {
    r.limiter = "library (CUB chooses its own launch)";
    return r;
  }
  const Geometry probe = planGeometry(*k, c, 1);
  const KernelEntry* e = entry(*k, c, c.type, false);
  if (!e) {
    if (error) *error = "no instantiation for this configuration";
    return r;
  }
  cudaFuncAttributes attr{};
  if (cudaError_t err = cudaFuncGetAttributes(&attr, e->func); err != cudaSuccess) {
    cudaGetLastError();
    if (error) *error = "cudaFuncGetAttributes: " + cudaText(err);
    return r;
  }
  r.registers = attr.numRegs;
  r.staticSmemBytes = int(attr.sharedSizeBytes);
  r.dynamicSmemBytes = int(probe.smemBytes);
  r.localBytes = int(attr.localSizeBytes);
  r.maxThreadsPerBlock = attr.maxThreadsPerBlock;
  int perSM = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, e->func, c.block, probe.smemBytes);
  r.activeBlocksPerSM = perSM;
  const OccupancyResult calc = computeOccupancy(
      dev_, {c.block, attr.numRegs, int(attr.sharedSizeBytes + probe.smemBytes)});
  r.occupancy = dev_.maxThreadsPerSM > 0 ? double(perSM * c.block) / dev_.maxThreadsPerSM : 0;
  r.limiter = calc.limiter;
  const Geometry g = planGeometry(*k, c, uint64_t(std::max(perSM, 1)) * dev_.smCount);
  r.waves = perSM > 0 ? double(g.grid()) / (double(perSM) * dev_.smCount) : 0;
  return r;
}

TraceRun CudaEngine::runTraced(const RunConfig& c, void* traceBuffer, size_t traceBytes) {
  TraceRun t;
  const KernelInfo* k = nullptr;
  if (std::string err = plan(c, &k, &t.geometry); !err.empty()) {
    t.error = err;
    return t;
  }
  if (!k->traceable) {
    t.error = "CUB is a library: it has no traced twin";
    return t;
  }
  if (c.tracedBlock >= t.geometry.grid()) {
    t.error = "block " + std::to_string(c.tracedBlock) + " does not exist: the grid has " +
              std::to_string(t.geometry.grid()) + " blocks";
    return t;
  }
  if (traceBytes < trace::bufferBytes(unsigned(c.block))) {
    t.error = "trace buffer too small";
    return t;
  }
  if (std::string e = prepareInput(c); !e.empty()) t.error = e;
  else if (std::string e2 = prepareScratch(c, t.geometry); !e2.empty()) t.error = e2;
  if (!t.error.empty()) return t;
  cudaMemsetAsync(traceBuffer, 0, trace::bufferBytes(unsigned(c.block)), stream_);
  if (std::string e = launchAll(*k, c, t.geometry, static_cast<trace::TraceHeader*>(traceBuffer));
      !e.empty()) {
    t.error = e;
    return t;
  }
  if (std::string e = readResult(c, *k, t.geometry, &t.result); !e.empty()) {
    t.error = e;
    return t;
  }
  t.ok = true;
  return t;
}

std::vector<double> CudaEngine::readInput(const RunConfig& c, uint64_t first, uint64_t count) {
  std::vector<double> out;
  if (!prepareInput(c).empty() || first >= c.n) return out;
  count = std::min(count, c.n - first);
  const size_t eb = elemBytes(c.type);
  std::vector<unsigned char> raw(count * eb);
  if (cudaMemcpy(raw.data(), static_cast<char*>(input_.get()) + first * eb, raw.size(),
                 cudaMemcpyDeviceToHost) != cudaSuccess)
    return out;
  for (uint64_t i = 0; i < count; ++i) {
    const unsigned char* p = raw.data() + i * eb;
    withElemType(c.type, [&]<class T>(TypeTag<T>) {
      T v;
      std::memcpy(&v, p, sizeof v);
      out.push_back(double(v));
    });
  }
  return out;
}

Peaks CudaEngine::peaks(bool remeasure) {
  static std::mutex memoMutex;
  static std::map<std::string, Peaks> memo;  // per process, per device
  std::lock_guard<std::mutex> lock(memoMutex);
  Peaks p;
  p.theoreticalGBs = dev_.theoreticalPeakGBs();
  if (!remeasure)
    if (auto it = memo.find(dev_.uuid); it != memo.end()) return it->second;
  const std::filesystem::path file = configDir() / "peaks.json";
  const std::string driver = cudaVersionString(dev_.driverVersion);
  nlohmann::json cache = nlohmann::json::object();
  {
    std::ifstream in(file);
    if (in) {
      cache = nlohmann::json::parse(in, nullptr, false);
      if (!cache.is_object()) cache = nlohmann::json::object();  // corrupt: measure again
    }
  }
  if (!remeasure && cache.contains(dev_.uuid)) {
    const auto& e = cache[dev_.uuid];
    if (e.is_object() && e.value("driver", "") == driver && e.value("read_gbs", 0.0) > 0) {
      p.readGBs = e.value("read_gbs", 0.0);
      p.copyGBs = e.value("copy_gbs", 0.0);
      p.source = "cached " + e.value("date", std::string("?")) + " (" + file.string() + ")";
      memo[dev_.uuid] = p;
      return p;
    }
  }
  // Measure: 2 GiB (or a quarter of free memory), far larger than L2; median of 20.
  size_t bytes = size_t(2) << 30;
  if (dev_.freeMemBytes > 0) bytes = std::min(bytes, size_t(dev_.freeMemBytes / 4) & ~size_t(255));
  DeviceBuffer a, b, sink;
  if (a.reserve(bytes) != cudaSuccess || b.reserve(bytes) != cudaSuccess ||
      sink.reserve(16) != cudaSuccess) {
    p.source = "not measured (not enough device memory)";
    return p;
  }
  cudaMemsetAsync(a.get(), 1, bytes, stream_);
  int perSM = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, readStreamKernel, 512, 0);
  const unsigned grid = unsigned(std::max(perSM, 1) * dev_.smCount);
  auto timeIt = [&](auto&& body) {
    std::vector<double> ms;
    for (int r = 0; r < 23; ++r) {
      cudaEventRecord(e0_, stream_);
      body();
      cudaEventRecord(e1_, stream_);
      cudaEventSynchronize(e1_);
      float t = 0;
      cudaEventElapsedTime(&t, e0_, e1_);
      if (r >= 3) ms.push_back(t);  // 3 warm-up runs
    }
    return Stats::of(ms).median;
  };
  const double readMs = timeIt([&] {
    readStreamKernel<<<grid, 512, 0, stream_>>>(static_cast<const int4*>(a.get()), bytes / 16,
                                                 static_cast<int*>(sink.get()));
  });
  const double copyMs = timeIt([&] { cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream_); });
  if (cudaGetLastError() != cudaSuccess) {
    p.source = "not measured (CUDA error)";
    return p;
  }
  p.readGBs = double(bytes) / (readMs * 1e-3) / 1e9;
  p.copyGBs = 2.0 * double(bytes) / (copyMs * 1e-3) / 1e9;
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
  p.source = "measured now";
  cache[dev_.uuid] = {{"name", dev_.name}, {"driver", driver}, {"read_gbs", p.readGBs},
                      {"copy_gbs", p.copyGBs}, {"date", date}, {"bytes", bytes}};
  std::error_code ec;
  std::filesystem::create_directories(configDir(), ec);
  writeTextAtomic(file.string(), cache.dump(2));  // best effort: a cache
  memo[dev_.uuid] = p;
  return p;
}

}  // namespace

std::unique_ptr<Engine> Engine::create(int device, std::string* error) {
  DeviceInfo d = queryDevice(device);
  if (!d.available) {
    if (error) *error = d.unavailableReason;
    return nullptr;
  }
  return std::make_unique<CudaEngine>(std::move(d));
}

}  // namespace rl
