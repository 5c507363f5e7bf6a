#pragma once
// Tracing UNMODIFIED kernels: the Compute Sanitizer patching API instruments the one launch to
// trace and records every shared/global load, store and atomic, barrier and shuffle of one block
// (kernels/instrumented/). Works for any kernel: the catalogue's untraced instantiations, CUB,
// modules loaded at run time (cuModuleLoadData, cudaLibraryLoadData of an NVRTC cubin).
//
// Use, in a process of its own (`reducelab trace --instrumented` is one):
//   subscribe();               // before the process's first CUDA call (it also asks for eager
//                              // module loading, CUDA_MODULE_LOADING=EAGER, for this process)
//   ... create the CUDA context, allocate, load modules ...
//   ArmRequest r{.tracedBlock = 3, .functionName = "..."};
//   observe(r); launch the kernel once; wait;    // the tracer learns the launch's module
//   arm(r);                                     // patches that module (host thread)
//   launch the kernel as usual;                 // its first matching launch is traced
//   RawTrace raw = finish(&error);   // waits, removes the patches, reads the records back
//   TraceData t = toTraceData(raw, options, &report, &error);   // instrumented_trace.hpp
// Launches before arm() and after finish() run unpatched, and while nothing is observed or armed
// the launch callbacks are off (docs/instrumented-traces.md has the costs). Launches of the
// patched module between arm() and finish() other than the traced one run the patches but record
// nothing (RawTrace::bystanderLaunches).
//
// The patches are built into the binary (a fatbin, when the Compute Sanitizer SDK was found at
// configure time); libsanitizer-public.so is loaded at run time from $REDUCELAB_SANITIZER_LIB,
// $CUDA_HOME/compute-sanitizer or /usr/local/cuda/compute-sanitizer.
#include <cstdint>
#include <string>

#include "reducelab/instrumented_trace.hpp"

namespace rl::instrumented {

// Whether this build has the tracer (the SDK's headers were found at configure time).
bool built();
// Loads the library and subscribes to its callbacks (once; later calls return the first
// answer). "" or why not: what is missing and where it was looked for.
std::string subscribe();
bool subscribed();
// The library file loaded ("" before subscribe() succeeded).
std::string libraryPath();

constexpr uint32_t kDefaultCapacity = 1u << 21;  // records (40 bytes each: 80 MiB)

// The instruction classes the tracer patches (ArmRequest::patchClasses), for narrowing down an
// instruction class a driver cannot patch (docs/instrumented-traces.md, "When a patched launch
// faults"). Environment overrides, read by arm(): REDUCELAB_INSTRUMENT_PATCHES=global,shared,...
// (the classes by these names), REDUCELAB_INSTRUMENT_STORE_VALUES=0, REDUCELAB_INSTRUMENT_DRY_RUN=1.
enum PatchClass : uint32_t {
  kPatchGlobal = 1, kPatchShared = 2, kPatchBarrier = 4, kPatchShuffle = 8, kPatchSyncwarp = 16,
  kPatchLocal = 32, kPatchRemoteShared = 64, kPatchBulkCopy = 128, kPatchAll = 255,
};
// "global,shared,barrier,shfl,syncwarp,local,remote,bulk" -> mask; 0 and *error on an unknown name.
uint32_t parsePatchClasses(const std::string& list, std::string* error);
std::string patchClassNames(uint32_t mask);

struct ArmRequest {
  uint32_t tracedBlock = 0;               // linear block index
  uint32_t capacity = kDefaultCapacity;   // records the device buffer holds
  std::string functionName;   // trace the first launch of this function (mangled name)...
  std::string nameContains;   // ... or of the first one whose name contains this; both empty:
                              // the next launch
  uint32_t blockThreads = 0;  // threads per block of the launch, where known (0: up to 1024): the
                              // buffer gives each thread capacity / blockThreads records
  uint32_t patchClasses = kPatchAll;  // which instruction classes are patched
  bool storeValues = true;    // read the data of stores (the API's pData) for the lanes' values
  bool dryRun = false;        // patch, but give the traced launch no buffer: it records nothing
};

// Watches the launches that follow, recording and patching nothing, for the first one that
// matches `request` (tracedBlock and capacity aside): arm() patches that launch's module.
std::string observe(const ArmRequest& request);
// Arms the tracer for one launch: patches the module observe() saw for the same request and
// readies the device buffer. "" or why not (not subscribed, nothing observed, already armed, no
// memory, the patch refused).
std::string arm(const ArmRequest& request);
bool armed();
// Waits for the device, unpatches, disarms and returns the traced launch's records; on failure
// (no launch matched, the block does not exist, the launch failed) *error says why.
RawTrace finish(std::string* error);

}  // namespace rl::instrumented
