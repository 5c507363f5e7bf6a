#pragma once
// The run options shared by bench, trace, sweep and the GUI's command line.
#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "reducelab/config.hpp"
#include "reducelab/family.hpp"

namespace rl::app {

struct RunOptionText {
  std::string kernel = "k7";
  std::string op = "sum", type = "float32", accumulate = "same", n = "2^24", final = "default";
  std::string data = "uniform", range = "-1000,1000", timing = "blocked", pdl = "on";
  int block = 512, reps = 20, warmup = 3;
  bool warmL2 = false;
  uint64_t seed = 1;
  uint64_t tracedBlock = 0;
  // The families' own parameters by key (--rows, --tile: every family's, each once), as given or
  // their defaults: a side as a count, a tile as a small int (the types --help shows).
  std::map<std::string, uint64_t> counts;
  std::map<std::string, int> smallNumbers;
};

// Checks for numeric options, run on the text before CLI11 converts it, so nothing odd slips
// through a conversion: a real must be finite and in [lo, hi] (nan, inf, 1e400 are refused);
// an unsigned integer is whole decimal digits within 0..2^64-1 ("-1" would otherwise wrap to
// 2^64-1, and 2^64 saturate).
CLI::Validator finiteIn(double lo, double hi);
CLI::Validator unsignedInteger();

// Adds --kernel --op --type --accumulate --n --block --reps --warmup --warm-l2 --final --data
// --seed --range --timing --pdl to `cmd`. `kernelHelp` describes what --kernel accepts there.
void addRunOptions(CLI::App* cmd, RunOptionText& t, const std::string& kernelHelp);

// Converts the texts (everything but the kernel list) into `c`. "" or a one-line error.
// The family parameters of c->kernel (set it first) are set too, and what follows from them (a
// matrix's block and N). A caller that changes the kernel applies parameterValues(t) again.
std::string toRunConfig(const RunOptionText& t, RunConfig* c);
// The family parameters given (or defaulted) on the command line, by key, for any kernel.
ParameterValues parameterValues(const RunOptionText& t);

}  // namespace rl::app
