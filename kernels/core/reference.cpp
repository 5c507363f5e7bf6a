#include "reducelab/reference.hpp"

#include "reducelab/type_dispatch.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <thread>
#include <vector>

namespace rl {
namespace {

int threadCount(int requested) {
  if (requested > 0) return requested;
  unsigned hc = std::thread::hardware_concurrency();
  return int(std::clamp(hc, 1u, 64u));
}

// Per-chunk partial of the exact reference.
struct Partial {
  __int128 isum = 0;
  long double fsum = 0, comp = 0, abs = 0;
  long double fmin = std::numeric_limits<long double>::infinity();
  long double fmax = -std::numeric_limits<long double>::infinity();
  int64_t imin = std::numeric_limits<int64_t>::max(), imax = std::numeric_limits<int64_t>::min();
};

template <class T>
Partial referenceChunk(const DataSpec& d, uint64_t begin, uint64_t end) {
  Partial p;
  for (uint64_t i = begin; i < end; ++i) {
    const T v = generateElement<T>(d, i);
    if constexpr (std::is_integral_v<T>) {
      p.isum += v;
      p.imin = std::min<int64_t>(p.imin, v);
      p.imax = std::max<int64_t>(p.imax, v);
      p.abs += std::fabs((long double)v);
    } else {
      const long double x = v;
      const long double t = p.fsum + x;  // Neumaier's compensated sum in long double
      p.comp += std::fabs(p.fsum) >= std::fabs(x) ? (p.fsum - t) + x : (x - t) + p.fsum;
      p.fsum = t;
      p.abs += std::fabs(x);
      p.fmin = std::min(p.fmin, x);
      p.fmax = std::max(p.fmax, x);
    }
  }
  return p;
}

template <class T>
Partial referenceAll(const DataSpec& d, uint64_t n, int threads) {
  const int t = int(std::min<uint64_t>(uint64_t(threads), std::max<uint64_t>(1, n / 65536 + 1)));
  std::vector<Partial> parts(static_cast<size_t>(t));
  std::vector<std::thread> pool;
  for (int k = 0; k < t; ++k)
    pool.emplace_back([&, k] {
      parts[size_t(k)] = referenceChunk<T>(d, n * uint64_t(k) / uint64_t(t),
                                           n * uint64_t(k + 1) / uint64_t(t));
    });
  for (auto& th : pool) th.join();
  Partial total;
  long double comp = 0;
  for (const Partial& p : parts) {
    total.isum += p.isum;
    const long double x = p.fsum + p.comp;
    const long double s = total.fsum + x;
    comp += std::fabs(total.fsum) >= std::fabs(x) ? (total.fsum - s) + x : (x - s) + total.fsum;
    total.fsum = s;
    total.abs += p.abs;
    total.fmin = std::min(total.fmin, p.fmin);
    total.fmax = std::max(total.fmax, p.fmax);
    total.imin = std::min(total.imin, p.imin);
    total.imax = std::max(total.imax, p.imax);
  }
  total.fsum += comp;
  return total;
}

double epsilonOf(ElemType t) {
  return t == ElemType::Float32 ? double(std::numeric_limits<float>::epsilon()) / 2
                                : std::numeric_limits<double>::epsilon() / 2;
}

}  // namespace

std::string Value::text() const {
  if (isInt) return std::to_string(i);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.10g", f);
  return buf;
}

DataSpec dataSpecOf(const RunConfig& c) { return {c.data, c.seed, c.rangeLo, c.rangeHi}; }

Reference computeReference(const RunConfig& c, int threads) {
  const DataSpec d = dataSpecOf(c);
  const int t = threadCount(threads);
  Partial p;
  withElemType(c.type, [&]<class T>(TypeTag<T>) { p = referenceAll<T>(d, c.n, t); });
  Reference r;
  r.sumAbs = p.abs;
  const ElemType acc = c.accType();
  if (!isFloat(c.type)) {
    r.exactInt = c.op == Op::Sum ? p.isum : (c.op == Op::Min ? p.imin : p.imax);
    r.exact = (long double)r.exactInt;
    r.expected.isInt = true;
    if (acc == ElemType::Int32) {
      r.expected.i = int32_t(uint32_t(uint64_t(r.exactInt)));
      r.overflow = r.exactInt > INT32_MAX || r.exactInt < INT32_MIN;
    } else {
      r.expected.i = int64_t(uint64_t(r.exactInt));
      r.overflow = r.exactInt > (__int128)INT64_MAX || r.exactInt < (__int128)INT64_MIN;
    }
  } else {
    r.exact = c.op == Op::Sum ? p.fsum : (c.op == Op::Min ? p.fmin : p.fmax);
    r.expected.isInt = false;
    r.expected.f = acc == ElemType::Float32 ? double(float(r.exact)) : double(r.exact);
  }
  return r;
}

Check checkResult(const RunConfig& c, const Value& result, const Reference& ref,
                  uint64_t chainBound) {
  Check k;
  const long double got = result.isInt ? (long double)result.i : (long double)result.f;
  k.absError = double(std::fabs(got - ref.exact));
  k.relError = ref.exact != 0 ? double(k.absError / std::fabs(ref.exact)) : (k.absError == 0 ? 0.0 : INFINITY);
  if (!isFloat(c.type) || c.op != Op::Sum) {
    // Integers (any op) and min/max (any type) do not depend on the order: exact equality.
    const bool same = result.isInt ? result.i == ref.expected.i
                                   : (result.f == ref.expected.f ||
                                      (std::isnan(result.f) && std::isnan(ref.expected.f)));
    k.tolerance = 0;
    k.pass = same;
    if (!same) k.note = "wrong: expected " + ref.expected.text();
    else if (ref.overflow)
      k.note = "correct for " + std::string(name(c.accType())) +
               " arithmetic, but the sum overflowed: the exact sum needs a wider accumulator";
    else k.note = "exact";
    return k;
  }
  // Floating-point sums: the classic bound |error| <= chain * u * sum|x|, chain being the
  // longest sequence of roundings any element goes through (Higham, Accuracy and Stability
  // of Numerical Algorithms, 2nd ed., section 4.2), plus the rounding of the input itself.
  const double u = epsilonOf(c.accType());
  k.tolerance = double((long double)(chainBound + 1) * u * ref.sumAbs) + 1e-300;
  k.pass = std::isfinite(result.f) && k.absError <= k.tolerance;
  k.note = k.pass ? (k.absError == 0 ? "exact" : "within tolerance") : "error above tolerance";
  return k;
}

namespace {

template <class TIn, class TAcc, class OpF>
CpuBaseline baselineLoop(const RunConfig& c, int reps, double budget, OpF op, TAcc init,
                         const std::function<bool()>& cancel) {
  const DataSpec d = dataSpecOf(c);
  std::vector<TIn> v(c.n);
  {
    const int t = threadCount(0);
    std::vector<std::thread> pool;
    for (int k = 0; k < t; ++k)
      pool.emplace_back([&, k] {
        const uint64_t b = c.n * uint64_t(k) / uint64_t(t), e = c.n * uint64_t(k + 1) / uint64_t(t);
        for (uint64_t i = b; i < e; ++i) v[i] = generateElement<TIn>(d, i);
      });
    for (auto& th : pool) th.join();
  }
  CpuBaseline out;
  std::vector<double> ms;
  TAcc acc = init;
  double spent = 0;
  for (int r = 0; r < std::max(1, reps); ++r) {
    if (cancel && cancel()) break;
    const auto t0 = std::chrono::steady_clock::now();
    acc = init;
    for (uint64_t i = 0; i < c.n; ++i) acc = op(acc, TAcc(v[i]));  // the seeds' loop
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    asm volatile("" : : "g"(&acc) : "memory");
    ms.push_back(t);
    spent += t / 1000.0;
    if (spent > budget && ms.size() >= 3) break;
  }
  out.ms = Stats::of(ms);
  out.reps = int(ms.size());
  out.result.isInt = std::is_integral_v<TAcc>;
  if constexpr (std::is_integral_v<TAcc>) out.result.i = int64_t(acc);
  else out.result.f = double(acc);
  return out;
}

}  // namespace

CpuBaseline runCpuBaseline(const RunConfig& c, int reps, double budgetSeconds,
                           const std::function<bool()>& cancel) {
  return withOpAndTypes(c.op, c.type, c.accumulate,
                        [&]<class O, class TIn, class TAcc>(TypeTag<O>, TypeTag<TIn>, TypeTag<TAcc>) {
                          return baselineLoop<TIn, TAcc>(c, reps, budgetSeconds, O(),
                                                         O::template identity<TAcc>(), cancel);
                        });
}

}  // namespace rl
