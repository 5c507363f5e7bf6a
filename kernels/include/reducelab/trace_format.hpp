#pragma once
// Execution trace of one thread block, as the traced kernels write it (into a GL buffer through
// CUDA-GL interop) and as the CPU model writes it. Plain structs shared by CUDA, C++ and GLSL
// (std430: see shaders/trace_common.glsl), so every view reads the same bytes.
#include <cstdint>

namespace rl::trace {

constexpr uint32_t kMagic = 0x52454454;  // "TDER"
constexpr uint32_t kVersion = 3;  // 2: StepHeader carries the global-load totals; 3: global
                                  // regions (SlotInfo::region, TraceHeader's bases, 2-D shape)
constexpr int kMaxSlots = 4;   // memory accesses per lane per step
constexpr int kMaxSteps = 48;  // steps per trace
constexpr int kMaxBlock = 1024;

// What a step of the algorithm is.
enum StepKind : uint32_t {
  kStepLoad = 1,         // global load(s) into shared memory (one element or a pair per thread)
  kStepGridStride = 2,   // grid-stride loop: lane detail of its first iteration, totals of all
  kStepTreeLevel = 3,    // one level of the shared-memory tree, __syncthreads() after it
  kStepWarpSync = 4,     // one stage inside the last warp (volatile or __syncwarp form)
  kStepShuffle = 5,      // one __shfl_down_sync stage (slot 0 = source lane)
  kStepWarpReduce = 6,   // a whole-warp reduction in one instruction (redux / cg::reduce)
  kStepWarpStore = 7,    // lane 0 of each warp stores its warp's partial to shared memory
  kStepWarpLoad = 8,     // warp 0 reads the per-warp partials back
  kStepBlockResult = 9,  // thread 0 writes the block's result (store, atomic, or last block)
  // ---- the matrix families ----
  kStepCopyRow = 10,     // naive transpose: read row r of the tile, write it as a column (param r)
  kStepTileLoad = 11,    // global rows into a shared tile (param: the first row, or K-tile count)
  kStepTileStore = 12,   // shared tile columns out to global memory (param: the first row)
  kStepDot = 13,         // multiply-add loop (param: its length; lane detail = first iteration)
  kStepOutput = 14,      // each thread stores its output element
  kStepDotTerm = 15,     // one term n of a multiply-add loop over shared tiles (param: n)
  // ---- instrumented traces of unmodified kernels (instrumented_trace.hpp) ----
  kStepPhase = 16,       // accesses between two __syncthreads (param: the barrier phase, 0 before
                         // the first; StepHeader::part: which part of a phase cut into several)
};
// The last step kind: readers refuse kinds above it (a trace from a file or a pipe). A new kind
// goes above and moves this.
constexpr uint32_t kStepLastKind = kStepPhase;

// Memory space of an access slot.
enum Space : uint8_t { kSpaceNone = 0, kSpaceShared = 1, kSpaceGlobal = 2, kSpaceShuffle = 3 };
enum AccessKind : uint8_t { kLoad = 1, kStore = 2, kAtomic = 3 };

// Which array a global slot's addresses are offsets into (TraceHeader's bases say where each
// region's offset 0 lies, in bytes from its allocation, so sectors are counted exactly).
enum Region : uint8_t { kRegionInput = 0, kRegionSecond = 1, kRegionOutput = 2 };

struct SlotInfo {
  uint8_t space = kSpaceNone;
  uint8_t access = 0;
  uint8_t bytes = 0;  // bytes per lane of this access (4, 8 or 16)
  uint8_t region = kRegionInput;  // global slots: the array (Region)
};

struct StepHeader {  // 64 bytes
  uint32_t kind;
  int32_t param;       // stride s, shuffle offset, or vector width
  uint32_t numSlots;
  uint32_t maxIterations;  // grid-stride steps: the most loop iterations of any lane
  SlotInfo slots[kMaxSlots];
  // The step's global loads over every loop iteration (the lane records hold the first
  // iteration only): warp-level requests, distinct 32-byte sectors per request, bytes read.
  uint64_t totalLoadRequests;
  uint64_t totalLoadSectors;
  uint64_t totalLoadBytes;
  uint32_t part;  // kStepPhase: 0 for a phase's first step, 1, 2 ... for the steps it was cut into
  uint32_t reserved;
};

// Lane flags.
constexpr uint32_t kLaneActive = 1u;                  // the lane did the step's work
inline constexpr uint32_t slotBit(int slot) { return 2u << slot; }  // slot's address is valid
// Traces with kTraceValuesFromStores: `value` is what the lane stored in the step (the only
// value an instrumented trace sees); without this flag the lane's value is unknown.
constexpr uint32_t kLaneValueKnown = 1u << 8;

struct LaneRecord {  // 32 bytes
  uint32_t flags;
  int32_t addr[kMaxSlots];  // shared: byte offset in the block's shared array; global: byte
                            // offset from TraceHeader::globalBase; shuffle: source lane
  uint32_t iterations;      // grid-stride iterations of this lane (1 otherwise)
  double value;             // the partial this lane holds after the step
};

struct TraceHeader {  // 256 bytes
  uint32_t magic;
  uint32_t version;
  uint32_t numSteps;
  uint32_t blockSize;
  uint32_t tracedBlock;
  uint32_t elemBytes;   // input element size
  uint32_t accBytes;    // accumulator size
  uint32_t gridSize;
  uint64_t n;
  int64_t globalBase;   // byte offset in the input of the traced block's first element
  int64_t secondBase;   // matmul: byte offset in the input buffer where B's region starts
  int64_t outputBase;   // byte offset in the output of the output region's offset 0
  uint32_t blockX, blockY;  // 2-D block (thread t = y x blockX + x); 1-D kernels: blockSize, 1
  uint32_t gridX, gridY;    // 2-D grid (traced block = y x gridX + x); 1-D: gridSize, 1
  uint32_t tile;            // matrix families: the tile's side; 0 otherwise
  uint32_t flags;           // kTrace* below; 0 for the traced kernels' and the CPU model's traces
  uint32_t reserved[42];
};

// TraceHeader::flags.
constexpr uint32_t kTraceInstrumented = 1u;      // recorded by patching an unmodified kernel (not tr.* calls)
constexpr uint32_t kTraceValuesFromStores = 2u;  // lane values known only where kLaneValueKnown says
constexpr uint32_t kTraceKnownFlags = kTraceInstrumented | kTraceValuesFromStores;
inline constexpr bool laneValueKnown(const TraceHeader& h, uint32_t laneFlags) {
  return !(h.flags & kTraceValuesFromStores) || (laneFlags & kLaneValueKnown);
}

static_assert(sizeof(StepHeader) == 64);
static_assert(sizeof(LaneRecord) == 32);
static_assert(sizeof(TraceHeader) == 256);

// One buffer: header, then kMaxSteps step headers, then kMaxSteps x blockSize lane records
// (step-major). Offsets are multiples of 256 for glBindBufferRange.
constexpr uint64_t kStepsOffset = sizeof(TraceHeader);
constexpr uint64_t kLanesOffset = kStepsOffset + uint64_t(kMaxSteps) * sizeof(StepHeader);
constexpr uint64_t bufferBytes(uint32_t blockSize) {
  return kLanesOffset + uint64_t(kMaxSteps) * blockSize * sizeof(LaneRecord);
}
static_assert(kLanesOffset % 256 == 0);

}  // namespace rl::trace
