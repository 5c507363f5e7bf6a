#pragma once
// NCCL is loaded at run time (dlopen "libnccl.so.2", or $REDUCELAB_NCCL_LIBRARY): the binary then
// starts and runs everything else where NCCL is missing. nccl.h (from the CUDA installation,
// found at configure time) gives the types; without it this part is not built.
#include <string>

#if REDUCELAB_HAVE_NCCL
#include <nccl.h>

namespace rl::multi {

struct NcclApi {
  bool loaded = false;
  std::string error;    // why not loaded
  std::string library;  // the file that was loaded
  int versionCode = 0;  // e.g. 22803
  ncclResult_t (*getVersion)(int*) = nullptr;
  ncclResult_t (*commInitAll)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*commDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*commAbort)(ncclComm_t) = nullptr;
  ncclResult_t (*groupStart)() = nullptr;
  ncclResult_t (*groupEnd)() = nullptr;
  ncclResult_t (*reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
                         cudaStream_t) = nullptr;
  ncclResult_t (*allReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                            cudaStream_t) = nullptr;
  const char* (*errorString)(ncclResult_t) = nullptr;
  ncclResult_t (*commGetAsyncError)(ncclComm_t, ncclResult_t*) = nullptr;

  std::string versionText() const;  // "2.28.3"
  std::string text(ncclResult_t r) const { return errorString ? errorString(r) : "NCCL error " + std::to_string(int(r)); }
};

// Loads NCCL once per process. Sets NCCL_NVLS_ENABLE=0 first, always: NVLink SHARP (multicast
// objects) must stay off on the machines this runs on.
const NcclApi& nccl();

}  // namespace rl::multi
#endif
