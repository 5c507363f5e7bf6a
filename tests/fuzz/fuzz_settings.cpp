// The GUI's settings file: any text is usable (each key of the wrong type keeps its default) or
// unusable with a reason; what it gives is in range and saves as valid settings.
#include <cmath>
#include <string>

#include "fuzz_check.hpp"
#include "settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string problem;
  bool unusable = false;
  const rl::app::Settings s = rl::app::parseSettings(text, &problem, &unusable);
  if (unusable) {
    RL_FUZZ_CHECK(!problem.empty());
    return 0;
  }
  RL_FUZZ_CHECK(std::isfinite(s.uiScale) && s.uiScale >= 0.5f && s.uiScale <= 3.0f);
  RL_FUZZ_CHECK(std::isfinite(s.presentationScale) && s.presentationScale >= 0.5f && s.presentationScale <= 3.0f);
  RL_FUZZ_CHECK(s.theme == "dark" || s.theme == "light");
  RL_FUZZ_CHECK(!s.exportDir.empty());
  if (s.haveLastConfig) RL_FUZZ_CHECK(rl::validate(s.lastConfig, nullptr).empty());
  return 0;
}
