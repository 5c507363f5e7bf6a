#include "reducelab/reference.hpp"

#include "reducelab/type_dispatch.hpp"

#include <algorithm>
#include <atomic>
#include <new>
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

constexpr uint64_t kChunk = uint64_t(1) << 20;  // elements between cancel checks

// Worker k of `threads` takes the fixed range [n*k/t, n*(k+1)/t) (the result does not depend on
// timing) and walks it in chunks, stopping between them when cancelled. The calling thread polls
// `work` meanwhile, so the hooks are never called from a worker. Returns false if cancelled.
bool runChunked(uint64_t n, int threads, const CpuWork& work,
                const std::function<void(int worker, uint64_t begin, uint64_t end)>& chunk) {
  std::atomic<uint64_t> done{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> pool;
  const uint64_t t = uint64_t(threads);
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([&, k] {
      const uint64_t first = uint64_t((unsigned __int128)n * uint64_t(k) / t);
      const uint64_t last = uint64_t((unsigned __int128)n * uint64_t(k + 1) / t);
      for (uint64_t b = first; b < last; b += kChunk) {
        if (stop.load(std::memory_order_relaxed)) return;
        const uint64_t e = std::min(last, b + kChunk);
        chunk(k, b, e);
        done.fetch_add(e - b);
      }
    });
  if (work.cancelled || work.progress) {
    auto lastReport = std::chrono::steady_clock::now();
    while (done.load() < n) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (work.cancelled && work.cancelled()) {
        stop = true;
        break;
      }
      if (work.progress && std::chrono::steady_clock::now() - lastReport > std::chrono::milliseconds(250)) {
        lastReport = std::chrono::steady_clock::now();
        work.progress(double(done.load()) / double(n));
      }
    }
  }
  for (auto& th : pool) th.join();
  if (stop) return false;
  if (work.progress) work.progress(1.0);
  return true;
}

void merge(Partial& into, const Partial& p, long double& comp) {
  into.isum += p.isum;
  const long double x = p.fsum + p.comp;
  const long double s = into.fsum + x;
  comp += std::fabs(into.fsum) >= std::fabs(x) ? (into.fsum - s) + x : (x - s) + into.fsum;
  into.fsum = s;
  into.abs += p.abs;
  into.fmin = std::min(into.fmin, p.fmin);
  into.fmax = std::max(into.fmax, p.fmax);
  into.imin = std::min(into.imin, p.imin);
  into.imax = std::max(into.imax, p.imax);
}

template <class T>
Partial referenceAll(const DataSpec& d, uint64_t n, int threads, const CpuWork& work, bool* cancelled) {
  const int t = int(std::min<uint64_t>(uint64_t(threads), std::max<uint64_t>(1, n / 65536 + 1)));
  std::vector<Partial> parts(static_cast<size_t>(t));
  std::vector<long double> comps(static_cast<size_t>(t), 0.0L);
  *cancelled = !runChunked(n, t, work, [&](int k, uint64_t b, uint64_t e) {
    merge(parts[size_t(k)], referenceChunk<T>(d, b, e), comps[size_t(k)]);
  });
  Partial total;
  long double comp = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    parts[k].comp += comps[k];
    merge(total, parts[k], comp);
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

Reference computeReference(const RunConfig& c, int threads) { return computeReference(c, threads, CpuWork{}); }

Reference computeReference(const RunConfig& c, int threads, const CpuWork& work) {
  const DataSpec d = dataSpecOf(c);
  const int t = threadCount(threads);
  Partial p;
  Reference r;
  withElemType(c.type, [&]<class T>(TypeTag<T>) { p = referenceAll<T>(d, c.n, t, work, &r.cancelled); });
  if (r.cancelled) return r;
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
CpuBaseline baselineLoop(const RunConfig& c, int reps, double budget, OpF op, TAcc init, const CpuWork& work) {
  const DataSpec d = dataSpecOf(c);
  CpuBaseline out;
  std::vector<TIn> v;
  try {
    v.resize(c.n);
  } catch (const std::bad_alloc&) {
    out.error = "the CPU baseline's host buffer (" + formatBytes(hostBytesNeeded(c, true)) + ") could not be allocated";
    return out;
  }
  if (!runChunked(c.n, threadCount(0), CpuWork{work.cancelled, {}}, [&](int, uint64_t b, uint64_t e) {
        for (uint64_t i = b; i < e; ++i) v[i] = generateElement<TIn>(d, i);
      })) {
    out.cancelled = true;
    return out;
  }
  std::vector<double> ms;
  TAcc acc = init;
  double spent = 0;
  const int total = std::max(1, reps);
  for (int r = 0; r < total && !out.cancelled; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    acc = init;
    // The seeds' loop, in chunks so a cancel is seen within milliseconds even for huge N.
    for (uint64_t b = 0; b < c.n; b += kChunk * 16) {
      const uint64_t e = std::min(c.n, b + kChunk * 16);
      for (uint64_t i = b; i < e; ++i) acc = op(acc, TAcc(v[i]));
      if (work.cancelled && work.cancelled()) {
        out.cancelled = true;
        break;
      }
    }
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    asm volatile("" : : "g"(&acc) : "memory");
    if (out.cancelled) break;
    ms.push_back(t);
    spent += t / 1000.0;
    if (work.progress) work.progress(double(r + 1) / total);
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

std::string formatBytes(uint64_t bytes) {
  char b[48];
  const double v = double(bytes);
  if (v >= 1099511627776.0) std::snprintf(b, sizeof b, "%.1f TiB", v / 1099511627776.0);
  else if (v >= 1073741824.0) std::snprintf(b, sizeof b, "%.1f GiB", v / 1073741824.0);
  else std::snprintf(b, sizeof b, "%.1f MiB", v / 1048576.0);
  return b;
}

uint64_t hostBytesNeeded(const RunConfig& c, bool cpuBaseline) {
  return cpuBaseline ? c.n * uint64_t(elemBytes(c.type)) : 0;
}

uint64_t hostMemoryAvailable() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kib = 0;
  bool found = false;
  while (!found && std::fgets(line, sizeof line, f)) found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
  std::fclose(f);
  return found ? uint64_t(kib) * 1024 : 0;
}

std::string checkHostMemory(const RunConfig& c, bool cpuBaseline, uint64_t availableBytes) {
  const uint64_t need = hostBytesNeeded(c, cpuBaseline);
  if (need == 0) return {};
  const uint64_t free = availableBytes ? availableBytes : hostMemoryAvailable();
  if (free == 0) return {};  // unknown (no /proc): the allocation itself reports failure
  if (need <= free / 10 * 9) return {};  // a tenth left for the rest of the system
  return "N = " + formatCount(c.n) + " " + std::string(name(c.type)) + " needs " + formatBytes(need) +
         " of host memory for the CPU baseline, but only " + formatBytes(free) +
         " is available (MemAvailable); use a smaller --n or skip the baseline (--no-cpu)";
}

CpuBaseline runCpuBaseline(const RunConfig& c, int reps, double budgetSeconds, const std::function<bool()>& cancel) {
  return runCpuBaseline(c, reps, budgetSeconds, CpuWork{cancel, {}});
}

CpuBaseline runCpuBaseline(const RunConfig& c, int reps, double budgetSeconds, const CpuWork& work) {
  if (std::string e = checkHostMemory(c, true); !e.empty()) {
    CpuBaseline out;
    out.error = e;
    return out;
  }
  return withOpAndTypes(c.op, c.type, c.accumulate,
                        [&]<class O, class TIn, class TAcc>(TypeTag<O>, TypeTag<TIn>, TypeTag<TAcc>) {
                          return baselineLoop<TIn, TAcc>(c, reps, budgetSeconds, O(),
                                                         O::template identity<TAcc>(), work);
                        });
}

}  // namespace rl
