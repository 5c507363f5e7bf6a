// Instantiations of kernel 13 (k13_tuned_single_pass.cuh): the policy's depth and cache hint are
// arguments (one instantiation per type pair runs every policy).
#include "k13_tuned_single_pass.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K13>(Registry& r) {
  static_assert(!desc::K13.blockTemplated);
  forEachVariant([&]<class Op_, class In_, class Acc_, class Tr_>() {
    LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {
      k13TunedSinglePass<Op_, In_, Acc_, Tr_><<<a.grid, a.block, a.smemBytes, a.stream>>>(
          static_cast<const In_*>(a.in), static_cast<Acc_*>(a.out), a.n, static_cast<Acc_*>(a.partials),
          a.counter, a.loadsInFlight, a.cacheHint, makeTracer<Tr_>(a));
      return cudaGetLastError();
    };
    r.add(variantKey<Op_, In_, Acc_, Tr_>(KernelId::K13),
          {fn, reinterpret_cast<const void*>(&k13TunedSinglePass<Op_, In_, Acc_, Tr_>)});
  });
}
}  // namespace rl::kernels
