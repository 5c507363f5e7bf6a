#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "reducelab/types.hpp"

namespace rl::kernels {

// temp == nullptr: only sets *tempBytes (CUB's two-call protocol).
cudaError_t cubReduce(Op op, ElemType in, Accumulate acc, const void* d_in, void* d_out, uint64_t n,
                      void* temp, size_t* tempBytes, cudaStream_t stream);

}  // namespace rl::kernels
