#pragma once
// The reduction family's CPU model (reduction_model.cpp).
#include <cstdint>

#include "reducelab/trace.hpp"

namespace rl {
TraceData reductionModel(const KernelInfo& k, const RunConfig& c, uint64_t grid, int ccMajor);
}  // namespace rl
