#pragma once
// Reduction across GPUs: what `reducelab multi` measures and the records it produces (plain C++;
// the measurement itself lives in kernels/multi, CUDA + NCCL loaded at run time).
//
// Scalar: N elements spread over G GPUs (contiguous slices) reduced to one value, to GPU 0
// (Reduce) or to every GPU (AllReduce), by
//   hand       each GPU reduces its slice, a kernel on GPU 0 loads the G partials over peer access
//              (NVLink), and for AllReduce stores the result into every GPU (peer stores);
//   nccl-ring  each GPU reduces its slice, ncclReduce / ncclAllReduce of the partials, NCCL_ALGO=Ring;
//   nccl-tree  the same with NCCL_ALGO=Tree.
// Vector: the element-wise AllReduce of a buffer of S bytes on every GPU (gradient averaging),
// S from 1 KiB to 8 GiB, by NCCL ring / tree and by hand (two-shot over peer loads).
#include <cstdint>
#include <string>
#include <vector>

#include "reducelab/device_info.hpp"
#include "reducelab/stats.hpp"
#include "reducelab/types.hpp"

namespace rl::multi {

struct Options {
  int gpus = 0;  // 0: every visible GPU
  ElemType type = ElemType::Float32;
  Op op = Op::Sum;
  uint64_t n = uint64_t(1) << 28;           // scalar reduction: elements in all
  std::vector<uint64_t> vectorBytes;        // vector AllReduce sizes (bytes per GPU); empty: none
  bool hand = true, ring = true, tree = true;
  bool scalar = true;
  int reps = 20, warmup = 3;
  // Tests: copy every GPU's vector AllReduce output to the host (Row::outputs) when it is at most
  // this many bytes per GPU, so they can check each element on the CPU. 0: never.
  uint64_t keepVectorOutputsUpTo = 0;
};

struct Row {
  std::string kind;        // "scalar" or "vector"
  std::string collective;  // "reduce" or "allreduce"
  std::string algorithm;   // "single-gpu", "hand", "nccl-ring", "nccl-tree"
  int gpus = 0;
  uint64_t bytes = 0;      // scalar: N x element size in all; vector: bytes per GPU
  uint64_t count = 0;      // elements (scalar: N; vector: per GPU)
  bool ok = false;
  std::string error;       // why not measured
  Stats ms;                // slowest GPU's time per repetition
  double algbwGBs = 0, busbwGBs = 0;
  bool checked = false, pass = false;
  std::string check;       // "exact", "within 1.2e-06 (tolerance 3e-05)", "12 of 2^28 elements differ"
  std::string result;      // scalar: the value
  std::vector<std::string> holderResults;  // scalar: the value each holding GPU has (GPU 0 first)
  std::vector<std::vector<double>> outputs;  // vector rows, when asked (Options): each GPU's output
};

struct Report {
  bool ok = false;
  std::string error;                  // nothing could be measured (no GPU, no NCCL for NCCL-only work)
  int gpusVisible = 0, gpusAsked = 0, gpusUsed = 0;
  std::vector<DeviceInfo> devices;
  std::vector<std::vector<bool>> peerAccess;  // [from][to]
  std::string ncclVersion;            // "2.28.3" or ""
  std::string ncclLibrary;            // the file dlopen loaded, or why not
  std::string ncclAlgoNote;           // how the algorithm was chosen
  std::vector<double> p2pGBs;         // GPU g -> GPU 0 copy (cudaMemcpyPeerAsync), g >= 1; [0] unused
  std::vector<double> hbmReadGBs;     // each GPU's measured read roof
  ElemType type = ElemType::Float32;
  Op op = Op::Sum;
  std::vector<Row> rows;
  std::vector<std::string> notMeasured;  // one sentence each
  std::vector<std::string> argv;
};

// The measurement (kernels/multi). Never throws; a Report with ok=false says why.
Report measure(const Options& o, const std::vector<std::string>& argv);
// True when this build has the NCCL part (nccl.h was found at configure time).
bool builtWithNccl();

// Its tables, JSON and header lines: multi_record.hpp.

// Published figures to read the table against (the source is given with each).
struct ReferenceFigure {
  std::string what, value, source;
};
std::vector<ReferenceFigure> referenceFigures();

}  // namespace rl::multi
