// The matrix families' CPU baseline (the 'vs CPU' column): the plain loops a course writes first,
// timed on one core. Matmul: seed 003's Tabla 12 code, for i, for j, value = sum over k of
// A[i][k] x B[k][j] in the element type; a transpose: each element to its place
// (transposeDestination, so a copy or half a transpose does what its kernel does).
#include <chrono>
#include <map>
#include <mutex>
#include <new>
#include <tuple>

#include "matrix/matrix_family.hpp"
#include "matrix/matrix_kernels.hpp"
#include "reducelab/datagen.hpp"
#include "reducelab/reference.hpp"
#include "reducelab/type_dispatch.hpp"

namespace rl {
namespace {

// Above this the loop would run for minutes on one core (1200^3, the seed's largest, is 1.7 x 10^9).
constexpr uint64_t kMaxCpuMultiplyAdds = uint64_t(1) << 31;

template <class T>
CpuBaseline loops(const KernelInfo& k, const RunConfig& c, int reps, double budget, const CpuWork& work) {
  CpuBaseline out;
  const MatrixShape m = matrixShape(c);
  const bool product = k.family == Family::Matmul;
  if (product && m.rows * m.cols * m.inner > kMaxCpuMultiplyAdds) {
    out.error = "the CPU loop is not run above 2^31 multiply-adds (this product has " +
                std::to_string(m.rows * m.cols * m.inner) + "): it would take minutes on one core";
    return out;
  }
  const DataSpec spec = dataSpecOf(c);
  const uint64_t inCount = product ? m.rows * m.inner + m.inner * m.cols : m.rows * m.cols;
  std::vector<T> in, result;
  try {
    in.resize(inCount);
    result.resize(m.rows * m.cols);
  } catch (const std::bad_alloc&) {
    out.error = "the CPU loop's host matrices could not be allocated";
    return out;
  }
  for (uint64_t i = 0; i < inCount; ++i) in[i] = generateElement<T>(spec, i);
  const T* A = in.data();
  const T* B = in.data() + m.rows * m.inner;  // B follows A in the generated input
  const int tile = effectiveTile(k, c);
  std::vector<double> ms;
  double spent = 0;
  for (int r = 0; r < std::max(1, reps); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    if (product) {
      for (uint64_t i = 0; i < m.rows && !out.cancelled; ++i) {
        for (uint64_t j = 0; j < m.cols; ++j) {
          T value = 0;
          for (uint64_t e = 0; e < m.inner; ++e) value += A[i * m.inner + e] * B[e * m.cols + j];
          result[i * m.cols + j] = value;
        }
        if (work.cancelled && (i & 15) == 0 && work.cancelled()) out.cancelled = true;
      }
    } else {
      // The plain loops a course writes; the halves of seed 004 through their permutation.
      const bool transpose = k.swapsTiles && k.swapsElements, copy = !k.swapsTiles && !k.swapsElements;
      for (uint64_t y = 0; y < m.rows && !out.cancelled; ++y) {
        if (transpose)
          for (uint64_t x = 0; x < m.cols; ++x) result[x * m.rows + y] = in[y * m.cols + x];
        else if (copy)
          for (uint64_t x = 0; x < m.cols; ++x) result[y * m.cols + x] = in[y * m.cols + x];
        else
          for (uint64_t x = 0; x < m.cols; ++x) result[transposeDestination(k, m.rows, m.cols, tile, y, x)] = in[y * m.cols + x];
        if (work.cancelled && (y & 255) == 0 && work.cancelled()) out.cancelled = true;
      }
    }
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    asm volatile("" : : "g"(result.data()) : "memory");
    if (out.cancelled) break;
    ms.push_back(t);
    spent += t / 1000.0;
    if (work.progress) work.progress(double(r + 1) / std::max(1, reps));
    if (spent > budget) break;  // a product of seconds is timed once
  }
  out.ms = Stats::of(ms);
  out.reps = int(ms.size());
  double checksum = 0;
  for (const T& v : result) checksum += double(v);
  out.result.isInt = false;
  out.result.f = checksum;
  return out;
}

}  // namespace

CpuBaseline MatrixFamily::cpuBaseline(const KernelInfo& k, const RunConfig& c, int reps, double budgetSeconds,
                                      const CpuWork& work) const {
  // One CPU loop per computation in a process: a product's loop takes seconds, and a lesson's or a
  // bench's rows share shapes (every tile, both kernels); what a loop computes depends only on this.
  for (const FamilyParameter& p : parameters())
    if (p.role == ParameterRole::Repeats && p.used(k, c) > 1) {
      CpuBaseline none;
      none.error = "the CPU loop makes one pass: no vs CPU for a run of several passes in one launch";
      return none;
    }
  const MatrixShape m = matrixShape(c);
  using Key = std::tuple<int, int, bool, bool, uint64_t, uint64_t, uint64_t, int, int, uint64_t, int64_t, int64_t>;
  const Key key{int(k.family), int(c.type), k.swapsTiles, k.swapsElements, m.rows, m.cols, m.inner,
                k.swapsTiles != k.swapsElements ? effectiveTile(k, c) : 0, int(c.data), c.seed, c.rangeLo, c.rangeHi};
  static std::mutex mutex;
  static std::map<Key, CpuBaseline> done;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = done.find(key); it != done.end()) return it->second;
  }
  CpuBaseline b = c.type == ElemType::Float64 ? loops<double>(k, c, reps, budgetSeconds, work)
                                              : loops<float>(k, c, reps, budgetSeconds, work);
  if (!b.cancelled && b.error.empty()) {
    std::lock_guard<std::mutex> lock(mutex);
    done.emplace(key, b);
  }
  return b;
}

}  // namespace rl
