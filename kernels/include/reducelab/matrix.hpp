#pragma once
// The matrix families (transpose, matmul) on the host: the check of a kernel's output against
// the CPU, the device's peak FLOP/s, and a record's rates. Plain C++ (the CPU-only build has it).
#include <functional>

#include "reducelab/device_info.hpp"
#include "reducelab/record.hpp"

namespace rl {

struct MatrixCheck {
  Check check;
  double checksum = 0;  // sum of every output element (the run's "result")
  bool cancelled = false;
};

// `output`: the kernel's output on the host (rows x cols for matmul's C, cols x rows for a
// transpose, rows x cols for seed 004's copies; its halves are square), elements of c.type. A
// transpose kernel: every element where its permutation puts it (transposeDestination), exact.
// Matmul: a sample of up to 32 rows x 32 columns (the first, the last, spread between, so the
// ragged edge tiles are in it) against a long-double dot product; tolerance per element
// inner x eps(type) x sum |a b| (the error bound of a K-term dot product: it grows with K).
MatrixCheck checkMatrixOutput(const RunConfig& c, const void* output, const std::function<bool()>& cancel = {});

// The CPU reference of one element of C (long double), and its sum |a_e b_e|.
long double matmulReference(const RunConfig& c, uint64_t row, uint64_t col, long double* absSum);

// Fused multiply-add results per clock per SM, for float32 and float64, by compute capability:
// the CUDA C++ Programming Guide, "Arithmetic Instructions", table "Throughput of Native
// Arithmetic Instructions (operations per clock cycle per multiprocessor)", rows "32-bit
// floating-point add, multiply, multiply-add" and "64-bit ...". 0 for an architecture not in it.
struct FmaUnits {
  int fp32 = 0, fp64 = 0;
};
FmaUnits fmaUnitsPerSM(int ccMajor, int ccMinor);
// 2 FLOP per FMA x units x SMs x peak SM clock (cudaDevAttrClockRate), in GFLOP/s; 0 if unknown.
double peakGflops(const DeviceInfo& d, ElemType t);

// Fills a matrix record's rates from its median kernel time: bytes moved and bandwidth (% of the
// theoretical and of the measured copy), GFLOP/s and % of the peak.
void fillMatrixRates(Measurement& m, const Peaks& peaks, const DeviceInfo& d);

}  // namespace rl
