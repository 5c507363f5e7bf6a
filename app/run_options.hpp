#pragma once
// The run options shared by bench, trace, sweep and the GUI's command line.
#include <CLI/CLI.hpp>
#include <string>

#include "reducelab/config.hpp"

namespace rl::app {

struct RunOptionText {
  std::string kernel = "k7";
  std::string op = "sum", type = "float32", accumulate = "same", n = "2^24", final = "default";
  std::string data = "uniform", range = "-1000,1000", timing = "blocked", pdl = "on";
  int block = 512, reps = 20, warmup = 3;
  bool warmL2 = false;
  uint64_t seed = 1;
  uint64_t tracedBlock = 0;
  // The matrix families (transpose, matmul): sides and tile (0: the kernel's default).
  uint64_t rows = 1024, cols = 1024, inner = 1024;
  int tile = 0;
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
// For a matrix kernel (c->kernel set first) the block and N follow from --tile and the sides.
std::string toRunConfig(const RunOptionText& t, RunConfig* c);

}  // namespace rl::app
