// parseLesson (.lesson files given on the command line or opened in the GUI): any text is a
// lesson or an error message, never a crash; a parsed lesson has at least one step.
#include <string>

#include "fuzz_check.hpp"
#include "reducelab/lesson.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto lesson = rl::parseLesson(text, "fuzz.lesson", &error);
  if (!lesson) RL_FUZZ_CHECK(!error.empty());
  else RL_FUZZ_CHECK(!lesson->steps.empty());
  return 0;
}
