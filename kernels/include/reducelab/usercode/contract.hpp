#pragma once
// The student's own kernel (docs/your-kernel.md): how ReduceLab launches a plain CUDA reduction
// kernel, read from the file itself. Without annotations the Harris contract applies:
//   __global__ void NAME(const T* in, T* out, unsigned int n)
// one output per block, dynamic shared memory of block x sizeof(T), grid = ceil(n / block), and
// passes repeated on the partials until one value remains. Lines of the form
//   // @reducelab KEY: VALUE
// change it (grid rule, shared memory, block sizes, final stage, ops and types claimed).
// Plain C++: the CLI, the GUI and the tests read the same contract.
#include <cstdint>
#include <string>
#include <vector>

#include "reducelab/types.hpp"

namespace rl::usercode {

enum class Severity { Error, Warning, Note };
std::string_view name(Severity s);

// One message about the user's file; line and column 1-based, 0 when unknown.
struct Diagnostic {
  std::string file;
  int line = 0, column = 0;
  Severity severity = Severity::Error;
  std::string message;
  // "file:line:column: error: message" (the parts that are known), as compilers print them.
  std::string text() const;
  bool operator==(const Diagnostic&) const = default;
};
bool hasErrors(const std::vector<Diagnostic>& list);

// How many blocks the first pass of a launch gets.
enum class GridRule {
  OnePerThread,       // ceil(n / block): thread i of the grid reads element i (the default)
  ElementsPerThread,  // ceil(n / (block x K)): each thread combines K elements
  Fixed,              // min(G, ceil(n / block)): a grid-stride loop covers the rest
};
// Dynamic shared memory of a launch.
enum class SharedRule {
  PerThread,  // K x block x sizeof(T) (K = 1: the default)
  PerWarp,    // ceil(block / 32) x sizeof(T): one value per warp (shuffle kernels)
  Bytes,      // a fixed number of bytes
  None,       // static shared memory only
};
// Who combines the per-block results into one value.
enum class UserFinal {
  Gpu,     // the kernel again on the partials, until one value remains (the default)
  Cpu,     // `passes` launches (default 1), then the CPU combines what is left
  Atomic,  // one launch; the kernel combines into out[0], which starts as the identity
};
std::string_view name(GridRule g);
std::string_view name(UserFinal f);

// The kernel's template parameters, in order (a kernel that is no template has none).
enum class TemplateArg { Type, Op, Block };
std::string_view name(TemplateArg a);

struct Contract {
  std::string kernel;      // name of the __global__ function
  int kernelLine = 0;      // where it is defined
  bool templated = false;
  std::vector<TemplateArg> templateArgs;
  GridRule grid = GridRule::OnePerThread;
  uint64_t elementsPerThread = 1;  // ElementsPerThread: K
  uint64_t fixedGrid = 0;          // Fixed: G
  SharedRule shared = SharedRule::PerThread;
  uint64_t sharedFactor = 1;       // PerThread: K; Bytes: the byte count
  std::vector<int> blocks = {128, 256, 512};
  UserFinal final = UserFinal::Gpu;
  int cpuPasses = 1;               // Cpu: GPU launches before the CPU finishes
  // `output: zeroed`: each launch's output is set to 0 before it runs, as a host that cudaMemsets
  // it does (seed 001's kernels write only where the output still holds 0); otherwise it holds a
  // fill pattern (0x7f bytes) that a kernel which does not write shows.
  bool zeroedOutput = false;
  std::vector<Op> ops = {Op::Sum};
  std::vector<ElemType> types = {ElemType::Int32, ElemType::Float32};
  // The line of each key given (0: the default applies), for messages about it.
  int gridLine = 0, sharedLine = 0, blocksLine = 0, finalLine = 0, opsLine = 0, typesLine = 0, outputLine = 0;

  bool claims(Op o) const;
  bool claims(ElemType t) const;
  bool claimsBlock(int b) const;
  // Dynamic shared memory bytes of a launch with this block and element type.
  uint64_t dynamicSharedBytes(int block, ElemType t) const;
  // The name expression NVRTC instantiates: "reduce", "reduce<T, Op>", "reduce6<256>".
  std::string nameExpression(int block) const;
  // Whether each claimed block needs its own instantiation (a template on the block size).
  bool perBlockInstances() const;
  // One line per rule, in words, for `reducelab compile` and the GUI.
  std::vector<std::string> describe() const;
};

struct ContractResult {
  Contract contract;
  std::vector<Diagnostic> diagnostics;  // errors: the contract cannot be used
  bool ok() const { return !hasErrors(diagnostics); }
};

// Reads the kernel's name, whether it is a template, and the annotations, from the source.
// `file` names the source in the diagnostics.
ContractResult parseContract(const std::string& source, const std::string& file);

// ---- the launches of one run ----
struct Pass {
  uint64_t n = 0;     // elements this launch reduces
  uint64_t grid = 0;  // blocks (= values it writes, except with the atomic final)
};

struct LaunchPlan {
  int block = 0;
  uint64_t dynamicSharedBytes = 0;
  std::vector<Pass> passes;
  UserFinal final = UserFinal::Gpu;
  bool zeroedOutput = false;  // each launch's output set to 0 first (Contract::zeroedOutput)
  uint64_t cpuValues = 0;  // values the CPU combines after the last launch (Cpu final)
  // Bound on the longest chain of operations an element goes through (floating-point tolerance).
  uint64_t chainBound = 0;
  std::string error;       // "" or why this run cannot be planned
};

// `maxGrid`: the device's largest grid (x); 2^31 - 1 on every GPU ReduceLab supports.
LaunchPlan planLaunch(const Contract& c, ElemType type, uint64_t n, int block, uint64_t maxGrid = 0x7fffffffu);

}  // namespace rl::usercode
