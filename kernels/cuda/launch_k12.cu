// Instantiations of kernel 12 (k12_last_block.cuh).
#include "k12_last_block.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K12>(Registry& r) {
  static_assert(!desc::K12.blockTemplated);
  forEachVariant([&]<class Op_, class In_, class Acc_, class Tr_>() {
    LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {
      k12LastBlock<Op_, In_, Acc_, Tr_><<<a.grid, a.block, a.smemBytes, a.stream>>>(
          static_cast<const In_*>(a.in), static_cast<Acc_*>(a.out), a.n,
          static_cast<Acc_*>(a.partials), a.counter, makeTracer<Tr_>(a));
      return cudaGetLastError();
    };
    r.add(variantKey<Op_, In_, Acc_, Tr_>(KernelId::K12),
          {fn, reinterpret_cast<const void*>(&k12LastBlock<Op_, In_, Acc_, Tr_>)});
  });
}
}  // namespace rl::kernels
