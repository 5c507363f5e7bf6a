#include "independent_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <thread>
#include <vector>

namespace rl::test {
namespace {

constexpr int kFixedBits = 60;

long double toLongDouble(__int128 v) {
  const bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  const long double hi = static_cast<long double>(static_cast<uint64_t>(u >> 64)) * 18446744073709551616.0L;
  const long double r = hi + static_cast<long double>(static_cast<uint64_t>(u));
  return neg ? -r : r;
}

struct Partial {
  bool exact = true;
  __int128 sum = 0;
  long double sumAbs = 0;
  long double lo = std::numeric_limits<long double>::infinity(), hi = -std::numeric_limits<long double>::infinity();
};

template <class T>
Partial reduceRange(const DataSpec& spec, uint64_t first, uint64_t last) {
  Partial p;
  for (uint64_t i = first; i < last; ++i) {
    const T v = generateElement<T>(spec, i);
    const long double x = static_cast<long double>(v);
    p.lo = std::min(p.lo, x);
    p.hi = std::max(p.hi, x);
    p.sumAbs += x < 0 ? -x : x;
    if constexpr (std::is_integral_v<T>) {
      p.sum += static_cast<__int128>(v);
    } else {
      const long double scaled = std::ldexp(static_cast<long double>(v), kFixedBits);
      if (std::fabs(scaled) >= 0x1p126L || std::trunc(scaled) != scaled) p.exact = false;
      else p.sum += static_cast<__int128>(scaled);
    }
  }
  return p;
}

template <class T>
ExactReduction reduceAll(ElemType in, Op op, const DataSpec& spec, uint64_t n, uint64_t first) {
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 64));
  const uint64_t per = (n + threads - 1) / threads;
  std::vector<Partial> parts(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    const uint64_t a = first + std::min(n, per * t), b = first + std::min(n, per * (t + 1));
    pool.emplace_back([&, t, a, b] { parts[t] = reduceRange<T>(spec, a, b); });
  }
  for (std::thread& t : pool) t.join();
  ExactReduction x;
  x.in = in;
  x.op = op;
  x.n = n;
  long double lo = std::numeric_limits<long double>::infinity(), hi = -lo;
  for (const Partial& p : parts) {
    x.exact = x.exact && p.exact;
    x.sumFixed += p.sum;
    x.sumAbs += p.sumAbs;
    lo = std::min(lo, p.lo);
    hi = std::max(hi, p.hi);
  }
  x.extremum = op == Op::Min ? lo : hi;
  return x;
}

long double unitRoundoff(ElemType acc) { return acc == ElemType::Float32 ? 0x1p-24L : 0x1p-53L; }

std::string text(long double v) {
  std::ostringstream s;
  s.precision(21);
  s << v;
  return s.str();
}

}  // namespace

long double ExactReduction::value() const {
  if (op != Op::Sum) return extremum;
  const long double s = toLongDouble(sumFixed);
  return isFloat(in) ? std::ldexp(s, -kFixedBits) : s;
}

ExactReduction exactReduction(ElemType in, Op op, const DataSpec& spec, uint64_t n, uint64_t first) {
  switch (in) {
    case ElemType::Int32: return reduceAll<int32_t>(in, op, spec, n, first);
    case ElemType::Int64: return reduceAll<int64_t>(in, op, spec, n, first);
    case ElemType::Float32: return reduceAll<float>(in, op, spec, n, first);
    case ElemType::Float64: default: return reduceAll<double>(in, op, spec, n, first);
  }
}

uint64_t chainBoundOf(uint64_t n, uint64_t threads) {
  threads = std::max<uint64_t>(threads, 1);
  const uint64_t depth = uint64_t(std::ceil(std::log2(double(std::max<uint64_t>(n, 2)))));
  return (n + threads - 1) / threads + 16 + 2 * depth;
}

std::string checkAgainstExact(const ExactReduction& x, ElemType acc, const Value& got, uint64_t chain) {
  if (!x.exact) return "the test's fixed-point sum could not hold an element exactly";
  if (!isFloat(acc)) {
    if (!got.isInt) return "an integer result was expected, got " + got.text();
    int64_t want = 0;
    if (x.op != Op::Sum) want = int64_t(x.extremum);
    else if (acc == ElemType::Int32) want = int32_t(uint32_t(static_cast<unsigned __int128>(x.sumFixed)));
    else want = int64_t(uint64_t(static_cast<unsigned __int128>(x.sumFixed)));
    return got.i == want ? "" : "expected " + std::to_string(want) + ", got " + std::to_string(got.i);
  }
  const long double want = x.value();
  if (x.op != Op::Sum) {
    // min/max pick one element: exact in any accumulator that holds the input type.
    return static_cast<long double>(got.f) == want ? "" : "expected " + text(want) + ", got " + got.text();
  }
  const long double err = std::fabs(static_cast<long double>(got.f) - want);
  const long double bound = static_cast<long double>(chain) * unitRoundoff(acc) * x.sumAbs;
  if (std::isfinite(got.f) && err <= bound) return "";
  return "expected " + text(want) + ", got " + got.text() + ": error " + text(err) + " above the bound " + text(bound) +
         " (chain " + std::to_string(chain) + ")";
}

}  // namespace rl::test
