// The instrumented tracer (instrumented.hpp) over the Compute Sanitizer API. libsanitizer-public.so
// is loaded at run time (dlopen); the device patch functions come embedded (patches.cu, built into
// a fatbin at build time). observe() learns the module of the launch to trace from its
// LAUNCH_BEGIN callback; arm() patches that module from the host thread (the instruction list
// registered again first: sanitizerPatchModule consumes it); the LAUNCH_BEGIN callback of the
// launch to trace only hands it the buffer; finish() unpatches after the device is done. (Patching
// inside LAUNCH_BEGIN works for a small module whose functions are loaded, such as an NVRTC one,
// but hung on the H100 for the binary's own modules under lazy loading.) No libcuda link: driver
// functions come through the runtime's entry points.
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
  uint32_t patchClass;
};
constexpr PatchPoint kPatchPoints[] = {
    {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "rl_patch_global", "global memory accesses", true, kPatchGlobal},
    {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "rl_patch_shared", "shared memory accesses", true, kPatchShared},
    {SANITIZER_INSTRUCTION_BARRIER, "rl_patch_barrier", "barriers", true, kPatchBarrier},
    {SANITIZER_INSTRUCTION_SHFL, "rl_patch_shfl", "shuffles", false, kPatchShuffle},
    {SANITIZER_INSTRUCTION_SYNCWARP, "rl_patch_syncwarp", "__syncwarp", false, kPatchSyncwarp},
    {SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, "rl_patch_local", "local memory accesses", false, kPatchLocal},
    {SANITIZER_INSTRUCTION_REMOTE_SHARED_MEMORY_ACCESS, "rl_patch_remote_shared", "distributed shared memory accesses",
     false, kPatchRemoteShared},
    {SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, "rl_patch_bulk_copy", "bulk copies (cp.async.bulk)", false,
     kPatchBulkCopy},
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

// The knobs of ArmRequest from the environment (instrumented.hpp).
std::string applyEnvironment(ArmRequest* r) {
  if (const char* e = std::getenv("REDUCELAB_INSTRUMENT_PATCHES"); e && *e) {
    std::string error;
    const uint32_t mask = parsePatchClasses(e, &error);
    if (!mask) return "REDUCELAB_INSTRUMENT_PATCHES: " + error;
    r->patchClasses = mask;
  }
  if (const char* e = std::getenv("REDUCELAB_INSTRUMENT_STORE_VALUES"); e && *e == '0') r->storeValues = false;
  if (const char* e = std::getenv("REDUCELAB_INSTRUMENT_DRY_RUN"); e && *e && *e != '0') r->dryRun = true;
  return {};
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
  std::string observe(const ArmRequest& r);
  std::string arm(const ArmRequest& r);
  bool armed() {
    std::lock_guard<std::recursive_mutex> g(mu_);
    return armed_;
  }
  RawTrace finish(std::string* error);
  void onLaunch(const Sanitizer_LaunchData& d);

 private:
  std::string registerInstructions(CUmodule m, uint32_t classes);
  std::string loadPatches(CUcontext ctx);
  bool matches(const ArmRequest& r, const std::string& name) const {
    return (r.functionName.empty() || name == r.functionName) &&
           (r.nameContains.empty() || name.find(r.nameContains) != std::string::npos);
  }
  static std::string described(const ArmRequest& r) {
    return !r.functionName.empty() ? r.functionName : !r.nameContains.empty() ? "a function named *" + r.nameContains + "*" : "any kernel";
  }
  void disarm();

  std::recursive_mutex mu_;
  SanitizerApi api_;
  bool tried_ = false, ok_ = false;
  std::string library_, subscribeError_;
  Sanitizer_SubscriberHandle subscriber_{};
  std::set<CUcontext> contextsWithPatches_;

  // What observe() saw: the first matching launch's module, context and function name.
  bool observing_ = false;
  ArmRequest observed_;
  CUmodule observedModule_ = nullptr;
  CUcontext observedContext_ = nullptr;
  std::string observedName_;

  // The armed launch.
  bool armed_ = false, taken_ = false, patched_ = false;
  ArmRequest request_;
  void* buffer_ = nullptr;
  uint64_t bufferBytes_ = 0;
  uint32_t regionRecords_ = 0;
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
  // Every module loaded whole when the context is made (before the first CUDA call this takes
  // effect): patching then never needs to load functions, and a function is never loaded after
  // its module was patched (it would run uninstrumented).
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
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
  // Module events on, as in the configurations measured to work (the callback does nothing with
  // them); launch callbacks only while a launch is observed or armed.
  api_.enableDomain(1, subscriber_, SANITIZER_CB_DOMAIN_RESOURCE);
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

std::string Tracer::registerInstructions(CUmodule m, uint32_t classes) {
  for (const PatchPoint& p : kPatchPoints) {
    if (!(classes & p.patchClass)) {
      launch_.notes.push_back(std::string(p.what) + " are not recorded (not patched: REDUCELAB_INSTRUMENT_PATCHES)");
      continue;
    }
    if (SanitizerResult r = api_.patchInstructions(p.id, m, p.callback); r != SANITIZER_SUCCESS) {
      if (p.required) return std::string("cannot patch ") + p.what + ": " + api_.text(r);
      launch_.notes.push_back(std::string(p.what) + " are not recorded (this driver cannot patch them: " + api_.text(r) + ")");
    }
  }
  return {};
}

std::string Tracer::observe(const ArmRequest& r) {
  if (std::string e = subscribe(); !e.empty()) return e;
  std::lock_guard<std::recursive_mutex> g(mu_);
  if (armed_) return "a launch is already armed: finish() it first";
  observing_ = true;
  observed_ = r;
  observedModule_ = nullptr;
  observedContext_ = nullptr;
  observedName_.clear();
  api_.enableDomain(1, subscriber_, SANITIZER_CB_DOMAIN_LAUNCH);
  logStep("observing", described(r));
  return {};
}

std::string Tracer::arm(const ArmRequest& request) {
  if (std::string e = subscribe(); !e.empty()) return e;
  ArmRequest r = request;
  if (std::string e = applyEnvironment(&r); !e.empty()) return e;
  if (r.capacity == 0) return "the record buffer must hold at least one record";
  std::lock_guard<std::recursive_mutex> g(mu_);
  if (armed_) return "a launch is already armed: finish() it first";
  const bool seen = observedModule_ && observed_.functionName == r.functionName && observed_.nameContains == r.nameContains;
  observing_ = false;
  api_.enableDomain(0, subscriber_, SANITIZER_CB_DOMAIN_LAUNCH);
  if (!seen)
    return "no launch of " + described(r) + " was observed: observe() it, launch it once, then arm() " +
           "(the tracer patches the module that launch came from; launches are seen only by a process that " +
           "subscribed before its first CUDA call)";
  // No launch of the module in flight while it is patched.
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    cudaGetLastError();
    return std::string("the device failed before arming: ") + cudaGetErrorString(e);
  }
  if (std::string e = loadPatches(observedContext_); !e.empty()) return e;
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
  // One region per thread of the block (the launch's block size where the caller knows it).
  const uint32_t threads = r.blockThreads >= 1 && r.blockThreads <= kRawMaxThreads ? r.blockThreads : kRawMaxThreads;
  RawBufferHeader h{};
  h.tracedBlock = r.tracedBlock;
  h.capacity = r.capacity;
  h.perThread = std::max<uint32_t>(1, r.capacity / threads);
  h.threads = std::min<uint32_t>(threads, r.capacity / h.perThread);
  h.options = r.storeValues ? 0 : kRawOptionNoStoreValues;
  regionRecords_ = h.perThread;
  if (cudaError_t e = cudaMemcpy(buffer_, &h, sizeof h, cudaMemcpyHostToDevice); e != cudaSuccess)
    return std::string("cannot initialise the trace buffer: ") + cudaGetErrorString(e);
  launch_ = RawTrace{};
  module_ = observedModule_;
  function_ = nullptr;
  functionStart_ = 0;
  uint64_t size = 0;
  if (api_.functionPcAndSize(module_, observedName_.c_str(), &functionStart_, &size) != SANITIZER_SUCCESS) functionStart_ = 0;
  // Patched here, on the host thread, outside any callback.
  logStep("patching the module of", observedName_);
  const double t0 = nowMs();
  if (std::string e = registerInstructions(module_, r.patchClasses); !e.empty()) return e;
  if (!r.storeValues) launch_.notes.push_back("stores' values were not read (REDUCELAB_INSTRUMENT_STORE_VALUES=0)");
  if (r.dryRun) launch_.notes.push_back("dry run: the launch ran patched but was given no buffer (REDUCELAB_INSTRUMENT_DRY_RUN)");
  if (SanitizerResult res = api_.patchModule(module_); res != SANITIZER_SUCCESS)
    return "patching the module of " + observedName_ + " failed: " + api_.text(res);
  launch_.patchMs = nowMs() - t0;
  logStep("patched", std::to_string(launch_.patchMs) + " ms");
  request_ = r;
  armed_ = true;
  patched_ = true;
  taken_ = false;
  launchError_.clear();
  api_.enableDomain(1, subscriber_, SANITIZER_CB_DOMAIN_LAUNCH);
  return {};
}

void Tracer::onLaunch(const Sanitizer_LaunchData& d) {
  std::lock_guard<std::recursive_mutex> g(mu_);
  const std::string name = d.functionName ? d.functionName : "";
  logStep("launch", name);
  if (observing_) {
    if (!observedModule_ && matches(observed_, name)) {
      observedModule_ = d.module;
      observedContext_ = d.context;
      observedName_ = name;
    }
    return;
  }
  if (!armed_ || d.module != module_) return;
  // Launches of the patched module other than the traced one (k11's identity write before it,
  // k1's second pass or CUB's single-tile kernel after it) run the patches with no buffer: they
  // record nothing. finish() unpatches before any timed launch.
  if (taken_ || !matches(request_, name)) {
    api_.setLaunchCallbackData(d.hLaunch, d.function, d.hStream, nullptr);
    ++launch_.bystanderLaunches;
    return;
  }
  taken_ = true;
  launch_.function = name;
  launch_.gridX = d.gridDim_x, launch_.gridY = d.gridDim_y, launch_.gridZ = d.gridDim_z;
  launch_.blockX = d.blockDim_x, launch_.blockY = d.blockDim_y, launch_.blockZ = d.blockDim_z;
  launch_.tracedBlock = request_.tracedBlock;
  launch_.capacity = request_.capacity;
  function_ = d.function;
  const bool blockExists = request_.tracedBlock < launch_.gridBlocks();
  if (!blockExists)
    launchError_ = "block " + std::to_string(request_.tracedBlock) + " does not exist: " + name + " was launched with " +
                   std::to_string(launch_.gridBlocks()) + " blocks";
  else if (launch_.blockThreads() > kRawMaxThreads)
    launchError_ = "the launch has " + std::to_string(launch_.blockThreads()) + " threads per block; traces hold 1024";
  else if (request_.blockThreads && launch_.blockThreads() > request_.blockThreads)
    launch_.notes.push_back("the launch has " + std::to_string(launch_.blockThreads()) + " threads per block, the tracer was "
                            "armed for " + std::to_string(request_.blockThreads) + ": the threads past them have no room");
  SanitizerResult r = api_.setLaunchCallbackData(d.hLaunch, d.function, d.hStream,
                                                 launchError_.empty() && !request_.dryRun ? buffer_ : nullptr);
  if (r != SANITIZER_SUCCESS && launchError_.empty()) launchError_ = "cannot hand the trace buffer to the launch: " + api_.text(r);
  logStep("traced launch", name);
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
    if (!armed_) {
      observing_ = false;
      if (ok_) api_.enableDomain(0, subscriber_, SANITIZER_CB_DOMAIN_LAUNCH);
      return fail("nothing is armed: arm() a launch first");
    }
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
  if (!taken_) return fail("no launch of " + described(request_) + " ran after arm()");
  if (!launchError_.empty()) return fail(launchError_);
  if (synced != cudaSuccess) {
    cudaGetLastError();
    return fail(std::string("the traced launch failed: ") + cudaGetErrorString(synced));
  }
  RawBufferHeader h{};
  if (cudaError_t e = cudaMemcpy(&h, buffer_, sizeof h, cudaMemcpyDeviceToHost); e != cudaSuccess)
    return fail(std::string("reading the trace back failed: ") + cudaGetErrorString(e));
  // Each thread's region: its first min(count, perThread) records, in its program order. One 2D
  // copy reads the longest region's length from every region.
  const uint32_t threads = std::min<uint32_t>(out.blockThreads(), h.threads);
  uint32_t longest = 0;
  out.attempted = 0;
  for (uint32_t t = 0; t < out.blockThreads() && t < kRawMaxThreads; ++t) {
    out.attempted += h.count[t];
    if (t < threads) longest = std::max(longest, std::min(h.count[t], h.perThread));
  }
  std::vector<RawAccess> regions(size_t(threads) * longest);
  if (!regions.empty())
    if (cudaError_t e = cudaMemcpy2D(regions.data(), longest * sizeof(RawAccess), static_cast<char*>(buffer_) + sizeof h,
                                     size_t(h.perThread) * sizeof(RawAccess), longest * sizeof(RawAccess), threads,
                                     cudaMemcpyDeviceToHost);
        e != cudaSuccess)
      return fail(std::string("reading the trace back failed: ") + cudaGetErrorString(e));
  for (uint32_t t = 0; t < threads; ++t)
    for (uint32_t k = 0; k < std::min(h.count[t], h.perThread); ++k) out.records.push_back(regions[size_t(t) * longest + k]);
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
std::string observe(const ArmRequest& request) { return tracer().observe(request); }
std::string arm(const ArmRequest& request) { return tracer().arm(request); }
bool armed() { return tracer().armed(); }
RawTrace finish(std::string* error) { return tracer().finish(error); }

}  // namespace rl::instrumented
