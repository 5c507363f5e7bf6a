#pragma once
// Seed 002's pitfalls (a practicum's reduction code), each run as the seed wrote it beside its
// fix, with its consequence measured: on the GPU through the engine (kernels/cuda/pitfalls.cu),
// or by the CPU model here, which emulates the same kernels step for step. The lesson
// `pitfalls` (assets/lessons/pitfalls.lesson) shows the tables these produce.
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "reducelab/config.hpp"
#include "reducelab/table.hpp"
#include "reducelab/transfers.hpp"

namespace rl {

enum class Pitfall {
  ClockTiming,         // clock() read right after an asynchronous launch
  FloatSharedSum,      // int data reduced in a float shared array
  IntegerMean,         // the mean as long / int
  UndersizedPartials,  // sizeof(float) x blocks allocated for long int partials
  DoubleReadMax,       // a two-per-thread max that reads V_in[i] twice
  KahanSum,            // seed 000's float sum, and the same with Kahan's compensation (the `precision` lesson)
  AchievedOccupancy,   // seed 000's nvprof row: the counter read now (CUPTI) beside the theoretical (`occupancy` lesson)
  // Host <-> device transfers (seeds 002-004, transfers.hpp), shown the same way:
  HostCopies,          // pageable, pinned, mapped; H2D, D2H, both; a size sweep against the link
  StreamOverlap,       // copy in, kernel, copy out on 1..4 streams (seed 004)
  ReduceWithCopy,      // a reduction with and without its data's transfer
};
std::string_view name(Pitfall p);                           // clock, float-shared, ...
std::optional<Pitfall> parsePitfall(std::string_view text);
std::string pitfallNames();                                  // "clock, float-shared, ..."
std::vector<Pitfall> allPitfalls();       // seed 002's (the `pitfalls` lesson)
std::vector<Pitfall> transferDemos();     // the transfers (the `transfers` lesson)
bool isTransferDemo(Pitfall p);
// How the lesson presents one: "Pitfall: clock" or "Transfers: streams"; its window's heading;
// the headings of its two code columns (the seed's code, the fix).
std::string pitfallTitle(Pitfall p);
std::string pitfallWindowHeading(Pitfall p);
std::pair<std::string, std::string> pitfallCodeHeadings(Pitfall p);

struct PitfallRequest {
  Pitfall kind = Pitfall::ClockTiming;
  int block = 256;               // threads per block (seed 002: 64, 256, 1024)
  std::vector<uint64_t> sizes;   // element counts; empty: defaultPitfallSizes(kind)
  uint64_t seed = 2;             // the data's seed
  std::string label;             // handed back in the result (the lesson's row)
  // The transfers' (sizes are then bytes): the directions measured (empty: all three), and the
  // most streams the overlap uses.
  std::vector<TransferDirection> directions;
  int streams = 4;
};
// The seed's matrices: N = nverts^2 for nverts 400, 1000, 1400, 2000 (plus larger ones where
// the consequence needs them).
std::vector<uint64_t> defaultPitfallSizes(Pitfall p);
// "" or why the request cannot run (block not a power of two 32..1024, a size out of range).
std::string validatePitfall(const PitfallRequest& r);

// The largest element count a demonstration takes (the CPU model runs it too).
constexpr uint64_t kPitfallMaxN = uint64_t(1) << 26;

// ---- what each demonstration measured (one of these is filled) ----
struct ClockRow {               // GPU: the seed's kernel on n ints, medians of the repetitions
  uint64_t n = 0;
  double clockLaunchMs = 0;     // the seed: clock() before and right after the launch
  double wallLaunchMs = 0;      // the same span on a wall clock (what the launch call took)
  double clockSyncMs = 0;       // clock() around launch + cudaStreamSynchronize
  double wallSyncMs = 0;        // the same span on a wall clock
  double eventMs = 0;           // CUDA events around the kernel: its duration on the GPU
};
struct ClockCpuRow {            // CPU fact: clock() is the process's CPU time, not elapsed time
  std::string what;             // "sleep 30 ms", "spin 30 ms"
  double clockMs = 0;           // clock(): every thread of the process
  double threadMs = 0;          // the CPU time of the thread that slept or spun
  double wallMs = 0;
};
struct FloatSumRow {
  uint64_t n = 0;
  int64_t valueMax = 0;         // data: ints in [0, valueMax]
  int64_t exact = 0;            // the exact sum (int64 on the CPU)
  int64_t seedSum = 0;          // float shared array, partials to long int, summed on the host
  int64_t fixSum = 0;           // long long shared array
  uint64_t inexactBlocks = 0;   // blocks whose float partial differs from their exact sum
  int64_t absBlockError = 0;    // sum over blocks of |float partial - exact block sum|
  uint64_t blocks = 0;
};
struct MeanRow {
  uint64_t n = 0;
  int64_t sum = 0;              // the exact sum (long int, as the seed recommends)
  float seedMean = 0;           // float mediaGPU = sumaGPU / nverts2 (integer division)
  double correctMean = 0;       // double(sum) / n
};
struct OverrunResult {
  uint64_t n = 0;
  uint64_t blocks = 0;
  uint64_t allocatedBytes = 0;  // sizeof(float) * blocks: the seed's cudaMalloc
  uint64_t writtenBytes = 0;    // sizeof(long int) * blocks: what the kernel writes
  uint64_t guardBytes = 0;      // fill after the buffer, inside the same allocation
  uint8_t fill = 0xA5;
  // The allocation as read back after the seed's kernel: buffer + guard zone.
  std::vector<uint8_t> arena;
  std::vector<int64_t> partials;  // each block's partial as the kernel computed it
  uint64_t changedPastEnd = 0;    // guard bytes that differ from the fill
  bool pastEndIsPartials = false; // the bytes past the end are the partials' bytes that belong there
  uint64_t firstChanged = 0, lastChanged = 0;  // offsets from the buffer's start (when changed)
  bool guardTailIntact = false;   // every guard byte past writtenBytes still holds the fill
  bool fixGuardIntact = false;    // the fix (long int x blocks) left its own guard untouched
  int64_t hostSumSeed = 0;      // the host's sum after the seed's copy of sizeof(float) x blocks
  int64_t hostSumFix = 0;
  int64_t exact = 0;
  std::vector<uint8_t> fixArena;  // the fix's allocation read back (buffer + guard)
};
struct MaxRow {
  std::string launch;           // "seed's grid: N / M blocks", "two per thread: N / 2M blocks"
  uint64_t n = 0;
  uint64_t blocks = 0;
  float seedMax = 0;            // segundo_valor = V_in[i]
  float fixMax = 0;             // segundo_valor = V_in[i_seg]
  float exactMax = 0;
  uint64_t maxIndex = 0;        // where the maximum sits (the second element of a pair)
};

// One N of the float sum, four ways on the same data: the seeds' sequential CPU loop (acc += v[i])
// and the GPU's tree (each thread adds 8 elements, the block a tree, the next pass the blocks'
// sums; block 256), each plain and with Kahan's compensation (TwoSum in the tree).
struct KahanRow {
  uint64_t n = 0;
  double exact = 0;                     // the data's exact sum (the data are multiples of 2^-24)
  float loopSum = 0, loopKahanSum = 0;  // the CPU loop, on this machine
  double loopMs = 0, loopKahanMs = 0;   // its time on one core, median
  float treeSum = 0, treeKahanSum = 0;  // the tree: the GPU's, or the CPU model's (same operations, same order)
  double treeMs = 0, treeKahanMs = 0;   // GPU: median of every pass's kernels (CUDA events); 0 in the CPU model
};
// The CPU loops of a row (plain and Kahan), timed: row->loop*.
void kahanLoops(const float* data, uint64_t n, KahanRow* row);

// One of seed 000's profiled launches (Kernel01..07, double, 2^24, 512 threads).
struct AchievedRow {
  std::string label;            // "Kernel06"
  RunConfig config;             // the launch, as the `occupancy` lesson runs it
  double seedNvprof = 0;        // the seed's achieved occupancy on the K40c
  double ncuH200 = 0;           // Nsight Compute's on an H200, recorded 2026-11-26
  double theoretical = 0;       // the occupancy calculator, for this launch on this device (or the CPU model's H200)
  double achieved = -1;         // the counter now, 0..1; -1: not read (counterError says why)
  std::string counterError;
  double kernelMs = 0;          // GPU: the run's median kernel time (every pass); 0 in the CPU model
};
// The seed's launches as the `occupancy` lesson runs them, with the seed's and ncu's figures.
std::vector<AchievedRow> achievedOccupancyRuns();

struct PitfallResult {
  Pitfall kind = Pitfall::ClockTiming;
  std::string label;            // from the request
  bool ok = false;
  std::string error;
  bool onGpu = false;           // false: the CPU model
  std::string source;           // "GPU: NVIDIA H200" or "CPU model (...)"
  int block = 0;
  std::vector<ClockRow> clock;
  std::vector<ClockCpuRow> clockCpu;
  std::vector<FloatSumRow> floatSum;
  std::vector<MeanRow> mean;
  std::optional<OverrunResult> overrun;
  std::vector<MaxRow> max;
  std::vector<KahanRow> kahan;
  std::vector<AchievedRow> achieved;
  TransferResults transfers;
};

// ---- shared by the CPU model and the GPU run ----
// The seed's matrix of path lengths, deterministic: ints in [0, valueMax].
int32_t pitfallInt(uint64_t seed, uint64_t i, int64_t valueMax);
// Floats in [-1000, 1000) with the maximum 1e6 planted at the second element of the pair of
// thread `pairOf` (index pairOf + n / 2): what the double read misses.
float pitfallMaxData(uint64_t seed, uint64_t i, uint64_t n);
uint64_t pitfallMaxIndex(uint64_t n);  // where pitfallMaxData puts the maximum
// The seed's block partial: ints summed pairwise through a float shared array (the kernel's
// tree order), converted to long int as `suma[blockIdx.x] = sdata[0]` does.
int64_t floatTreePartial(const int32_t* values, uint64_t count, int block);
// The seed's max kernel for one block: first = V_in[i], second = V_in[i] (seed) or V_in[i_seg].
float seedMaxBlock(const float* data, uint64_t n, uint64_t blockIndex, uint64_t blocks, int block, bool fixed);
// The float sum's data: k / 2^24 for a hashed 24-bit k, in [0, 1) like the `uniform` data.
float kahanData(uint64_t seed, uint64_t i);
// One pass of the float sum over `n` values as the GPU runs it: block `kKahanBlock`, 8 elements a
// thread (a warp reads 32 neighbours), the block's tree; writes one float per block, returns how many.
constexpr int kKahanBlock = 256;
uint64_t kahanPass(const float* in, float* out, uint64_t n, bool compensated);
// Guard-zone bookkeeping after a kernel wrote into arena = buffer + guard.
void summarizeGuard(OverrunResult* r);

// A result for request r, from `source` ("CPU model", "GPU: NVIDIA H200"), with the request
// checked: error set (and nothing else) when validatePitfall refuses it.
PitfallResult startPitfallResult(const PitfallRequest& r, const std::string& source, bool onGpu);
// The CPU model of a demonstration (also what a machine without a GPU shows).
PitfallResult runPitfallOnCpu(const PitfallRequest& r);

// What the lesson shows: the table (the seed's code beside the fix) and the findings in words.
Table pitfallTable(const PitfallResult& r);
std::vector<std::string> pitfallFindings(const PitfallResult& r);
// The seed's line(s) and the fix, as code, for the lesson's panel.
std::string pitfallSeedCode(Pitfall p);
std::string pitfallFixCode(Pitfall p);

}  // namespace rl
