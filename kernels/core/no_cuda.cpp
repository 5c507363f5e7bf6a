// The CUDA side of ReduceLab in a build made without nvcc (REDUCELAB_CUDA=OFF, or no CUDA Toolkit
// found): there is no device to use, and every caller already handles that case (CPU model).
#include "reducelab/cuda_device.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/platform.hpp"

namespace rl {

namespace {
constexpr const char* kNoCuda = platform::kBrowser ? platform::kBrowserLimits
                                                   : "this build of ReduceLab has no CUDA support (built without the CUDA Toolkit); "
                                                     "it runs the CPU model only";
}  // namespace

DeviceInfo queryDevice(int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  d.unavailableReason = kNoCuda;
  return d;
}

DeviceCount countDevices() { return {0, false, kNoCuda}; }

std::string launchInteropPattern(float*, size_t) { return kNoCuda; }

std::unique_ptr<Engine> Engine::create(int, std::string* error) {
  if (error) *error = kNoCuda;
  return nullptr;
}

}  // namespace rl
