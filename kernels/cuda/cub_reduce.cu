// The library reference: cub::DeviceReduce::Reduce with the same operator, accumulator type and
// identity as the hand-written kernels.
#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

#include "cub_reduce.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
namespace {

template <class TIn, class TAcc, class CubOp, class OurOp>
cudaError_t run(const void* in, void* out, uint64_t n, void* temp, size_t* tempBytes,
                cudaStream_t stream) {
  return cub::DeviceReduce::Reduce(temp, *tempBytes, static_cast<const TIn*>(in),
                                   static_cast<TAcc*>(out), int64_t(n), CubOp{},
                                   OurOp::template identity<TAcc>(), stream);
}

template <class TIn, class TAcc>
cudaError_t runOp(Op op, const void* in, void* out, uint64_t n, void* temp, size_t* tempBytes,
                  cudaStream_t stream) {
  switch (op) {
    case Op::Sum: return run<TIn, TAcc, cuda::std::plus<>, SumOp>(in, out, n, temp, tempBytes, stream);
    case Op::Min: return run<TIn, TAcc, cuda::minimum<>, MinOp>(in, out, n, temp, tempBytes, stream);
    case Op::Max: return run<TIn, TAcc, cuda::maximum<>, MaxOp>(in, out, n, temp, tempBytes, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t cubReduce(Op op, ElemType in, ElemType acc, const void* d_in, void* d_out, uint64_t n,
                      void* temp, size_t* tempBytes, cudaStream_t stream) {
  if (in == ElemType::Int32 && acc == ElemType::Int32) return runOp<int32_t, int32_t>(op, d_in, d_out, n, temp, tempBytes, stream);
  if (in == ElemType::Int32 && acc == ElemType::Int64) return runOp<int32_t, int64_t>(op, d_in, d_out, n, temp, tempBytes, stream);
  if (in == ElemType::Int64) return runOp<int64_t, int64_t>(op, d_in, d_out, n, temp, tempBytes, stream);
  if (in == ElemType::Float32 && acc == ElemType::Float32) return runOp<float, float>(op, d_in, d_out, n, temp, tempBytes, stream);
  if (in == ElemType::Float32 && acc == ElemType::Float64) return runOp<float, double>(op, d_in, d_out, n, temp, tempBytes, stream);
  if (in == ElemType::Float64) return runOp<double, double>(op, d_in, d_out, n, temp, tempBytes, stream);
  return cudaErrorInvalidValue;
}

}  // namespace rl::kernels
