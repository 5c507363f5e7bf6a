#pragma once
// Achieved occupancy from the hardware counter (CUPTI's range profiler, loaded at run time).
#include <cuda_runtime.h>

#include <functional>
#include <string>

namespace rl {

// Runs `launch` ("" or why it could not launch) once under the profiler and sets *out to the
// first kernel's achieved occupancy, 0..1 (sm__warps_active.avg.pct_of_peak_sustained_active /
// 100). "" or why not: CUPTI absent or too old, counters not permitted, the launch failed.
std::string readAchievedOccupancy(int device, cudaStream_t stream, const std::function<std::string()>& launch,
                                  double* out);

}  // namespace rl
