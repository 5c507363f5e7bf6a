#pragma once
// Seed 002's pitfalls on the device (pitfalls.cu); the engine runs them on its stream.
#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "reducelab/device_info.hpp"
#include "reducelab/pitfalls.hpp"

namespace rl {

// Runs the seed's kernels and their fixes; `cancel` is checked between sizes. Every buffer it
// allocates is freed before it returns; the undersized buffer lives inside a larger allocation.
PitfallResult runPitfallOnGpu(const DeviceInfo& device, cudaStream_t stream, const PitfallRequest& r,
                              const std::function<bool()>& cancel);
// The transfers' demonstrations (transfers.cu): fills out->transfers; "" or why not.
std::string runTransfersOnGpu(const DeviceInfo& device, cudaStream_t stream, const PitfallRequest& r,
                              const std::function<bool()>& cancel, PitfallResult* out);

}  // namespace rl
