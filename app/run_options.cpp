#include "run_options.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace rl::app {

CLI::Validator finiteIn(double lo, double hi) {
  char desc[64];
  std::snprintf(desc, sizeof desc, "NUMBER in [%g, %g]", lo, hi);
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
          return "'" + s + "' is not a finite number";
        if (v < lo || v > hi) {
          char b[96];
          std::snprintf(b, sizeof b, " is not between %g and %g", lo, hi);
          return "'" + s + "'" + b;
        }
        return {};
      },
      desc);
}

CLI::Validator unsignedInteger() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (!s.empty() && s[0] == '-') return "'" + s + "' is negative";
        uint64_t v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || r.ptr != s.data() + s.size()) return "'" + s + "' is not a whole number";
        if (r.ec == std::errc::result_out_of_range) return "'" + s + "' is above 2^64-1";
        return {};
      },
      "0..2^64-1");
}

void addRunOptions(CLI::App* cmd, RunOptionText& t, const std::string& kernelHelp) {
  cmd->add_option("--kernel", t.kernel, kernelHelp)->capture_default_str();
  cmd->add_option("--op", t.op, "Operation: sum, min or max")->capture_default_str();
  cmd->add_option("--type", t.type, "Element type: int32, int64, float32, float64")->capture_default_str();
  cmd->add_option("--accumulate", t.accumulate,
                  "Accumulator: same (as the input, like the seeds) or wide (int32->int64, float32->float64)")
      ->capture_default_str();
  cmd->add_option("--n", t.n, "Number of elements: 16777216, 16M (binary) or 2^24")->capture_default_str();
  cmd->add_option("--block", t.block, "Threads per block: a power of two, 32..1024")
      ->capture_default_str()->check(CLI::Range(32, 1024));
  cmd->add_option("--reps", t.reps, "Timed repetitions (median, min, max are reported)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", t.warmup, "Untimed warm-up runs")->capture_default_str()->check(CLI::Range(0, 10000));
  cmd->add_flag("--warm-l2", t.warmL2, "Keep L2 warm between repetitions (default: flushed, cold)");
  cmd->add_option("--final", t.final,
                  "Final stage: cpu, gpu (second pass), atomic, lastblock (default: the kernel's)")
      ->capture_default_str();
  cmd->add_option("--data", t.data, "Input: uniform, int-range, ones, ill-conditioned")->capture_default_str();
  cmd->add_option("--seed", t.seed, "Seed of the input data (0 to 2^64-1)")->capture_default_str()->check(unsignedInteger());
  cmd->add_option("--range", t.range, "Integer range lo,hi for --data int-range")->capture_default_str();
  // The families' own parameters: a side is any whole number (validate() says which are too big),
  // a tile a small number in its range.
  for (const FamilyParameter& p : allFamilyParameters()) {
    if (p.role == ParameterRole::Tile)
      cmd->add_option("--" + p.key, t.smallNumbers[p.key] = int(p.defaultValue), p.help)
          ->capture_default_str()->check(CLI::Range(int(p.min), int(p.max)));
    else
      cmd->add_option("--" + p.key, t.counts[p.key] = p.defaultValue, p.help)->capture_default_str()->check(unsignedInteger());
  }
  cmd->add_option("--timing", t.timing,
                  "Timing: blocked (a kernel holds the stream until everything is enqueued, then the start "
                  "event), events (events around the launches as enqueued) or graph (one CUDA-graph replay)")
      ->capture_default_str();
  cmd->add_option("--pdl", t.pdl,
                  "Programmatic dependent launch of the later passes of final=gpu (sm_90): on (default) or off "
                  "(plain launches, to time what it saves)")
      ->capture_default_str();
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
  if (auto v = parseTimingMode(t.timing)) c->timing = *v;
  else return bad("timing", t.timing, "blocked, events, graph");
  if (auto v = parseOnOff(t.pdl)) c->pdl = *v;
  else return bad("pdl", t.pdl, "on, off");
  std::string err;
  if (auto v = parseCount(t.n, &err)) c->n = *v; else return err;
  if (std::string e = parseIntRange(t.range, &c->rangeLo, &c->rangeHi); !e.empty()) return "--range " + e;
  c->block = t.block;
  c->reps = t.reps;
  c->warmup = t.warmup;
  c->warmL2 = t.warmL2;
  c->seed = t.seed;
  c->tracedBlock = t.tracedBlock;
  applyParameters(*c, parameterValues(t));
  return {};
}

ParameterValues parameterValues(const RunOptionText& t) {
  ParameterValues v(t.counts.begin(), t.counts.end());
  for (const auto& [key, value] : t.smallNumbers) v[key] = uint64_t(value);  // 0.. by its range check
  return v;
}

}  // namespace rl::app
