// Builds without CUDA or without the Compute Sanitizer SDK: no instrumented traces, said once.
#include "reducelab/instrumented.hpp"

namespace rl::instrumented {

namespace {
#if REDUCELAB_HAVE_CUDA_BUILD
const char* kWhy =
    "this ReduceLab was built without the Compute Sanitizer SDK (configure with "
    "-DREDUCELAB_SANITIZER_ROOT=<CUDA>/compute-sanitizer): instrumented traces are not available";
#else
const char* kWhy = "this ReduceLab was built without CUDA: instrumented traces need a GPU build";
#endif
}  // namespace

bool built() { return false; }
std::string subscribe() { return kWhy; }
bool subscribed() { return false; }
std::string libraryPath() { return {}; }
std::string observe(const ArmRequest&) { return kWhy; }
std::string arm(const ArmRequest&) { return kWhy; }
bool armed() { return false; }
RawTrace finish(std::string* error) {
  if (error) *error = kWhy;
  return {};
}

}  // namespace rl::instrumented
