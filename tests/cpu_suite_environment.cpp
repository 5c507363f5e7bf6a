// The CPU suite tests the paths every machine takes (the CPU model, parsing, files, the GUI without
// a GPU). On a GPU machine the GPU is hidden from it and from every process it starts, so each of
// its tests means the same everywhere; the GPU's paths have their own suite (label gpu), which
// fails instead of skipping where a GPU is expected. REDUCELAB_CPU_TESTS_SEE_GPU=1 leaves it visible.
#include <cstdlib>
#include <string_view>

namespace {
const bool kGpuHidden = [] {
  const char* see = std::getenv("REDUCELAB_CPU_TESTS_SEE_GPU");
  if (see && std::string_view(see) == "1") return false;
  setenv("CUDA_VISIBLE_DEVICES", "", 1);  // before main, so before any CUDA call
  return true;
}();
}  // namespace
