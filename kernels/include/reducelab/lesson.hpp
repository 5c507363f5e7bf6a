#pragma once
// Lessons: small text files (assets/lessons/*.lesson, format in docs/lessons.md) that step
// through kernels and parameters, run them, show a view, and give a caption to read out. The
// same files drive end-to-end tests.
#include <optional>
#include <string>
#include <vector>

#include "reducelab/config.hpp"
#include "reducelab/pitfalls.hpp"
#include "reducelab/views.hpp"

namespace rl {

// A GPU a seed document measured on, with its memory as published: peak bandwidth is computed
// from the memory clock, the transfers per clock and the bus width, never typed in.
// Shipped ones: assets/seed_gpus.txt; a lesson can declare more with `seed-gpu:`.
struct SeedGpu {
  std::string id;               // what `seed: gpu=ID` names
  std::string name;             // e.g. "GeForce GTX 1060 6GB"
  std::string memory;           // GDDR5, GDDR5X, GDDR6, GDDR3, DDR3
  double clockMHz = 0;          // published memory clock
  int transfersPerClock = 0;    // 2 (DDR, GDDR3), 4 (GDDR5), 8 (GDDR5X, GDDR6)
  int busBits = 0;              // memory bus width
  std::string source;           // where the clock and width come from
  double peakGBs() const { return clockMHz * 1e6 * transfersPerClock * busBits / 8.0 / 1e9; }
};

// How a seed timed its figures, so the table can measure the same way beside our own method.
struct SeedMethod {
  std::string label;            // in words, for the column header: "warm L2, mean of 1000"
  bool endToEnd = false;        // span=e2e: final stage (copy of partials, CPU sum) included
  bool mean = false;            // stat=mean: mean of the repetitions instead of the median
  int reps = 0;                 // 0: as ours
  int warmL2 = -1;              // -1: as ours, 0 / 1: L2 flushed / warm between repetitions
};

// One figure of a seed: a time on a seed GPU for a step that reads `bytes` from memory. A time
// below bytes / peak is impossible for a kernel that reads its input from memory.
struct SeedFigure {
  int line = 0;                 // where it is in its file
  SeedGpu gpu;
  std::string timeText;         // as written, e.g. "13.75 us"
  double timeMs = 0;
  uint64_t n = 0;               // the seed's element count and type (default: the run's)
  ElemType type = ElemType::Int32;
  bool markedImpossible = false;  // the file says it cannot be a kernel time
  double bytesMoved = 0;        // matrix runs: the bytes the run moves (0: N x element size)
  double bytes() const { return bytesMoved > 0 ? bytesMoved : double(n) * double(elemBytes(type)); }
  double impliedGBs() const { return bytes() / (timeMs * 1e-3) / 1e9; }
  double shareOfPeak() const { return impliedGBs() / gpu.peakGBs(); }  // 1.0 = the GPU's peak
  double floorMs() const { return bytes() / (gpu.peakGBs() * 1e9) * 1e3; }  // bytes at peak
  bool abovePeak() const { return shareOfPeak() > 1.0; }
};

struct LessonRun {
  std::string label;        // row label in the lesson's table
  RunConfig config;         // the step's configuration with this run's overrides
  int times = 1;            // run it this many times (determinism demos)
  std::vector<std::string> reference;  // the seed's figures for this row, one per reference column
  std::vector<SeedFigure> seed;        // the seed's checked figures for this row (`seed:` lines)
  std::optional<SeedMethod> seedMethod;  // how the seed timed (`seed-method:` in effect)
  // The run again under the seed's method, when that needs another measurement (warm L2, reps).
  std::optional<RunConfig> seedMethodConfig;
};

struct LessonSweep {
  std::string axis;         // block, n, type, kernel
  std::vector<std::string> kernels;
  uint64_t nMax = 0;
};

// One goal ReduceLab checks (a lesson's `require:` line, `reducelab check --require`):
//   pass                   every case of the battery passes
//   no hazard              the hazard check ran and found nothing (no race, no warning)
//   no bank conflict       the traced block's shared-memory accesses need no wavefront beyond the ideal
//   P% of cub at N         the kernel's median time at N is at most CUB's / (P / 100) (100%: as fast as CUB)
struct Requirement {
  enum class Kind { Pass, NoHazard, NoBankConflict, SpeedOfCub };
  Kind kind = Kind::Pass;
  double percent = 0;  // SpeedOfCub
  uint64_t n = 0;      // SpeedOfCub: the timing's N
  std::string text() const;  // as written back: "90% of cub at 2^24"
};
std::optional<Requirement> parseRequirement(std::string_view text, std::string* error);

struct LessonStep {
  int line = 0;             // where the step starts in its file
  std::string title;
  std::string caption;
  RunConfig config;         // cumulative: every `set` so far
  std::vector<LessonRun> runs;
  std::optional<LessonSweep> sweep;
  std::string view{viewInfo(kDefaultView).name};  // a view's name (reducelab/views.hpp)
  bool viewGiven = false;      // the step has a `view` line (else `view` is the default)
  int viewStep = -2;           // kTellingStep: the step that shows the view's point; -1: the last
  int warp = 0;
  int slot = -1;               // the access the bank view shows (`slot=K`: the step's K-th slot), -1: the first
  std::string panel;           // live, ladder, block, n, types, results, occupancy, lesson ("" = unchanged)
  // Seed 002's pitfalls this step runs (`pitfall NAME ...`), shown in the lesson tab.
  std::vector<PitfallRequest> pitfalls;
  // `exercise NAME`: a kernel put in the editor for the student to fix or improve (an exercise of
  // assets/lessons/exercises/, or a catalogue kernel's starter); `goal:` says what counts as done
  // (also appended to the caption, so the bar and the exports show it).
  std::string exercise;
  std::string goal;
  // `require: ...`: what ReduceLab itself checks of the student's kernel after a Check
  // (usercode::judgeGoals): every case passes, no hazard, no bank conflict, a speed beside CUB.
  std::vector<Requirement> requirements;
};

// The exercises a lesson's `exercise` line may name: the shipped ones (assets/lessons/exercises/
// NAME.cu), then the starters' keys (k1, k2, ...).
std::vector<std::string> exerciseNames();
// The lesson table's columns a lesson may show from the start with `show-columns:`.
const std::vector<std::string>& lessonColumnsOnDemand();
// The exercise's source and the file name the editor offers for it; "" for an unknown name.
std::string exerciseSource(std::string_view name);
std::string exerciseFileName(std::string_view name);

struct Lesson {
  std::string name;            // file stem
  std::string title;
  std::string description;
  std::vector<std::string> referenceColumns;  // headers of the seed's figures
  // Columns of the lesson's table shown from the start that are otherwise on demand
  // (`show-columns: error | CPU loop error`): lessonColumnsOnDemand() lists them.
  std::vector<std::string> shownColumns;
  std::vector<LessonStep> steps;
  std::vector<SeedGpu> seedGpus;               // declared in the file with `seed-gpu:`
  // Findings at load, "file:line: note: ...": seed figures above their GPU's peak that the file
  // marks `impossible` (unmarked ones are load errors).
  std::vector<std::string> notes;
};

// One `seed-gpu:` line's text (after the colon): "id | name | memory | clock MHz | transfers per
// clock | bus bits | source". "" or the reason.
std::string parseSeedGpu(const std::string& text, SeedGpu* out);
// The seed GPUs shipped in assets/seed_gpus.txt (compiled into the binary).
const std::vector<SeedGpu>& shippedSeedGpus();
// "13.75 us", "5.25 ms", "1.3e-05 s" -> milliseconds; nullopt when not a positive time with a unit.
std::optional<double> parseSeedTime(const std::string& text);
// The sentence a figure above its GPU's peak gets: its numbers and what it most likely measured.
std::string seedFigureFinding(const SeedFigure& f);

// Parses lesson text; on error returns nullopt and "file:line: reason" in *error.
std::optional<Lesson> parseLesson(const std::string& text, const std::string& fileName, std::string* error);

// The lessons shipped in assets/lessons (compiled into the binary), by name.
std::vector<std::string> shippedLessons();
// The text of a shipped lesson by name, or of a .lesson file (at most kMaxLessonBytes).
constexpr uint64_t kMaxLessonBytes = uint64_t(4) << 20;
std::optional<std::string> lessonText(const std::string& nameOrPath, std::string* error);
// A shipped lesson by name, or a path to a .lesson file.
std::optional<Lesson> loadLesson(const std::string& nameOrPath, std::string* error);

}  // namespace rl
