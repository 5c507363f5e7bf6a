// The instrumented tracer (instrumented.hpp) over the Compute Sanitizer API. libsanitizer-public.so
// is loaded at run time (dlopen); the device patch functions come embedded (patches.cu, built into
// a fatbin at build time). The launch to trace is patched in its LAUNCH_BEGIN callback (what
// works under lazy and eager module loading), the instruction list re-registered before each patch
// (sanitizerPatchModule consumes it), and the module unpatched in finish() after the device is
// done with it. No libcuda link: driver functions come through the runtime's entry points.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sanitizer_callbacks.h>
#include <sanitizer_patching.h>
#include <sanitizer_result.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <vector>

#include "reducelab/instrumented.hpp"

namespace rl {
// The patch fatbin (cmake/EmbedBinary.cmake).
extern const unsigned char kInstrumentPatches[];
extern const unsigned long long kInstrumentPatchesSize;
}  // namespace rl

namespace rl::instrumented {

namespace {

struct SanitizerApi {
  decltype(&::sanitizerSubscribe) subscribe = nullptr;
  decltype(&::sanitizerEnableDomain) enableDomain = nullptr;
  decltype(&::sanitizerAddPatches) addPatches = nullptr;
  decltype(&::sanitizerPatchInstructions) patchInstructions = nullptr;
  decltype(&::sanitizerPatchModule) patchModule = nullptr;
  decltype(&::sanitizerUnpatchModule) unpatchModule = nullptr;
  decltype(&::sanitizerSetLaunchCallbackData) setLaunchCallbackData = nullptr;
  decltype(&::sanitizerGetFunctionPcAndSize) functionPcAndSize = nullptr;
  decltype(&::sanitizerGetResultString) resultString = nullptr;

  std::string text(SanitizerResult r) const {
    const char* s = nullptr;
    if (resultString) resultString(r, &s);
    return s ? s : "sanitizer error " + std::to_string(int(r));
  }
};

// Which instructions call which patch. The first three make a trace; without the others the
// trace lacks what they record (said in RawTrace's notes).
struct PatchPoint {
  Sanitizer_InstructionId id;
  const char* callback;
  const char* what;
  bool required;
};
constexpr PatchPoint kPatchPoints[] = {
    {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "rl_patch_global", "global memory accesses", true},
    {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "rl_patch_shared", "shared memory accesses", true},
    {SANITIZER_INSTRUCTION_BARRIER, "rl_patch_barrier", "barriers", true},
    {SANITIZER_INSTRUCTION_SHFL, "rl_patch_shfl", "shuffles", false},
    {SANITIZER_INSTRUCTION_SYNCWARP, "rl_patch_syncwarp", "__syncwarp", false},
    {SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, "rl_patch_local", "local memory accesses", false},
    {SANITIZER_INSTRUCTION_REMOTE_SHARED_MEMORY_ACCESS, "rl_patch_remote_shared", "distributed shared memory accesses", false},
    {SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, "rl_patch_bulk_copy", "bulk copies (cp.async.bulk)", false},
};

// REDUCELAB_INSTRUMENT_LOG=1: each step of the tracer on stderr (where a launch hangs or is missed).
void logStep(const char* what, const std::string& detail = {}) {
  static const bool on = [] {
    const char* e = std::getenv("REDUCELAB_INSTRUMENT_LOG");
    return e && *e && *e != '0';
  }();
  if (on) std::fprintf(stderr, "instrument: %s%s%s\n", what, detail.empty() ? "" : " ", detail.c_str());
}

double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A driver function through the runtime (the binary does not link libcuda).
template <class F>
F driverFunction(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<F>(fn);
}

class Tracer {
 public:
  std::string subscribe();
  bool subscribed() {
    std::lock_guard<std::recursive_mutex> g(mu_);
    return ok_;
  }
  std::string library() {
    std::lock_guard<std::recursive_mutex> g(mu_);
    return library_;
  }
  std::string arm(const ArmRequest& r);
  bool armed() {
    std::lock_guard<std::recursive_mutex> g(mu_);
    return armed_;
  }
  RawTrace finish(std::string* error);
  void onLaunch(const Sanitizer_LaunchData& d);

 private:
  std::string registerInstructions(CUmodule m);
  std::string loadPatches(CUcontext ctx);
  void disarm();

  std::recursive_mutex mu_;
  SanitizerApi api_;
  bool tried_ = false, ok_ = false;
  std::string library_, subscribeError_;
  Sanitizer_SubscriberHandle subscriber_{};
  std::set<CUcontext> contextsWithPatches_;

  // The armed launch.
  bool armed_ = false, taken_ = false, patched_ = false;
  ArmRequest request_;
  void* buffer_ = nullptr;
  uint64_t bufferBytes_ = 0;
  std::string launchError_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  uint64_t functionStart_ = 0;
  RawTrace launch_;
};

Tracer& tracer() {
  static Tracer t;
  return t;
}

void SANITIZERAPI onCallback(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data) {
  if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN)
    tracer().onLaunch(*static_cast<const Sanitizer_LaunchData*>(data));
}

template <class F>
bool bind(void* h, const char* name, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  if (!*out) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *out != nullptr;
}

std::string Tracer::subscribe() {
  std::lock_guard<std::recursive_mutex> g(mu_);
  if (tried_) return subscribeError_;
  tried_ = true;
  // Where the library lies: beside the CUDA installation, unless named.
  std::vector<std::pair<std::string, std::string>> candidates;  // (file, where it came from)
  std::string looked;
  if (const char* e = std::getenv("REDUCELAB_SANITIZER_LIB"); e && *e) candidates.push_back({e, "$REDUCELAB_SANITIZER_LIB"});
  else looked += "$REDUCELAB_SANITIZER_LIB (unset); ";
  if (const char* e = std::getenv("CUDA_HOME"); e && *e)
    candidates.push_back({std::string(e) + "/compute-sanitizer/libsanitizer-public.so", "$CUDA_HOME"});
  else looked += "$CUDA_HOME (unset); ";
  candidates.push_back({"/usr/local/cuda/compute-sanitizer/libsanitizer-public.so", "the default CUDA installation"});
  void* h = nullptr;
  std::set<std::string> tried;
  for (const auto& [file, from] : candidates) {
    if (!tried.insert(file).second) continue;  // $CUDA_HOME is often /usr/local/cuda
    h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      library_ = file;
      break;
    }
    const char* e = dlerror();
    looked += file + " (" + from + ": " + (e ? e : "dlopen failed") + "); ";
  }
  if (!h) {
    looked.resize(looked.size() - 2);
    return subscribeError_ = "the Compute Sanitizer library (libsanitizer-public.so, part of the CUDA Toolkit's "
                             "compute-sanitizer) was not found; looked at: " + looked;
  }
  std::string missing;
  bind(h, "sanitizerSubscribe", &api_.subscribe, &missing);
  bind(h, "sanitizerEnableDomain", &api_.enableDomain, &missing);
  bind(h, "sanitizerAddPatches", &api_.addPatches, &missing);
  bind(h, "sanitizerPatchInstructions", &api_.patchInstructions, &missing);
  bind(h, "sanitizerPatchModule", &api_.patchModule, &missing);
  bind(h, "sanitizerUnpatchModule", &api_.unpatchModule, &missing);
  bind(h, "sanitizerSetLaunchCallbackData", &api_.setLaunchCallbackData, &missing);
  bind(h, "sanitizerGetFunctionPcAndSize", &api_.functionPcAndSize, &missing);
  bind(h, "sanitizerGetResultString", &api_.resultString, &missing);
  if (!missing.empty()) return subscribeError_ = library_ + " lacks " + missing + " (a Compute Sanitizer older than the patching API ReduceLab uses)";
  if (SanitizerResult r = api_.subscribe(&subscriber_, onCallback, nullptr); r != SANITIZER_SUCCESS)
    return subscribeError_ = "sanitizerSubscribe failed: " + api_.text(r) + " (another tool, e.g. compute-sanitizer or Nsight, may hold the callbacks)";
  // Launch callbacks only while a launch is armed; no other callbacks. (A function loaded lazily
  // after the patch would not be instrumented: callers load the function to trace before they
  // arm: the engine runs the reduction once unarmed, a module's user gets its function first.)
  api_.enableDomain(0, subscriber_, SANITIZER_CB_DOMAIN_RESOURCE);
  api_.enableDomain(0, subscriber_, SANITIZER_CB_DOMAIN_LAUNCH);
  ok_ = true;
  return {};
}

std::string Tracer::loadPatches(CUcontext ctx) {
  if (contextsWithPatches_.count(ctx)) return {};
  if (SanitizerResult r = api_.addPatches(kInstrumentPatches, ctx); r != SANITIZER_SUCCESS)
    return "loading the patch functions into the CUDA context failed: " + api_.text(r) +
           " (this happens when the process made its first CUDA call before subscribe(), or when the "
           "embedded patches have no code for this GPU's architecture)";
  contextsWithPatches_.insert(ctx);
  return {};
}

std::string Tracer::registerInstructions(CUmodule m) {
  for (const PatchPoint& p : kPatchPoints)
    if (SanitizerResult r = api_.patchInstructions(p.id, m, p.callback); r != SANITIZER_SUCCESS) {
      if (p.required) return std::string("cannot patch ") + p.what + ": " + api_.text(r);
      launch_.notes.push_back(std::string(p.what) + " are not recorded (this driver cannot patch them: " + api_.text(r) + ")");
    }
  return {};
}

std::string Tracer::arm(const ArmRequest& r) {
  if (std::string e = subscribe(); !e.empty()) return e;
  if (r.capacity == 0) return "the record buffer must hold at least one record";
  // The primary context current, and the patches in it (outside any callback).
  if (cudaError_t e = cudaFree(nullptr); e != cudaSuccess) return std::string("no CUDA context: ") + cudaGetErrorString(e);
  using CtxGetCurrent = CUresult (*)(CUcontext*);
  static const CtxGetCurrent ctxGetCurrent = driverFunction<CtxGetCurrent>("cuCtxGetCurrent");
  CUcontext ctx = nullptr;
  if (!ctxGetCurrent || ctxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) return "cannot find the current CUDA context";
  std::lock_guard<std::recursive_mutex> g(mu_);
  if (armed_) return "a launch is already armed: finish() it first";
  if (std::string e = loadPatches(ctx); !e.empty()) return e;
  const uint64_t bytes = rawBufferBytes(r.capacity);
  if (bytes > bufferBytes_) {
    if (buffer_) cudaFree(buffer_);
    buffer_ = nullptr;
    bufferBytes_ = 0;
    if (cudaError_t e = cudaMalloc(&buffer_, bytes); e != cudaSuccess) {
      cudaGetLastError();
      buffer_ = nullptr;
      return "cannot allocate " + std::to_string(bytes >> 20) + " MiB for " + std::to_string(r.capacity) +
             " trace records: " + cudaGetErrorString(e);
    }
    bufferBytes_ = bytes;
  }
  RawBufferHeader h{};
  h.tracedBlock = r.tracedBlock;
  h.capacity = r.capacity;
  if (cudaError_t e = cudaMemcpy(buffer_, &h, sizeof h, cudaMemcpyHostToDevice); e != cudaSuccess)
    return std::string("cannot initialise the trace buffer: ") + cudaGetErrorString(e);
  request_ = r;
  armed_ = true;
  taken_ = patched_ = false;
  launchError_.clear();
  module_ = nullptr;
  function_ = nullptr;
  functionStart_ = 0;
  launch_ = RawTrace{};
  api_.enableDomain(1, subscriber_, SANITIZER_CB_DOMAIN_LAUNCH);
  logStep("armed", "block " + std::to_string(r.tracedBlock) + " of " + (r.functionName.empty() ? "*" + r.nameContains + "*" : r.functionName));
  return {};
}

void Tracer::onLaunch(const Sanitizer_LaunchData& d) {
  std::lock_guard<std::recursive_mutex> g(mu_);
  if (!armed_) return;
  if (taken_) {
    // A later launch of code from the patched module before finish() (k1's second pass, CUB's
    // single-tile kernel) runs the patches too, with no buffer: it records nothing. (Waiting for
    // the traced launch and unpatching here, inside the launch callback, hung the process on the
    // H100: sanitizerStreamSynchronize never returned.) finish() unpatches before any timed launch.
    if (patched_ && d.module == module_) {
      api_.setLaunchCallbackData(d.hLaunch, d.function, d.hStream, nullptr);
      ++launch_.bystanderLaunches;
    }
    return;
  }
  const std::string name = d.functionName ? d.functionName : "";
  logStep("launch", name);
  if (!request_.functionName.empty() && name != request_.functionName) return;
  if (!request_.nameContains.empty() && name.find(request_.nameContains) == std::string::npos) return;
  taken_ = true;
  launch_.function = name;
  launch_.gridX = d.gridDim_x, launch_.gridY = d.gridDim_y, launch_.gridZ = d.gridDim_z;
  launch_.blockX = d.blockDim_x, launch_.blockY = d.blockDim_y, launch_.blockZ = d.blockDim_z;
  launch_.tracedBlock = request_.tracedBlock;
  launch_.capacity = request_.capacity;
  module_ = d.module;
  function_ = d.function;
  if (request_.tracedBlock >= launch_.gridBlocks()) {
    launchError_ = "block " + std::to_string(request_.tracedBlock) + " does not exist: " + name + " was launched with " +
                   std::to_string(launch_.gridBlocks()) + " blocks";
    return;
  }
  if (launch_.blockThreads() > kRawMaxThreads) {
    launchError_ = "the launch has " + std::to_string(launch_.blockThreads()) + " threads per block; traces hold 1024";
    return;
  }
  if (launchError_ = loadPatches(d.context); !launchError_.empty()) return;
  uint64_t size = 0;
  if (api_.functionPcAndSize(d.module, d.functionName, &functionStart_, &size) != SANITIZER_SUCCESS) functionStart_ = 0;
  const double t0 = nowMs();
  logStep("patching its module");
  if (launchError_ = registerInstructions(d.module); !launchError_.empty()) return;
  if (SanitizerResult r = api_.patchModule(d.module); r != SANITIZER_SUCCESS) {
    launchError_ = "patching " + name + "'s module failed: " + api_.text(r);
    return;
  }
  patched_ = true;
  launch_.patchMs = nowMs() - t0;
  if (SanitizerResult r = api_.setLaunchCallbackData(d.hLaunch, d.function, d.hStream, buffer_); r != SANITIZER_SUCCESS)
    launchError_ = "cannot hand the trace buffer to the launch: " + api_.text(r);
  logStep("patched", std::to_string(launch_.patchMs) + " ms");
}

void Tracer::disarm() {
  armed_ = false;
  api_.enableDomain(0, subscriber_, SANITIZER_CB_DOMAIN_LAUNCH);
}

RawTrace Tracer::finish(std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return RawTrace{};
  };
  {
    std::lock_guard<std::recursive_mutex> g(mu_);
    if (!armed_) return fail("nothing is armed: arm() a launch first");
  }
  // The traced launch (and whatever followed it) done before the patches go.
  logStep("finish: waiting for the device");
  const cudaError_t synced = cudaDeviceSynchronize();
  logStep("finish: unpatching");
  std::lock_guard<std::recursive_mutex> g(mu_);
  disarm();
  RawTrace out = std::move(launch_);
  launch_ = RawTrace{};
  if (patched_) {
    const double t0 = nowMs();
    if (SanitizerResult r = api_.unpatchModule(module_); r != SANITIZER_SUCCESS)
      out.notes.push_back("unpatching the module failed (" + api_.text(r) + "): its later launches stay slow");
    out.unpatchMs += nowMs() - t0;
    patched_ = false;
  }
  if (!taken_) {
    std::string what = !request_.functionName.empty() ? request_.functionName
                       : !request_.nameContains.empty() ? "a function named *" + request_.nameContains + "*"
                                                         : "any kernel";
    return fail("no launch of " + what + " was seen after arm() (launches are seen only by a process that subscribed "
                "before its first CUDA call)");
  }
  if (!launchError_.empty()) return fail(launchError_);
  if (synced != cudaSuccess) {
    cudaGetLastError();
    return fail(std::string("the traced launch failed: ") + cudaGetErrorString(synced));
  }
  RawBufferHeader h{};
  if (cudaError_t e = cudaMemcpy(&h, buffer_, sizeof h, cudaMemcpyDeviceToHost); e != cudaSuccess)
    return fail(std::string("reading the trace back failed: ") + cudaGetErrorString(e));
  out.attempted = h.attempted;
  out.records.resize(std::min<uint64_t>(h.attempted, h.capacity));
  if (!out.records.empty())
    if (cudaError_t e = cudaMemcpy(out.records.data(), static_cast<char*>(buffer_) + sizeof h,
                                   out.records.size() * sizeof(RawAccess), cudaMemcpyDeviceToHost);
        e != cudaSuccess)
      return fail(std::string("reading the trace back failed: ") + cudaGetErrorString(e));
  std::stable_sort(out.records.begin(), out.records.end(), [](const RawAccess& a, const RawAccess& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.sequence < b.sequence;
  });
  for (RawAccess& r : out.records) r.pc -= functionStart_;  // offsets (wrap below the start: still distinct)
  int device = 0, reserved = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device) == cudaSuccess)
    out.reservedSharedBytes = uint32_t(reserved);
  cudaGetLastError();
  using FuncGetAttribute = CUresult (*)(int*, CUfunction_attribute, CUfunction);
  static const FuncGetAttribute funcGetAttribute = driverFunction<FuncGetAttribute>("cuFuncGetAttribute");
  int staticShared = 0;
  if (funcGetAttribute && funcGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function_) == CUDA_SUCCESS)
    out.staticSharedBytes = uint32_t(staticShared);
  return out;
}

}  // namespace

bool built() { return true; }
std::string subscribe() { return tracer().subscribe(); }
bool subscribed() { return tracer().subscribed(); }
std::string libraryPath() { return tracer().library(); }
std::string arm(const ArmRequest& request) { return tracer().arm(request); }
bool armed() { return tracer().armed(); }
RawTrace finish(std::string* error) { return tracer().finish(error); }

}  // namespace rl::instrumented
