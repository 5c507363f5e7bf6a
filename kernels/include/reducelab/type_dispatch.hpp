#pragma once
// One place that turns the run-time vocabulary (element type, accumulator type, operation) into
// C++ types: every kernel launch, the engine, the reference and the CPU model go through it.
#include <cstdint>
#include <utility>

#include "reducelab/reduce_ops.hpp"
#include "reducelab/types.hpp"

namespace rl {

template <class T> struct TypeTag { using type = T; };

template <class T> constexpr ElemType elemTypeOf();
template <> constexpr ElemType elemTypeOf<int32_t>() { return ElemType::Int32; }
template <> constexpr ElemType elemTypeOf<int64_t>() { return ElemType::Int64; }
template <> constexpr ElemType elemTypeOf<float>() { return ElemType::Float32; }
template <> constexpr ElemType elemTypeOf<double>() { return ElemType::Float64; }

template <class O> constexpr Op opOf();
template <> constexpr Op opOf<SumOp>() { return Op::Sum; }
template <> constexpr Op opOf<MinOp>() { return Op::Min; }
template <> constexpr Op opOf<MaxOp>() { return Op::Max; }

// f(TypeTag<T>{}) for the C++ type of `t`.
template <class F> decltype(auto) withElemType(ElemType t, F&& f) {
  switch (t) {
    case ElemType::Int32: return f(TypeTag<int32_t>{});
    case ElemType::Int64: return f(TypeTag<int64_t>{});
    case ElemType::Float32: return f(TypeTag<float>{});
    case ElemType::Float64: break;
  }
  return f(TypeTag<double>{});
}

// f(TypeTag<O>{}) for the operator of `op`.
template <class F> decltype(auto) withOp(Op op, F&& f) {
  switch (op) {
    case Op::Sum: return f(TypeTag<SumOp>{});
    case Op::Min: return f(TypeTag<MinOp>{});
    case Op::Max: break;
  }
  return f(TypeTag<MaxOp>{});
}

// The (input, accumulator) pairs a run can have: the same type, or the wide accumulator
// (int32 -> int64, float32 -> float64). `f(TypeTag<In>{}, TypeTag<Acc>{})` for each.
template <class F> void forEachTypePair(F&& f) {
  f(TypeTag<int32_t>{}, TypeTag<int32_t>{});
  f(TypeTag<int32_t>{}, TypeTag<int64_t>{});
  f(TypeTag<int64_t>{}, TypeTag<int64_t>{});
  f(TypeTag<float>{}, TypeTag<float>{});
  f(TypeTag<float>{}, TypeTag<double>{});
  f(TypeTag<double>{}, TypeTag<double>{});
}

// f(TypeTag<In>{}, TypeTag<Acc>{}) for the pair (in, accumulatorType(in, a)).
template <class F> decltype(auto) withTypePair(ElemType in, Accumulate a, F&& f) {
  const bool wide = accumulatorType(in, a) != in;
  switch (in) {
    case ElemType::Int32:
      if (wide) return f(TypeTag<int32_t>{}, TypeTag<int64_t>{});
      return f(TypeTag<int32_t>{}, TypeTag<int32_t>{});
    case ElemType::Int64: return f(TypeTag<int64_t>{}, TypeTag<int64_t>{});
    case ElemType::Float32:
      if (wide) return f(TypeTag<float>{}, TypeTag<double>{});
      return f(TypeTag<float>{}, TypeTag<float>{});
    case ElemType::Float64: break;
  }
  return f(TypeTag<double>{}, TypeTag<double>{});
}

// f(TypeTag<Op>{}, TypeTag<In>{}, TypeTag<Acc>{}) for a run's operation and type pair.
template <class F> decltype(auto) withOpAndTypes(Op op, ElemType in, Accumulate a, F&& f) {
  return withOp(op, [&](auto o) -> decltype(auto) {
    return withTypePair(in, a, [&](auto i, auto acc) -> decltype(auto) { return f(o, i, acc); });
  });
}

}  // namespace rl
