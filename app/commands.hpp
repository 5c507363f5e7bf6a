#pragma once
// CLI subcommands. Each returns the process exit code: 0 ok, 1 environment, 2 usage.
#include <string>
#include <vector>

#include "reducelab/formats/output_formats.hpp"
#include "reducelab/instrumented.hpp"
#include "run_options.hpp"

namespace rl::app {

struct InfoOptions {
  bool json = false;
  bool remeasurePeaks = false;  // measure the bandwidth peaks again and replace the cache entry
  // Print the registers and shared memory of every compiled kernel variant as the driver reports
  // them (JSON: the CPU model's table assets/kernels/resources-sm<NN>.json), nothing else.
  bool kernelResources = false;
};
int runInfo(const InfoOptions& options);

struct TuneCommandOptions {
  std::string types = "int32,int64,float32,float64";
  std::string blocks = "32,64,128,256,512,1024";
  std::string nMin = "2^4", nMax = "2^30";
  int nStep = 2;  // every second power of two between
  int reps = 10;
  bool show = false;  // print the stored table, measure nothing
};
int runTune(const TuneCommandOptions& options);

struct BenchOptions {
  RunOptionText run;
  std::string format;  // empty: the format of the --out file's extension, else the terminal's
  std::string out;
  bool force = false;
  bool cpuOnly = false;
  bool noCpu = false;
  bool deterministic = false;  // auto's fixed-order plan (launch_plan.hpp: deterministicPlan)
  std::string kernelFile;  // the user's kernel as one more row (docs/your-kernel.md)
  std::vector<std::string> argv;
};
int runBench(const BenchOptions& options);

struct TraceOptions {
  RunOptionText run;
  uint64_t tracedBlock = 0;
  std::string format = std::string(terminalFormat().name);
  std::string out;
  bool force = false;
  bool cpuModel = false;  // the CPU model even where a GPU exists
  bool compare = false;   // also compare the GPU trace with the CPU model
  std::string remoteHost, remoteCommand;  // trace on a remote GPU (docs/remote.md)
  bool instrumented = false;   // the unmodified kernel through the Compute Sanitizer patches
  uint32_t records = rl::instrumented::kDefaultCapacity;  // instrumented: the device buffer's records
  // --kernel-file: the student's kernel (docs/your-kernel.md), traced instrumented in its worker;
  // which of --type --op --block --n were given (the others follow the kernel's claims).
  std::string kernelFile;
  bool typeGiven = false, opGiven = false, blockGiven = false, nGiven = false;
};
int runTrace(const TraceOptions& options);

struct SweepOptions {
  RunOptionText run;
  std::string axis;   // block, n, type, kernel; empty: block, or with --from the file's axis
  std::string nMin, nMax;
  uint64_t sizeMin = 256, sizeMax = 4096;  // size axis: matrix sides
  std::string from;   // re-draw from a saved session JSON instead of measuring
  std::string out;
  std::string format = "all";  // a comma list of export formats (figure_export.hpp), or all
  bool force = false;
  bool dark = false;  // figures on a dark background (default: white, for print)
  std::vector<std::string> argv;
  std::string remoteHost, remoteCommand;  // measure on a remote GPU (docs/remote.md)
  std::string kernelFile;  // the user's kernel as one more series (docs/your-kernel.md)
};
int runSweepCommand(const SweepOptions& options);

struct ReportOptions {
  std::string out;
  bool force = false;
  bool quick = false;     // fewer repetitions and a shorter N range
  bool cpuModel = false;  // CPU-model parts only, even with a GPU
  std::string kernelFile; // the user's kernel beside ours in every measured section (docs/your-kernel.md)
};
int runReportCommand(const ReportOptions& options);

struct RecordOptions {
  RunOptionText run;       // kernels (a comma list) and the configuration
  std::string lesson;      // record this lesson (name or .lesson file) instead of a kernel list
  std::string sweep;       // block, n, type, kernel: record a sweep over the kernel list
  std::string nMax;        // largest N of an N sweep
  std::string out;
  bool force = false;
  bool cpuModel = false;   // the CPU model even where a GPU exists
  std::string kernelFile;  // the user's kernel: its rows, source, compile log and trace recorded too
  std::vector<std::string> argv;
};
int runRecordCommand(const RecordOptions& options);

}  // namespace rl::app
