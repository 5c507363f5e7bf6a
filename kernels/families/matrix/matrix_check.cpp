#include "reducelab/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "reducelab/datagen.hpp"
#include "reducelab/reference.hpp"
#include "matrix/matrix_family.hpp"
#include "matrix/matrix_kernels.hpp"
#include "reducelab/type_dispatch.hpp"

namespace rl {
namespace {

// Up to `most` indices of 0..count-1: the first two, the last two, and spread between.
std::vector<uint64_t> sampleIndices(uint64_t count, uint64_t most) {
  std::set<uint64_t> s;
  for (uint64_t i = 0; i < std::min<uint64_t>(2, count); ++i) {
    s.insert(i);
    s.insert(count - 1 - i);
  }
  const uint64_t spread = most > 4 ? most - 4 : 1;
  for (uint64_t i = 0; i < spread && s.size() < most; ++i) s.insert(i * count / spread);
  return {s.begin(), s.end()};
}

template <class T>
MatrixCheck checkTyped(const RunConfig& c, const void* output, const std::function<bool()>& cancel) {
  MatrixCheck r;
  const KernelInfo& k = *findKernel(c.kernel);
  const DataSpec spec = dataSpecOf(c);
  const T* out = static_cast<const T*>(output);
  const MatrixShape m = matrixShape(c);
  for (uint64_t i = 0; i < m.rows * m.cols; ++i) r.checksum += double(out[i]);
  if (k.family == Family::Transpose) {
    const int t = effectiveTile(k, c);
    uint64_t wrong = 0;
    for (uint64_t y = 0; y < m.rows; ++y) {
      if (cancel && (y & 255) == 0 && cancel()) {
        r.cancelled = true;
        return r;
      }
      for (uint64_t x = 0; x < m.cols; ++x) {
        const T expect = generateElement<T>(spec, y * m.cols + x);
        const T got = out[transposeDestination(k, m.rows, m.cols, t, y, x)];
        if (std::memcmp(&expect, &got, sizeof(T)) != 0) {
          if (wrong == 0) r.check.absError = std::fabs(double(got) - double(expect));
          ++wrong;
        }
      }
    }
    r.check.pass = wrong == 0;
    r.check.tolerance = 0;
    r.check.note = wrong == 0 ? "every element in place (exact)"
                              : std::to_string(wrong) + " of " + std::to_string(m.rows * m.cols) +
                                    " elements out of place";
    return r;
  }
  const double eps = std::numeric_limits<T>::epsilon();
  double worstRatio = 0;
  for (uint64_t row : sampleIndices(m.rows, 32)) {
    if (cancel && cancel()) {
      r.cancelled = true;
      return r;
    }
    for (uint64_t col : sampleIndices(m.cols, 32)) {
      long double absSum = 0;
      const long double exact = matmulReference(c, row, col, &absSum);
      const double got = double(out[row * m.cols + col]);
      const double err = double(std::fabs((long double)got - exact));
      const double tol = double(m.inner) * eps * double(absSum) + std::numeric_limits<T>::denorm_min();
      const double ratio = err / tol;
      if (!(ratio <= worstRatio) || std::isnan(got)) {
        worstRatio = std::isnan(got) ? std::numeric_limits<double>::infinity() : ratio;
        r.check.absError = std::isnan(got) ? std::numeric_limits<double>::infinity() : err;
        r.check.relError = exact != 0 ? err / double(std::fabs(exact)) : err;
        r.check.tolerance = tol;
      }
    }
  }
  r.check.pass = worstRatio <= 1.0;
  r.check.note = r.check.pass ? "sampled elements within K x eps x sum|ab|" : "an element is off by more than K x eps x sum|ab|";
  return r;
}

}  // namespace

long double matmulReference(const RunConfig& c, uint64_t row, uint64_t col, long double* absSum) {
  const DataSpec spec = dataSpecOf(c);
  return withElemType(c.type, [&]<class T>(TypeTag<T>) {
    long double sum = 0, abs = 0;
    const MatrixShape m = matrixShape(c);
    const uint64_t bStart = m.rows * m.inner;  // B follows A in the generated input
    for (uint64_t e = 0; e < m.inner; ++e) {
      const long double p = (long double)generateElement<T>(spec, row * m.inner + e) *
                            (long double)generateElement<T>(spec, bStart + e * m.cols + col);
      sum += p;
      abs += std::fabs(p);
    }
    if (absSum) *absSum = abs;
    return sum;
  });
}

MatrixCheck checkMatrixOutput(const RunConfig& c, const void* output, const std::function<bool()>& cancel) {
  if (c.type == ElemType::Float64) return checkTyped<double>(c, output, cancel);
  return checkTyped<float>(c, output, cancel);
}

FmaUnits fmaUnitsPerSM(int major, int minor) {
  switch (major) {
    case 6: return minor == 0 ? FmaUnits{64, 32} : FmaUnits{128, 4};
    case 7: return minor == 5 ? FmaUnits{64, 2} : FmaUnits{64, 32};
    case 8: return minor == 0 ? FmaUnits{64, 32} : FmaUnits{128, 2};
    case 9: return FmaUnits{128, 64};
    case 10: return FmaUnits{128, 64};
    case 12: return FmaUnits{128, 2};
    default: return {};
  }
}

double peakGflops(const DeviceInfo& d, ElemType t) {
  const FmaUnits u = fmaUnitsPerSM(d.ccMajor, d.ccMinor);
  const int units = t == ElemType::Float64 ? u.fp64 : t == ElemType::Float32 ? u.fp32 : 0;
  return 2.0 * units * d.smCount * (d.smClockKHz * 1e3) / 1e9;
}

void fillMatrixRates(Measurement& m, const Peaks& peaks, const DeviceInfo& d) {
  const RunConfig& c = m.config;
  auto rate = [](double amount, double ms) { return ms > 0 ? amount / (ms * 1e-3) / 1e9 : 0.0; };
  m.bytesRead = bytesMoved(c);
  m.bandwidthGBs = rate(m.bytesRead, m.kernel.median);
  m.endToEndGBs = rate(m.bytesRead, m.endToEnd.median);
  m.pctTheoretical = peaks.theoreticalGBs > 0 ? 100.0 * m.bandwidthGBs / peaks.theoreticalGBs : 0;
  m.pctMeasuredRead = peaks.readGBs > 0 ? 100.0 * m.bandwidthGBs / peaks.readGBs : 0;
  m.pctCopy = peaks.copyGBs > 0 ? 100.0 * m.bandwidthGBs / peaks.copyGBs : 0;
  m.gflops = rate(flopsDone(c), m.kernel.median);
  m.peakGflops = flopsDone(c) > 0 ? peakGflops(d, c.type) : 0;
  m.pctPeakFlops = m.peakGflops > 0 ? 100.0 * m.gflops / m.peakGflops : 0;
}

}  // namespace rl
