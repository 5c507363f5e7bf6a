// Helpers for the per-kernel launch files: iterate over every operation x type pair x policy.
#pragma once
#include <type_traits>

#include "launch.hpp"
#include "reduce_ops.cuh"
#include "tracer.cuh"

namespace rl::kernels {

template <class T> constexpr ElemType elemTypeOf();
template <> constexpr ElemType elemTypeOf<int32_t>() { return ElemType::Int32; }
template <> constexpr ElemType elemTypeOf<int64_t>() { return ElemType::Int64; }
template <> constexpr ElemType elemTypeOf<float>() { return ElemType::Float32; }
template <> constexpr ElemType elemTypeOf<double>() { return ElemType::Float64; }

template <class O> constexpr Op opOf();
template <> constexpr Op opOf<SumOp>() { return Op::Sum; }
template <> constexpr Op opOf<MinOp>() { return Op::Min; }
template <> constexpr Op opOf<MaxOp>() { return Op::Max; }

template <class T> struct Tag { using type = T; };

// The (input, accumulator) pairs: same type, or the wide accumulator.
template <class F> void forTypePairs(F&& f) {
  f(Tag<int32_t>{}, Tag<int32_t>{});
  f(Tag<int32_t>{}, Tag<int64_t>{});
  f(Tag<int64_t>{}, Tag<int64_t>{});
  f(Tag<float>{}, Tag<float>{});
  f(Tag<float>{}, Tag<double>{});
  f(Tag<double>{}, Tag<double>{});
}

// f(OpTag, InTag, AccTag, TraceTag) for every variant.
template <class F> void forEachVariant(F&& f) {
  auto perOp = [&](auto op) {
    forTypePairs([&](auto in, auto acc) {
      f(op, in, acc, Tag<NoTrace>{});
      f(op, in, acc, Tag<DeviceTrace>{});
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

template <class Op, class TIn, class TAcc, class Trace>
VariantKey variantKey(KernelId id, int blockTemplate = 0) {
  return {id, opOf<Op>(), elemTypeOf<TIn>(), elemTypeOf<TAcc>(), Trace::enabled, blockTemplate};
}

// Registers a kernel with the plain signature (in, out, n, tracer).
#define RL_REGISTER_PLAIN_KERNEL(REG, ID, KERNEL)                                              \
  forEachVariant([&](auto op, auto in, auto acc, auto trace) {                               \
    using Op_ = typename decltype(op)::type;                                                 \
    using In_ = typename decltype(in)::type;                                                 \
    using Acc_ = typename decltype(acc)::type;                                               \
    using Tr_ = typename decltype(trace)::type;                                              \
    LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {                                   \
      KERNEL<Op_, In_, Acc_, Tr_><<<a.grid, a.block, a.smemBytes, a.stream>>>(               \
          static_cast<const In_*>(a.in), static_cast<Acc_*>(a.out), a.n, makeTracer<Tr_>(a)); \
      return cudaGetLastError();                                                             \
    };                                                                                       \
    (REG).add(variantKey<Op_, In_, Acc_, Tr_>(ID),                                           \
              {fn, reinterpret_cast<const void*>(&KERNEL<Op_, In_, Acc_, Tr_>)});             \
  })

// Registers a kernel templated on the block size, for every power of two 32..1024.
#define RL_REGISTER_BLOCK_TEMPLATED_KERNEL(REG, ID, KERNEL)                                    \
  forEachVariant([&](auto op, auto in, auto acc, auto trace) {                               \
    using Op_ = typename decltype(op)::type;                                                 \
    using In_ = typename decltype(in)::type;                                                 \
    using Acc_ = typename decltype(acc)::type;                                               \
    using Tr_ = typename decltype(trace)::type;                                              \
    auto one = [&](auto bs) {                                                                \
      constexpr unsigned B = decltype(bs)::value;                                            \
      LaunchFn fn = [](const LaunchArgs& a) -> cudaError_t {                                 \
        KERNEL<B, Op_, In_, Acc_, Tr_><<<a.grid, B, a.smemBytes, a.stream>>>(                \
            static_cast<const In_*>(a.in), static_cast<Acc_*>(a.out), a.n, makeTracer<Tr_>(a)); \
        return cudaGetLastError();                                                           \
      };                                                                                     \
      (REG).add(variantKey<Op_, In_, Acc_, Tr_>(ID, B),                                      \
                {fn, reinterpret_cast<const void*>(&KERNEL<B, Op_, In_, Acc_, Tr_>)});        \
    };                                                                                       \
    one(std::integral_constant<unsigned, 32>{});                                             \
    one(std::integral_constant<unsigned, 64>{});                                             \
    one(std::integral_constant<unsigned, 128>{});                                            \
    one(std::integral_constant<unsigned, 256>{});                                            \
    one(std::integral_constant<unsigned, 512>{});                                            \
    one(std::integral_constant<unsigned, 1024>{});                                           \
  })

}  // namespace rl::kernels
