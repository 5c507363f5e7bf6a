// The launch + measurement engine: input generation on the device, the passes of each kernel,
// CUDA-event timing with warm-up and cold L2, the CPU final stage, checks against the exact
// reference, resources and occupancy, and the measured bandwidth peaks.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "cub_reduce.hpp"
#include "launch.hpp"
#include "launch_common.cuh"
#include "timing_kernels.cuh"
#include "cupti_occupancy.hpp"
#include "pitfalls_gpu.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/family.hpp"
#include "reducelab/launch_plan.hpp"
#include "reducelab/instrumented.hpp"
#include "reducelab/matrix.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/policy.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/type_dispatch.hpp"
#include "reducelab/user_dirs.hpp"

namespace rl {
namespace {

using timing::blockStreamKernel;
using timing::readStreamKernel;

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

// Does nothing: one launch of it, timed as a repetition is, is the launch floor.
__global__ void emptyKernel() {}

// The SM clock now: SM cycles against %globaltimer nanoseconds over ~`spanNs`.
__global__ void smClockKernel(unsigned long long spanNs, unsigned long long* out) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t0 < spanNs);
  const long long c1 = clock64();
  out[0] = (unsigned long long)(c1 - c0);
  out[1] = t1 - t0;
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


struct InputKey {
  ElemType type;
  uint64_t n;
  DataPattern pattern;
  uint64_t seed;
  int64_t lo, hi;
  auto operator<=>(const InputKey&) const = default;
};

class DriverLaunchFacts;

// auto's end to end after an atomic finish: the accumulator's bytes into mapped host memory.
__global__ void copyResultBytes(const unsigned char* src, unsigned char* dst, int bytes) {
  if (int(threadIdx.x) < bytes) dst[threadIdx.x] = src[threadIdx.x];
}

class CudaEngine final : public Engine {
 public:
  explicit CudaEngine(DeviceInfo d) : dev_(std::move(d)) {
    cudaSetDevice(dev_.ordinal);
    cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    cudaEventCreate(&e0_);
    cudaEventCreate(&e1_);
    cudaEventCreate(&e2_);
    // The blocking kernel's flags: host memory the device reads (and writes the timeout to).
    if (cudaHostAlloc(reinterpret_cast<void**>(&hostFlags_), 2 * sizeof(int), cudaHostAllocMapped) == cudaSuccess &&
        cudaHostGetDevicePointer(reinterpret_cast<void**>(&deviceFlags_), hostFlags_, 0) == cudaSuccess) {
      hostFlags_[0] = hostFlags_[1] = 0;
    } else {
      cudaGetLastError();
      if (hostFlags_) cudaFreeHost(hostFlags_);
      hostFlags_ = deviceFlags_ = nullptr;  // timed without the blocking kernel
    }
  }
  ~CudaEngine() override {
    cudaEventDestroy(e0_);
    cudaEventDestroy(e1_);
    cudaEventDestroy(e2_);
    cudaStreamDestroy(stream_);
    if (hostPartials_) cudaFreeHost(hostPartials_);
    if (hostFlags_) cudaFreeHost(hostFlags_);
    if (mappedHost_) cudaFreeHost(mappedHost_);
  }

  const DeviceInfo& device() const override { return dev_; }
  Peaks peaks(bool remeasure, const std::function<bool()>& cancel) override;
  ResourceUsage resources(const RunConfig& c, std::string* error) override;
  Geometry geometry(const RunConfig& c, std::string* error) override;
  Measurement measure(const RunConfig& c, const MeasureOptions& o) override;
  TraceRun runTraced(const RunConfig& c, void* traceBuffer, size_t traceBytes) override;
  InstrumentedRun runInstrumented(const RunConfig& c, uint32_t capacity) override;
  std::vector<double> readInput(const RunConfig& c, uint64_t first, uint64_t count) override;
  std::vector<double> readMatrixOutput(const RunConfig& c, uint64_t first, uint64_t count) override;
  PitfallResult runPitfall(const PitfallRequest& r, const std::function<bool()>& cancel) override {
    if (r.kind == Pitfall::AchievedOccupancy) return runAchievedOccupancy(r, cancel);
    return runPitfallOnGpu(dev_, stream_, r, cancel);
  }
  PitfallResult runAchievedOccupancy(const PitfallRequest& r, const std::function<bool()>& cancel);
  Stats launchFloor(TimingMode mode) override;
  PolicyTable policies() override;
  std::string tune(const TuneOptions& options, PolicyTable* out) override;
  TraceRun runTracedToHost(const RunConfig& asked, std::vector<uint8_t>* bytes) override {
    const RunConfig c = dispatched(asked);  // auto: the block its dispatch chose sizes the buffer
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
    const int templ = familyOf(k).instantiation(k, c);
    VariantKey key{k.id, c.op, in, c.accType(), traced, templ};
    return kernels::registry().find(key);
  }
  uint64_t residentBlocks(const KernelInfo& k, const RunConfig& c, size_t smem);
  // A tuned kernel: the largest thread-block cluster (16 or 8 CTAs) of its instantiation that the
  // driver finds room for, 0 where none (the launch plan decides whether the work fits one).
  int largestClusterFor(const KernelInfo& k, const RunConfig& c, size_t smem);
  // The device's stored policy table, read once.
  const PolicyTable& policyTable();
  // The configuration a run launches (auto: with the block its dispatch chose).
  RunConfig dispatched(const RunConfig& c);
  // One more launch of a single-pass reduction, its result written into mapped pinned host
  // memory: the end-to-end time (start event to the event after the kernel), checked against
  // the device's result of the same run.
  std::string timeMappedResult(const KernelInfo& k, const RunConfig& c, const Geometry& g, const Value& kernelResult,
                               float* ms);
  friend class DriverLaunchFacts;
  // (op, input type, accumulator type, block, shared bytes): the instantiation's resources decide -> 16, 8 or 0
  std::map<std::tuple<int, int, int, int, size_t>, int> largestCluster_;
  std::string prepareInput(const RunConfig& c);
  std::string prepareScratch(const RunConfig& c, const Geometry& g);
  std::string prepareMatrixScratch(const RunConfig& c);
  // The matrix families' output against the CPU (transpose: every element; matmul: a sample of
  // rows and columns, edges included), and its checksum as the run's result.
  std::string checkMatrix(const RunConfig& c, Measurement* m, const std::function<bool()>& cancel);
  // The matrices' end-to-end time (seed 003's Tabla 13): the inputs sent from pageable host
  // memory, the kernel, the output read back, in repetitions of their own after the kernel's.
  std::string timeMatrixWithTransfers(const KernelInfo& k, const RunConfig& c, Measurement* m,
                                      const std::function<bool()>& cancel);
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

  // Before the start event: holds the stream until release(). False without mapped memory.
  bool holdStream() {
    if (!hostFlags_) return false;
    __atomic_store_n(&hostFlags_[0], 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&hostFlags_[1], 0, __ATOMIC_SEQ_CST);
    blockStreamKernel<<<1, 1, 0, stream_>>>(deviceFlags_, kBlockTimeoutNs, deviceFlags_ + 1);
    return true;
  }
  void releaseStream() {
    if (hostFlags_) __atomic_store_n(&hostFlags_[0], 1, __ATOMIC_SEQ_CST);
  }
  bool holdTimedOut() const { return hostFlags_ && __atomic_load_n(&hostFlags_[1], __ATOMIC_SEQ_CST) != 0; }
  // k12's ticket counter: zeroed on the launch stream (ordered with the launches), so an
  // aborted launch that left it non-zero never poisons the next run.
  std::string armCounter() {
    cudaError_t e = cudaSuccess;
    if (!counter_.get()) e = counter_.reserve(sizeof(unsigned));
    if (e == cudaSuccess) e = cudaMemsetAsync(counter_.get(), 0, sizeof(unsigned), stream_);
    if (e != cudaSuccess) {
      cudaGetLastError();
      return "cannot zero the ticket counter: " + cudaText(e);
    }
    return {};
  }
  // After a failed launch or measurement: drain the stream, clear the error, re-arm the counter.
  void recoverAfterFailure() {
    releaseStream();
    cudaStreamSynchronize(stream_);
    cudaGetLastError();
    if (armCounter().empty()) cudaStreamSynchronize(stream_);
    cudaGetLastError();
    atomicAccFor_.reset();  // auto's accumulators are filled again before the next atomic launch
  }
  // Re-reads free device memory (other processes and our own buffers change it). The bytes this
  // engine would free before allocating the input count as free.
  void refreshFreeMemory() {
    size_t freeB = 0, totalB = 0;
    if (cudaMemGetInfo(&freeB, &totalB) == cudaSuccess) dev_.freeMemBytes = int64_t(freeB + input_.bytes());
    else cudaGetLastError();
  }
  static constexpr unsigned long long kBlockTimeoutNs = 2000000000ull;  // 2 s

  // A CUDA graph of whatever `enqueue` puts on the stream (captured once, replayed per repetition).
  // Returns "" or the error; *exec is null on failure.
  template <class Enqueue>
  std::string captureGraph(Enqueue&& enqueue, cudaGraphExec_t* exec) {
    *exec = nullptr;
    cudaGraph_t graph = nullptr;
    cudaError_t e = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) {
      cudaGetLastError();
      return "cannot capture a CUDA graph: " + cudaText(e);
    }
    std::string err = enqueue();
    e = cudaStreamEndCapture(stream_, &graph);
    if (err.empty() && e != cudaSuccess) err = "capturing the CUDA graph failed: " + cudaText(e);
    if (err.empty() && (e = cudaGraphInstantiate(exec, graph, 0)) != cudaSuccess) {
      err = "cannot instantiate the CUDA graph: " + cudaText(e);
      *exec = nullptr;
    }
    if (graph) cudaGraphDestroy(graph);
    if (!err.empty()) cudaGetLastError();
    return err;
  }
  std::map<TimingMode, Stats> floors_;  // launchFloor, per mode
  std::optional<PolicyTable> policies_;  // read once
  std::optional<LaunchPolicy> forcedPolicy_;  // while tuning: the policy under test

  DeviceInfo dev_;
  int* hostFlags_ = nullptr;    // [0] release, [1] timed out
  int* deviceFlags_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr, e2_ = nullptr;
  DeviceBuffer input_, partialsA_, partialsB_, result_, counter_, flush_, cubTemp_, traceBuf_, matrixOut_;
  std::optional<InputKey> inputKey_;
  void* hostPartials_ = nullptr;
  size_t hostPartialsBytes_ = 0;
  size_t cubTempBytes_ = 0;
  const void* lastOut_ = nullptr;
  // auto's result in mapped pinned host memory: the host's address and the device's.
  void* mappedHost_ = nullptr;
  void* mappedDevice_ = nullptr;
  void* mappedOut_ = nullptr;  // set while launchAll writes the single-pass result there
  // auto's atomic finish: two accumulators (identity-filled for one operation and type) and
  // whose turn the next launch is.
  DeviceBuffer atomicAcc_;
  std::optional<std::pair<Op, ElemType>> atomicAccFor_;
  int atomicTurn_ = 0;
};

std::string CudaEngine::timeMappedResult(const KernelInfo& k, const RunConfig& c, const Geometry& g, const Value& kernelResult,
                                         float* ms) {
  cudaError_t e;
  if (!mappedHost_) {
    if ((e = cudaHostAlloc(&mappedHost_, 64, cudaHostAllocMapped)) != cudaSuccess) {
      mappedHost_ = nullptr;
      return "cannot allocate mapped pinned host memory for the result: " + cudaText(e);
    }
    if ((e = cudaHostGetDevicePointer(&mappedDevice_, mappedHost_, 0)) != cudaSuccess)
      return "cannot map the result's host memory: " + cudaText(e);
  }
  std::memset(mappedHost_, 0xff, 64);  // a stale value cannot pass for this run's (NaN, or -1)
  // An ordered finish writes its one value from one thread: straight into host memory. The atomic
  // finish accumulates in device memory; a one-warp kernel then copies the value across (a kernel
  // launch, not a copy-engine transfer: microseconds less).
  const bool atomic = g.final == FinalStage::Atomic;
  if (!c.warmL2) flushL2();
  const bool held = c.timing != TimingMode::Events && holdStream();
  cudaEventRecord(e0_, stream_);
  mappedOut_ = atomic ? nullptr : mappedDevice_;
  std::string err = launchAll(k, c, g, nullptr);
  mappedOut_ = nullptr;
  if (err.empty() && atomic) {
    copyResultBytes<<<1, 32, 0, stream_>>>(static_cast<const unsigned char*>(lastOut_),
                                           static_cast<unsigned char*>(mappedDevice_), int(elemBytes(c.accType())));
    if (cudaError_t le = cudaGetLastError(); le != cudaSuccess) err = "copying the result to host memory: " + cudaText(le);
  }
  cudaEventRecord(e2_, stream_);
  if (held) releaseStream();
  if (!err.empty()) return err;
  if ((e = cudaEventSynchronize(e2_)) != cudaSuccess) return cudaText(e);
  cudaEventElapsedTime(ms, e0_, e2_);
  const Value onHost = finishOnCpu(c.op, c.accType(), mappedHost_, 1);
  // Bit for bit where the order cannot change the value; an atomic float sum is its own run's sum.
  const bool orderFree = !(atomic && c.op == Op::Sum && !onHost.isInt);
  if (orderFree && (onHost.isInt != kernelResult.isInt ||
                    (onHost.isInt ? onHost.i != kernelResult.i
                                  : std::memcmp(&onHost.f, &kernelResult.f, sizeof onHost.f) != 0)))
    return "the result written to mapped host memory (" + onHost.text() + ") differs from the device's (" +
           kernelResult.text() + ")";
  if (!onHost.isInt && !std::isfinite(onHost.f) && std::isfinite(kernelResult.f))
    return "no result reached mapped host memory";
  return {};
}

uint64_t CudaEngine::residentBlocks(const KernelInfo& k, const RunConfig& c, size_t smem) {
  const KernelEntry* e = entry(k, c, c.type, false);
  int perSM = 0;
  if (!e || cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, e->func, c.block, smem) != cudaSuccess) {
    cudaGetLastError();
    perSM = std::max(1, dev_.maxThreadsPerSM / c.block);
  }
  return uint64_t(std::max(perSM, 1)) * uint64_t(dev_.smCount);
}

int CudaEngine::largestClusterFor(const KernelInfo& k, const RunConfig& c, size_t smem) {
  if (!k.policyTuned || dev_.ccMajor < 9) return 0;
  const auto key = std::make_tuple(int(c.op), int(c.type), int(c.accType()), c.block, smem);
  auto it = largestCluster_.find(key);
  if (it == largestCluster_.end()) {
    int largest = 0;
    if (const KernelEntry* e = entry(k, c, c.type, false)) {
      for (int size : {16, 8}) {
        cudaLaunchConfig_t cfg{};
        cfg.gridDim = dim3(unsigned(size));
        cfg.blockDim = dim3(unsigned(c.block));
        cfg.dynamicSmemBytes = smem;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = unsigned(size);
        attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, e->func, &cfg) == cudaSuccess && clusters > 0) {
          largest = size;
          break;
        }
        cudaGetLastError();
      }
    }
    it = largestCluster_.emplace(key, largest).first;
  }
  return it->second;
}

// The driver's answers to the launch plan's questions, for this engine's device.
class DriverLaunchFacts : public LaunchFacts {
 public:
  explicit DriverLaunchFacts(CudaEngine& e) : e_(e) {}
  int smCount() const override { return e_.dev_.smCount; }
  int ccMajor() const override { return e_.dev_.ccMajor; }
  int ccMinor() const override { return e_.dev_.ccMinor; }
  int residentPerSM(const KernelInfo& k, const RunConfig& c, size_t smem) override {
    return int(e_.residentBlocks(k, c, smem) / uint64_t(std::max(e_.dev_.smCount, 1)));
  }
  int largestCluster(const KernelInfo& k, const RunConfig& c, size_t smem) override {
    return e_.largestClusterFor(k, c, smem);
  }
  const PolicyTable& policies() override { return e_.policyTable(); }

 private:
  CudaEngine& e_;
};

std::string CudaEngine::plan(const RunConfig& c, const KernelInfo** kp, Geometry* g) {
  refreshFreeMemory();
  if (std::string err = validate(c, &dev_); !err.empty()) return err;
  const KernelInfo* k = findKernel(c.kernel);
  *kp = k;
  DriverLaunchFacts facts(*this);
  if (std::string err = planLaunch(c, facts, g, forcedPolicy_); !err.empty()) return err;
  if (k->id != KernelId::Cub && !entry(*k, c, c.type, false))
    return "no instantiation of kernel " + std::string(k->key) + " for this configuration";
  return {};
}

RunConfig CudaEngine::dispatched(const RunConfig& c) {
  if (forcedPolicy_) return c;  // tuning: the block under test, not the one the dispatch would pick
  DriverLaunchFacts facts(*this);
  return dispatchedConfig(c, facts);
}

Geometry CudaEngine::geometry(const RunConfig& c, std::string* error) {
  const KernelInfo* k = nullptr;
  Geometry g;
  std::string err = plan(c, &k, &g);
  if (error) *error = err;
  return g;
}

std::string CudaEngine::prepareInput(const RunConfig& c) {
  const uint64_t count = inputElements(c);  // N, or the matrices (matmul: A then B)
  const InputKey key{c.type, count, c.data, c.seed, c.rangeLo, c.rangeHi};
  if (inputKey_ && *inputKey_ == key) return {};
  inputKey_.reset();
  const size_t bytes = size_t(count) * elemBytes(c.type);
  if (bytes > input_.bytes()) input_.release();  // free first: the new buffer may need the room
  if (cudaError_t e = input_.reserve(bytes); e != cudaSuccess)
    return "cannot allocate " + std::to_string(bytes >> 20) + " MiB for the input: " + cudaText(e);
  const DataSpec spec = dataSpecOf(c);
  const unsigned grid = unsigned(std::min<uint64_t>((count + 255) / 256, uint64_t(dev_.smCount) * 32));
  withElemType(c.type, [&]<class T>(TypeTag<T>) {
    generateKernel<<<grid, 256, 0, stream_>>>(static_cast<T*>(input_.get()), count, spec);
  });
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess) return "input generation failed: " + cudaText(e);
  inputKey_ = key;
  return {};
}

std::string CudaEngine::prepareMatrixScratch(const RunConfig& c) {
  cudaError_t e;
  const KernelInfo& k = *findKernel(c.kernel);
  if ((e = matrixOut_.reserve(size_t(familyOf(k).outputElements(k, c)) * elemBytes(c.type))) != cudaSuccess ||
      (e = result_.reserve(32)) != cudaSuccess)
    return "cannot allocate the output matrix: " + cudaText(e);
  if (!c.warmL2 && !flush_.get()) {
    const size_t flushBytes = size_t(std::max<int64_t>(dev_.l2Bytes, 1 << 20)) * 2;
    if ((e = flush_.reserve(flushBytes)) != cudaSuccess) return "cannot allocate the L2 flush buffer";
    cudaMemsetAsync(flush_.get(), 0, flush_.bytes(), stream_);
  }
  return {};
}

std::string CudaEngine::timeMatrixWithTransfers(const KernelInfo& k, const RunConfig& c, Measurement* m,
                                                const std::function<bool()>& cancel) {
  const size_t inBytes = size_t(inputElements(c)) * elemBytes(c.type);
  const size_t outBytes = size_t(familyOf(k).outputElements(k, c)) * elemBytes(c.type);
  std::vector<unsigned char> hostIn, hostOut;  // pageable, as the seed's malloc
  if (inBytes + outBytes > (size_t(1) << 30)) {  // above 1 GiB of host copies: no end-to-end time
    m->endToEndMs.clear();
    m->endToEnd = {};
    return {};
  }
  try {
    hostIn.resize(inBytes);
    hostOut.resize(outBytes);
  } catch (const std::bad_alloc&) {
    m->endToEndMs.clear();  // no room on the host: no end-to-end time
    m->endToEnd = {};
    return {};
  }
  cudaError_t e = cudaMemcpyAsync(hostIn.data(), input_.get(), inBytes, cudaMemcpyDeviceToHost, stream_);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess) return "reading the input back failed: " + cudaText(e);
  std::vector<double> ms;
  for (int r = -1; r < c.reps; ++r) {  // -1: untimed, so the host buffers' first touch is not in a sample
    if (cancel && cancel()) return "cancelled";
    if (!c.warmL2) flushL2();
    cudaEventRecord(e0_, stream_);
    if ((e = cudaMemcpyAsync(input_.get(), hostIn.data(), inBytes, cudaMemcpyHostToDevice, stream_)) != cudaSuccess)
      return "sending the input failed: " + cudaText(e);
    if (std::string err = launchAll(k, c, m->geometry, nullptr); !err.empty()) return err;
    if ((e = cudaMemcpyAsync(hostOut.data(), matrixOut_.get(), outBytes, cudaMemcpyDeviceToHost, stream_)) != cudaSuccess)
      return "reading the output failed: " + cudaText(e);
    cudaEventRecord(e2_, stream_);
    if ((e = cudaEventSynchronize(e2_)) != cudaSuccess) return cudaText(e);
    float t = 0;
    cudaEventElapsedTime(&t, e0_, e2_);
    if (r >= 0) ms.push_back(t);
  }
  m->endToEndMs = ms;
  m->endToEnd = Stats::of(ms);
  return {};
}

std::string CudaEngine::checkMatrix(const RunConfig& c, Measurement* m, const std::function<bool()>& cancel) {
  const KernelInfo& k = *findKernel(c.kernel);
  std::vector<unsigned char> out(size_t(familyOf(k).outputElements(k, c)) * elemBytes(c.type));
  cudaError_t e = cudaMemcpyAsync(out.data(), matrixOut_.get(), out.size(), cudaMemcpyDeviceToHost, stream_);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
  if (e != cudaSuccess) return "reading the output matrix failed: " + cudaText(e);
  MatrixCheck mc = checkMatrixOutput(c, out.data(), cancel);
  if (mc.cancelled) return "cancelled";
  m->check = mc.check;
  m->haveReference = true;
  m->result.isInt = false;
  m->result.f = mc.checksum;
  return {};
}

std::string CudaEngine::prepareScratch(const RunConfig& c, const Geometry& g) {
  const size_t acc = elemBytes(c.accType());
  const size_t partialBytes = (size_t(g.grid()) + 1) * acc;
  cudaError_t e;
  if ((e = partialsA_.reserve(partialBytes)) != cudaSuccess ||
      (e = partialsB_.reserve(partialBytes)) != cudaSuccess || (e = result_.reserve(32)) != cudaSuccess)
    return "cannot allocate the partials: " + cudaText(e);
  if (std::string err = armCounter(); !err.empty()) return err;
  if (hostPartialsBytes_ < partialBytes) {
    if (hostPartials_) cudaFreeHost(hostPartials_);
    if ((e = cudaMallocHost(&hostPartials_, partialBytes)) != cudaSuccess) {
      hostPartials_ = nullptr;
      hostPartialsBytes_ = 0;
      return "cannot allocate pinned host memory: " + cudaText(e);
    }
    hostPartialsBytes_ = partialBytes;
  }
  if (g.final == FinalStage::Atomic && findKernel(c.kernel)->policyTuned &&
      atomicAccFor_ != std::pair{c.op, c.accType()}) {
    // Both accumulators hold the identity before the first atomic launch.
    if ((e = atomicAcc_.reserve(16)) != cudaSuccess) return "cannot allocate the accumulators: " + cudaText(e);
    unsigned char identity[16];
    withOp(c.op, [&]<class O>(TypeTag<O>) {
      withElemType(c.accType(), [&]<class T>(TypeTag<T>) {
        const T id = O::template identity<T>();
        std::memcpy(identity, &id, sizeof id);
        std::memcpy(identity + sizeof id, &id, sizeof id);
      });
    });
    if ((e = cudaMemcpy(atomicAcc_.get(), identity, 16, cudaMemcpyHostToDevice)) != cudaSuccess)
      return "cannot fill the accumulators: " + cudaText(e);
    atomicAccFor_ = std::pair{c.op, c.accType()};
    atomicTurn_ = 0;
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
  if (!familyOf(k).scalarResult()) {  // one launch of a 2-D grid writing a whole output
    const KernelEntry* e = entry(k, c, c.type, trace != nullptr);
    if (!e) return "missing instantiation of kernel " + std::string(k.key);
    LaunchArgs a;
    a.stream = stream_;
    a.in = input_.get();
    a.out = matrixOut_.get();
    a.gridX = g.gridX;
    a.gridY = g.gridY;
    a.blockX = g.blockX;
    a.blockY = g.blockY;
    a.block = g.block;
    a.grid = unsigned(g.grid());
    a.smemBytes = g.smemBytes;
    a.params = c.params;
    a.trace = trace;
    a.tracedBlock = unsigned(c.tracedBlock);
    if (cudaError_t err = e->launch(a); err != cudaSuccess) return "launch failed: " + cudaText(err);
    lastOut_ = matrixOut_.get();
    return {};
  }
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
    void* out = single ? (mappedOut_ ? mappedOut_ : result_.get()) : outs[p % 2];
    const KernelEntry* e = entry(k, c, p == 0 ? c.type : c.accType(), p == 0 && trace);
    if (!e) return "missing instantiation for pass " + std::to_string(p + 1);
    a.in = in;
    a.out = out;
    a.n = n;
    a.grid = unsigned(g.passGrids[p]);
    a.trace = p == 0 ? trace : nullptr;
    a.tracedBlock = unsigned(c.tracedBlock);
    a.partials = partialsA_.get();
    a.loadsInFlight = g.loadsInFlight;
    // k13's launch word: the hint in bits 0-7, the cluster's CTAs in bits 8-15
    // (kLaunchClusterShift in k13_tuned_single_pass.cuh).
    a.cacheHint = int(g.cacheHint);
    if (p == 0 && g.clusterCtas > 1) a.cacheHint |= g.clusterCtas << 8;
    if (g.final == FinalStage::Atomic && k.policyTuned) {
      // auto's atomic finish: two accumulators take turns, each launch resetting the other for
      // the next (both hold the identity from prepareScratch on), so no identity write is launched.
      char* acc = static_cast<char*>(atomicAcc_.get());
      const size_t slot = elemBytes(c.accType());
      a.out = acc + slot * atomicTurn_;
      a.partials = acc + slot * (1 - atomicTurn_);
      a.cacheHint |= 1 << 16;  // kLaunchAtomicFinish in k13_tuned_single_pass.cuh
      atomicTurn_ ^= 1;
    }
    a.programmaticDependent = p > 0 && g.programmaticDependentLaunch;
    if (cudaError_t err = e->launch(a); err != cudaSuccess)
      return "launch of pass " + std::to_string(p + 1) + " failed: " + cudaText(err);
    in = out;
    n = g.passGrids[p];
    lastOut_ = a.out;
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

Measurement CudaEngine::measure(const RunConfig& asked, const MeasureOptions& o) {
  const RunConfig c = dispatched(asked);  // auto: the block its dispatch chose
  Measurement m;
  m.config = c;
  const KernelInfo* k = nullptr;
  if (std::string err = plan(c, &k, &m.geometry); !err.empty()) {
    m.error = err;
    return m;
  }
  m.kernelName = std::string(k->name);
  std::string err;
  const bool matrix = !familyOf(*k).scalarResult();  // a whole output, checked here
  m.resources = resources(c, &err);
  if (err.empty()) err = prepareInput(c);
  if (err.empty()) err = matrix ? prepareMatrixScratch(c) : prepareScratch(c, m.geometry);
  if (!err.empty()) {
    m.error = err;
    return m;
  }
  auto fail = [&](std::string why) {
    m.error = std::move(why);
    recoverAfterFailure();  // k12's counter re-armed: the next run starts clean
    return m;
  };
  // Warm-up: module load, first-touch and clocks stay out of the numbers.
  for (int w = 0; w < c.warmup; ++w) {
    if (o.cancel && o.cancel()) return fail("cancelled");
    if (std::string e = launchAll(*k, c, m.geometry, nullptr); !e.empty()) return fail(e);
  }
  if (cudaError_t e = cudaStreamSynchronize(stream_); e != cudaSuccess) return fail(cudaText(e));
  // Graph timing: the whole reduction (every pass, k11's identity write) captured once.
  cudaGraphExec_t graph = nullptr;
  struct GraphGuard {
    cudaGraphExec_t* g;
    ~GraphGuard() { if (*g) cudaGraphExecDestroy(*g); }
  } graphGuard{&graph};
  if (c.timing == TimingMode::Graph)
    if (std::string e = captureGraph([&] { return launchAll(*k, c, m.geometry, nullptr); }, &graph); !e.empty())
      return fail(e);
  std::set<std::string> distinct;
  for (int r = 0; r < c.reps; ++r) {
    if (o.cancel && o.cancel()) return fail("cancelled");
    // Order on the stream: L2 flush, blocking kernel, start event, the reduction, end event.
    // The blocking kernel holds the start event back until the host has enqueued everything,
    // so the interval holds GPU work only, warm or cold. Events mode leaves it out: the
    // interval then also holds whatever the host takes to enqueue the launches.
    if (!c.warmL2) flushL2();
    const bool held = c.timing != TimingMode::Events && holdStream();
    cudaEventRecord(e0_, stream_);
    if (graph) {
      if (cudaError_t e = cudaGraphLaunch(graph, stream_); e != cudaSuccess) return fail("graph launch failed: " + cudaText(e));
    } else if (std::string e = launchAll(*k, c, m.geometry, nullptr); !e.empty()) {
      return fail(e);
    }
    cudaEventRecord(e1_, stream_);
    if (held) releaseStream();
    Value v;
    if (!matrix)  // a matrix's output is checked once, after the repetitions
      if (std::string e = readResult(c, *k, m.geometry, &v); !e.empty()) return fail(e);
    cudaEventRecord(e2_, stream_);  // after the copy and the CPU final loop
    if (cudaError_t e = cudaEventSynchronize(e2_); e != cudaSuccess) return fail(cudaText(e));
    float kms = 0, ems = 0;
    cudaEventElapsedTime(&kms, e0_, e1_);
    cudaEventElapsedTime(&ems, e0_, e2_);
    if (held && holdTimedOut()) ++m.enqueueTimeouts;  // enqueue may sit in this interval
    m.kernelMs.push_back(kms);
    m.endToEndMs.push_back(ems);
    m.result = v;
    if (!matrix) distinct.insert(v.isInt ? std::to_string(v.i) : [&] {
      char b[40];
      std::snprintf(b, sizeof b, "%.17g", v.f);
      return std::string(b);
    }());
    if (k->dispatches) {
      // auto's end to end: the same launch writing its one value straight into mapped pinned
      // host memory (no copy enqueued after it); the host reads it once the end event is done.
      if (std::string e = timeMappedResult(*k, c, m.geometry, v, &ems); !e.empty()) return fail(e);
      m.endToEndMs.back() = ems;
    }
    if (o.betweenRepetitions && r + 1 < c.reps) o.betweenRepetitions();  // outside the timed region
  }
  m.kernel = Stats::of(m.kernelMs);
  m.endToEnd = Stats::of(m.endToEndMs);
  m.launchFloorMs = launchFloor(c.timing).median;
  if (matrix) {
    if (std::string e = timeMatrixWithTransfers(*k, c, &m, o.cancel); !e.empty()) return fail(e);
    if (std::string e = checkMatrix(c, &m, o.cancel); !e.empty()) return fail(e);
    m.distinctResults = {m.result.text()};
    fillMatrixRates(m, peaks(false, {}), dev_);
    if (o.knownCpu) {
      m.cpu = *o.knownCpu;
    } else if (o.cpuBaseline) {
      m.cpu = cpuBaselineOf(c, c.reps, 3.0, cpuWorkOf(o, "CPU baseline"));
      if (m.cpu.cancelled) return fail("cancelled");
    }
    m.haveCpu = m.cpu.reps > 0;
    m.speedupVsCpu = m.haveCpu && m.endToEnd.median > 0 ? m.cpu.ms.median / m.endToEnd.median : 0;
    m.ok = true;
    return m;
  }
  m.distinctResults.assign(distinct.begin(), distinct.end());
  m.bytesRead = double(c.n) * double(elemBytes(c.type));
  m.bandwidthGBs = m.kernel.median > 0 ? m.bytesRead / (m.kernel.median * 1e-3) / 1e9 : 0;
  m.endToEndGBs = m.endToEnd.median > 0 ? m.bytesRead / (m.endToEnd.median * 1e-3) / 1e9 : 0;
  const Peaks pk = peaks(false, {});
  m.pctTheoretical = pk.theoreticalGBs > 0 ? 100.0 * m.bandwidthGBs / pk.theoreticalGBs : 0;
  m.pctMeasuredRead = pk.readGBs > 0 ? 100.0 * m.bandwidthGBs / pk.readGBs : 0;
  if (o.knownReference) {
    m.reference = *o.knownReference;
    m.haveReference = true;
    m.check = checkResult(c, m.result, m.reference, sequentialChainBound(*k, m.geometry, c.n));
  } else if (o.reference) {
    m.reference = computeReference(c, 0, cpuWorkOf(o, "exact reference"));  // cancellable: quitting stops it
    if (m.reference.cancelled) return fail("cancelled");
    m.haveReference = true;
    m.check = checkResult(c, m.result, m.reference, sequentialChainBound(*k, m.geometry, c.n));
  }
  if (o.knownCpu) {
    m.cpu = *o.knownCpu;
    m.haveCpu = m.cpu.reps > 0;
    m.speedupVsCpu = m.haveCpu && m.endToEnd.median > 0 ? m.cpu.ms.median / m.endToEnd.median : 0;
  } else if (o.cpuBaseline) {
    m.cpu = cpuBaselineOf(c, c.reps, 3.0, cpuWorkOf(o, "CPU baseline"));
    if (o.cancel && o.cancel()) return fail("cancelled");
    m.haveCpu = m.cpu.reps > 0;
    m.speedupVsCpu = m.haveCpu && m.endToEnd.median > 0 ? m.cpu.ms.median / m.endToEnd.median : 0;
  }
  m.ok = true;
  return m;
}

ResourceUsage CudaEngine::resources(const RunConfig& asked, std::string* error) {
  const RunConfig c = dispatched(asked);  // auto: the block its dispatch chose
  const KernelInfo* k = findKernel(c.kernel);
  if (!k) {
    if (error) *error = "unknown kernel";
    return {};
  }
  if (k->id == KernelId::Cub) return resourceUsage(c, dev_, nullptr);
  const KernelEntry* e = entry(*k, c, c.type, false);
  if (!e) {
    if (error) *error = "no instantiation for this configuration";
    return {};
  }
  cudaFuncAttributes attr{};
  if (cudaError_t err = cudaFuncGetAttributes(&attr, e->func); err != cudaSuccess) {
    cudaGetLastError();
    if (error) *error = "cudaFuncGetAttributes: " + cudaText(err);
    return {};
  }
  KernelAttributes a;
  a.registers = attr.numRegs;
  a.staticSmemBytes = int(attr.sharedSizeBytes);
  a.localBytes = int(attr.localSizeBytes);
  a.maxThreadsPerBlock = attr.maxThreadsPerBlock;
  int perSM = 0;
  const Geometry probe = planGeometry(*k, c, 1);
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, e->func, c.block, probe.smemBytes) == cudaSuccess)
    a.driverActiveBlocks = perSM;
  else
    cudaGetLastError();
  return resourceUsage(c, dev_, &a);  // the same computation as the GUI and the report
}

// Seed 000's launches: each measured as a run (its theoretical occupancy and time), then launched
// once more, untimed, under CUPTI's range profiler for the counter (cupti_occupancy.cu).
PitfallResult CudaEngine::runAchievedOccupancy(const PitfallRequest& r, const std::function<bool()>& cancel) {
  PitfallResult out = startPitfallResult(r, "GPU: " + dev_.name, true);
  if (!out.error.empty()) return out;
  MeasureOptions o;
  o.cpuBaseline = false;
  o.reference = false;
  o.cancel = cancel;
  for (AchievedRow row : achievedOccupancyRuns()) {
    if (cancel && cancel()) {
      out.error = "cancelled";
      return out;
    }
    const Measurement m = measure(row.config, o);
    if (!m.ok) {
      out.error = m.error == "cancelled" ? m.error : row.label + ": " + m.error;
      return out;
    }
    row.theoretical = m.resources.occupancy;
    row.kernelMs = m.kernel.median;
    const KernelInfo* k = nullptr;
    Geometry g;
    std::string err = plan(row.config, &k, &g);
    if (err.empty()) err = prepareInput(row.config);
    if (err.empty()) err = prepareScratch(row.config, g);
    if (err.empty())
      err = readAchievedOccupancy(dev_.ordinal, stream_, [&] { return launchAll(*k, row.config, g, nullptr); },
                                  &row.achieved);
    if (!err.empty()) {
      row.achieved = -1;
      row.counterError = err;
    }
    out.achieved.push_back(row);
  }
  out.ok = true;
  return out;
}

Stats CudaEngine::launchFloor(TimingMode mode) {
  if (auto it = floors_.find(mode); it != floors_.end()) return it->second;
  constexpr int kWarmup = 5, kLaunches = 50;
  auto enqueue = [&] {
    emptyKernel<<<1, 32, 0, stream_>>>();
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? std::string() : cudaText(e);
  };
  cudaGraphExec_t graph = nullptr;
  if (mode == TimingMode::Graph && !captureGraph(enqueue, &graph).empty()) return {};
  std::vector<double> ms;
  for (int r = 0; r < kWarmup + kLaunches; ++r) {
    const bool held = mode != TimingMode::Events && holdStream();
    cudaEventRecord(e0_, stream_);
    const bool launched = graph ? cudaGraphLaunch(graph, stream_) == cudaSuccess : enqueue().empty();
    cudaEventRecord(e1_, stream_);
    if (held) releaseStream();
    float t = 0;
    if (!launched || cudaEventSynchronize(e1_) != cudaSuccess || cudaEventElapsedTime(&t, e0_, e1_) != cudaSuccess) {
      recoverAfterFailure();
      ms.clear();
      break;
    }
    if (held && holdTimedOut()) continue;
    if (r >= kWarmup) ms.push_back(t);
  }
  if (graph) cudaGraphExecDestroy(graph);
  const Stats st = Stats::of(ms);
  if (st.count > 0) floors_[mode] = st;
  return st;
}

const PolicyTable& CudaEngine::policyTable() {
  if (!policies_) policies_ = storedPolicyTable(dev_.uuid, cudaVersionString(dev_.driverVersion));
  return *policies_;
}

PolicyTable CudaEngine::policies() { return policyTable(); }

std::string CudaEngine::tune(const TuneOptions& o, PolicyTable* out) {
  PolicyTable table;
  table.architecture = "sm_" + std::to_string(dev_.ccMajor) + std::to_string(dev_.ccMinor);
  table.deviceName = dev_.name;
  table.uuid = dev_.uuid;
  table.driver = cudaVersionString(dev_.driverVersion);
  struct Reset {
    std::optional<LaunchPolicy>* p;
    ~Reset() { p->reset(); }
  } reset{&forcedPolicy_};
  MeasureOptions mo;
  mo.cpuBaseline = false;
  mo.reference = false;
  mo.cancel = o.cancel;
  for (ElemType type : o.types)
    for (int lg : o.log2Sizes) {
      RunConfig c;
      c.kernel = "auto";  // k13's code; as auto, the plan may also take the atomic finish
      c.type = type;
      c.n = uint64_t(1) << lg;
      c.reps = o.reps;
      c.warmup = 2;
      c.data = DataPattern::IntRange;  // exact in every type: a wrong sum cannot hide in rounding
      c.rangeLo = -1000;
      c.rangeHi = 1000;
      if (!validate(c, &dev_).empty()) continue;  // does not fit: the largest measured N serves
      const Reference ref = computeReference(c, 0, CpuWork{o.cancel, {}});
      if (ref.cancelled) return "cancelled";
      mo.knownReference = &ref;
      for (int block : o.blocks) {
        c.block = block;
        const KernelInfo& k = *findKernel("auto");
        const Geometry probe = planGeometry(k, c, 1);
        const uint64_t resident = residentBlocks(k, c, probe.smemBytes);
        const int perSM = int(resident / uint64_t(std::max(dev_.smCount, 1)));
        const uint64_t cover = blocksToCover(k, c.n, c.block, c.type);
        std::optional<LaunchPolicy> best, bestOrdered;  // the fastest, and the fastest without the atomic finish
        std::set<std::tuple<uint64_t, int, bool>> tried;  // (grid, effective depth, atomic): equal launches once
        auto tryPolicy = [&](LaunchPolicy p) -> std::string {
          const uint64_t grid = policyGrid(p, cover, resident, dev_.smCount, perSM);
          const uint64_t perThread = (cover + grid - 1) / grid;  // vectors per thread
          if (p.gridCap != 1 && p.loadsInFlight > 1 && perThread < uint64_t(p.loadsInFlight))
            return {};  // runs as a shallower depth
          if (p.atomicFinish && grid <= 1) return {};  // one CTA has no finish to choose
          if (p.hint == CacheHint::None && !tried.insert({grid, p.loadsInFlight, p.atomicFinish}).second) return {};
          forcedPolicy_ = p;
          Measurement m = measure(c, mo);
          if (o.cancel && o.cancel()) return "cancelled";
          if (!m.ok) return "auto (k13's code) " + std::string(name(type)) + " 2^" + std::to_string(lg) + " block " +
                            std::to_string(block) + ": " + m.error;
          if (!m.check.pass)
            return "auto (k13's code) computed a wrong result with " + describePolicy(p) + " (" + std::string(name(type)) + " 2^" +
                   std::to_string(lg) + ", block " + std::to_string(block) + ")";
          p.medianUs = m.kernel.median * 1e3;
          if (!best || p.medianUs < best->medianUs) best = p;
          if (!p.atomicFinish && (!bestOrdered || p.medianUs < bestOrdered->medianUs)) bestOrdered = p;
          return {};
        };
        for (int depth : kPolicyLoadsInFlight)
          for (int ctas : kPolicyCtasPerSM)
            for (bool atomic : {false, true}) {
              LaunchPolicy p;
              p.loadsInFlight = depth;
              p.ctasPerSM = ctas;
              p.atomicFinish = atomic;
              if (std::string e = tryPolicy(p); !e.empty()) return e;
            }
        // One CTA with every load in flight at once, where each thread has few enough of them:
        // no finish at all (the shortest chain at small N).
        if (cover > 1 && cover <= kSingleCtaMaxVectorsPerThread) {
          LaunchPolicy p;
          p.gridCap = 1;
          p.loadsInFlight = cover <= 1 ? 1 : cover <= 2 ? 2 : cover <= 4 ? 4 : 8;
          if (std::string e = tryPolicy(p); !e.empty()) return e;
        }
        for (int pass = 0; pass < 2; ++pass) {  // the hints on the fastest, then on the fastest ordered
          const std::optional<LaunchPolicy> base = pass == 0 ? best : bestOrdered;
          if (!base || (pass == 1 && !best->atomicFinish)) continue;
          for (CacheHint h : {CacheHint::NoAllocate, CacheHint::EvictFirst, CacheHint::Prefetch256}) {
            LaunchPolicy p = *base;
            p.hint = h;
            if (std::string e = tryPolicy(p); !e.empty()) return e;
          }
        }
        if (!best) continue;
        table.entries[{type, block, lg}] = *best;
        if (best->atomicFinish && bestOrdered) table.orderedEntries[{type, block, lg}] = *bestOrdered;
        if (o.progress)
          o.progress(std::string(name(type)) + " 2^" + std::to_string(lg) + " block " + std::to_string(block) + ": " +
                     describePolicy(*best) + ", " + std::to_string(best->medianUs).substr(0, 7) + " us");
      }
    }
  if (table.empty()) return "nothing could be measured";
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", std::localtime(&now));
  table.date = date;
  // Stored beside the peaks, one entry per device; other devices' entries are kept.
  const std::filesystem::path file = userConfigDir() / "policies.json";
  nlohmann::json cache = nlohmann::json::object();
  {
    std::ifstream in(file);
    if (in) {
      cache = nlohmann::json::parse(in, nullptr, false);
      if (!cache.is_object()) cache = nlohmann::json::object();
    }
  }
  cache[dev_.uuid] = policyTableJson(table);
  std::error_code ec;
  std::filesystem::create_directories(userConfigDir(), ec);
  if (std::string e = writeTextAtomic(file.string(), cache.dump(2)); !e.empty()) return e;
  policies_ = table;
  *out = std::move(table);
  return {};
}

TraceRun CudaEngine::runTraced(const RunConfig& asked, void* traceBuffer, size_t traceBytes) {
  const RunConfig c = dispatched(asked);  // auto: the block its dispatch chose
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
  const bool matrix = !familyOf(*k).scalarResult();
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
  else if (std::string e2 = matrix ? prepareMatrixScratch(c) : prepareScratch(c, t.geometry); !e2.empty())
    t.error = e2;
  if (!t.error.empty()) return t;
  cudaMemsetAsync(traceBuffer, 0, trace::bufferBytes(unsigned(c.block)), stream_);
  if (std::string e = launchAll(*k, c, t.geometry, static_cast<trace::TraceHeader*>(traceBuffer));
      !e.empty()) {
    t.error = e;
    recoverAfterFailure();
    return t;
  }
  if (matrix) {
    if (cudaError_t e = cudaStreamSynchronize(stream_); e != cudaSuccess) {
      t.error = "the traced launch failed: " + cudaText(e);
      recoverAfterFailure();
      return t;
    }
  } else if (std::string e = readResult(c, *k, t.geometry, &t.result); !e.empty()) {
    t.error = e;
    recoverAfterFailure();
    return t;
  }
  t.ok = true;
  return t;
}

InstrumentedRun CudaEngine::runInstrumented(const RunConfig& asked, uint32_t capacity) {
  const RunConfig c = dispatched(asked);  // auto: the block its dispatch chose
  InstrumentedRun out;
  TraceRun& t = out.run;
  const KernelInfo* k = nullptr;
  if (std::string err = plan(c, &k, &t.geometry); !err.empty()) {
    t.error = err;
    return out;
  }
  if (!familyOf(*k).scalarResult()) {
    t.error = "instrumented traces cover the reductions and CUB; " + std::string(k->key) + " has its traced twin";
    return out;
  }
  const bool cub = k->id == KernelId::Cub;
  if (!cub && c.tracedBlock >= t.geometry.grid()) {  // CUB's grid is CUB's: the tracer checks it
    t.error = "block " + std::to_string(c.tracedBlock) + " does not exist: the grid has " +
              std::to_string(t.geometry.grid()) + " blocks";
    return out;
  }
  if (std::string e = prepareInput(c); !e.empty()) t.error = e;
  else if (std::string e2 = prepareScratch(c, t.geometry); !e2.empty()) t.error = e2;
  if (!t.error.empty()) return out;
  // Which launch: the first pass's untraced kernel (k11 writes the identity first), or CUB's first.
  instrumented::ArmRequest req;
  req.tracedBlock = uint32_t(c.tracedBlock);
  req.capacity = capacity;
  req.blockThreads = cub ? 0 : uint32_t(t.geometry.block);
  if (cub) {
    req.nameContains = "DeviceReduce";
  } else {
    const KernelEntry* e = entry(*k, c, c.type, false);
    const char* fname = nullptr;
    if (!e || cudaFuncGetName(&fname, e->func) != cudaSuccess || !fname) {
      cudaGetLastError();
      t.error = "cannot name the kernel of " + std::string(k->key) + " to trace";
      return out;
    }
    req.functionName = fname;
  }
  // Once unarmed first, observed: the tracer learns which module the launch comes from (and every
  // kernel of the reduction is loaded) before it patches that module.
  if (std::string e = instrumented::observe(req); !e.empty()) {
    t.error = e;
    return out;
  }
  std::string warmup = launchAll(*k, c, t.geometry, nullptr);
  if (cudaError_t e = cudaStreamSynchronize(stream_); warmup.empty() && e != cudaSuccess)
    warmup = "the reduction failed before tracing: " + cudaText(e);
  if (!warmup.empty()) {
    std::string ignored;
    instrumented::finish(&ignored);  // stops observing
    t.error = warmup;
    recoverAfterFailure();
    return out;
  }
  if (std::string e = instrumented::arm(req); !e.empty()) {
    t.error = e;
    return out;
  }
  std::string err = launchAll(*k, c, t.geometry, nullptr);
  if (err.empty()) err = readResult(c, *k, t.geometry, &t.result);
  std::string traceErr;
  out.raw = instrumented::finish(&traceErr);  // always: the module unpatched, the tracer disarmed
  if (!err.empty() || !traceErr.empty()) {
    t.error = !err.empty() ? err : traceErr;
    // A fault of the patched launch is sticky: this process can run nothing more. Said as such,
    // so that what follows (another kernel, the hand-placed twin) is not blamed for it.
    if (const cudaError_t sticky = cudaDeviceSynchronize(); sticky != cudaSuccess)
      t.error = "the patched (instrumented) launch of " + std::string(k->key) + " (" + req.functionName +
                req.nameContains + ") faulted: " + cudaText(sticky) + "; this process's CUDA context is lost and " +
                "can run nothing more (docs/instrumented-traces.md, \"When a patched launch faults\")";
    recoverAfterFailure();
    return out;
  }
  // Where the arrays lie. The first pass writes its partials (k12-k14: the partials array, k11:
  // the result) where the hand-placed tracer's storeOutput counts its offsets from.
  instrumented::ConvertOptions& o = out.convert;
  o.input = {reinterpret_cast<uint64_t>(input_.get()), c.n * elemBytes(c.type)};
  const bool atomicFinal = t.geometry.final == FinalStage::Atomic;
  const DeviceBuffer& firstOut = cub ? (out.raw.gridBlocks() > 1 ? cubTemp_ : result_) : atomicFinal ? result_ : partialsA_;
  o.output = {reinterpret_cast<uint64_t>(firstOut.get()), firstOut.bytes()};
  o.n = c.n;
  o.elemType = c.type;
  o.accType = c.accType();
  // The catalogue's kernels index their dynamic shared array (after the static __shared__
  // variables, 16-byte aligned) as the hand-placed tracer counts offsets; CUB from the window.
  o.sharedOrigin = cub ? -1 : int64_t(out.raw.reservedSharedBytes) + (int64_t(out.raw.staticSharedBytes) + 15) / 16 * 16;
  t.ok = true;
  return out;
}

std::vector<double> CudaEngine::readInput(const RunConfig& c, uint64_t first, uint64_t count) {
  std::vector<double> out;
  const uint64_t total = inputElements(c);
  if (!prepareInput(c).empty() || first >= total) return out;
  count = std::min(count, total - first);
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

std::vector<double> CudaEngine::readMatrixOutput(const RunConfig& c, uint64_t first, uint64_t count) {
  std::vector<double> out;
  const KernelInfo* k = findKernel(c.kernel);
  const uint64_t total = k ? familyOf(*k).outputElements(*k, c) : 0;
  const size_t eb = elemBytes(c.type);
  if (first >= total || matrixOut_.bytes() < total * eb) return out;
  count = std::min(count, total - first);
  std::vector<unsigned char> raw(count * eb);
  if (cudaMemcpy(raw.data(), static_cast<char*>(matrixOut_.get()) + first * eb, raw.size(), cudaMemcpyDeviceToHost) !=
      cudaSuccess) {
    cudaGetLastError();
    return out;
  }
  for (uint64_t i = 0; i < count; ++i)
    withElemType(c.type, [&]<class T>(TypeTag<T>) {
      T v;
      std::memcpy(&v, raw.data() + i * eb, sizeof v);
      out.push_back(double(v));
    });
  return out;
}

namespace {
// The memory clock now, from NVML when the driver provides it (loaded at run time: no link-time
// dependency, nothing where it is absent). 0 when unknown.
int nvmlClockMHz(const std::string& uuid, int clockType /* 1: SM, 2: memory */) {
  using InitFn = int (*)();
  using HandleFn = int (*)(const char*, void**);
  using ClockFn = int (*)(void*, int, unsigned*);
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 0;
  int mhz = 0;
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto handle = reinterpret_cast<HandleFn>(dlsym(lib, "nvmlDeviceGetHandleByUUID"));
  auto clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(lib, "nvmlShutdown"));
  if (init && handle && clock && shutdown && init() == 0) {
    void* dev = nullptr;
    unsigned v = 0;
    if (handle(uuid.c_str(), &dev) == 0 && clock(dev, clockType, &v) == 0) mhz = int(v);
    shutdown();
  }
  dlclose(lib);
  return mhz;
}

nlohmann::json spreadJson(const Stats& s, double bytes, double factor) {
  auto gbs = [&](double ms) { return ms > 0 ? factor * bytes / (ms * 1e-3) / 1e9 : 0.0; };
  // The fastest repetition is the highest bandwidth.
  return {{"median_gbs", gbs(s.median)}, {"min_gbs", gbs(s.max)}, {"max_gbs", gbs(s.min)}};
}
}  // namespace

Peaks CudaEngine::peaks(bool remeasure, const std::function<bool()>& cancel) {
  static std::mutex memoMutex;
  static std::map<std::string, Peaks> memo;  // per process, per device
  std::lock_guard<std::mutex> lock(memoMutex);
  Peaks p;
  p.theoreticalGBs = dev_.theoreticalPeakGBs();
  if (!remeasure)
    if (auto it = memo.find(dev_.uuid); it != memo.end()) return it->second;
  const std::filesystem::path file = userConfigDir() / "peaks.json";
  const std::string driver = cudaVersionString(dev_.driverVersion);
  const size_t minBytes = size_t(std::max<int64_t>(dev_.l2Bytes, 1 << 20)) * kPeakBufferL2Multiple;
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
    // Only entries taken on a buffer of at least 8 x L2 by this driver count.
    if (e.is_object() && e.value("driver", "") == driver && e.value("bytes", 0.0) >= double(minBytes) &&
        e.contains("read") && e["read"].is_object() && e["read"].value("median_gbs", 0.0) > 0) {
      p.readGBs = e["read"].value("median_gbs", 0.0);
      p.readMinGBs = e["read"].value("min_gbs", 0.0);
      p.readMaxGBs = e["read"].value("max_gbs", 0.0);
      if (e.contains("copy") && e["copy"].is_object()) {
        p.copyGBs = e["copy"].value("median_gbs", 0.0);
        p.copyMinGBs = e["copy"].value("min_gbs", 0.0);
        p.copyMaxGBs = e["copy"].value("max_gbs", 0.0);
      }
      p.bufferBytes = e.value("bytes", 0.0);
      p.smClockMHz = e.value("sm_clock_mhz", 0);
      p.memClockMHz = e.value("mem_clock_mhz", 0);
      p.source = "cached " + e.value("date", std::string("?")) + " (" + file.string() + ")";
      memo[dev_.uuid] = p;
      return p;
    }
  }
  // Two buffers (the copy's source and destination) of 2 GiB, or as much as a quarter of the
  // free memory allows, never below 8 x L2: a smaller buffer would partly be read from L2.
  refreshFreeMemory();
  size_t bytes = std::max(minBytes, size_t(2) << 30);
  if (dev_.freeMemBytes > 0) bytes = std::min(bytes, size_t(dev_.freeMemBytes / 4) & ~size_t(255));
  if (bytes < minBytes) {
    p.source = "not measured: the peaks need two buffers of " + std::to_string(minBytes >> 20) + " MiB (" +
               std::to_string(kPeakBufferL2Multiple) + " x L2) and " + std::to_string(dev_.freeMemBytes >> 20) +
               " MiB of device memory are free";
    return p;
  }
  DeviceBuffer a, b, sink;
  if (a.reserve(bytes) != cudaSuccess || b.reserve(bytes) != cudaSuccess || sink.reserve(16) != cudaSuccess) {
    p.source = "not measured: cannot allocate two buffers of " + std::to_string(bytes >> 20) + " MiB";
    return p;
  }
  cudaMemsetAsync(a.get(), 1, bytes, stream_);
  int perSM = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, readStreamKernel, 512, 0);
  const unsigned grid = unsigned(std::max(perSM, 1) * dev_.smCount);
  bool cancelled = false;
  auto timeIt = [&](auto&& body) {
    std::vector<double> ms;
    for (int r = 0; r < 23 && !cancelled; ++r) {
      if (cancel && cancel()) {
        cancelled = true;
        break;
      }
      const bool held = holdStream();  // as in measure(): enqueue cost stays out
      cudaEventRecord(e0_, stream_);
      body();
      cudaEventRecord(e1_, stream_);
      releaseStream();
      cudaEventSynchronize(e1_);
      float t = 0;
      cudaEventElapsedTime(&t, e0_, e1_);
      if (held && holdTimedOut()) continue;
      if (r >= 3) ms.push_back(t);  // 3 warm-up runs
    }
    return Stats::of(ms);
  };
  const Stats readMs = timeIt([&] {
    readStreamKernel<<<grid, 512, 0, stream_>>>(static_cast<const int4*>(a.get()), bytes / 16,
                                                 static_cast<int*>(sink.get()));
  });
  // The clocks right after the read load: SM clock from the device itself, memory from NVML.
  DeviceBuffer clockOut;
  unsigned long long clocks[2] = {0, 0};
  if (!cancelled && clockOut.reserve(16) == cudaSuccess) {
    smClockKernel<<<1, 1, 0, stream_>>>(2000000ull, static_cast<unsigned long long*>(clockOut.get()));
    if (cudaMemcpyAsync(clocks, clockOut.get(), 16, cudaMemcpyDeviceToHost, stream_) != cudaSuccess ||
        cudaStreamSynchronize(stream_) != cudaSuccess)
      clocks[0] = clocks[1] = 0;
  }
  p.memClockMHz = nvmlClockMHz(dev_.uuid, 2);
  const Stats copyMs = timeIt([&] { cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream_); });
  if (cancelled) {
    cudaStreamSynchronize(stream_);
    cudaGetLastError();
    p.source = "not measured (cancelled)";
    return p;
  }
  if (cudaGetLastError() != cudaSuccess || readMs.median <= 0 || copyMs.median <= 0) {
    p.source = "not measured (CUDA error)";
    return p;
  }
  const nlohmann::json read = spreadJson(readMs, double(bytes), 1.0);
  const nlohmann::json copy = spreadJson(copyMs, double(bytes), 2.0);  // (read + write) / time
  p.readGBs = read["median_gbs"];
  p.readMinGBs = read["min_gbs"];
  p.readMaxGBs = read["max_gbs"];
  p.copyGBs = copy["median_gbs"];
  p.copyMinGBs = copy["min_gbs"];
  p.copyMaxGBs = copy["max_gbs"];
  p.bufferBytes = double(bytes);
  p.smClockMHz = clocks[1] > 0 ? int(double(clocks[0]) * 1e3 / double(clocks[1]) + 0.5) : 0;
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", std::localtime(&now));
  p.source = "measured now";
  cache[dev_.uuid] = {{"name", dev_.name}, {"driver", driver}, {"date", date}, {"bytes", bytes},
                      {"l2_bytes", dev_.l2Bytes}, {"read", read}, {"copy", copy},
                      {"sm_clock_mhz", p.smClockMHz}, {"mem_clock_mhz", p.memClockMHz},
                      {"repetitions", readMs.count}};
  std::error_code ec;
  std::filesystem::create_directories(userConfigDir(), ec);
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
