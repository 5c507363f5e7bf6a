#pragma once
// `reducelab multi`: reduction across GPUs (hand-written over peer access, NCCL ring and tree), the
// vector AllReduce sweep, and the algorithm model's schedules (--model, no GPU needed).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "reducelab/formats/output_formats.hpp"

namespace rl::app {

struct MultiCommandOptions {
  int gpus = 0;  // 0: all visible
  std::string op = "sum", type = "float32", n = "2^28", sizes = "1K..8G", algo = "ring,tree,hand";
  int reps = 20, warmup = 3;
  std::string format = std::string(terminalFormat().name), out, chart;
  std::string from;    // re-render a saved --format json run instead of measuring
  std::string frames;  // --model: write every step of the animation as SVG into this folder
  bool force = false;
  bool model = false;  // print the CPU model's schedules instead of measuring
  std::vector<std::string> argv;
};

// Registers the subcommand on `cli`; `argc/argv` are kept for the JSON output.
CLI::App* addMultiCommand(CLI::App& cli, MultiCommandOptions& o, int argc, char** argv);
int runMultiCommand(const MultiCommandOptions& o);

}  // namespace rl::app
