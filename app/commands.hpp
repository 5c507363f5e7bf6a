#pragma once
// CLI subcommands. Each returns the process exit code: 0 ok, 1 environment, 2 usage.
#include <string>

namespace rl::app {

struct InfoOptions {
  bool json = false;
};
int runInfo(const InfoOptions& options);

}  // namespace rl::app
