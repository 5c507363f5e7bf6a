#pragma once
// Device discovery and the interop smoke pattern, implemented in CUDA (reducelab_kernels).
#include <cstddef>
#include <string>

#include "reducelab/device_info.hpp"

namespace rl {

// Queries device `ordinal`. Never throws: without a driver or device, available=false with a reason.
DeviceInfo queryDevice(int ordinal = 0);

// How many CUDA devices are visible; with none, why (and whether the setup is broken rather
// than absent, as DeviceInfo::broken says).
struct DeviceCount {
  int count = 0;
  bool broken = false;
  std::string reason;
};
DeviceCount countDevices();

// Fills `count` floats at device pointer `devPtr` with interopPattern(i) (see interop_pattern.hpp).
// Returns an empty string on success, else the CUDA error text.
std::string launchInteropPattern(float* devPtr, size_t count);

}  // namespace rl
