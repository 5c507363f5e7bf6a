#pragma once
// Instrumented traces: the raw per-thread records of one block of an UNMODIFIED kernel (the
// Compute Sanitizer patches write them, instrumented.hpp runs them) turned into a TraceData, so
// every view, summary and bank analysis that reads the traced kernels' traces reads these too.
// Plain C++ (tested without a GPU on hand-made records).
//
// How records become steps (docs/instrumented-traces.md has the worked examples):
// - Barrier phases. A thread's records between two of its barrier arrivals (__syncthreads) form
//   one phase: phase 0 before its first barrier, phase p after its p-th. Phases are the unit of
//   the trace: kStepPhase steps, param = p.
// - Slots are instructions. Each distinct PC a phase executes is one access instruction; a step
//   holds at most trace::kMaxSlots of them, one slot each (space, load/store/atomic, bytes as
//   executed). A lane's address in a slot is its FIRST execution of that PC in the step.
// - Loops. Further executions of a PC by the same lane are loop iterations: the lane's
//   `iterations` (and the step's maxIterations) count them, the lane detail keeps the first, and
//   the step's global-load totals (requests, 32-byte sectors, bytes) count every execution, per
//   warp-level instruction as the hand-placed tracer counts them (the k-th execution of a PC by
//   the lanes of a warp is one request; its sectors are the distinct sectors its lanes touch).
// - Cutting a phase into steps (StepHeader::part 0, 1, 2 ...), in the phase's instruction order
//   (first execution by any lane, then PC): a new step starts at
//     * a shuffle, and after one: each shuffle instruction is a step (a 64-bit value takes two);
//     * a load after a store or atomic of the same step: a warp-synchronous stage reads what the
//       stage before wrote (the unrolled last warp, without a barrier between stages);
//     * a fifth access instruction.
//   __syncwarp is recorded but cuts nothing: a stage of k5s (read, syncwarp, write, syncwarp)
//   stays one step, as the hand-placed tracer draws it.
// - Too many steps. When the phases need more than trace::kMaxSteps steps, runs of consecutive
//   phases that execute the same instructions (a loop with a barrier inside, e.g. k14's ring)
//   become one step each, longest run first: its iterations are the phases it stands for, its
//   lane detail the first one's. What is still too long is cut at kMaxSteps and REPORTED
//   (ConversionReport::overflow), as is a record buffer that overflowed.
// - Values. The API gives the data of stores only: a lane's value is what it last stored in the
//   step (read as the accumulator type) and carries kLaneValueKnown; other lanes' values are
//   unknown (TraceHeader::flags has kTraceValuesFromStores).
// - Addresses. Shared: the offset from ConvertOptions::sharedOrigin in the shared window (below
//   it, e.g. static __shared__ variables of a kernel whose trace starts at its dynamic array: the
//   slot has no address). Global: the offset in the input, second or output array the options
//   name; elsewhere (counters, scratch) the slot has no address. Shuffles: no source lane (the
//   API does not give it). Bulk copies (cp.async.bulk) count in the totals only, as the
//   hand-placed tracer counts them. Local and distributed-shared accesses are counted in the
//   report, not shown.
#include <cstdint>
#include <tuple>
#include <string>
#include <vector>

#include "reducelab/instrumented_format.hpp"
#include "reducelab/trace.hpp"
#include "reducelab/types.hpp"

namespace rl::instrumented {

// One traced launch as read back from the device.
struct RawTrace {
  std::string function;  // the launched function's name (mangled)
  uint32_t gridX = 1, gridY = 1, gridZ = 1, blockX = 1, blockY = 1, blockZ = 1;
  uint32_t tracedBlock = 0;            // linear block index
  uint64_t attempted = 0;              // records the block tried to write
  uint64_t capacity = 0;               // records the buffer held
  uint32_t reservedSharedBytes = 0;    // the shared window's first usable offset (1 KiB on sm_80+)
  uint32_t staticSharedBytes = 0;      // the function's static __shared__ bytes
  double patchMs = 0, unpatchMs = 0;   // host time spent instrumenting the module, and undoing it
  int bystanderLaunches = 0;           // later launches of the traced module before finish(): they
                                       // ran the patches with no buffer (recorded nothing, slower)
  std::vector<std::string> notes;      // what the tracer could not record here, in words
  std::vector<RawAccess> records;      // sorted by (thread, sequence); pc as offsets

  uint32_t blockThreads() const { return blockX * blockY * blockZ; }
  uint64_t gridBlocks() const { return uint64_t(gridX) * gridY * gridZ; }
  bool overflowed() const { return attempted > records.size(); }
};

struct Region {
  uint64_t address = 0;  // device address of offset 0
  uint64_t bytes = 0;    // 0: no such region
  bool contains(uint64_t a) const { return bytes > 0 && a >= address && a - address < bytes; }
};

struct ConvertOptions {
  Region input;    // trace::kRegionInput: offsets from input.address + globalBase
  Region second;   // trace::kRegionSecond: offsets from second.address
  Region output;   // trace::kRegionOutput: offsets from output.address
  // Byte offset in the input of the traced block's first element; < 0: the lowest input byte
  // the block loads (its share starts there in every kernel of the catalogue).
  int64_t globalBase = -1;
  uint64_t n = 0;  // input elements (0: input.bytes / elemBytes)
  ElemType elemType = ElemType::Int32;  // input elements
  ElemType accType = ElemType::Int32;   // what a stored value is read as
  // The shared-window offset that is offset 0 of the trace; < 0: RawTrace::reservedSharedBytes
  // (the first usable byte).
  int64_t sharedOrigin = -1;
};

struct ConversionReport {
  int phases = 0;                 // barrier phases of the traced block
  int steps = 0;                  // steps of the trace
  int mergedRuns = 0;             // runs of repeated phases shown as one step each
  uint64_t records = 0;           // records read
  uint64_t barriers = 0, shuffles = 0, syncwarps = 0, bulkCopies = 0;
  uint64_t localAccesses = 0, remoteSharedAccesses = 0;
  uint64_t globalOutsideRegions = 0;  // global accesses in none of the named arrays
  uint64_t sharedBelowOrigin = 0;     // shared accesses below sharedOrigin (static __shared__)
  uint64_t sharedWithClusterRank = 0; // shared addresses with the CTA's cluster rank above the window
  uint64_t unknownRecords = 0;        // records of a space this version does not know
  // Non-empty when the trace is incomplete: the record buffer overflowed, or the phases needed
  // more than kMaxSteps steps even after merging repeated phases. Says what was lost.
  std::string overflow;
  std::vector<std::string> notes;  // what the trace does not show, one sentence each
};

// Turns the raw records of `raw` into a trace. Returns an invalid TraceData with *error when the
// records cannot form one (no records, a thread index outside the block, a block over 1024
// threads, no input region).
TraceData toTraceData(const RawTrace& raw, const ConvertOptions& o, ConversionReport* report, std::string* error);

// A block's shared window: offsets below this; above it, a cluster launch's shared addresses carry
// the CTA's rank in the cluster (rank << 24 | offset, as sm_90 code forms them).
constexpr uint64_t kSharedWindowBytes = uint64_t(1) << 24;
// Clears the rank bits of every shared address of `raw` (offsets in the block's own window);
// returns how many had them.
uint64_t clusterLocalSharedOffsets(RawTrace* raw);

// Each record's barrier phase (the barriers its thread passed before it), in `raw.records` order.
std::vector<uint32_t> barrierPhases(const RawTrace& raw);

// ---- comparing an instrumented trace with a hand-placed one (tests, `trace --compare`) ----
// Both traces reduced to what they must share, kernel-agnostic: per warp, every shared and global
// access instruction (space, load/store/atomic, bytes, region, and each lane's address: the lane
// detail), the bank analysis of each shared one (degree, wavefronts), and the block's totals.
struct AccessSignature {
  uint8_t space = 0, access = 0, bytes = 0, region = 0;
  int warp = 0;
  std::vector<std::pair<int, int32_t>> lanes;  // (lane, address) of the lanes with an address
  int degree = 0, wavefronts = 0;              // shared accesses: bank conflicts
  // Field by field, as a defaulted <=> would be (the web build's libc++ 14 has no <=> of vectors).
  bool operator==(const AccessSignature&) const = default;
  bool operator<(const AccessSignature& o) const {
    return std::tie(space, access, bytes, region, warp, lanes, degree, wavefronts) <
           std::tie(o.space, o.access, o.bytes, o.region, o.warp, o.lanes, o.degree, o.wavefronts);
  }
};
struct AccessProfile {
  std::vector<AccessSignature> accesses;  // sorted
  uint64_t loadRequests = 0, loadSectors = 0, loadBytes = 0;  // global loads, every iteration
  int sharedLoadWavefronts = 0, sharedStoreWavefronts = 0, idealLoadWavefronts = 0, idealStoreWavefronts = 0;
  uint64_t shuffleLanes = 0;  // lanes active in shuffle slots (instrumented: shuffle instructions)
  int maxDegree = 0;
};
// Loop steps contribute their first iteration's detail (the lane detail both tracers keep);
// lanes without an address in a slot are left out of its signature.
AccessProfile accessProfile(const TraceData& t);
// A last-block finish (k12-k14) compared with its hand-placed twin: the steps through the phase in
// which the block took its ticket (a global atomic), without the phases after it (the block that
// draws the last ticket combines every partial there, which the twin leaves untraced) and without
// the one-lane shuffle steps of that phase (the compiler aggregates the ticket's fetch_add over the
// warp: a vote, one atomic, and a shfl.idx that broadcasts the ticket; the source has no shuffle).
// A trace without a global atomic comes back unchanged. *ticketPhase (if given): that phase, -1
// when there is none.
TraceData throughTheTicketPhase(const TraceData& t, int* ticketPhase = nullptr);
// Leaves the global loads out of `p.accesses` (their totals stay): in a grid-stride loop the
// compiler unrolls the untraced kernel's loads into several instructions, each with its own first
// execution, while a hand-placed trace keeps the first iteration: only the totals compare.
void dropGlobalLoadDetail(AccessProfile* p);
// "" when equal, else the first differences (at most `maxLines` lines), naming the warp and the
// access. `what` selects: 1 = accesses, 2 = bank analysis totals, 4 = global load totals.
std::string compareProfiles(const AccessProfile& instrumented, const AccessProfile& handPlaced, int what,
                            int maxLines = 8);

}  // namespace rl::instrumented
