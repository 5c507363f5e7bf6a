// The matrix families' CPU baseline (the 'vs CPU' column): the plain loops a course writes first,
// timed on one core. Matmul: seed 003's Tabla 12 code, for i, for j, value = sum over k of
// A[i][k] x B[k][j] in the element type; a transpose: each element to its place
// (transposeDestination, so a copy or half a transpose does what its kernel does).
#include <chrono>
#include <new>

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
      for (uint64_t y = 0; y < m.rows && !out.cancelled; ++y) {
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
  if (c.type == ElemType::Float64) return loops<double>(k, c, reps, budgetSeconds, work);
  return loops<float>(k, c, reps, budgetSeconds, work);
}

}  // namespace rl
