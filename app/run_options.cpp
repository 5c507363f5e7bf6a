#include "run_options.hpp"

namespace rl::app {

void addRunOptions(CLI::App* cmd, RunOptionText& t, const std::string& kernelHelp) {
  cmd->add_option("--kernel", t.kernel, kernelHelp)->capture_default_str();
  cmd->add_option("--op", t.op, "Operation: sum, min or max")->capture_default_str();
  cmd->add_option("--type", t.type, "Element type: int32, int64, float32, float64")->capture_default_str();
  cmd->add_option("--accumulate", t.accumulate,
                  "Accumulator: same (as the input, like the seeds) or wide (int32->int64, float32->float64)")
      ->capture_default_str();
  cmd->add_option("--n", t.n, "Number of elements: 16777216, 16M (binary) or 2^24")->capture_default_str();
  cmd->add_option("--block", t.block, "Threads per block: a power of two, 32..1024")->capture_default_str();
  cmd->add_option("--reps", t.reps, "Timed repetitions (median, min, max are reported)")->capture_default_str();
  cmd->add_option("--warmup", t.warmup, "Untimed warm-up runs")->capture_default_str();
  cmd->add_flag("--warm-l2", t.warmL2, "Keep L2 warm between repetitions (default: flushed, cold)");
  cmd->add_option("--final", t.final,
                  "Final stage: cpu, gpu (second pass), atomic, lastblock (default: the kernel's)")
      ->capture_default_str();
  cmd->add_option("--data", t.data, "Input: uniform, int-range, ones, ill-conditioned")->capture_default_str();
  cmd->add_option("--seed", t.seed, "Seed of the input data")->capture_default_str();
  cmd->add_option("--range", t.range, "Integer range lo,hi for --data int-range")->capture_default_str();
}

std::string toRunConfig(const RunOptionText& t, RunConfig* c) {
  auto bad = [](const std::string& opt, const std::string& v, const std::string& allowed) {
    return "--" + opt + " '" + v + "' is not one of: " + allowed;
  };
  if (auto v = parseOp(t.op)) c->op = *v; else return bad("op", t.op, "sum, min, max");
  if (auto v = parseElemType(t.type)) c->type = *v;
  else return bad("type", t.type, "int32, int64, float32, float64");
  if (auto v = parseAccumulate(t.accumulate)) c->accumulate = *v;
  else return bad("accumulate", t.accumulate, "same, wide");
  if (auto v = parseFinalStage(t.final)) c->final = *v;
  else return bad("final", t.final, "cpu, gpu, atomic, lastblock");
  if (auto v = parseDataPattern(t.data)) c->data = *v;
  else return bad("data", t.data, "uniform, int-range, ones, ill-conditioned");
  std::string err;
  if (auto v = parseCount(t.n, &err)) c->n = *v; else return err;
  const auto comma = t.range.find(',');
  try {
    if (comma == std::string::npos) throw std::invalid_argument("no comma");
    size_t p1 = 0, p2 = 0;
    c->rangeLo = std::stoll(t.range.substr(0, comma), &p1);
    c->rangeHi = std::stoll(t.range.substr(comma + 1), &p2);
    if (p1 != comma || p2 != t.range.size() - comma - 1) throw std::invalid_argument("junk");
  } catch (const std::exception&) {
    return "--range '" + t.range + "' is not of the form lo,hi (e.g. -1000,1000)";
  }
  c->block = t.block;
  c->reps = t.reps;
  c->warmup = t.warmup;
  c->warmL2 = t.warmL2;
  c->seed = t.seed;
  c->tracedBlock = t.tracedBlock;
  return {};
}

}  // namespace rl::app
