// Instantiations of kernel 11 (k11_atomic_final.cuh). The launch writes the identity into the
// result first: it is part of the algorithm, so it is inside the timed region.
#include "k11_atomic_final.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
template <> void registerKernel<KernelId::K11>(Registry& r) {
  static_assert(!desc::K11.blockTemplated);
  forEachVariant([&]<class Op_, class In_, class Acc_, class Tr_>() {
    LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {
      writeIdentity<Op_, Acc_><<<1, 1, 0, a.stream>>>(static_cast<Acc_*>(a.out));
      k11AtomicFinal<Op_, In_, Acc_, Tr_><<<a.grid, a.block, a.smemBytes, a.stream>>>(
          static_cast<const In_*>(a.in), static_cast<Acc_*>(a.out), a.n, makeTracer<Tr_>(a));
      return cudaGetLastError();
    };
    r.add(variantKey<Op_, In_, Acc_, Tr_>(KernelId::K11),
          {fn, reinterpret_cast<const void*>(&k11AtomicFinal<Op_, In_, Acc_, Tr_>)});
  });
}
}  // namespace rl::kernels
