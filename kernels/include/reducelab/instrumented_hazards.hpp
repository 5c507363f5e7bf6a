#pragma once
// Shared-memory hazards read off the raw records of an instrumented trace (instrumented_trace.hpp):
// the missing __syncthreads() and its relatives, found from what one block of an unmodified kernel
// actually did. Plain C++ (tested on hand-built records). docs/instrumented-traces.md has the rules
// and what they cannot see.
//
// - Across warps (Severity::Failure). Within one barrier phase (a thread's records between two of
//   its barrier arrivals, as barrierPhases() numbers them), a shared word (4 bytes) written by a
//   thread of one warp and read or written by a thread of another warp: nothing orders the two,
//   so the reader may see the old or the new value (the missing __syncthreads()).
// - Barrier divergence (Severity::Failure). A barrier instruction reached a different number of
//   times by threads that all take part in barriers: __syncthreads() inside a branch or loop that
//   not every thread takes (the phases of those threads no longer line up; the launch may hang or
//   go on with a wrong result).
// - Within a warp (Severity::Warning). Lanes of one warp, between two of their __syncwarp() or
//   shuffles (which order the lanes they name), one writing a word another reads or writes: since
//   Volta the lanes of a warp need not run in step, so a warp-synchronous stage without
//   __syncwarp() may read a stale value (volatile alone keeps the compiler from caching the value,
//   not the lanes in step).
// Atomics are synchronisation, not hazards (two atomics on a word never conflict; an atomic and a
// plain access are not reported either: mbarrier and lock words would be false alarms). A thread's
// own accesses never conflict. Barrier phases are counted per thread: named barriers with a subset
// of the threads (bar.sync id, count), mbarrier waits, cluster barriers and __threadfence order
// nothing here. Only the traced block is seen: hazards between blocks (global memory) are not.
#include <cstdint>
#include <string>
#include <vector>

#include "reducelab/instrumented_trace.hpp"

namespace rl::instrumented {

struct HazardAccess {
  uint32_t thread = 0;  // linear thread index in the block
  int warp = 0, lane = 0;
  bool write = false;   // a store (else a load)
  uint64_t pc = 0;      // SASS offset of the instruction from the function's start
  uint32_t sequence = 0;  // the thread's record number (its order of execution)
  int line = 0;           // its line in the user's source, where the cubin's line table says (0: unknown)
};

struct Hazard {
  enum class Kind { CrossWarp, IntraWarp, BarrierDivergence };
  enum class Severity { Failure, Warning };
  Kind kind = Kind::CrossWarp;
  Severity severity = Severity::Failure;
  uint32_t phase = 0;       // barrier phase (CrossWarp, IntraWarp)
  int64_t wordOffset = 0;   // byte offset of the word from the shared origin (a multiple of 4)
  HazardAccess first, second;  // first: a write; second: the other access
  uint64_t occurrences = 0;    // words (or barrier PCs) with the same pair of instructions
  // BarrierDivergence: the barrier's pc (in first.pc) reached first.sequence times by first.thread
  // and second.sequence times by second.thread.
  std::string message;  // one sentence, for `reducelab check` and the GUI
};
std::string_view name(Hazard::Kind k);

struct HazardOptions {
  // The shared-window offset the word offsets count from; < 0: RawTrace::reservedSharedBytes.
  int64_t sharedOrigin = -1;
  bool intraWarp = true;   // also look within warps
  size_t maxHazards = 16;  // distinct (kind, instruction pair) reported; more are counted only
};

struct HazardReport {
  std::vector<Hazard> hazards;  // failures first, then warnings; each instruction pair once
  uint64_t suppressed = 0;      // more distinct pairs than maxHazards
  int phases = 0;
  uint64_t sharedAccesses = 0;  // shared loads, stores and atomics looked at
  std::vector<std::string> notes;  // what the analysis could not see in these records
  int failures() const;
  int warnings() const;
};

// The hazards of one traced block. Records need not be sorted (they are, as finish() returns them).
HazardReport findSharedHazards(const RawTrace& raw, const HazardOptions& options = {});

}  // namespace rl::instrumented
