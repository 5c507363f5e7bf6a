// dlopen / dlsym of the NVRTC functions the user-kernel compiler calls (see nvrtc.hpp).
#include "reducelab/usercode/nvrtc.hpp"
#include "reducelab/platform.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace rl::usercode {

std::string NvrtcApi::text(NvrtcResult r) const {
  const char* s = getErrorString ? getErrorString(r) : nullptr;
  return s ? s : "NVRTC error " + std::to_string(r);
}

bool NvrtcApi::supports(int sm) const { return std::find(archs.begin(), archs.end(), sm) != archs.end(); }

NvrtcSearch nvrtcSearchFromEnvironment() {
  NvrtcSearch s;
  if (const char* v = std::getenv("REDUCELAB_NVRTC_LIB")) s.library = v;
  if (const char* v = std::getenv("CUDA_HOME")) s.cudaHome = v;
  return s;
}

namespace {

// Newest first: a cubin from NVRTC 13 or 12 loads through the runtime ReduceLab links.
constexpr const char* kSonames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

template <class F> void bind(void* h, const char* name, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(h, name));
  if (!*out) *missing += std::string(missing->empty() ? "" : ", ") + name;
}

}  // namespace

std::vector<std::string> nvrtcCandidates(const NvrtcSearch& s) {
  if (!s.library.empty()) return {s.library};
  std::vector<std::string> out;
  std::vector<std::string> folders;
  if (!s.cudaHome.empty()) folders.push_back(s.cudaHome + "/lib64");
  folders.push_back("/usr/local/cuda/lib64");
  for (const std::string& f : folders)
    for (const char* so : kSonames) out.push_back(f + "/" + so);
  for (const char* so : kSonames) out.push_back(so);
  return out;
}

NvrtcApi loadNvrtc(const NvrtcSearch& s) {
  NvrtcApi api;
  if (platform::kBrowser) {
    api.error = platform::kBrowserLimits;
    return api;
  }
  void* h = nullptr;
  std::string lastError;
  for (const std::string& file : nvrtcCandidates(s)) {
    h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) break;
    const char* e = dlerror();
    lastError = e ? e : "dlopen failed";
  }
  if (!h) {
    if (!s.library.empty()) {
      api.error = "NVRTC (the CUDA runtime compiler) could not be loaded from REDUCELAB_NVRTC_LIB=" + s.library + ": " +
                  lastError + "; compiling your kernel needs libnvrtc.so from a CUDA installation";
    } else {
      api.error = "NVRTC (the CUDA runtime compiler, libnvrtc.so.13 or .12) was not found; looked in " +
                  (s.cudaHome.empty() ? std::string("$CUDA_HOME/lib64 (CUDA_HOME not set)") : s.cudaHome + "/lib64") +
                  ", /usr/local/cuda/lib64 and the loader's path (LD_LIBRARY_PATH, ldconfig); install the CUDA "
                  "Toolkit's NVRTC or set REDUCELAB_NVRTC_LIB to its libnvrtc.so";
    }
    return api;
  }
  std::string missing;
  bind(h, "nvrtcGetErrorString", &api.getErrorString, &missing);
  bind(h, "nvrtcVersion", &api.version, &missing);
  bind(h, "nvrtcGetNumSupportedArchs", &api.getNumSupportedArchs, &missing);
  bind(h, "nvrtcGetSupportedArchs", &api.getSupportedArchs, &missing);
  bind(h, "nvrtcCreateProgram", &api.createProgram, &missing);
  bind(h, "nvrtcDestroyProgram", &api.destroyProgram, &missing);
  bind(h, "nvrtcCompileProgram", &api.compileProgram, &missing);
  bind(h, "nvrtcGetPTXSize", &api.getPTXSize, &missing);
  bind(h, "nvrtcGetPTX", &api.getPTX, &missing);
  bind(h, "nvrtcGetCUBINSize", &api.getCUBINSize, &missing);
  bind(h, "nvrtcGetCUBIN", &api.getCUBIN, &missing);
  bind(h, "nvrtcGetProgramLogSize", &api.getProgramLogSize, &missing);
  bind(h, "nvrtcGetProgramLog", &api.getProgramLog, &missing);
  bind(h, "nvrtcAddNameExpression", &api.addNameExpression, &missing);
  bind(h, "nvrtcGetLoweredName", &api.getLoweredName, &missing);
  Dl_info info{};
  api.library = api.version && dladdr(reinterpret_cast<void*>(api.version), &info) && info.dli_fname
                    ? info.dli_fname
                    : std::string("libnvrtc");
  if (!missing.empty()) {
    api.error = "NVRTC at " + api.library + " lacks " + missing + " (ReduceLab needs NVRTC 12 or newer)";
    dlclose(h);
    return api;
  }
  if (api.version(&api.major, &api.minor) != kNvrtcSuccess || api.major < 12) {
    api.error = "NVRTC at " + api.library + " is version " + api.versionText() + "; ReduceLab needs 12 or newer";
    return api;
  }
  int count = 0;
  if (api.getNumSupportedArchs(&count) == kNvrtcSuccess && count > 0 && count < 1000) {
    api.archs.resize(size_t(count));
    if (api.getSupportedArchs(api.archs.data()) != kNvrtcSuccess) api.archs.clear();
  }
  api.loaded = true;
  return api;
}

const NvrtcApi& nvrtc() {
  static std::once_flag once;
  static NvrtcApi api;
  std::call_once(once, [] { api = loadNvrtc(nvrtcSearchFromEnvironment()); });
  return api;
}

}  // namespace rl::usercode
