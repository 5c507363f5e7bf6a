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

template <class O> struct CubOperator;
template <> struct CubOperator<SumOp> { using type = cuda::std::plus<>; };
template <> struct CubOperator<MinOp> { using type = cuda::minimum<>; };
template <> struct CubOperator<MaxOp> { using type = cuda::maximum<>; };

}  // namespace

cudaError_t cubReduce(Op op, ElemType in, Accumulate acc, const void* d_in, void* d_out, uint64_t n,
                      void* temp, size_t* tempBytes, cudaStream_t stream) {
  return withOpAndTypes(op, in, acc, [&]<class O, class TIn, class TAcc>(TypeTag<O>, TypeTag<TIn>, TypeTag<TAcc>) {
    return run<TIn, TAcc, typename CubOperator<O>::type, O>(d_in, d_out, n, temp, tempBytes, stream);
  });
}

}  // namespace rl::kernels

namespace rl::kernels {
// CUB is called through cubReduce (the engine's library path), not the registry: nothing to add.
template <> void registerKernel<KernelId::Cub>(Registry&) {}
}  // namespace rl::kernels
