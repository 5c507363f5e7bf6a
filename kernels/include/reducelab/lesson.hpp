#pragma once
// Lessons: small text files (assets/lessons/*.lesson, format in docs/lessons.md) that step
// through kernels and parameters, run them, show a view, and give a caption to read out. The
// same files drive end-to-end tests.
#include <optional>
#include <string>
#include <vector>

#include "reducelab/config.hpp"

namespace rl {

struct LessonRun {
  std::string label;        // row label in the lesson's table
  RunConfig config;         // the step's configuration with this run's overrides
  int times = 1;            // run it this many times (determinism demos)
  std::vector<std::string> reference;  // the seed's figures for this row, one per reference column
};

struct LessonSweep {
  std::string axis;         // block, n, type, kernel
  std::vector<std::string> kernels;
  uint64_t nMax = 0;
};

struct LessonStep {
  int line = 0;             // where the step starts in its file
  std::string title;
  std::string caption;
  RunConfig config;         // cumulative: every `set` so far
  std::vector<LessonRun> runs;
  std::optional<LessonSweep> sweep;
  std::string view = "warp";   // warp, bank, tree, coalescing, all
  int viewStep = -1;           // -1: the last step of the trace
  int warp = 0;
  std::string panel;           // live, ladder, block, n, types, results, occupancy, lesson ("" = unchanged)
};

struct Lesson {
  std::string name;            // file stem
  std::string title;
  std::string description;
  std::vector<std::string> referenceColumns;  // headers of the seed's figures
  std::vector<LessonStep> steps;
};

// Parses lesson text; on error returns nullopt and "file:line: reason" in *error.
std::optional<Lesson> parseLesson(const std::string& text, const std::string& fileName, std::string* error);

// The lessons shipped in assets/lessons (compiled into the binary), by name.
std::vector<std::string> shippedLessons();
// A shipped lesson by name, or a path to a .lesson file.
std::optional<Lesson> loadLesson(const std::string& nameOrPath, std::string* error);

}  // namespace rl
