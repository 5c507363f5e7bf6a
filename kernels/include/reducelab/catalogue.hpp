#pragma once
// The kernel catalogue: what each kernel is, where it sits in Harris's ladder and in the UPC
// lecture, what it needs, and its source and notes (compiled into the binary).
#include <string>
#include <string_view>
#include <vector>

#include "reducelab/types.hpp"

namespace rl {

enum class KernelId { K1, K2, K3, K4, K5, K5s, K6, K7, K8, K9, K10, K11, K12, Cub };

// How a kernel covers its input, which fixes its grid.
enum class GridShape {
  OnePerThread,   // grid = ceil(N / block)
  PairPerThread,  // grid = ceil(N / (2 block))
  GridStride,     // about one wave of blocks; each thread loops
  Library,        // CUB decides
};

struct KernelInfo {
  KernelId id;
  std::string_view key;       // "k1" ... "k12", "k5s", "cub": stable, used on the CLI
  std::string_view name;      // short name for tables
  std::string_view title;     // one line
  int harris;                 // Harris's kernel number, 0 if none
  std::string_view upc;       // the UPC lecture's Kernel0N, "" if none
  int minBlock;               // smallest block size it accepts
  bool blockTemplated;        // instantiated per block size (Harris 6, 7)
  GridShape shape;
  int elemsPerIteration;      // per thread per loop iteration (grid-stride kernels)
  std::vector<FinalStage> finals;  // allowed final stages, first = default
  bool unsafe;                // relies on warp-synchronous execution (racy since Volta)
  bool deterministic;         // same bits every run
  bool traceable;             // has a traced twin (all but CUB)
  std::string_view sourceFile;  // in kernels/cuda/
};

const std::vector<KernelInfo>& catalogue();
const KernelInfo* findKernel(std::string_view key);
const KernelInfo& kernelInfo(KernelId id);
// "all", or a comma list "k3,k7,cub". Fills *error and returns {} on an unknown key.
std::vector<const KernelInfo*> parseKernelList(std::string_view text, std::string* error);
// The keys, comma separated (for messages).
std::string kernelKeys();

// The kernel's source file text, and its notes (assets/kernels/<key>.md).
std::string_view kernelSource(const KernelInfo& k);
std::string_view kernelNotes(const KernelInfo& k);
// Any file of kernels/cuda by name (for the includes a kernel's source names).
std::string_view kernelSourceFile(std::string_view file);

FinalStage defaultFinal(const KernelInfo& k);
bool allowsFinal(const KernelInfo& k, FinalStage f);

}  // namespace rl
