#pragma once
// NVRTC, the CUDA runtime compiler, loaded at run time (dlopen) like NCCL: the binary builds and
// starts without the CUDA Toolkit, and compiling a user's kernel needs only libnvrtc (no nvcc,
// no GPU). The few functions used are declared here by their C ABI, so this builds in every
// configuration, with or without nvrtc.h.
#include <string>
#include <vector>

namespace rl::usercode {

struct NvrtcProgramState;
using NvrtcProgram = NvrtcProgramState*;
using NvrtcResult = int;  // nvrtcResult: 0 is NVRTC_SUCCESS
constexpr NvrtcResult kNvrtcSuccess = 0;

struct NvrtcApi {
  bool loaded = false;
  std::string error;    // why not loaded: one message naming what is missing and where it looked
  std::string library;  // the file that was loaded
  int major = 0, minor = 0;
  std::vector<int> archs;  // the sm_XY numbers it compiles for (90 for sm_90)

  const char* (*getErrorString)(NvrtcResult) = nullptr;
  NvrtcResult (*version)(int*, int*) = nullptr;
  NvrtcResult (*getNumSupportedArchs)(int*) = nullptr;
  NvrtcResult (*getSupportedArchs)(int*) = nullptr;
  NvrtcResult (*createProgram)(NvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  NvrtcResult (*destroyProgram)(NvrtcProgram*) = nullptr;
  NvrtcResult (*compileProgram)(NvrtcProgram, int, const char* const*) = nullptr;
  NvrtcResult (*getPTXSize)(NvrtcProgram, size_t*) = nullptr;
  NvrtcResult (*getPTX)(NvrtcProgram, char*) = nullptr;
  NvrtcResult (*getCUBINSize)(NvrtcProgram, size_t*) = nullptr;
  NvrtcResult (*getCUBIN)(NvrtcProgram, char*) = nullptr;
  NvrtcResult (*getProgramLogSize)(NvrtcProgram, size_t*) = nullptr;
  NvrtcResult (*getProgramLog)(NvrtcProgram, char*) = nullptr;
  NvrtcResult (*addNameExpression)(NvrtcProgram, const char*) = nullptr;
  NvrtcResult (*getLoweredName)(NvrtcProgram, const char*, const char**) = nullptr;

  std::string versionText() const { return std::to_string(major) + "." + std::to_string(minor); }
  std::string text(NvrtcResult r) const;
  bool supports(int sm) const;
};

// Where NVRTC is looked for. REDUCELAB_NVRTC_LIB, when set, is the only place tried (a file the
// user named that does not load is an error, not a reason to take another NVRTC); otherwise
// $CUDA_HOME/lib64, /usr/local/cuda/lib64, then the loader's path (LD_LIBRARY_PATH, ldconfig).
struct NvrtcSearch {
  std::string library;   // $REDUCELAB_NVRTC_LIB
  std::string cudaHome;  // $CUDA_HOME
};
NvrtcSearch nvrtcSearchFromEnvironment();
// The files tried, in order (absolute paths, then bare sonames for the loader's path).
std::vector<std::string> nvrtcCandidates(const NvrtcSearch& s);
// Loads a fresh copy (tests); nvrtc() loads once per process from the environment.
NvrtcApi loadNvrtc(const NvrtcSearch& s);
const NvrtcApi& nvrtc();

}  // namespace rl::usercode
