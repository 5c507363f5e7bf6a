#pragma once
// The kernel catalogue: what each kernel is, where it sits in Harris's ladder and in the UPC
// lecture, how it is launched, the steps the CPU model replays, and its source and notes
// (compiled into the binary). Each kernel's facts live in one descriptor in its family's folder
// (kernels/families/<family>/<family>_kernels.hpp: the family's defaults, then what differs);
// reducelab/kernel_ids.hpp names every kernel once, and the catalogue, the registry, the CPU model
// and the test lists are built from that list. docs/adding-a-kernel.md shows the steps.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "reducelab/kernel_ids.hpp"
#include "reducelab/types.hpp"

namespace rl {


// What a kernel computes: its family (family.hpp), with parameters of its own (family_params.hpp)
// and its own measure (bandwidth for reduction and transpose, FLOP/s for matmul). Yours: the
// student's own kernel (kernels/families/yours/). Unset: a descriptor that forgot it.
enum class Family { Unset, Reduction, Transpose, Matmul, Yours };
std::string_view familyName(Family f);

// How a kernel covers its input, which fixes its grid. Unset: a descriptor that forgot it
// (refused at compile time by kernel_list.hpp's completeness check).
enum class GridShape {
  Unset,
  OnePerThread,   // grid = ceil(N / block)
  PairPerThread,  // grid = ceil(N / (2 block))
  GridStride,     // about one wave of blocks; each thread loops
  Library,        // CUB decides
  MatrixTiles,    // 2-D grid: one block per tile x tile piece of the output (matrix families)
};

// Dynamic shared memory a block needs.
enum class SharedRule {
  Unset,
  None,         // the library manages its own
  TreeOfBlock,  // one accumulator per thread, at least 64 (the last warp reads sdata[tid + 32])
  OnePerWarp,   // 32 accumulators: one partial per warp
  NoneOwn,      // a kernel of ours without shared memory (naive transpose and matmul)
  Tile,         // tile x tile elements (transpose; the swizzled one too)
  TilePadded,   // tile x (tile + 1) elements: the seed's TILE_DIM + 1
  TwoTiles,     // two tile x tile tiles (matmul's As and Bs)
  BulkRing,     // one partial per warp, then a ring of bulkStages(block) stages of block x 16 bytes (k14)
};

// k14's ring of stages in dynamic shared memory: it starts past the 32 per-warp partials (256
// bytes: room for 32 doubles, and 128-byte aligned), one stage is one 16-byte vector per thread.
// Four stages while they fit 32 KB (the default dynamic shared memory needs no opt-in), else two.
constexpr int kBulkRingOffset = 256;
constexpr int bulkStages(int block) { return block * 16 * 4 <= 32768 ? 4 : 2; }

// One phase of a kernel's CPU-model schedule: what kernels/core/trace_model.cpp replays, in
// order, for the traced block. Each phase writes the trace steps the kernel's code records.
enum class Phase {
  LoadOne,                   // one element per thread into shared memory
  LoadPair,                  // two elements blockDim apart, added on load, into shared memory
  GridStridePairsToShared,   // grid-stride loop over pairs, the partial into shared memory (k7)
  GridStridePairs,           // the same loop, the partial kept in a register (k8, k9)
  VectorLoads,               // grid-stride loop of 16-byte vector loads, several in flight
  VectorGridStride,          // one 16-byte vector per thread per step of the grid's threads (k13)
  BulkStages,                // the block's tiles of block x 16 bytes bulk-copied into shared memory; each
                             // thread reads its vector of each tile back (k14)
  TreeInterleavedDivergent,  // shared tree, tid % (2s) == 0 adds sdata[tid + s]
  TreeInterleavedStrided,    // shared tree, thread t writes 2st (bank conflicts)
  TreeSequential,            // shared tree, s = block/2 .. 1, the first s threads add
  TreeSequentialAbove32,     // the same, stopping before s = 32 (a last-warp phase follows)
  TreeUnrolled,              // the block-size-templated tree, s = 512 .. 64 where block >= 2s
  VolatileLastWarp,          // the last warp through volatile shared memory (lockstep)
  SyncwarpLastWarp,          // the last warp with __syncwarp between read and write
  ShuffleBlockReduce,        // warp shuffles (or redux), per-warp partials, warp 0 shuffles
  CgBlockReduce,             // the same with cg::reduce
  SharedResult,              // thread 0 stores sdata[0] to out[block]
  GlobalResult,              // thread 0 stores its register to out[block] (or partials[block])
  AtomicResult,              // thread 0 combines into *out with an atomic
  // ---- the matrix families (kernels/core/matrix_model.cpp replays them) ----
  TransposeDirect,           // naive transpose: each row step reads a row, writes a column
  TransposeLoadTile,         // the tile's rows into shared memory (coalesced reads)
  TransposeStoreTile,        // the tile's columns out of shared memory (coalesced writes)
  MatmulNaiveDot,            // one output element per thread from global memory (seed 003)
  MatmulTileLoad,            // the first K-tile of A and B into shared memory
  MatmulTileDot,             // the multiply-add loop over the first K-tile
  MatmulStore,               // each thread stores its output element
};

// A list of at most N items with a fixed capacity, usable in constant expressions (descriptors
// are constexpr, so no allocation and no static-initialisation order).
template <class T, int N>
struct FixedList {
  T items[N]{};
  int count = 0;
  constexpr FixedList() = default;
  constexpr FixedList(std::initializer_list<T> list) {
    for (T v : list) items[count++] = v;  // more than N: not a constant expression
  }
  constexpr const T* begin() const { return items; }
  constexpr const T* end() const { return items + count; }
  constexpr int size() const { return count; }
  constexpr bool empty() const { return count == 0; }
  constexpr const T& front() const { return items[0]; }
  constexpr const T& operator[](int i) const { return items[i]; }
};

using FinalList = FixedList<FinalStage, 4>;
using Schedule = FixedList<Phase, 16>;
using TileList = FixedList<int, 8>;

// How shared memory of a tile is indexed (transpose and matmul).
enum class TileLayout { None, Plain, Padded, Swizzled };
// Order in which blocks take tiles: the grid's, or the seed's diagonal order (partition camping).
enum class BlockOrder { Grid, Diagonal };

// One kernel's descriptor: its family's defaults (e.g. desc::reductionKernel()) with what differs
// set by name. A new field gets its default here or in the families' defaults, in one place;
// kernel_list.hpp refuses at compile time a descriptor whose family left a field unset.
struct KernelInfo {
  KernelId id{};
  Family family = Family::Unset;
  std::string_view key;       // "k1" ... "k12", "k5s", "cub": stable, used on the CLI
  std::string_view name;      // short name for tables
  std::string_view title;     // one line
  int harris = 0;             // Harris's kernel number, 0 if none
  std::string_view upc;       // the UPC lecture's Kernel0N, "" if none
  std::string_view sourceFile;  // in kernels/cuda/; notes are assets/kernels/<key>.md
  // ---- launch policy ----
  int minBlock = 32;          // smallest block size it accepts
  bool blockTemplated = false;  // instantiated per block size (Harris 6, 7)
  GridShape shape = GridShape::Unset;
  int loadsPerIteration = -1;  // loads per thread per loop iteration (0: the library's)
  int bytesPerLoad = -1;       // 0: one element per load; 16: a 16-byte vector
  SharedRule sharedRule = SharedRule::Unset;
  FinalList finals;           // allowed final stages, first = default
  // ---- the matrix families (empty / 0 / None for reductions) ----
  TileList tiles;             // tile sizes it is instantiated for, first = default
  int threadRows = -1;        // transpose: blockDim.y (the seed's BLOCK_ROWS); 0: tile (square)
  TileLayout tileLayout = TileLayout::None;
  BlockOrder blockOrder = BlockOrder::Grid;
  // transpose: whether a block's tile goes to the transposed tile position, and whether its
  // elements go to the transposed places inside the tile. Both: a transpose; neither: a copy
  // (seed 004's yardsticks); one: its coarse-grained (tiles) and fine-grained (elements) halves.
  bool swapsTiles = true;
  bool swapsElements = true;
  // Lowest compute capability it runs on, major x 10 + minor (k14's bulk copies: 90); 0: any.
  int minCc = 0;
  // Grid, loads in flight and cache hint come from the device's tuned policy table (reducelab
  // tune), or the latency rule without one, not from the fixed shape alone.
  bool policyTuned = false;
  // A dispatch, not a kernel of its own (auto): it picks the block and the launch policy per N,
  // type and architecture from a table checked into the source (or this device's tuned one) and
  // launches the tuned kernel's code with them.
  bool dispatches = false;
  // ---- behaviour ----
  bool unsafe = false;        // relies on warp-synchronous execution (racy since Volta)
  bool deterministic = true;  // same bits every run
  bool traceable = true;      // has a traced twin (all but CUB)
  // ---- the CPU model ----
  Schedule schedule;          // empty only when not traceable
};

// Whether the fields every descriptor has are set and consistent; its family checks the rest
// (KernelFamily::descriptorComplete; at compile time, kernel_list.hpp's descriptorComplete for
// each descriptor; a failure names nothing, so Catalogue.EveryDescriptorIsComplete repeats the
// checks one by one with messages).
constexpr bool commonDescriptorComplete(const KernelInfo& k) {
  return k.family != Family::Unset && k.threadRows >= 0 && k.minCc >= 0 && !k.key.empty() && !k.name.empty() &&
         !k.title.empty() && !k.sourceFile.empty() && !k.finals.empty() && k.traceable != k.schedule.empty();
}

const std::vector<KernelInfo>& catalogue();
const KernelInfo* findKernel(std::string_view key);
// The key of the student's own kernel (the yours family's one kernel, kernels/families/yours/): in
// no catalogue, a reduction whose launch its file's contract planned. Code outside that folder
// and the kernel's backend (kernels/usercode/) uses it only to make a row of it; what depends on
// it is asked of its family (familyOf(c), runsUserSource(c): family.hpp).
inline constexpr std::string_view kUserKernelKey = "yours";
const KernelInfo& kernelInfo(KernelId id);
// "all" (every reduction: the ladder), a family ("transpose", "matmul": its kernels), or a comma
// list "k3,k7,cub". Fills *error and returns {} on an unknown key.
std::vector<const KernelInfo*> parseKernelList(std::string_view text, std::string* error);
// The keys, comma separated (for messages).
std::string kernelKeys();
// The keys of every kernel of a family, or of its traceable ones (test parameter lists); Unset:
// the kernels of the ladder (KernelFamily::formsLadder).
std::vector<std::string> catalogueKeys(bool traceableOnly = false, Family family = Family::Unset);

// The kernel's source file text, and its notes (assets/kernels/<key>.md).
std::string_view kernelSource(const KernelInfo& k);
std::string_view kernelNotes(const KernelInfo& k);
// Any file of kernels/cuda by name (for the includes a kernel's source names).
std::string_view kernelSourceFile(std::string_view file);

FinalStage defaultFinal(const KernelInfo& k);
bool allowsFinal(const KernelInfo& k, FinalStage f);

// Input elements one thread covers per loop iteration (vector loads: elements per 16 bytes).
uint64_t elemsPerIteration(const KernelInfo& k, ElemType in);
// Dynamic shared memory of one block, from the descriptor's shared-memory rule (`tile`: the
// matrix families' tile size, ignored by reductions).
size_t sharedBytes(const KernelInfo& k, int block, ElemType acc, int tile = 0);

// The tiled matmul reads its row of As in 16-byte vectors (LDS.128: float4, double2) where every
// row of the tile starts 16-byte aligned, as nvcc's unrolled loop does on its own; the kernel
// writes the vector load out, so its traced twin and the CPU model record what the SASS does.
// Elements per vector: 16 / element bytes, or 1 (scalar reads) for tiles such as 29.
constexpr int matmulRowVector(int tile, int elemBytes) {
  return elemBytes > 0 && elemBytes <= 16 && (tile * elemBytes) % 16 == 0 ? 16 / elemBytes : 1;
}
// Whether kernel k is instantiated for this tile size.
bool hasTile(const KernelInfo& k, int tile);
// The threads of one block of a matrix kernel: tile x threadRows (transpose), tile x tile (matmul).
int matrixBlockX(const KernelInfo& k, int tile);
int matrixBlockY(const KernelInfo& k, int tile);

}  // namespace rl
