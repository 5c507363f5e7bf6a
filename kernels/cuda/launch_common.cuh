// Helpers for the per-kernel launch files: iterate over every operation x type pair x policy.
#pragma once
#include <utility>

#include "kernel_list.hpp"
#include "launch.hpp"
#include "reduce_ops.cuh"
#include "reducelab/type_dispatch.hpp"
#include "tracer.cuh"

namespace rl::kernels {

template <class T> using Tag = TypeTag<T>;

// f.template operator()<Op, In, Acc, Trace>() for every variant; f is a template lambda
// `[&]<class Op_, class In_, class Acc_, class Tr_>() { ... }`.
template <class F> void forEachVariant(F&& f) {
  auto perOp = [&]<class O>(Tag<O>) {
    forEachTypePair([&]<class I, class A>(Tag<I>, Tag<A>) {
      f.template operator()<O, I, A, NoTrace>();
      f.template operator()<O, I, A, DeviceTrace>();
    });
  };
  perOp(Tag<SumOp>{});
  perOp(Tag<MinOp>{});
  perOp(Tag<MaxOp>{});
}

template <class Trace> Trace makeTracer(const LaunchArgs& a) {
  Trace t;
  if constexpr (Trace::enabled) {
    t.buffer = a.trace;
    t.tracedBlock = a.tracedBlock;
  }
  return t;
}

// Launches `kernel` with the args' grid, `block`, shared memory and stream; a later pass of a GPU
// final with programmatic stream serialization (it may start while the previous pass drains; the
// kernel's waitForPreviousGrid() holds it until that grid is done).
template <class... Params, class... Args>
cudaError_t launchPass(void (*kernel)(Params...), const LaunchArgs& a, unsigned block, Args... args) {
  if (!a.programmaticDependent) {
    kernel<<<a.grid, block, a.smemBytes, a.stream>>>(args...);
    return cudaGetLastError();
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(a.grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = a.smemBytes;
  cfg.stream = a.stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, args...);
}

template <class Op, class TIn, class TAcc, class Trace>
VariantKey variantKey(KernelId id, int blockTemplate = 0) {
  return {id, opOf<Op>(), elemTypeOf<TIn>(), elemTypeOf<TAcc>(), Trace::enabled, blockTemplate};
}

// Registers a kernel with the plain signature (in, out, n, tracer).
// ID: the KernelId enumerator (its descriptor, rl::desc::ID, must say the same launch form).
#define RL_REGISTER_PLAIN_KERNEL(REG, ID, KERNEL)                                              \
  static_assert(!desc::ID.blockTemplated, #ID "'s descriptor says it is block-templated");   \
  forEachVariant([&]<class Op_, class In_, class Acc_, class Tr_>() {                          \
    LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {                                   \
      return launchPass(&KERNEL<Op_, In_, Acc_, Tr_>, a, a.block, static_cast<const In_*>(a.in), \
                        static_cast<Acc_*>(a.out), a.n, makeTracer<Tr_>(a));                 \
    };                                                                                       \
    (REG).add(variantKey<Op_, In_, Acc_, Tr_>(KernelId::ID),                                           \
              {fn, reinterpret_cast<const void*>(&KERNEL<Op_, In_, Acc_, Tr_>)});             \
  })

// Registers a kernel templated on the block size, for every power of two 32..1024.
using BlockTemplateSizes = std::integer_sequence<unsigned, 32, 64, 128, 256, 512, 1024>;
#define RL_REGISTER_BLOCK_TEMPLATED_KERNEL(REG, ID, KERNEL)                                    \
  static_assert(desc::ID.blockTemplated, #ID "'s descriptor says it is not block-templated"); \
  forEachVariant([&]<class Op_, class In_, class Acc_, class Tr_>() {                          \
    auto one = [&]<unsigned B>() {                                                           \
      LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {                                 \
        return launchPass(&KERNEL<B, Op_, In_, Acc_, Tr_>, a, B, static_cast<const In_*>(a.in), \
                          static_cast<Acc_*>(a.out), a.n, makeTracer<Tr_>(a));               \
      };                                                                                     \
      (REG).add(variantKey<Op_, In_, Acc_, Tr_>(KernelId::ID, B),                                      \
                {fn, reinterpret_cast<const void*>(&KERNEL<B, Op_, In_, Acc_, Tr_>)});        \
    };                                                                                       \
    [&]<unsigned... Bs>(std::integer_sequence<unsigned, Bs...>) {                            \
      (one.template operator()<Bs>(), ...);                                                  \
    }(BlockTemplateSizes{});                                                                    \
  })

}  // namespace rl::kernels
