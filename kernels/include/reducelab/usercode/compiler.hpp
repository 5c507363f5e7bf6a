#pragma once
// Compiles a user's kernel at run time with NVRTC (docs/your-kernel.md): the file after a short
// prelude that binds T and the operation, for one GPU architecture, into a cubin; the compiler's
// messages as diagnostics at the user's own line numbers; registers, shared memory, stack and
// spills from ptxas's verbose output. Builds are cached in $XDG_CACHE_HOME/reducelab/kernels/.
// Plain C++ (NVRTC is loaded at run time): usable from any thread of the CLI or the GUI.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reducelab/types.hpp"
#include "reducelab/usercode/contract.hpp"

namespace rl::usercode {

// What ptxas reports for one entry function.
struct KernelResources {
  bool known = false;
  int registers = 0;
  int staticSharedBytes = 0;
  int stackBytes = 0;  // per thread: the stack frame (cumulative, with the functions it calls)
  int spillStoreBytes = 0, spillLoadBytes = 0;
  int barriers = 0;
  std::string text() const;  // "24 registers, 2048 B static shared, 384 B stack, no spills"
};

// One instantiation of the kernel in the cubin.
struct KernelBuild {
  int block = 0;                 // 0: every block size (the kernel is no template on the block)
  std::string nameExpression;    // reduce, reduce<T, Op>, reduce6<256>
  std::string loweredName;       // the symbol in the cubin
  std::vector<int> paramBytes;   // the entry's parameters as PTX declares them
  bool nSigned = false;          // the n parameter is a signed integer (from the mangled name)
  bool nSignKnown = false;
  KernelResources resources;
};

struct CompileRequest {
  std::string source;
  std::string file;  // the name diagnostics give (the path the user gave)
  ElemType type = ElemType::Float32;
  Op op = Op::Sum;
  int sm = 90;       // compute capability x 10: sm_90
  std::string cacheDir;  // "": defaultCacheDir()
  bool useCache = true;
};

enum class CompileStatus {
  Ok,             // a cubin (warnings perhaps)
  ContractError,  // the annotations or the kernel's signature do not fit the contract
  CompileError,   // NVRTC or ptxas refused the code
  Environment,    // no NVRTC, or it does not compile for this architecture
};

struct CompileResult {
  CompileStatus status = CompileStatus::Environment;
  std::string environmentError;
  Contract contract;
  std::vector<Diagnostic> diagnostics;
  std::vector<KernelBuild> kernels;
  std::vector<uint8_t> cubin;
  ElemType type = ElemType::Float32;
  Op op = Op::Sum;
  int sm = 0;
  std::string nvrtcVersion;
  std::vector<std::string> options;
  bool cacheHit = false;
  std::string cacheFile;  // "" when not cached
  std::string cacheNote;  // a damaged entry rebuilt, or why the build was not stored
  std::string log;        // NVRTC's log as it came

  bool ok() const { return status == CompileStatus::Ok; }
  const KernelBuild* kernelFor(int block) const;
};

CompileResult compileUserKernel(const CompileRequest& request);

// "sm_90" -> 90; 0 for anything else.
int parseArch(const std::string& text);
std::string archName(int sm);  // "sm_90"

// $XDG_CACHE_HOME/reducelab/kernels, else ~/.cache/reducelab/kernels ("" without either).
std::string defaultCacheDir();

// ---- the pieces, for tests ----
// The text put before the user's file: T, Op, SumOp/MinOp/MaxOp, the OP_* and TYPE_* macros.
std::string programPrelude(ElemType type, Op op);
// NVRTC's log as diagnostics; `userFile` is the name its messages carry for the user's lines,
// `userSource` lets the column of a caret be checked against the line it points into.
std::vector<Diagnostic> parseNvrtcLog(const std::string& log, const std::string& userFile,
                                      const std::string& userSource);
// ptxas -v lines of the log: the resources of each entry function, by its (lowered) name.
std::map<std::string, KernelResources> parsePtxasInfo(const std::string& log);
// The parameter sizes of an entry function in PTX; empty with *error when it is not there.
std::vector<int> ptxEntryParamBytes(const std::string& ptx, const std::string& loweredName, std::string* error);

// The cache: one file per build, named by a hash of its key (source, options, NVRTC version,
// name expressions); the key itself and a CRC of the contents are inside, so a damaged entry
// or a hash collision is rebuilt, never trusted.
struct CacheEntry {
  std::string key;
  std::string log;
  std::vector<uint8_t> cubin;
  std::string ptx;
  std::map<std::string, std::string> lowered;  // name expression -> symbol
};
enum class CacheRead { Miss, Hit, Damaged };
std::string cacheFileName(const std::string& key);
CacheRead readCacheEntry(const std::string& path, const std::string& key, CacheEntry* out, std::string* why);
std::string writeCacheEntry(const std::string& path, const CacheEntry& e);  // "" or the error

}  // namespace rl::usercode
