// dlopen / dlsym of the few NCCL functions `reducelab multi` calls (see nccl_loader.hpp).
#include "nccl_loader.hpp"

#if REDUCELAB_HAVE_NCCL
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace rl::multi {

std::string NcclApi::versionText() const {
  // NCCL >= 2.9: code = major * 10000 + minor * 100 + patch.
  const int major = versionCode / 10000, minor = (versionCode / 100) % 100, patch = versionCode % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

namespace {

template <class F> bool bind(void* h, const char* name, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  if (!*out) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *out != nullptr;
}

NcclApi load() {
  NcclApi api;
  // Before anything of NCCL runs: no NVLink SHARP (it would create multicast objects).
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  const char* override = std::getenv("REDUCELAB_NCCL_LIBRARY");
  const std::string file = override && *override ? override : "libnccl.so.2";
  void* h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    api.error = "cannot load " + file + " (" + (e ? e : "dlopen failed") + ")";
    return api;
  }
  std::string missing;
  bind(h, "ncclGetVersion", &api.getVersion, &missing);
  bind(h, "ncclCommInitAll", &api.commInitAll, &missing);
  bind(h, "ncclCommDestroy", &api.commDestroy, &missing);
  bind(h, "ncclCommAbort", &api.commAbort, &missing);
  bind(h, "ncclGroupStart", &api.groupStart, &missing);
  bind(h, "ncclGroupEnd", &api.groupEnd, &missing);
  bind(h, "ncclReduce", &api.reduce, &missing);
  bind(h, "ncclAllReduce", &api.allReduce, &missing);
  bind(h, "ncclGetErrorString", &api.errorString, &missing);
  bind(h, "ncclCommGetAsyncError", &api.commGetAsyncError, &missing);
  if (!missing.empty()) {
    api.error = file + " lacks " + missing;
    dlclose(h);
    return api;
  }
  Dl_info info{};
  api.library = dladdr(reinterpret_cast<void*>(api.getVersion), &info) && info.dli_fname ? info.dli_fname : file;
  if (api.getVersion(&api.versionCode) != ncclSuccess) {
    api.error = "ncclGetVersion failed";
    return api;
  }
  if (api.versionCode < 20900) {  // older codes are major*1000 + ...; ncclCommGetAsyncError and our math need 2.9+
    api.error = "NCCL " + std::to_string(api.versionCode) + " is older than 2.9";
    return api;
  }
  api.loaded = true;
  return api;
}

}  // namespace

const NcclApi& nccl() {
  static std::once_flag once;
  static NcclApi api;
  std::call_once(once, [] { api = load(); });
  return api;
}

}  // namespace rl::multi
#endif
