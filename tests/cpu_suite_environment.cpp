// The CPU suite tests the paths every machine takes (the CPU model, parsing, files, the GUI without
// a GPU). On a GPU machine ReduceLab is told to take those paths (REDUCELAB_HIDE_GPU=1, inherited by
// every process the suite starts), so each of its tests means the same everywhere; the GPU's paths
// have their own suite (label gpu), which fails instead of skipping where a GPU is expected. The
// GPU stays visible to the GL driver (CUDA_VISIBLE_DEVICES= hid it from NVIDIA's EGL too: black
// frames of 30 s). REDUCELAB_CPU_TESTS_SEE_GPU=1 leaves ReduceLab the GPU.
#include <cstdlib>
#include <string_view>

namespace {
const bool kGpuHidden = [] {
  const char* see = std::getenv("REDUCELAB_CPU_TESTS_SEE_GPU");
  if (see && std::string_view(see) == "1") return false;
  setenv("REDUCELAB_HIDE_GPU", "1", 1);  // before main, so before ReduceLab asks for a device
  return true;
}();
}  // namespace
