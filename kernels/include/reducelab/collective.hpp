#pragma once
// The algorithm model of collectives across G GPUs (plain C++, no CUDA): which chunk of the
// buffer moves on which link at each step, and how many bytes. The GUI animates it, the tests
// check it, and the CLI prints its byte counts beside the measured times.
//
// Ring AllReduce: reduce-scatter then all-gather over the ring 0 -> 1 -> ... -> G-1 -> 0. The
//   buffer is cut into G chunks; each of the 2(G-1) steps every GPU sends one chunk (N/G) to
//   its successor, so each GPU sends 2(G-1)/G x N in all.
// Ring Reduce: a pipelined chain ending at the root (G pieces of N/G): step t moves piece t-j
//   over the j-th link of the chain; every GPU but the root sends N in all.
// Tree AllReduce: a binary tree (heap order, GPU 0 the root): the full buffer goes up one level
//   per step (children's buffers are added in), then down again (copied). Tree Reduce: the way
//   up only. Inner GPUs send or receive 2N in one step: the model charges the busiest GPU.
//   (NCCL builds its trees across nodes; inside one node its "tree" is a chain: see
//   docs/multi-gpu.md.)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rl::collective {

enum class Algorithm { Ring, Tree };
enum class Collective { AllReduce, Reduce };

std::string_view name(Algorithm a);
std::string_view name(Collective c);

// A contiguous range of the buffer, in elements.
struct Chunk {
  uint64_t first = 0, count = 0;
};

enum class TransferKind { Reduce, Copy };  // the receiver adds the data in, or overwrites with it

struct Transfer {
  int from = 0, to = 0;  // GPU ranks
  int chunk = 0;         // index into Schedule::chunks
  uint64_t bytes = 0;
  TransferKind kind = TransferKind::Reduce;
};

struct Step {
  std::string phase;  // "reduce-scatter", "all-gather", "reduce", "broadcast"
  std::vector<Transfer> transfers;
};

struct Schedule {
  Algorithm algorithm = Algorithm::Ring;
  Collective collective = Collective::AllReduce;
  int gpus = 1;
  int root = 0;
  uint64_t elements = 0;
  uint64_t elemBytes = 1;
  std::vector<Chunk> chunks;
  std::vector<Step> steps;

  uint64_t bytes() const { return elements * elemBytes; }
  uint64_t chunkBytes(int c) const { return chunks[size_t(c)].count * elemBytes; }
  // Bytes each GPU sends (receives) over the whole collective.
  std::vector<uint64_t> sentBytes() const;
  std::vector<uint64_t> receivedBytes() const;
  // Bytes on each directed link (from, to) in step `s`; zero where the link is idle.
  std::vector<std::vector<uint64_t>> linkBytes(int s) const;
  // The most any one GPU sends or receives in step `s` (what a switch-connected GPU waits on).
  uint64_t busiestGpuBytes(int s) const;
  uint64_t totalBytesMoved() const;
};

// G in 1..64, elements >= 1 (any G: a chunk may be one element larger than another, or empty
// when elements < G). Returns nullopt and *error for anything else.
std::optional<Schedule> makeSchedule(Algorithm a, Collective c, int gpus, uint64_t elements,
                                     uint64_t elemBytes, std::string* error);

// Which GPUs' contributions each GPU holds, per chunk: bit g set = GPU g's data is summed in.
// state[gpu][chunk]. Before step 0 GPU g holds only its own data.
using Contributions = std::vector<std::vector<uint64_t>>;
Contributions initialContributions(const Schedule& s);
// Applies step `step` (all its transfers at once, as the hardware does) to `state`. Returns ""
// or why the step is wrong (a chunk added twice: the same contribution counted twice).
std::string applyStep(const Schedule& s, int step, Contributions* state);
// How many GPUs' data a contribution set holds.
int popcountContributions(uint64_t set);
// Runs the schedule on the contribution sets and checks the end state: every GPU (AllReduce) or
// the root (Reduce) holds every GPU's data once in every chunk. "" or what is wrong.
std::string verifySchedule(const Schedule& s);

// Step durations: measured total time spread over the steps in proportion to the model's
// cost (busiest GPU's bytes / bandwidth + latency), or, without a measurement, the model's
// cost itself with the given bandwidth and latency.
struct StepTiming {
  std::vector<double> seconds;  // per step
  double total = 0;
  bool measured = false;
};
StepTiming timeSteps(const Schedule& s, double gpuLinkGBs, double latencySeconds,
                     double measuredTotalSeconds = 0);

// algbw = bytes / time; busbw = algbw x the collective's factor (2(G-1)/G for AllReduce, 1 for
// Reduce), as nccl-tests defines them (bytes per GPU, GB = 1e9 bytes).
double busBandwidthFactor(Collective c, int gpus);

// Sizes for --sizes: "1K..8G" (powers of two from..to, K/M/G binary), a comma list ("4K,1M"), or
// one size. Each size >= 1 byte and <= 64 GiB. nullopt and *error otherwise.
std::optional<std::vector<uint64_t>> parseSizeList(std::string_view text, std::string* error);
// "1 KiB", "8 GiB", "12345 B".
std::string formatBytes(uint64_t bytes);

}  // namespace rl::collective
