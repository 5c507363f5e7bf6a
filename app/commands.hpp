#pragma once
// CLI subcommands. Each returns the process exit code: 0 ok, 1 environment, 2 usage.
#include <string>
#include <vector>

#include "run_options.hpp"

namespace rl::app {

struct InfoOptions {
  bool json = false;
};
int runInfo(const InfoOptions& options);

struct BenchOptions {
  RunOptionText run;
  std::string format = "table";
  std::string out;
  bool force = false;
  bool cpuOnly = false;
  bool noCpu = false;
  std::vector<std::string> argv;
};
int runBench(const BenchOptions& options);

struct TraceOptions {
  RunOptionText run;
  uint64_t tracedBlock = 0;
  std::string format = "table";
  std::string out;
  bool force = false;
  bool cpuModel = false;  // the CPU model even where a GPU exists
  bool compare = false;   // also compare the GPU trace with the CPU model
};
int runTrace(const TraceOptions& options);

}  // namespace rl::app
