// reducelab: the GUI (window or --headless) and its CLI subcommands, one engine underneath.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>

#include "application.hpp"
#include "cmd_multi.hpp"
#include "cmd_usercode.hpp"
#include "commands.hpp"
#include "figure_export.hpp"
#include "remote_server.hpp"
#include "reducelab/version.hpp"
#include "reducelab/views.hpp"

namespace {

// One line on stderr for any usage error, then exit code 2.
int usageError(const std::string& what) {
  std::fprintf(stderr, "reducelab: error: %s (see reducelab --help)\n", what.c_str());
  return 2;
}

// --remote HOST and --remote-command CMD (one or the other), on the GUI and on sweep and trace.
void addRemoteOptions(CLI::App* app, std::string& host, std::string& command) {
  CLI::Option* h = app->add_option("--remote", host,
                                   "Use the GPU of HOST: starts `ssh HOST reducelab serve --stdio` (docs/remote.md)");
  CLI::Option* c = app->add_option("--remote-command", command,
                                   "Like --remote, with this command instead of ssh (it must run `reducelab serve --stdio`)");
  h->excludes(c);
  c->excludes(h);
}

std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"ReduceLab: teach and measure parallel reduction on NVIDIA GPUs.\n"
               "Without a subcommand it opens the GUI (or renders it offscreen with --headless)."};
  cli.set_version_flag("--version", std::string("reducelab ") + rl::versionString() + " (commit " + rl::gitCommit() + ")");
  rl::app::GuiOptions gui;
  std::string size = "1600x900";
  cli.add_flag("--headless", gui.headless, "Render offscreen through EGL (no window system)");
  cli.add_option("--frames", gui.frames, "Render N frames, then exit")
      ->check(CLI::Range(1, 1000000));
  cli.add_option("--screenshot", gui.screenshot, "Write the last frame to this PNG file");
  cli.add_option("--size", size, "Offscreen/window size WxH (default 1600x900)");
  cli.add_option("--ui-scale", gui.uiScale, "UI scale (0.5 to 3; multiplies the monitor's scale)")
      ->check(rl::app::finiteIn(0.5, 3.0));
  cli.add_flag("--stats", gui.stats, "Print frame-time median and p99 at exit");
  cli.add_option("--dump-layout", gui.dumpLayout,
                 "Write the named panel rectangles of the last frame as JSON (for tests)");

  rl::app::addRunOptions(&cli, gui.run, "The kernel shown (a list with --run: each is measured)");
  cli.add_flag("--run", gui.runAtStart, "Measure the starting configuration when the GUI opens");
  cli.add_option("--view", gui.view, "Trace view shown: " + rl::viewNames())->capture_default_str();
  // A step or warp past the trace's end is shown as its last one, with a warning naming it.
  cli.add_option("--step", gui.step, "Trace step shown (default: the step that shows the view's point, as the most conflicted for the bank view; -1: the last)")->check(CLI::Range(-1, 1000000));
  cli.add_option("--warp", gui.warp, "Warp selected in the bank and coalescing views")->check(CLI::Range(0, 31));
  cli.add_option("--theme", gui.theme, "dark or light (high contrast, for projectors)")->capture_default_str();
  cli.add_option("--traced-block", gui.run.tracedBlock, "Which block the trace views show")
      ->check(rl::app::unsignedInteger());

  rl::app::InfoOptions info;
  CLI::App* infoCmd = cli.add_subcommand("info", "Print the GPU, GL context and interop status");
  infoCmd->add_flag("--json", info.json, "JSON instead of text");
  infoCmd->add_flag("--kernel-resources", info.kernelResources,
                    "Only the registers and shared memory of every kernel variant, as JSON "
                    "(the CPU model's table assets/kernels/resources-sm<NN>.json)");
  infoCmd->add_flag("--remeasure-peaks", info.remeasurePeaks,
                    "Measure the bandwidth peaks again (read and copy of a buffer >= 8 x L2) and replace the "
                    "cached entry in $XDG_CONFIG_HOME/reducelab/peaks.json");

  rl::app::BenchOptions bench;
  CLI::App* benchCmd = cli.add_subcommand("bench", "Measure kernels on the GPU (the seeds' table)");
  rl::app::addRunOptions(benchCmd, bench.run, "Kernel id, a comma list (k3,k7,cub) or all");
  benchCmd->add_option("--format", bench.format,
                       rl::outputFormatChoices(rl::kWritesTables | rl::kWritesRecords) + " (default: from the --out extension, else " +
                           std::string(rl::terminalFormat().name) + ")");
  benchCmd->add_option("--out", bench.out, "Write to this file (atomically) instead of stdout");
  benchCmd->add_flag("--force", bench.force, "Overwrite --out if it exists");
  benchCmd->add_flag("--cpu-only", bench.cpuOnly, "Only the CPU baseline and reference (no GPU needed)");
  benchCmd->add_flag("--no-cpu", bench.noCpu, "Skip the CPU baseline (faster for large N; with --cpu-only: the exact reference alone)");
  benchCmd->add_flag("--deterministic", bench.deterministic,
                     "auto: the fixed-order plan, the same bits run to run and whatever --block says (k10, block 256, "
                     "one block per tile, GPU passes)");
  benchCmd->add_option("--kernel-file", bench.kernelFile,
                       "Your own kernel (a .cu file, docs/your-kernel.md) as one more row, measured in its worker process");
  for (int i = 0; i < argc; ++i) bench.argv.push_back(argv[i]);

  rl::app::TuneCommandOptions tune;
  CLI::App* tuneCmd = cli.add_subcommand(
      "tune", "Measure k13's launch policies on this GPU (loads in flight x CTAs/SM x cache hint per type, block, N) "
              "and store them beside the peaks ($XDG_CONFIG_HOME/reducelab/policies.json)");
  tuneCmd->add_option("--type", tune.types, "Comma list of element types")->capture_default_str();
  tuneCmd->add_option("--block", tune.blocks, "Comma list of block sizes")->capture_default_str();
  tuneCmd->add_option("--n-min", tune.nMin, "Smallest N (every --n-step-th power of two up to --n-max)")->capture_default_str();
  tuneCmd->add_option("--n-step", tune.nStep, "Powers of two between measured sizes")->capture_default_str()->check(CLI::Range(1, 8));
  tuneCmd->add_option("--n-max", tune.nMax, "Largest N (larger N use its policy)")->capture_default_str();
  tuneCmd->add_option("--reps", tune.reps, "Timed repetitions per policy")->capture_default_str()->check(CLI::Range(1, 1000));
  tuneCmd->add_flag("--show", tune.show, "Print the stored table of this device; measure nothing");

  rl::app::TraceOptions trace;
  CLI::App* traceCmd = cli.add_subcommand("trace", "Per-step summary of one block's execution trace");
  rl::app::addRunOptions(traceCmd, trace.run, "Kernel id (k1..k12, k5s)");
  traceCmd->add_option("--traced-block", trace.tracedBlock, "Which block to trace (default 0)")
      ->check(rl::app::unsignedInteger());
  traceCmd->add_option("--format", trace.format, rl::outputFormatChoices(rl::kWritesTables | rl::kWritesRecords))
      ->capture_default_str();
  traceCmd->add_option("--out", trace.out, "Write to this file (atomically) instead of stdout");
  traceCmd->add_flag("--force", trace.force, "Overwrite --out if it exists");
  traceCmd->add_flag("--cpu-model", trace.cpuModel, "Use the CPU model even if a GPU is present");
  traceCmd->add_flag("--compare", trace.compare,
                     "Compare the GPU trace with the CPU model, or with --instrumented the instrumented trace with the "
                     "hand-placed one (exit 3 if they differ)");
  traceCmd->add_flag("--instrumented", trace.instrumented,
                     "Trace the unmodified kernel (also cub) through the Compute Sanitizer patching API "
                     "(docs/instrumented-traces.md)");
  traceCmd->add_option("--records", trace.records, "With --instrumented: records the device buffer holds (40 bytes each)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 26));
  addRemoteOptions(traceCmd, trace.remoteHost, trace.remoteCommand);
  traceCmd->add_option("--kernel-file", trace.kernelFile,
                       "Trace your own kernel (a .cu file, docs/your-kernel.md) instead of --kernel, instrumented");

  rl::app::SweepOptions sweep;
  sweep.run.kernel = "k3,k7,k10,cub";
  CLI::App* sweepCmd = cli.add_subcommand("sweep", "Measure over one axis; write the figure and tables");
  rl::app::addRunOptions(sweepCmd, sweep.run, "Kernels, one series each (a comma list)");
  sweepCmd->add_option("--axis", sweep.axis,
                       "block, n, type or kernel; tile or size for the matrix kernels (default block; with --from, "
                       "the file's)");
  sweepCmd->add_option("--size-min", sweep.sizeMin, "size sweep: smallest matrix side (default 256)")
      ->check(CLI::Range(uint64_t(1), rl::kMaxMatrixSide));
  sweepCmd->add_option("--size-max", sweep.sizeMax, "size sweep: largest matrix side (default 4096)")
      ->check(CLI::Range(uint64_t(1), rl::kMaxMatrixSide));
  sweepCmd->add_option("--n-min", sweep.nMin, "N sweep: smallest N (default 2^10)");
  sweepCmd->add_option("--n-max", sweep.nMax, "N sweep: largest N (default: the largest that fits)");
  sweepCmd->add_option("--out", sweep.out, "Folder for sweep-<axis> with each format's extension");
  sweepCmd->add_option("--from", sweep.from, "Re-draw the figure and tables from a saved sweep JSON (no GPU needed)");
  sweepCmd->add_option("--format", sweep.format, "Comma list of " + rl::joinNames(rl::app::exportFormatNames()) + ", or all")
      ->capture_default_str();
  sweepCmd->add_flag("--force", sweep.force, "Overwrite existing files");
  sweepCmd->add_flag("--dark", sweep.dark, "Figures on a dark background (default white, for print)");
  for (int i = 0; i < argc; ++i) sweep.argv.push_back(argv[i]);
  addRemoteOptions(sweepCmd, sweep.remoteHost, sweep.remoteCommand);
  sweepCmd->add_option("--kernel-file", sweep.kernelFile,
                       "Your own kernel (a .cu file, docs/your-kernel.md) as one more series (axes n, block, type)");

  rl::app::ServeOptions serve;
  CLI::App* serveCmd = cli.add_subcommand("serve", "Serve this machine's GPU to a ReduceLab started with --remote");
  serveCmd->add_flag("--stdio", serve.stdio, "Talk the remote protocol on standard input and output (what ssh runs)");

  rl::app::ReportOptions rep;
  CLI::App* reportCmd = cli.add_subcommand("report", "Measure the standard set and write a report folder");
  reportCmd->add_option("--out", rep.out, "Folder for report.md, figures and tables");
  reportCmd->add_flag("--force", rep.force, "Overwrite existing files");
  reportCmd->add_flag("--quick", rep.quick, "Fewer repetitions, N up to 2^26");
  reportCmd->add_flag("--cpu-model", rep.cpuModel, "Only the parts the CPU model gives, even with a GPU");
  reportCmd->add_option("--kernel-file", rep.kernelFile,
                        "Your own kernel (a .cu file, docs/your-kernel.md) beside ours: the ladder, block, N and type sections");

  rl::app::MultiCommandOptions multi;
  CLI::App* multiCmd = rl::app::addMultiCommand(cli, multi, argc, argv);

  rl::app::RecordOptions record;
  CLI::App* recordCmd = cli.add_subcommand(
      "record", "Measure a lesson, kernels or a sweep and write one recording the GUI opens anywhere (no GPU needed there)");
  rl::app::addRunOptions(recordCmd, record.run, "Kernels to record (a comma list), or the sweep's series");
  recordCmd->add_option("--lesson", record.lesson, "Record this lesson (upc, harris, max, beyond, or a .lesson file)");
  recordCmd->add_option("--sweep", record.sweep, "Record a sweep over block, n, type or kernel");
  recordCmd->add_option("--n-max", record.nMax, "Largest N of an N sweep");
  recordCmd->add_option("--out", record.out, "The recording to write (FILE.reducelab)")->required();
  recordCmd->add_flag("--force", record.force, "Overwrite --out if it exists");
  recordCmd->add_flag("--cpu-model", record.cpuModel, "Record the CPU model even if a GPU is present");
  recordCmd->add_option("--kernel-file", record.kernelFile,
                        "Your own kernel (a .cu file): its row (or series), source, compile log and trace go into the recording");
  recordCmd->get_option("--lesson")->excludes(recordCmd->get_option("--sweep"));
  for (int i = 0; i < argc; ++i) record.argv.push_back(argv[i]);

  rl::app::CompileCommandOptions compileOpts;
  CLI::App* compileCmd = rl::app::addCompileCommand(cli, compileOpts);
  rl::app::CheckCommandOptions checkOpts;
  CLI::App* checkCmd = rl::app::addCheckCommand(cli, checkOpts);
  CLI::App* checkWorkerCmd = rl::app::addCheckWorkerCommand(cli);
  rl::app::StarterCommandOptions starterOpts;
  CLI::App* starterCmd = rl::app::addStarterCommand(cli, starterOpts);

  CLI::App* lessonCmd = cli.add_subcommand("lesson", "Step through a lesson (upc, harris, max, beyond, or a .lesson file)");
  lessonCmd->add_option("name", gui.lesson, "Lesson name or file")->required();
  lessonCmd->add_option("--out", gui.lessonOut, "With --headless: render every step to PNG here, with the lesson's table");
  lessonCmd->add_flag("--force", gui.force, "Overwrite files in --out");
  lessonCmd->fallthrough();
  cli.add_option("--sweep", gui.sweepAtStart, "Start a sweep (block, n, type, kernel) over the --kernel list when the GUI opens");
  cli.add_option("--sweep-n-max", gui.sweepNMax, "Largest N of an N sweep started with --sweep");
  cli.add_option("--dev-fill-results", gui.devFillResults,
                 "Developer: fill the results table with N synthetic records (made-up timings, labelled so) "
                 "and show it, to measure its frame cost with --stats")
      ->check(CLI::Range(1, 1000000))
      ->group("Developer");
  cli.add_option("file", gui.openFile, "A recording (FILE.reducelab, from `reducelab record` or File > Save session) or a session JSON to open");
  cli.add_flag("--presentation", gui.presentation, "Start in presentation mode (large fonts, light theme)");
  addRemoteOptions(&cli, gui.remoteHost, gui.remoteCommand);
  cli.add_option("--kernel-file", gui.kernelFile,
                 "Your own kernel (FILE.cu, docs/your-kernel.md) in the editor: compiled as you type, watched on disk "
                 "(saved in another editor, it is compiled and checked again)");
  cli.add_option("--editor-autosave", gui.editorAutosave,
                 "The editor's autosave file (default: $XDG_STATE_HOME/reducelab/editor-autosave.json in a window; "
                 "none headless)");
  cli.add_option("--settings", gui.settingsPath, "Settings file (default: $XDG_CONFIG_HOME/reducelab/settings.json in a window)");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    return usageError(oneLine(e.what()));
  }
  if (*infoCmd) return rl::app::runInfo(info);
  if (*benchCmd) return rl::app::runBench(bench);
  if (*tuneCmd) return rl::app::runTune(tune);
  if (*traceCmd) {
    trace.typeGiven = traceCmd->count("--type") > 0, trace.opGiven = traceCmd->count("--op") > 0;
    trace.blockGiven = traceCmd->count("--block") > 0, trace.nGiven = traceCmd->count("--n") > 0;
    return rl::app::runTrace(trace);
  }
  if (*sweepCmd) return rl::app::runSweepCommand(sweep);
  if (*reportCmd) return rl::app::runReportCommand(rep);
  if (*multiCmd) return rl::app::runMultiCommand(multi);
  if (*recordCmd) return rl::app::runRecordCommand(record);
  if (*serveCmd) return rl::app::runServe(serve);
  if (*compileCmd) return rl::app::runCompileCommand(compileOpts);
  if (*checkCmd) return rl::app::runCheckCommand(checkOpts);
  if (*checkWorkerCmd) return rl::app::runCheckWorker();
  if (*starterCmd) return rl::app::runStarterCommand(starterOpts);
  for (const char* o : {"--kernel", "--block", "--type", "--op", "--n", "--accumulate", "--final", "--data"})
    gui.runOptionsGiven = gui.runOptionsGiven || cli.count(o) > 0;
  gui.themeGiven = cli.count("--theme") > 0;
  if (!gui.settingsPath.empty()) {  // a named settings file lives in an existing folder: none is made for it
    const std::filesystem::path p(gui.settingsPath);
    std::error_code ec;
    if (!std::filesystem::is_directory(p.has_parent_path() ? p.parent_path() : ".", ec)) {
      std::fprintf(stderr, "reducelab: error: --settings %s: folder %s does not exist\n", gui.settingsPath.c_str(),
                   p.parent_path().string().c_str());
      return 1;
    }
  }
  if (!rl::app::parseSize(size, &gui.width, &gui.height))
    return usageError("--size must be WIDTHxHEIGHT between 64x64 and 16384x16384, got '" + size +
                      "'");
  return rl::app::runGui(gui);
}
