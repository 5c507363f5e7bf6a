// Instantiations of kernel 14 (k14_bulk_copy.cuh): the bulk copies exist on sm_90 and newer; on
// older architectures of a fat build the kernel compiles to a trap and the engine refuses it
// (the descriptor's minCc).
#include "k14_bulk_copy.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K14>(Registry& r) {
  static_assert(!desc::K14.blockTemplated);
  forEachVariant([&]<class Op_, class In_, class Acc_, class Tr_>() {
    LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {
      k14BulkCopy<Op_, In_, Acc_, Tr_><<<a.grid, a.block, a.smemBytes, a.stream>>>(
          static_cast<const In_*>(a.in), static_cast<Acc_*>(a.out), a.n, static_cast<Acc_*>(a.partials), a.counter,
          makeTracer<Tr_>(a));
      return cudaGetLastError();
    };
    r.add(variantKey<Op_, In_, Acc_, Tr_>(KernelId::K14),
          {fn, reinterpret_cast<const void*>(&k14BulkCopy<Op_, In_, Acc_, Tr_>)});
  });
}
}  // namespace rl::kernels
