// Achieved occupancy read from the hardware counter through CUPTI's range profiler (issue 26
// item 8): sm__warps_active.avg.pct_of_peak_sustained_active, Nsight Compute's "Achieved
// Occupancy", for the first kernel a launch enqueues. CUPTI is loaded at run time (as NVRTC is):
// without it, or without the permission to read counters, the reading says why and nothing else
// changes. Auto range + kernel replay: CUPTI replays that kernel as many passes as the metric needs,
// saving and restoring the memory it writes.
#include "cupti_occupancy.hpp"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

namespace rl {
namespace {

constexpr const char* kMetric = "sm__warps_active.avg.pct_of_peak_sustained_active";

// The CUPTI entry points used, looked up once.
struct Cupti {
  bool loaded = false;
  std::string why;
#define RL_CUPTI_FN(name, Params) CUptiResult (*name)(Params*) = nullptr;
  RL_CUPTI_FN(cuptiProfilerInitialize, CUpti_Profiler_Initialize_Params)
  RL_CUPTI_FN(cuptiProfilerDeInitialize, CUpti_Profiler_DeInitialize_Params)
  RL_CUPTI_FN(cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params)
  RL_CUPTI_FN(cuptiProfilerGetCounterAvailability, CUpti_Profiler_GetCounterAvailability_Params)
  RL_CUPTI_FN(cuptiProfilerHostInitialize, CUpti_Profiler_Host_Initialize_Params)
  RL_CUPTI_FN(cuptiProfilerHostDeinitialize, CUpti_Profiler_Host_Deinitialize_Params)
  RL_CUPTI_FN(cuptiProfilerHostConfigAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params)
  RL_CUPTI_FN(cuptiProfilerHostGetConfigImageSize, CUpti_Profiler_Host_GetConfigImageSize_Params)
  RL_CUPTI_FN(cuptiProfilerHostGetConfigImage, CUpti_Profiler_Host_GetConfigImage_Params)
  RL_CUPTI_FN(cuptiProfilerHostEvaluateToGpuValues, CUpti_Profiler_Host_EvaluateToGpuValues_Params)
  RL_CUPTI_FN(cuptiRangeProfilerEnable, CUpti_RangeProfiler_Enable_Params)
  RL_CUPTI_FN(cuptiRangeProfilerDisable, CUpti_RangeProfiler_Disable_Params)
  RL_CUPTI_FN(cuptiRangeProfilerGetCounterDataSize, CUpti_RangeProfiler_GetCounterDataSize_Params)
  RL_CUPTI_FN(cuptiRangeProfilerCounterDataImageInitialize, CUpti_RangeProfiler_CounterDataImage_Initialize_Params)
  RL_CUPTI_FN(cuptiRangeProfilerSetConfig, CUpti_RangeProfiler_SetConfig_Params)
  RL_CUPTI_FN(cuptiRangeProfilerStart, CUpti_RangeProfiler_Start_Params)
  RL_CUPTI_FN(cuptiRangeProfilerStop, CUpti_RangeProfiler_Stop_Params)
  RL_CUPTI_FN(cuptiRangeProfilerDecodeData, CUpti_RangeProfiler_DecodeData_Params)
  RL_CUPTI_FN(cuptiRangeProfilerGetCounterDataInfo, CUpti_RangeProfiler_GetCounterDataInfo_Params)
#undef RL_CUPTI_FN
  CUptiResult (*cuptiGetResultString)(CUptiResult, const char**) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext*) = nullptr;
};

const Cupti& cupti() {
  static Cupti c;
  static std::once_flag once;
  std::call_once(once, [] {
    // As NVRTC is found: $CUDA_HOME, the usual installation, then the loader's path.
    std::vector<std::string> candidates;
    std::vector<std::string> folders;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) folders.push_back(std::string(home) + "/lib64");
    folders.push_back("/usr/local/cuda/lib64");
    folders.push_back("/usr/local/cuda/extras/CUPTI/lib64");
    for (const std::string& f : folders)
      candidates.push_back(f + "/libcupti.so.13");  // the major version of the headers' structures
    candidates.push_back("libcupti.so.13");
    void* lib = nullptr;
    for (const std::string& name : candidates)
      if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
      c.why = "CUPTI (libcupti.so.13, part of the CUDA Toolkit) was not found in $CUDA_HOME/lib64, /usr/local/cuda/lib64, "
              "/usr/local/cuda/extras/CUPTI/lib64 or the loader's path";
      return;
    }
    bool all = true;
    auto get = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      all = all && fn;
    };
#define RL_GET(name) get(c.name, #name)
    RL_GET(cuptiProfilerInitialize);
    RL_GET(cuptiProfilerDeInitialize);
    RL_GET(cuptiDeviceGetChipName);
    RL_GET(cuptiProfilerGetCounterAvailability);
    RL_GET(cuptiProfilerHostInitialize);
    RL_GET(cuptiProfilerHostDeinitialize);
    RL_GET(cuptiProfilerHostConfigAddMetrics);
    RL_GET(cuptiProfilerHostGetConfigImageSize);
    RL_GET(cuptiProfilerHostGetConfigImage);
    RL_GET(cuptiProfilerHostEvaluateToGpuValues);
    RL_GET(cuptiRangeProfilerEnable);
    RL_GET(cuptiRangeProfilerDisable);
    RL_GET(cuptiRangeProfilerGetCounterDataSize);
    RL_GET(cuptiRangeProfilerCounterDataImageInitialize);
    RL_GET(cuptiRangeProfilerSetConfig);
    RL_GET(cuptiRangeProfilerStart);
    RL_GET(cuptiRangeProfilerStop);
    RL_GET(cuptiRangeProfilerDecodeData);
    RL_GET(cuptiRangeProfilerGetCounterDataInfo);
    RL_GET(cuptiGetResultString);
#undef RL_GET
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (driver) c.cuCtxGetCurrent = reinterpret_cast<CUresult (*)(CUcontext*)>(dlsym(driver, "cuCtxGetCurrent"));
    if (!all || !c.cuCtxGetCurrent) {
      c.why = "this CUPTI lacks the range profiler (CUDA 12.6 or later has it)";
      return;
    }
    c.loaded = true;
  });
  return c;
}

struct Failure {
  std::string what;
};

}  // namespace

std::string readAchievedOccupancy(int device, cudaStream_t stream, const std::function<std::string()>& launch,
                                  double* out) {
  const Cupti& c = cupti();
  if (!c.loaded) return c.why;
  // One profiling session in the process at a time.
  static std::mutex session;
  std::lock_guard<std::mutex> lock(session);
  auto ok = [&](CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return;
    const char* text = nullptr;
    c.cuptiGetResultString(r, &text);
    throw Failure{std::string(what) + ": " + (text ? text : "CUPTI error " + std::to_string(int(r)))};
  };
  if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) return "no CUDA context";
  CUcontext ctx = nullptr;
  if (c.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) return "no CUDA context";

  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  if (CUptiResult r = c.cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) {
    const char* text = nullptr;
    c.cuptiGetResultString(r, &text);
    return std::string("CUPTI's profiler did not start: ") + (text ? text : "");
  }
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  std::string error;
  try {
    CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = size_t(device);
    ok(c.cuptiDeviceGetChipName(&chip), "the chip's name");
    CUpti_Profiler_GetCounterAvailability_Params avail{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    avail.ctx = ctx;
    ok(c.cuptiProfilerGetCounterAvailability(&avail), "the counters' availability (reading counters may need "
                                                       "NVreg_RestrictProfilingToAdminUsers=0 or root)");
    std::vector<uint8_t> availability(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    ok(c.cuptiProfilerGetCounterAvailability(&avail), "the counters' availability");

    CUpti_Profiler_Host_Initialize_Params hostInit{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hostInit.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hostInit.pChipName = chip.pChipName;
    hostInit.pCounterAvailabilityImage = availability.data();
    ok(c.cuptiProfilerHostInitialize(&hostInit), "the profiler's host side");
    host = hostInit.pHostObject;
    const char* metrics[] = {kMetric};
    CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = host;
    add.ppMetricNames = metrics;
    add.numMetrics = 1;
    ok(c.cuptiProfilerHostConfigAddMetrics(&add), kMetric);
    CUpti_Profiler_Host_GetConfigImageSize_Params configSize{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    configSize.pHostObject = host;
    ok(c.cuptiProfilerHostGetConfigImageSize(&configSize), "the configuration's size");
    std::vector<uint8_t> config(configSize.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params configImage{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    configImage.pHostObject = host;
    configImage.configImageSize = config.size();
    configImage.pConfigImage = config.data();
    ok(c.cuptiProfilerHostGetConfigImage(&configImage), "the configuration");

    CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    enable.ctx = ctx;
    ok(c.cuptiRangeProfilerEnable(&enable), "the range profiler");
    profiler = enable.pRangeProfilerObject;
    constexpr size_t kRanges = 8;  // a launch of several passes: each kernel is a range, the first is read
    CUpti_RangeProfiler_GetCounterDataSize_Params dataSize{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    dataSize.pRangeProfilerObject = profiler;
    dataSize.pMetricNames = metrics;
    dataSize.numMetrics = 1;
    dataSize.maxNumOfRanges = kRanges;
    dataSize.maxNumRangeTreeNodes = kRanges;
    ok(c.cuptiRangeProfilerGetCounterDataSize(&dataSize), "the counter data's size");
    std::vector<uint8_t> data(dataSize.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params dataInit{
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    dataInit.pRangeProfilerObject = profiler;
    dataInit.counterDataSize = data.size();
    dataInit.pCounterData = data.data();
    ok(c.cuptiRangeProfilerCounterDataImageInitialize(&dataInit), "the counter data");
    CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    set.pRangeProfilerObject = profiler;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = data.size();
    set.pCounterDataImage = data.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = kRanges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    ok(c.cuptiRangeProfilerSetConfig(&set), "the profiler's configuration");
    // Auto range profiles every kernel of the context: nothing of ours may still be queued (the
    // engine's memsets), and the engine is the process's one owner of GPU work.
    if (cudaStreamSynchronize(stream) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess)
      throw Failure{"the GPU's earlier work failed"};
    CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = profiler;
    ok(c.cuptiRangeProfilerStart(&start), "starting the profiler (reading counters may need "
                                          "NVreg_RestrictProfilingToAdminUsers=0 or root)");
    std::string launched = launch();
    if (launched.empty() && cudaStreamSynchronize(stream) != cudaSuccess) launched = "the profiled launch failed";
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = profiler;
    ok(c.cuptiRangeProfilerStop(&stop), "stopping the profiler");
    if (!launched.empty()) throw Failure{launched};
    CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    decode.pRangeProfilerObject = profiler;
    ok(c.cuptiRangeProfilerDecodeData(&decode), "decoding the counters");
    CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = data.data();
    info.counterDataImageSize = data.size();
    ok(c.cuptiRangeProfilerGetCounterDataInfo(&info), "the counter data's ranges");
    if (info.numTotalRanges < 1) throw Failure{"the profiler recorded no kernel"};
    double value = -1;
    CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    eval.pHostObject = host;
    eval.pCounterDataImage = data.data();
    eval.counterDataImageSize = data.size();
    eval.rangeIndex = 0;
    eval.ppMetricNames = metrics;
    eval.numMetrics = 1;
    eval.pMetricValues = &value;
    ok(c.cuptiProfilerHostEvaluateToGpuValues(&eval), "evaluating the metric");
    if (!(value >= 0 && value <= 100.5)) throw Failure{"the counter read " + std::to_string(value) + " %"};
    *out = value / 100.0;
  } catch (const Failure& f) {
    error = f.what;
  } catch (const std::exception& e) {  // whatever happens, the profiler is torn down below
    error = e.what();
  } catch (...) {
    error = "an unexpected error while profiling";
  }
  if (profiler) {
    CUpti_RangeProfiler_Disable_Params disable{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    disable.pRangeProfilerObject = profiler;
    c.cuptiRangeProfilerDisable(&disable);
  }
  if (host) {
    CUpti_Profiler_Host_Deinitialize_Params deinit{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    deinit.pHostObject = host;
    c.cuptiProfilerHostDeinitialize(&deinit);
  }
  CUpti_Profiler_DeInitialize_Params deinit{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
  c.cuptiProfilerDeInitialize(&deinit);
  cudaGetLastError();
  return error;
}

}  // namespace rl
