#pragma once
// The matrix families' CPU model (matrix_model.cpp).
#include "reducelab/trace.hpp"

namespace rl {
TraceData matrixModel(const KernelInfo& k, const RunConfig& c, const Geometry& g);
}  // namespace rl
