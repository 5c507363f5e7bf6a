#pragma once
// Host-side traces: a copy of a trace buffer (from the GPU through GL, or from the CPU model),
// the CPU model itself, the bank-conflict analysis and the per-step summary the views and
// `reducelab trace` show.
#include <cstdint>
#include <string>
#include <vector>

#include "reducelab/config.hpp"
#include "reducelab/trace_format.hpp"
#include "reducelab/views.hpp"

namespace rl {

struct TraceData {
  trace::TraceHeader header{};
  std::vector<trace::StepHeader> steps;  // header.numSteps
  std::vector<trace::LaneRecord> lanes;  // numSteps x blockSize, step-major

  bool valid() const { return header.magic == trace::kMagic && header.blockSize > 0; }
  int numSteps() const { return int(steps.size()); }
  int blockSize() const { return int(header.blockSize); }
  int numWarps() const { return (blockSize() + 31) / 32; }
  const trace::LaneRecord& lane(int step, int thread) const {
    return lanes[size_t(step) * header.blockSize + size_t(thread)];
  }
  // From the bytes of a trace buffer (trace::bufferBytes(block) of them).
  static TraceData fromBuffer(const void* bytes, size_t size, std::string* error);
  // The same bytes, for uploading into a GL buffer.
  std::vector<uint8_t> toBuffer() const;
};

// What views index with a trace's contents, checked before a trace from outside (a recording, a
// remote GPU) is shown: header fields, step kinds and slots, and every address within what its
// space allows (shared: the block's shared memory; global: the input; shuffle: a lane of the
// warp). "" or the first problem.
std::string checkTraceContent(const TraceData& t);

// The CPU model of kernel c.kernel: the trace the traced kernel writes for block
// c.tracedBlock, computed by a separate C++ implementation of each kernel's steps.
// `grid` is the first pass's grid (the engine's, or planGeometry's); `ccMajor` decides whether
// 32-bit integer warp reductions use the redux instruction (sm_80+).
TraceData modelTrace(const RunConfig& c, uint64_t grid, int ccMajor, std::string* error);

// ---- bank conflicts ----
// One warp-wide shared-memory access (one slot of one step of one warp).
struct BankAccess {
  int step = 0, warp = 0, slot = 0;
  int bytes = 4;            // per lane
  bool store = false;
  int activeLanes = 0;
  int bank[32];             // first bank of each lane's access, -1 if the lane made none
  int word[32];             // 4-byte word index of each lane's access, -1 if none
  int degree = 0;           // n-way: most distinct words any bank must serve in one wavefront
  int wavefronts = 0;       // shared-memory wavefronts the access needs
  int idealWavefronts = 0;  // without conflicts (bytes needed / 128 per phase)
  int conflictLanes = 0;    // lanes that share a bank with another lane at a different word
  int phaseLanes = 32;      // lanes served together (32 / words per lane; twice that for packed loads)
};

// Analyses every shared-memory slot of `warp` (or of all warps when warp < 0) at `step`.
std::vector<BankAccess> bankAccesses(const TraceData& t, int step, int warp);

struct StepSummary {
  int step = 0;
  uint32_t kind = 0;
  int param = 0;
  std::string label;           // "s = 128", "shuffle 16", "load", ...
  int warpsWithWork = 0;       // warps with at least one active lane
  std::vector<int> activeLanes;  // per warp
  int maxDegree = 0;           // worst bank-conflict degree of the step's shared accesses
  int wavefronts = 0;          // shared-memory wavefronts of the whole block at this step
  int idealWavefronts = 0;
  int loadWavefronts = 0, storeWavefronts = 0;
  int idealLoadWavefronts = 0, idealStoreWavefronts = 0;
  // Global loads, per lane detail: the first loop iteration of grid-stride steps.
  int globalSectors = 0;       // 32-byte sectors touched by the step's global loads (block)
  int globalRequests = 0;      // warp-level global load instructions
  // Global stores of the step (lane detail), as the coalescing view counts loads.
  int globalStoreSectors = 0, globalStoreRequests = 0;
  uint32_t maxIterations = 1;
  // Global loads over every iteration (the step header's totals): what the block reads.
  uint64_t totalLoadRequests = 0, totalLoadSectors = 0, totalLoadBytes = 0;
};

struct TraceSummary {
  std::vector<StepSummary> steps;
  int totalWavefronts = 0, totalIdealWavefronts = 0;
  int loadWavefronts = 0, storeWavefronts = 0, idealLoadWavefronts = 0, idealStoreWavefronts = 0;
  // The block's global loads over every iteration of every step.
  uint64_t totalLoadRequests = 0, totalLoadSectors = 0, totalLoadBytes = 0;
  // Bank conflicts as Nsight Compute counts them: wavefronts beyond the ideal.
  int loadConflicts() const { return loadWavefronts - idealLoadWavefronts; }
  int storeConflicts() const { return storeWavefronts - idealStoreWavefronts; }
};

TraceSummary summarize(const TraceData& t);
// The step a view opens on when nothing asks for one: the step that shows its point, not the last
// (often an empty "store C" or "result"). Bank view: the most conflicted step, else the first
// shared access; warp view: the first step where some lanes wait; coalescing: the first global
// access; all four: conflicts, else idle lanes; the tree and others: the last step.
int tellingStep(const TraceData& t, const TraceSummary& sum, ViewId view);
// A step request: kTellingStep (tellingStep), -1 (the last step) or a step index, clamped.
constexpr int kTellingStep = -2;
int requestedStep(const TraceData& t, const TraceSummary& sum, ViewId view, int request);
std::string stepLabel(const trace::StepHeader& s);
// Where offset 0 of a global slot's region lies, in bytes from its allocation (the header's
// globalBase, secondBase or outputBase).
int64_t regionBase(const trace::TraceHeader& h, uint8_t region);
// Two traces are the same when headers, steps, flags, addresses and iteration counts match
// exactly and values agree within `relTol` (cg::reduce may add in another order). Returns ""
// or the first difference.
std::string compareTraces(const TraceData& a, const TraceData& b, double relTol);

}  // namespace rl
