// `reducelab check FILE.cu`: the user's kernel against the exact CPU reference over the battery
// (docs/your-kernel.md), each run in the worker process (`reducelab check-worker`), which is
// killed when a run outlives the watchdog and started again for the next one.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <optional>
#include <random>
#include <sstream>

#include "cmd_usercode.hpp"
#include "interrupt.hpp"
#include "remote_client.hpp"
#include "reducelab/backend.hpp"
#include "reducelab/catalogue.hpp"
#include "reducelab/usercode/battery.hpp"
#include "reducelab/usercode/check_json.hpp"
#include "reducelab/usercode/worker.hpp"

namespace rl::app {

namespace uc = rl::usercode;

std::vector<uc::TimedRow> measureCompanions(const EngineCall& onEngine, const RunConfig& base,
                                           const std::function<bool()>& cancelled) {
  std::vector<uc::TimedRow> rows;
  for (const std::string& key : uc::timingCompanions()) {
    const KernelInfo* k = findKernel(key);
    uc::TimedRow r;
    r.key = key;
    r.label = key == "cub" ? "CUB DeviceReduce" : k ? key + " " + std::string(k->name) : key;
    rows.push_back(r);
  }
  const Reference ref = computeReference(base);  // one exact reference: each row is checked too
  const std::string no = onEngine([&](Engine& engine) {
    for (uc::TimedRow& r : rows) {
      if (cancelled()) {
        r.error = "cancelled";
        continue;
      }
      RunConfig c = base;
      c.kernel = r.key;
      MeasureOptions o;
      o.cpuBaseline = false;
      o.knownReference = &ref;
      o.cancel = cancelled;
      const Measurement m = engine.measure(c, o);
      if (!m.ok) r.error = m.error.empty() ? "not measured" : m.error;
      else if (m.haveReference && !m.check.pass) r.error = "its result was wrong";
      else r.ms = m.kernel, r.gbs = m.bandwidthGBs;
    }
  });
  if (!no.empty()) {  // one row says why none was measured
    uc::TimedRow none;
    none.key = "companions";
    none.label = "CUB and our kernels";
    none.error = no;
    return {none};
  }
  return rows;
}

CLI::App* addCheckCommand(CLI::App& cli, CheckCommandOptions& o) {
  CLI::App* c = cli.add_subcommand("check", "Check your own kernel against the exact CPU reference over a battery of sizes, "
                                            "data, types, operations and block sizes (docs/your-kernel.md)");
  c->add_option("file", o.file, "The kernel's .cu file")->required();
  c->add_option("--arch", o.arch, "GPU architecture to compile for (default: the GPU's)");
  c->add_option("--type", o.types, "Only these element types (a comma list of claimed ones)");
  c->add_option("--op", o.ops, "Only these operations (a comma list of claimed ones)");
  c->add_option("--block", o.blocks, "Only these block sizes (a comma list of claimed ones)");
  c->add_flag("--large", o.large, "Also N = 2^31 + 7 (where the GPU has the memory)");
  c->add_option("--seed", o.seed, "Seed of the random data (default: a fresh one, printed, to repeat a check)");
  c->add_option("--timeout", o.timeout, "Seconds a run may take before the watchdog stops it")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 3600.0));
  c->add_option("--format", o.format, "text or json (for an autograder)")->capture_default_str();
  c->add_flag("--no-cache", o.noCache, "Compile even when the build is in the cache (and do not store it)");
  c->add_option("--time-n", o.timeN, "N of the timing beside CUB and our fastest kernels (a kernel that passed every case)")
      ->capture_default_str();
  c->add_flag("--no-timing", o.noTiming, "Leave out the timing beside CUB");
  c->add_option("--require", o.requirements,
                "A goal to judge (repeatable): pass, 'no hazard', 'no bank conflict', 'P% of cub at N' (its N is the "
                "timing's); exit 3 when one is not met");
  c->add_option("--remote", o.remoteHost, "Check on the GPU of HOST: compiled and run there (`ssh HOST reducelab serve --stdio`)");
  c->add_option("--remote-command", o.remoteCommand, "Like --remote, with this command instead of ssh (it must run `reducelab serve --stdio`)");
  return c;
}

CLI::App* addCheckWorkerCommand(CLI::App& cli) {
  CLI::App* c = cli.add_subcommand("check-worker", "The process `check` runs kernels in (started by it; talks on stdin/stdout)");
  c->group("");  // not listed in --help
  return c;
}

int runCheckWorker() {
  // The frames own stdout: anything a library prints goes to stderr instead.
  const int out = ::dup(STDOUT_FILENO);
  if (out < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::fprintf(stderr, "reducelab check-worker: cannot set up the standard output\n");
    return 1;
  }
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGINT, SIG_IGN);  // the parent decides what Ctrl+C stops
  return uc::serveWorker(STDIN_FILENO, out);
}

namespace {

int fail(int code, const std::string& what) {
  std::fprintf(stderr, "reducelab: error: %s\n", what.c_str());
  return code;
}

template <class T, class Parse>
std::string parseList(const std::string& text, const char* what, Parse parse, std::vector<T>* out) {
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto v = parse(item);
    if (!v) return std::string("--") + what + ": '" + item + "' is not known";
    out->push_back(*v);
  }
  return {};
}

std::optional<int> parseBlock(const std::string& s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1 || v > 1024) return std::nullopt;
  return v;
}

// The check on a remote server's GPU (docs/remote.md): its steps handed to `hooks` as they arrive,
// its report and the server's JSON of it at the end. 0, or the exit code with the message printed.
int remoteCheck(const CheckCommandOptions& o, const uc::CheckRequest& q, const uc::CheckHooks& hooks, uc::CheckReport* report,
                nlohmann::json* reportJson) {
  remote::Hello hello;
  std::string err;
  std::unique_ptr<RemoteClient> client = connectRemote(o.remoteHost, o.remoteCommand, &hello, &err);
  if (!client) return interrupted() ? kExitInterrupted : fail(1, err);
  client->queueCheck(q, o.timeout);
  bool cancelSent = false;
  auto cancelDeadline = std::chrono::steady_clock::now();
  for (;;) {
    client->waitForEvents(0.1);
    RemoteEvents ev = client->poll();
    for (const std::string& m : ev.service.messages) {
      std::fprintf(stderr, "remote: %s\n", m.c_str());
      if (m.rfind("request refused: ", 0) == 0) return 1;  // no check will come
    }
    for (const std::shared_ptr<const uc::CheckEvent>& e : ev.checks) {
      switch (e->kind) {
        case uc::CheckEvent::Kind::Compiled:
          if (hooks.onCompiled) {
            uc::CheckReport r;
            r.diagnostics = e->diagnostics;
            hooks.onCompiled(r);
          }
          break;
        case uc::CheckEvent::Kind::Case:
          if (hooks.onCase) hooks.onCase(e->caseResult);
          break;
        case uc::CheckEvent::Kind::Hazards:
          if (hooks.onHazards) hooks.onHazards(e->hazards);
          break;
        case uc::CheckEvent::Kind::Timing:
          if (hooks.onTiming) hooks.onTiming(e->timing);
          break;
        case uc::CheckEvent::Kind::Done:
          *report = e->report;
          *reportJson = e->reportJson;
          client->close();
          return 0;
      }
    }
    // Ctrl+C reaches ssh too (it shares the terminal's process group): the link ends with it.
    if (ev.dropped) return interrupted() ? fail(kExitInterrupted, "interrupted; the remote check was stopped") : fail(1, *ev.dropped);
    if (interrupted() && !cancelSent) {  // the server stops the check; its report (Cancelled) follows
      client->cancelCheck();
      cancelSent = true;
      cancelDeadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    }
    if (cancelSent && std::chrono::steady_clock::now() > cancelDeadline) {
      client->close();
      std::fprintf(stderr, "reducelab: the remote check did not stop within 15 s of Ctrl+C; the connection is closed\n");
      return kExitInterrupted;
    }
  }
}

}  // namespace

int runCheckCommand(const CheckCommandOptions& o) {
  if (o.format != "text" && o.format != "json") return fail(2, "--format must be text or json, got '" + o.format + "'");
  uc::CheckRequest q;
  q.file = o.file;
  if (int rc = readKernelSource(o.file, &q.source)) return rc;
  if (!o.arch.empty() && !(q.sm = uc::parseArch(o.arch)))
    return fail(2, "--arch must read sm_XY (sm_90, sm_100, ...), got '" + o.arch + "'");
  if (std::string e = parseList(o.types, "type", [](const std::string& s) { return parseElemType(s); }, &q.battery.types);
      !e.empty())
    return fail(2, e);
  if (std::string e = parseList(o.ops, "op", [](const std::string& s) { return parseOp(s); }, &q.battery.ops); !e.empty())
    return fail(2, e);
  if (std::string e = parseList(o.blocks, "block", parseBlock, &q.battery.blocks); !e.empty())
    return fail(2, e + " (a block size from 1 to 1024)");
  if (o.seed.empty()) {
    q.battery.seed = (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  } else {
    const auto [end, ec] = std::from_chars(o.seed.data(), o.seed.data() + o.seed.size(), q.battery.seed);
    if (ec != std::errc() || end != o.seed.data() + o.seed.size()) return fail(2, "--seed must be an unsigned integer");
  }
  q.battery.large = o.large;
  q.useCache = !o.noCache;
  q.timing.run = !o.noTiming;
  {
    std::string why;
    const auto n = parseCount(o.timeN, &why);
    if (!n || *n == 0) return fail(2, "--time-n: " + (why.empty() ? "'" + o.timeN + "' is not a size" : why));
    q.timing.n = *n;
  }
  std::vector<Requirement> goals;
  for (const std::string& text : o.requirements) {
    std::string why;
    const auto g = parseRequirement(text, &why);
    if (!g) return fail(2, "--" + why);
    if (g->kind == Requirement::Kind::SpeedOfCub && o.noTiming) return fail(2, "--require '" + text + "' needs the timing: leave out --no-timing");
    goals.push_back(*g);
  }
  q.timing.n = uc::timingSizeFor(goals, q.timing.n);

  installInterruptHandler();
  const bool remote = !o.remoteHost.empty() || !o.remoteCommand.empty();
  if (remote && !o.arch.empty()) return fail(2, "--arch: a remote check compiles for the remote GPU; leave out --arch");
  const bool text = o.format == "text";
  uc::CheckHooks hooks;
  hooks.cancelled = [] { return interrupted(); };
  bool diagnosticsShown = false;  // the warnings of a kernel that runs come before its cases
  if (text) {
    hooks.onCompiled = [&diagnosticsShown](const uc::CheckReport& r) {
      for (const uc::Diagnostic& d : r.diagnostics) std::fprintf(stderr, "%s\n", d.text().c_str());
      diagnosticsShown = true;
    };
    hooks.onCase = [](const uc::CaseResult& r) {
      std::printf("%s\n", r.text().c_str());
      std::fflush(stdout);
    };
    hooks.onHazards = [](const uc::HazardCheck& h) {
      std::printf("%s\n", h.text().c_str());
      std::fflush(stdout);
    };
    hooks.onTiming = [](const uc::TimingCheck& t) {
      std::printf("%s\n", t.text().c_str());
      std::fflush(stdout);
    };
  }
  uc::CheckReport rep;
  nlohmann::json serverJson;  // a remote check: the server's JSON of its report
  if (remote) {
    if (int rc = remoteCheck(o, q, hooks, &rep, &serverJson)) return rc;
  } else {
    uc::WorkerOptions w = userWorkerOptions();
    w.timeoutSeconds = o.timeout;
    w.cancelled = [] { return interrupted(); };
    uc::KernelWorker worker(w);
    std::unique_ptr<Backend> backend;  // this machine's GPU service, started when the kernel is timed
    hooks.measureOthers = [&backend](const RunConfig& base) {
      if (!backend) backend = makeLocalGpuBackend(0);
      return measureCompanions(*backend, base, [] { return interrupted(); });
    };
    rep = uc::runCheck(q, worker, hooks);
    worker.stop();
  }
  const std::vector<uc::GoalResult> judged = uc::judgeGoals(goals, rep);
  const bool goalsMet = std::all_of(judged.begin(), judged.end(), [](const uc::GoalResult& g) { return g.met; });
  const int exitCode = rep.exitCode() == 0 && !goalsMet ? 3 : rep.exitCode();

  if (!text) {
    nlohmann::json j = remote ? serverJson : uc::checkReportJson(rep);
    j["goals"] = uc::goalsJson(judged);
    j["exit_code"] = exitCode;
    std::printf("%s\n", j.dump(2).c_str());
    return rep.status == uc::CheckStatus::Cancelled ? kExitInterrupted : exitCode;
  }
  if (!diagnosticsShown)
    for (const uc::Diagnostic& d : rep.diagnostics) std::fprintf(stderr, "%s\n", d.text().c_str());
  switch (rep.status) {
    case uc::CheckStatus::CompileError: {
      int errors = 0;
      for (const uc::Diagnostic& d : rep.diagnostics) errors += d.severity == uc::Severity::Error;
      std::fprintf(stderr, "%s: %d error%s; nothing was run\n", o.file.c_str(), errors, errors == 1 ? "" : "s");
      return rep.exitCode();
    }
    case uc::CheckStatus::Environment:
    case uc::CheckStatus::Usage: return fail(rep.exitCode(), rep.error);
    case uc::CheckStatus::Cancelled:
      std::fprintf(stderr, "reducelab: %s (Ctrl+C)\n", rep.error.c_str());
      return kExitInterrupted;
    case uc::CheckStatus::Ran: break;
  }
  for (const uc::GoalResult& g : judged)
    std::printf("goal %-24s %s: %s\n", g.requirement.text().c_str(), g.met ? "met" : "NOT MET", g.why.c_str());
  std::printf("%s on %s (%s, NVRTC %s)%s\n", rep.summaryText().c_str(), rep.device.name.c_str(),
              uc::archName(rep.sm).c_str(), rep.nvrtcVersion.c_str(),
              rep.workerRestarts ? (", worker restarted " + std::to_string(rep.workerRestarts) + "x").c_str() : "");
  return exitCode;
}

}  // namespace rl::app
