// Instantiations of kernel 13 (k13_tuned_single_pass.cuh): the policy's depth and cache hint are
// arguments (one instantiation per type pair runs every policy).
#include "k13_tuned_single_pass.cuh"
#include "kernel_list.hpp"
#include "launch_common.cuh"

namespace rl::kernels {
namespace {
// k13 and auto (a dispatch over k13's code) register the same instantiations under their ids.
void registerTunedSinglePass(Registry& r, KernelId id) {
  static_assert(!desc::K13.blockTemplated && !desc::Auto.blockTemplated);
  forEachVariant([&]<class Op_, class In_, class Acc_, class Tr_>() {
    LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {
      if constexpr (!Tr_::enabled) {
        if (a.grid == 1) {  // one CTA: the short kernel, the same order of operations
          auto one = [&]<int U>() {
            k13OneCta<Op_, In_, Acc_, U><<<1, a.block, a.smemBytes, a.stream>>>(static_cast<const In_*>(a.in),
                                                                              static_cast<Acc_*>(a.out), a.n);
            return cudaGetLastError();
          };
          switch (a.loadsInFlight) {
            case 8: return one.template operator()<8>();
            case 4: return one.template operator()<4>();
            case 2: return one.template operator()<2>();
            default: return one.template operator()<1>();
          }
        }
      }
      auto* kernel = &k13TunedSinglePass<Op_, In_, Acc_, Tr_>;
      const unsigned cluster = (unsigned(a.cacheHint) >> kLaunchClusterShift) & 0xffu;  // bit 16 up: other flags
      if (!Tr_::enabled && cluster > 1 && cluster == a.grid) {  // the grid as one cluster (the engine checked it fits)
        cudaLaunchConfig_t cfg{};
        cfg.gridDim = dim3(a.grid);
        cfg.blockDim = dim3(a.block);
        cfg.dynamicSmemBytes = a.smemBytes;
        cfg.stream = a.stream;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = cluster;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        return cudaLaunchKernelEx(&cfg, kernel, static_cast<const In_*>(a.in), static_cast<Acc_*>(a.out), a.n,
                                  static_cast<Acc_*>(a.partials), a.counter, a.loadsInFlight, a.cacheHint,
                                  makeTracer<Tr_>(a));
      }
      kernel<<<a.grid, a.block, a.smemBytes, a.stream>>>(
          static_cast<const In_*>(a.in), static_cast<Acc_*>(a.out), a.n, static_cast<Acc_*>(a.partials),
          a.counter, a.loadsInFlight, a.cacheHint, makeTracer<Tr_>(a));
      return cudaGetLastError();
    };
    // Clusters of up to 16 CTAs (8 is the portable limit); the engine asks the occupancy API what fits.
    if (!Tr_::enabled)
      cudaFuncSetAttribute(&k13TunedSinglePass<Op_, In_, Acc_, Tr_>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaGetLastError();
    r.add(variantKey<Op_, In_, Acc_, Tr_>(id),
          {fn, reinterpret_cast<const void*>(&k13TunedSinglePass<Op_, In_, Acc_, Tr_>)});
  });
}
}  // namespace
template <> void registerKernel<KernelId::K13>(Registry& r) { registerTunedSinglePass(r, KernelId::K13); }
template <> void registerKernel<KernelId::Auto>(Registry& r) { registerTunedSinglePass(r, KernelId::Auto); }
}  // namespace rl::kernels
