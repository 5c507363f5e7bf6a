// The worker's launches of a user's kernel (worker.hpp): the cubin loaded through the runtime's
// library API, input generated on the device (datagen.hpp), every buffer inside guard zones,
// the passes of the plan, the final stage, and each failure named in one sentence. Runs only in
// the worker process: a fault here poisons this process's context, never the app's.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "reducelab/cuda_device.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/instrumented.hpp"
#include "reducelab/instrumented_hazards.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/type_dispatch.hpp"
#include "reducelab/usercode/worker.hpp"
#include "../cuda/timing_kernels.cuh"

namespace rl::usercode {
namespace {

// Guard zones: 0x7F bytes read as a huge number (float 3.4e38, int32 2139062143), so a kernel that
// reads past its input usually gets a visibly wrong sum or maximum as well.
constexpr size_t kGuardBytes = 4096;
constexpr unsigned char kGuardByte = kFillByte;

std::string cudaText(cudaError_t e) { return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")"; }

// Errors after which the context cannot be used again.
bool sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
      return true;
    default: return false;
  }
}

std::string faultText(cudaError_t e) {
  std::string what;
  switch (e) {
    case cudaErrorIllegalAddress:
      what = "illegal memory access: the kernel read or wrote an address outside every buffer (an index past the "
             "end, or a wrong pointer)";
      break;
    case cudaErrorIllegalInstruction:
      what = "illegal instruction: the kernel executed __trap() or an instruction this GPU cannot run";
      break;
    case cudaErrorLaunchFailure:
      what = "the kernel stopped with an unspecified launch failure: __trap(), or a fault the GPU does not name";
      break;
    case cudaErrorAssert: what = "a device-side assert() failed in the kernel"; break;
    case cudaErrorMisalignedAddress:
      what = "misaligned address: a load or store at an address that is not a multiple of its size (a float4 or "
             "double through a pointer that is not aligned for it)";
      break;
    case cudaErrorHardwareStackError:
      what = "hardware stack error: the kernel overflowed its stack (deep recursion or large local arrays)";
      break;
    case cudaErrorInvalidPc: what = "invalid program counter: the kernel jumped to an address that is no code"; break;
    case cudaErrorInvalidAddressSpace:
      what = "invalid address space: an instruction used a pointer of the wrong memory space";
      break;
    case cudaErrorLaunchTimeout: what = "the kernel ran past the display driver's time limit"; break;
    default: what = "the kernel failed"; break;
  }
  return what + " [" + cudaGetErrorName(e) + "]";
}

std::string bytesText(uint64_t b) { return formatBytes(b); }

// A device allocation of `bytes` with a guard zone on each side, all filled with kGuardByte.
class GuardedBuffer {
 public:
  GuardedBuffer(std::string name, int elemBytes) : name_(std::move(name)), elemBytes_(elemBytes) {}
  GuardedBuffer(const GuardedBuffer&) = delete;
  ~GuardedBuffer() {
    if (base_) cudaFree(base_);
  }
  cudaError_t allocate(size_t bytes, cudaStream_t s) {
    bytes_ = bytes;
    cudaError_t e = cudaMalloc(&base_, bytes + 2 * kGuardBytes);
    if (e != cudaSuccess) {
      base_ = nullptr;
      return e;
    }
    return cudaMemsetAsync(base_, kGuardByte, bytes + 2 * kGuardBytes, s);
  }
  void* data() const { return base_ + kGuardBytes; }
  size_t bytes() const { return bytes_; }
  // The guard bytes that changed, as findings (one per side).
  cudaError_t check(std::vector<GuardFinding>* out) const {
    std::vector<unsigned char> before(kGuardBytes), after(kGuardBytes);
    cudaError_t e = cudaMemcpy(before.data(), base_, kGuardBytes, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(after.data(), base_ + kGuardBytes + bytes_, kGuardBytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return e;
    auto scan = [&](const std::vector<unsigned char>& g, int64_t origin) {
      GuardFinding f;
      f.buffer = name_;
      f.bufferBytes = bytes_;
      f.elemBytes = elemBytes_;
      for (size_t i = 0; i < g.size(); ++i) {
        if (g[i] == kGuardByte) continue;
        const int64_t at = origin + int64_t(i);
        if (f.bytesChanged == 0) f.firstOffset = at;
        f.lastOffset = at;
        ++f.bytesChanged;
      }
      if (f.bytesChanged > 0) out->push_back(f);
    };
    scan(before, -int64_t(kGuardBytes));
    scan(after, int64_t(bytes_));
    return cudaSuccess;
  }

 private:
  std::string name_;
  int elemBytes_;
  char* base_ = nullptr;
  size_t bytes_ = 0;
};

template <class T>
__global__ void generateInput(T* out, uint64_t n, DataSpec spec) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = generateElement<T>(spec, i);
}

// Counts the input elements that no longer hold what was generated (bit for bit).
template <class T>
__global__ void compareInput(const T* in, uint64_t n, DataSpec spec, unsigned long long* changed,
                             unsigned long long* first) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    const T want = generateElement<T>(spec, i), got = in[i];
    unsigned long long a = 0, b = 0;
    memcpy(&a, &want, sizeof(T));
    memcpy(&b, &got, sizeof(T));
    if (a != b) {
      atomicAdd(changed, 1ull);
      atomicMin(first, (unsigned long long)i);
    }
  }
}

// The loaded cubin, kept while requests bring the same one.
struct LoadedLibrary {
  std::vector<uint8_t> cubin;
  cudaLibrary_t library = nullptr;
};
LoadedLibrary& loaded() {
  static LoadedLibrary l;
  return l;
}

cudaStream_t stream() {
  static cudaStream_t s = [] {
    cudaStream_t x = nullptr;
    cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
    return x;
  }();
  return s;
}

int deviceAttribute(cudaDeviceAttr a) {
  int v = 0;
  cudaDeviceGetAttribute(&v, a, 0);
  return v;
}

RunOutcome failed(RunOutcome::Status s, std::string message, bool contextLost = false) {
  RunOutcome o;
  o.status = s;
  o.message = std::move(message);
  o.contextLost = contextLost;
  return o;
}

// A CUDA error after the kernel ran: a fault (the context is lost) or our own failure.
RunOutcome afterRun(cudaError_t e, const std::string& during) {
  if (sticky(e)) return failed(RunOutcome::Status::Fault, faultText(e), true);
  return failed(RunOutcome::Status::WorkerError, during + ": " + cudaText(e));
}

// The CPU's share of the final: VALUES partials of the run's type combined by its operation; the
// result's bytes in the low bytes.
uint64_t combineOnHost(const RunRequest& r, const std::vector<unsigned char>& host, uint64_t values) {
  uint64_t bits = 0;
  withElemType(r.type, [&]<class T>(TypeTag<T>) {
    withOp(r.op, [&]<class O>(TypeTag<O>) {
      T acc;
      std::memcpy(&acc, host.data(), sizeof(T));
      for (uint64_t i = 1; i < values; ++i) {
        T v;
        std::memcpy(&v, host.data() + i * sizeof(T), sizeof(T));
        acc = O()(acc, v);
      }
      std::memcpy(&bits, &acc, sizeof(T));
    });
  });
  return bits;
}

// The repetitions of a timing request, as the engine times ours (engine.cu, measure): warm-ups,
// then per repetition the L2 flush, the stream held by a kernel until every launch is enqueued,
// the start event, the launches (with the atomic final's identity write, as k11's), the end event.
// End to end as the engine's: to an event recorded after the result's copy to the host and the
// CPU's loop over the partials (a CPU final). The result was checked before; these runs are for time only.
std::string timeLaunches(const RunRequest& r, const void* fn, const void* input, const std::vector<void*>& outputs,
                         cudaStream_t s, RunOutcome* o) {
  const LaunchPlan& plan = r.plan;
  const int eb = int(elemBytes(r.type));
  std::vector<unsigned char> identity(size_t(eb), 0);
  withElemType(r.type, [&]<class T>(TypeTag<T>) {
    const T id = withOp(r.op, [&]<class O>(TypeTag<O>) { return O::template identity<T>(); });
    std::memcpy(identity.data(), &id, sizeof(T));
  });
  auto launchAll = [&]() -> cudaError_t {
    if (plan.zeroedOutput)  // the host's cudaMemset of each output, timed with the launches as it runs with them
      for (size_t p = 0; p < plan.passes.size(); ++p)
        if (cudaError_t e = cudaMemsetAsync(outputs[p], 0, size_t(plan.final == UserFinal::Atomic ? 1 : plan.passes[p].grid) * size_t(eb), s);
            e != cudaSuccess)
          return e;
    if (plan.final == UserFinal::Atomic)
      if (cudaError_t e = cudaMemcpyAsync(outputs.front(), identity.data(), identity.size(), cudaMemcpyHostToDevice, s); e != cudaSuccess)
        return e;
    for (size_t p = 0; p < plan.passes.size(); ++p) {
      const void* in = p == 0 ? input : outputs[p - 1];
      void* out = outputs[p];
      uint32_t n32 = uint32_t(plan.passes[p].n);
      uint64_t n64 = plan.passes[p].n;
      void* args[] = {&in, &out, r.nBytes == 4 ? static_cast<void*>(&n32) : static_cast<void*>(&n64)};
      if (cudaError_t e = cudaLaunchKernel(fn, dim3(unsigned(plan.passes[p].grid)), dim3(unsigned(plan.block)), args,
                                           size_t(plan.dynamicSharedBytes), s);
          e != cudaSuccess)
        return e;
    }
    return cudaSuccess;
  };
  // The flush buffer (twice the L2, read, so L2 holds only clean lines) and the hold's flags.
  void* flush = nullptr;
  int* sink = nullptr;
  int* hostFlags = nullptr;
  int* deviceFlags = nullptr;
  struct Free {
    void*& flush; int*& sink; int*& hostFlags;
    ~Free() { if (flush) cudaFree(flush); if (sink) cudaFree(sink); if (hostFlags) cudaFreeHost(hostFlags); }
  } freeAll{flush, sink, hostFlags};
  const size_t flushBytes = size_t(std::max(deviceAttribute(cudaDevAttrL2CacheSize), 1 << 20)) * 2;
  if (!r.warmL2) {
    if (cudaError_t e = cudaMalloc(&flush, flushBytes); e != cudaSuccess) return "cannot allocate the L2 flush buffer: " + cudaText(e);
    cudaMemsetAsync(flush, 0, flushBytes, s);
  }
  if (cudaError_t e = cudaMalloc(&sink, 8 * sizeof(int)); e != cudaSuccess) return "cannot allocate: " + cudaText(e);
  if (cudaHostAlloc(reinterpret_cast<void**>(&hostFlags), 2 * sizeof(int), cudaHostAllocMapped) != cudaSuccess ||
      cudaHostGetDevicePointer(reinterpret_cast<void**>(&deviceFlags), hostFlags, 0) != cudaSuccess) {
    cudaGetLastError();
    return "cannot map the flags that hold the stream";
  }
  cudaEvent_t e0 = nullptr, e1 = nullptr, e2 = nullptr;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventCreate(&e2);
  const std::unique_ptr<CUevent_st, decltype(&cudaEventDestroy)> e0Owner(e0, &cudaEventDestroy), e1Owner(e1, &cudaEventDestroy),
      e2Owner(e2, &cudaEventDestroy);
  const uint64_t values = plan.final == UserFinal::Cpu ? plan.cpuValues : 1;
  std::vector<unsigned char> host(size_t(values) * size_t(eb));
  for (int w = 0; w < r.timedWarmups; ++w)
    if (cudaError_t e = launchAll(); e != cudaSuccess) return "a warm-up launch failed: " + cudaText(e);
  if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) return "a warm-up run failed: " + cudaText(e);
  const int sms = deviceAttribute(cudaDevAttrMultiProcessorCount);
  for (int rep = 0; rep < r.timedReps; ++rep) {
    if (!r.warmL2)
      timing::readStreamKernel<<<sms * 4, 512, 0, s>>>(static_cast<const int4*>(flush), flushBytes / 16, sink);
    __atomic_store_n(&hostFlags[0], 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&hostFlags[1], 0, __ATOMIC_SEQ_CST);
    timing::blockStreamKernel<<<1, 1, 0, s>>>(deviceFlags, 2000000000ull, deviceFlags + 1);
    cudaEventRecord(e0, s);
    const cudaError_t launched = launchAll();
    cudaEventRecord(e1, s);
    __atomic_store_n(&hostFlags[0], 1, __ATOMIC_SEQ_CST);
    if (launched != cudaSuccess) {
      cudaStreamSynchronize(s);
      return "a timed launch failed: " + cudaText(launched);
    }
    // The result to the host and the CPU's share of the final, then the end-to-end event.
    if (cudaError_t e = cudaMemcpyAsync(host.data(), outputs.back(), host.size(), cudaMemcpyDeviceToHost, s); e != cudaSuccess)
      return "copying the result: " + cudaText(e);
    if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) return "a timed run failed: " + cudaText(e);
    volatile uint64_t keep = combineOnHost(r, host, values);  // the loop is part of the time: not optimised away
    (void)keep;
    cudaEventRecord(e2, s);
    if (cudaError_t e = cudaEventSynchronize(e2); e != cudaSuccess) return "a timed run failed: " + cudaText(e);
    float ms = 0, e2eMs = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventElapsedTime(&e2eMs, e0, e2);
    o->repMs.push_back(ms);
    o->repEndToEndMs.push_back(e2eMs);
    if (__atomic_load_n(&hostFlags[1], __ATOMIC_SEQ_CST) != 0) ++o->enqueueTimeouts;
  }
  return {};
}

}  // namespace

DeviceInfo workerDevice() {
  DeviceInfo d = queryDevice(0);
  if (!d.available) return d;
  cudaError_t e = cudaSetDevice(d.ordinal);
  if (e == cudaSuccess) e = cudaFree(nullptr);  // creates the context now, not during the first run
  if (e != cudaSuccess) {
    d.available = false;
    d.unavailableReason = "the GPU's context could not be created: " + cudaText(e);
  }
  return d;
}

RunOutcome runOnGpu(const RunRequest& r, const std::vector<uint8_t>& cubin) {
  const int eb = int(elemBytes(r.type));
  const LaunchPlan& plan = r.plan;
  cudaStream_t s = stream();

  // The kernel: its cubin loaded once for as long as it does not change.
  LoadedLibrary& lib = loaded();
  if (!lib.library || lib.cubin != cubin) {
    if (lib.library) cudaLibraryUnload(lib.library);
    lib = LoadedLibrary{};
    cudaLibrary_t l = nullptr;
    const cudaError_t e = cudaLibraryLoadData(&l, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e != cudaSuccess) {
      if (sticky(e)) return afterRun(e, "loading the cubin");
      return failed(RunOutcome::Status::LaunchError,
                    "this GPU (compute capability " + std::to_string(deviceAttribute(cudaDevAttrComputeCapabilityMajor)) +
                        "." + std::to_string(deviceAttribute(cudaDevAttrComputeCapabilityMinor)) +
                        ") cannot load the kernel's cubin: " + cudaText(e));
    }
    lib.library = l;
    lib.cubin = cubin;
  }
  cudaKernel_t kernel = nullptr;
  if (cudaError_t e = cudaLibraryGetKernel(&kernel, lib.library, r.symbol.c_str()); e != cudaSuccess)
    return failed(RunOutcome::Status::LaunchError, "the cubin has no kernel " + r.symbol + ": " + cudaText(e));
  const void* fn = reinterpret_cast<const void*>(kernel);
  cudaFuncAttributes attr{};
  if (cudaError_t e = cudaFuncGetAttributes(&attr, fn); e != cudaSuccess)
    return failed(RunOutcome::Status::LaunchError, "cannot read the kernel's attributes: " + cudaText(e));

  // What the launch asks for against what this kernel on this GPU can have.
  const int deviceMaxThreads = deviceAttribute(cudaDevAttrMaxThreadsPerBlock);
  if (plan.block > attr.maxThreadsPerBlock) {
    if (attr.maxThreadsPerBlock < deviceMaxThreads)
      return failed(RunOutcome::Status::LaunchError,
                    "too many registers for block " + std::to_string(plan.block) + ": the kernel uses " +
                        std::to_string(attr.numRegs) + " registers per thread, so a block of it can have at most " +
                        std::to_string(attr.maxThreadsPerBlock) + " threads on this GPU");
    return failed(RunOutcome::Status::LaunchError, "block " + std::to_string(plan.block) + " is more threads than this GPU allows (" +
                                                       std::to_string(deviceMaxThreads) + ")");
  }
  const uint64_t optin = uint64_t(deviceAttribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  const uint64_t sharedTotal = uint64_t(attr.sharedSizeBytes) + plan.dynamicSharedBytes;
  if (sharedTotal > optin)
    return failed(RunOutcome::Status::LaunchError,
                  "too much shared memory: block " + std::to_string(plan.block) + " asks for " +
                      std::to_string(plan.dynamicSharedBytes) + " bytes of dynamic shared memory" +
                      (attr.sharedSizeBytes ? " + " + std::to_string(attr.sharedSizeBytes) + " static" : std::string()) +
                      " = " + std::to_string(sharedTotal) + " bytes; this GPU gives a block at most " + std::to_string(optin));
  if (plan.dynamicSharedBytes > uint64_t(attr.maxDynamicSharedSizeBytes)) {
    if (cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.dynamicSharedBytes));
        e != cudaSuccess)
      return failed(RunOutcome::Status::LaunchError,
                    "cannot give the kernel " + std::to_string(plan.dynamicSharedBytes) + " bytes of dynamic shared memory: " +
                        cudaText(e));
  }
  if (r.nBytes == 4 && r.n > 0xffffffffull)
    return failed(RunOutcome::Status::Skipped, "N does not fit the kernel's 32-bit n");

  // Memory: the input, one buffer per launch's output, their guards, and room to spare.
  uint64_t need = r.n * uint64_t(eb) + 2 * kGuardBytes;
  for (const Pass& p : plan.passes) need += (plan.final == UserFinal::Atomic ? 1 : p.grid) * uint64_t(eb) + 2 * kGuardBytes;
  size_t freeBytes = 0, totalBytes = 0;
  if (cudaError_t e = cudaMemGetInfo(&freeBytes, &totalBytes); e != cudaSuccess) return afterRun(e, "reading the free memory");
  const uint64_t spare = uint64_t(256) << 20;
  if (need + spare > freeBytes)
    return failed(RunOutcome::Status::Skipped, "needs " + bytesText(need) + " of GPU memory; " + bytesText(freeBytes) +
                                                   " of " + bytesText(totalBytes) + " are free");
  GuardedBuffer input("input", eb);
  std::vector<std::unique_ptr<GuardedBuffer>> outputs;
  if (cudaError_t e = input.allocate(size_t(r.n) * size_t(eb), s); e != cudaSuccess)
    return failed(RunOutcome::Status::Skipped, "cannot allocate the input (" + bytesText(r.n * eb) + "): " + cudaText(e));
  for (size_t p = 0; p < plan.passes.size(); ++p) {
    const bool last = p + 1 == plan.passes.size();
    const std::string label = plan.final == UserFinal::Atomic ? "output"
                              : last && plan.final == UserFinal::Gpu
                                  ? "output (launch " + std::to_string(p + 1) + ")"
                                  : "partials of launch " + std::to_string(p + 1);
    outputs.push_back(std::make_unique<GuardedBuffer>(label, eb));
    const uint64_t count = plan.final == UserFinal::Atomic ? 1 : plan.passes[p].grid;
    if (cudaError_t e = outputs.back()->allocate(size_t(count) * size_t(eb), s); e != cudaSuccess)
      return failed(RunOutcome::Status::Skipped, "cannot allocate the " + label + ": " + cudaText(e));
  }
  unsigned long long* counters = nullptr;  // input elements changed, first one changed
  if (cudaError_t e = cudaMalloc(&counters, 2 * sizeof(unsigned long long)); e != cudaSuccess)
    return afterRun(e, "allocating two counters");
  const std::unique_ptr<unsigned long long, decltype(&cudaFree)> countersOwner(counters, &cudaFree);

  // Input, and the identity in out[0] for the atomic final.
  const int sms = deviceAttribute(cudaDevAttrMultiProcessorCount);
  const unsigned genGrid = unsigned(std::min<uint64_t>((r.n + 255) / 256, uint64_t(sms) * 32));
  if (plan.zeroedOutput)  // `output: zeroed`: as the host's cudaMemset before the launches (before the atomic identity)
    for (const auto& o : outputs)
      if (cudaError_t e = cudaMemsetAsync(o->data(), 0, o->bytes(), s); e != cudaSuccess) return afterRun(e, "zeroing the outputs");
  withElemType(r.type, [&]<class T>(TypeTag<T>) {
    generateInput<T><<<genGrid, 256, 0, s>>>(static_cast<T*>(input.data()), r.n, r.data);
    if (plan.final == UserFinal::Atomic) {
      const T identity = withOp(r.op, [&]<class O>(TypeTag<O>) { return O::template identity<T>(); });
      cudaMemcpyAsync(outputs.front()->data(), &identity, sizeof(T), cudaMemcpyHostToDevice, s);
    }
  });
  if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) return afterRun(e, "generating the input");

  // The launches.
  instrumented::RawTrace tracedRaw;
  std::string tracedError;
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const std::unique_ptr<CUevent_st, decltype(&cudaEventDestroy)> startOwner(start, &cudaEventDestroy),
      stopOwner(stop, &cudaEventDestroy);
  // A trace: the first launch once unpatched (the tracer learns its module), then patched.
  const bool tracing = r.traceBlock >= 0;
  instrumented::ArmRequest traceRequest;
  traceRequest.tracedBlock = uint32_t(r.traceBlock);
  traceRequest.capacity = r.traceRecords;
  traceRequest.functionName = r.symbol;
  traceRequest.blockThreads = uint32_t(plan.block);
  if (tracing) {
    if (uint64_t(r.traceBlock) >= plan.passes.front().grid)
      return failed(RunOutcome::Status::LaunchError, "block " + std::to_string(r.traceBlock) + " does not exist: the first launch has " +
                                                         std::to_string(plan.passes.front().grid) + " blocks");
    if (std::string e = instrumented::observe(traceRequest); !e.empty())
      return failed(RunOutcome::Status::LaunchError, "cannot trace: " + e);
  }
  const int firstLaunches = tracing ? 2 : 1;
  cudaEventRecord(start, s);
  for (size_t p = 0, attempt = 0; p < plan.passes.size(); ++p) {
    const void* in = p == 0 ? input.data() : outputs[p - 1]->data();
    void* out = outputs[p]->data();
    uint32_t n32 = uint32_t(plan.passes[p].n);
    uint64_t n64 = plan.passes[p].n;
    void* args[] = {&in, &out, r.nBytes == 4 ? static_cast<void*>(&n32) : static_cast<void*>(&n64)};
    const cudaError_t e = cudaLaunchKernel(fn, dim3(unsigned(plan.passes[p].grid)), dim3(unsigned(plan.block)), args,
                                           size_t(plan.dynamicSharedBytes), s);
    if (e == cudaSuccess && p == 0 && tracing && ++attempt < size_t(firstLaunches)) {
      // The unpatched launch done, the atomic final's identity written again, the module patched.
      cudaError_t w = cudaStreamSynchronize(s);
      if (w != cudaSuccess) {
        std::string ignored;
        instrumented::finish(&ignored);
        if (sticky(w)) return failed(RunOutcome::Status::Fault, faultText(w), true);
        return failed(RunOutcome::Status::LaunchError, "the kernel failed: " + cudaText(w));
      }
      if (plan.zeroedOutput)  // on the launches' stream, and waited for: the patched launch must see the zeros
        if (cudaError_t z = cudaMemsetAsync(outputs.front()->data(), 0, outputs.front()->bytes(), s);
            z != cudaSuccess || (z = cudaStreamSynchronize(s)) != cudaSuccess)
          return failed(RunOutcome::Status::LaunchError, "zeroing the output before the traced launch: " + cudaText(z));
      if (plan.final == UserFinal::Atomic)
        withElemType(r.type, [&]<class T>(TypeTag<T>) {
          const T identity = withOp(r.op, [&]<class O>(TypeTag<O>) { return O::template identity<T>(); });
          cudaMemcpy(outputs.front()->data(), &identity, sizeof(T), cudaMemcpyHostToDevice);
        });
      if (std::string a = instrumented::arm(traceRequest); !a.empty())
        return failed(RunOutcome::Status::LaunchError, "cannot trace: " + a);
      --p;  // the same launch again, patched
      continue;
    }
    if (e == cudaSuccess && p == 0 && tracing) {
      const cudaError_t w = cudaStreamSynchronize(s);
      std::string traceError;
      tracedRaw = instrumented::finish(&traceError);
      if (w != cudaSuccess) {
        if (sticky(w))
          return failed(RunOutcome::Status::Fault, "the traced (patched) launch faulted: " + faultText(w), true);
        return failed(RunOutcome::Status::LaunchError, "the traced launch failed: " + cudaText(w));
      }
      if (!traceError.empty()) tracedError = traceError;
      continue;
    }
    if (e == cudaSuccess) continue;
    if (sticky(e)) return failed(RunOutcome::Status::Fault, faultText(e), true);
    std::string why = cudaText(e);
    if (e == cudaErrorLaunchOutOfResources)
      why = "too many resources requested: " + std::to_string(attr.numRegs) + " registers x " + std::to_string(plan.block) +
            " threads is more than a block can have [" + cudaGetErrorName(e) + "]";
    return failed(RunOutcome::Status::LaunchError,
                  "launch " + std::to_string(p + 1) + " of " + std::to_string(plan.passes.size()) + " (grid " +
                      std::to_string(plan.passes[p].grid) + ", block " + std::to_string(plan.block) + ", " +
                      std::to_string(plan.dynamicSharedBytes) + " bytes of dynamic shared memory) was refused: " + why);
  }
  cudaEventRecord(stop, s);
  if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) {
    if (sticky(e)) return failed(RunOutcome::Status::Fault, faultText(e), true);
    return failed(RunOutcome::Status::LaunchError, "the kernel failed: " + cudaText(e));
  }
  RunOutcome o;
  o.status = RunOutcome::Status::Ok;
  float ms = 0;
  if (cudaEventElapsedTime(&ms, start, stop) == cudaSuccess) o.kernelMs = ms;

  // The result: out[0] of the last launch, or the CPU's loop over its partials.
  const GuardedBuffer& last = *outputs.back();
  const uint64_t values = plan.final == UserFinal::Cpu ? plan.cpuValues : 1;
  std::vector<unsigned char> host(size_t(values) * size_t(eb));
  if (cudaError_t e = cudaMemcpy(host.data(), last.data(), host.size(), cudaMemcpyDeviceToHost); e != cudaSuccess)
    return afterRun(e, "copying the result");
  o.resultBits = combineOnHost(r, host, values);

  // What else the kernel wrote.
  for (const GuardedBuffer* b : [&] {
         std::vector<const GuardedBuffer*> all{&input};
         for (const auto& x : outputs) all.push_back(x.get());
         return all;
       }())
    if (cudaError_t e = b->check(&o.guards); e != cudaSuccess) return afterRun(e, "reading the guard zones");
  const unsigned long long init[2] = {0, ~0ull};
  cudaMemcpyAsync(counters, init, sizeof init, cudaMemcpyHostToDevice, s);
  withElemType(r.type, [&]<class T>(TypeTag<T>) {
    compareInput<T><<<genGrid, 256, 0, s>>>(static_cast<const T*>(input.data()), r.n, r.data, counters, counters + 1);
  });
  unsigned long long found[2] = {0, 0};
  cudaMemcpyAsync(found, counters, sizeof found, cudaMemcpyDeviceToHost, s);
  if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) return afterRun(e, "comparing the input");
  o.inputChanged = found[0];
  o.firstInputChange = found[0] ? found[1] : 0;
  if (r.timedReps > 0 && !tracing) {
    std::vector<void*> outs;
    for (const auto& b : outputs) outs.push_back(b->data());
    if (std::string e = timeLaunches(r, fn, input.data(), outs, s, &o); !e.empty()) {
      const cudaError_t last = cudaGetLastError();
      if (sticky(last)) return failed(RunOutcome::Status::Fault, faultText(last), true);
      return failed(RunOutcome::Status::LaunchError, "timing: " + e);
    }
  }
  if (tracing) {
    o.tracedFunction = tracedRaw.function;
    o.traceRecords = tracedRaw.records.size();
    if (!tracedError.empty()) {
      o.traceError = tracedError;
      return o;
    }
    // Offsets from the input, and from the first launch's output; values read as T.
    instrumented::ConvertOptions co;
    co.input = {reinterpret_cast<uint64_t>(input.data()), r.n * uint64_t(eb)};
    co.output = {reinterpret_cast<uint64_t>(outputs.front()->data()), outputs.front()->bytes()};
    co.n = r.n;
    co.elemType = co.accType = r.type;
    instrumented::ConversionReport rep;
    std::string err;
    const TraceData t = instrumented::toTraceData(tracedRaw, co, &rep, &err);
    if (!t.valid()) {
      o.traceError = err;
      return o;
    }
    o.trace = t.toBuffer();
    o.tracePhases = rep.phases;
    o.traceNotes = rep.notes;
    if (!rep.overflow.empty()) o.traceNotes.insert(o.traceNotes.begin(), "incomplete: " + rep.overflow);
    const instrumented::HazardReport hz = instrumented::findSharedHazards(tracedRaw);
    o.hazards = hz.hazards;
    o.hazardsSuppressed = hz.suppressed;
    for (const std::string& n : hz.notes) o.traceNotes.push_back("hazards: " + n);
  }
  return o;
}

}  // namespace rl::usercode
