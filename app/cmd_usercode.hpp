#pragma once
// The student's own kernel on the command line (docs/your-kernel.md):
//   reducelab compile FILE.cu   NVRTC's diagnostics and the kernel's resources (no GPU needed)
//   reducelab check FILE.cu     the battery against the exact CPU reference, run in a worker
//   reducelab check-worker      that worker (hidden; started by check, never by hand)
//   reducelab starter [KEY]     a catalogue kernel as a plain-CUDA file to edit (no KEY: the list)
// Exit codes: 0 ok, 1 environment (no NVRTC, no GPU), 2 usage, 3 a case failed, 4 compile errors.
#include <CLI/CLI.hpp>
#include <string>

#include "commands.hpp"
#include "reducelab/backend.hpp"
#include "reducelab/trace.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/user_kernel_backend.hpp"
#include "reducelab/usercode/worker.hpp"

namespace rl::app {

struct CompileCommandOptions {
  std::string file;
  std::string arch;   // "": the GPU's, else sm_90
  std::string types;  // comma lists; "": every one the kernel claims
  std::string ops;
  std::string format = "text";
  bool noCache = false;
};
CLI::App* addCompileCommand(CLI::App& cli, CompileCommandOptions& o);
int runCompileCommand(const CompileCommandOptions& o);

struct CheckCommandOptions {
  std::string file;
  std::string arch;
  std::string types, ops, blocks;
  bool large = false;
  std::string seed;  // "": a fresh one
  double timeout = 10;
  std::string format = "text";
  bool noCache = false;
  std::string timeN = "2^24";  // N of the timing beside CUB
  bool noTiming = false;
  std::vector<std::string> requirements;  // --require: goals ReduceLab judges (exit 3 when one is not met)
  std::string remoteHost, remoteCommand;  // --remote: compiled and run on that GPU (docs/remote.md)
};
CLI::App* addCheckCommand(CLI::App& cli, CheckCommandOptions& o);
int runCheckCommand(const CheckCommandOptions& o);

CLI::App* addCheckWorkerCommand(CLI::App& cli);

// CUB and our fast kernels (usercode::timingCompanions) measured on an engine with the timing's
// type, operation, N and repetitions: the rows beside the user's kernel (check, the editor, a
// remote server's check). `onEngine` runs work on the engine's thread ("" or why not: Backend::
// onEngine's contract); `cancelled` is polled before each row and by the engine between repetitions.
using EngineCall = std::function<std::string(const std::function<void(Engine&)>&)>;
std::vector<usercode::TimedRow> measureCompanions(const EngineCall& onEngine, const RunConfig& base,
                                                  const std::function<bool()>& cancelled);
inline std::vector<usercode::TimedRow> measureCompanions(Backend& backend, const RunConfig& base,
                                                         const std::function<bool()>& cancelled) {
  return measureCompanions([&backend](const std::function<void(Engine&)>& fn) { return backend.onEngine(fn); }, base, cancelled);
}

struct StarterCommandOptions {
  std::string key;  // "": list the starters
  std::string out;  // "": KEY.cu here; "-": stdout
  bool force = false;
};
CLI::App* addStarterCommand(CLI::App& cli, StarterCommandOptions& o);
int runStarterCommand(const StarterCommandOptions& o);
// The kernel file's text; else 2 (usage) with the message printed.
int readKernelSource(const std::string& file, std::string* source);
// The worker process that runs the user's kernel (usercode::workerOptionsFromEnvironment).
inline usercode::WorkerOptions userWorkerOptions() { return usercode::workerOptionsFromEnvironment(); }
// The backend of the user's kernel FILE with this text, its rows' % of peak from `peaks`: what
// bench, sweep and record --kernel-file ask (usercode/user_kernel_backend.hpp).
inline std::unique_ptr<Backend> userKernelBackend(const std::string& file, const std::string& source, const Peaks& peaks) {
  usercode::UserKernelSource src;
  src.source = source;
  src.file = file;
  src.peaks = peaks;
  src.worker = userWorkerOptions();
  return usercode::makeUserKernelBackend(std::move(src));
}
int runCheckWorker();

// `reducelab trace --kernel-file FILE.cu`: the kernel compiled, its first launch traced through the
// Compute Sanitizer patches in the worker, and printed as `reducelab trace` prints a catalogue
// kernel's trace (its hazards on stderr).
int runKernelFileTrace(const TraceOptions& o);
// cmd_trace.cpp: the trace from a remote server (`userSource`: the user's kernel, sent first).
int remoteTraceOf(const TraceOptions& o, const RunConfig& c, TraceData* t, std::string* source, const std::string& userSource);
// cmd_trace.cpp: the table or JSON of a trace.
int writeTraceOutput(const TraceOptions& o, const RunConfig& c, const TraceData& t, const std::string& source);

}  // namespace rl::app
