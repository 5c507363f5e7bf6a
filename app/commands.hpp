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

}  // namespace rl::app
