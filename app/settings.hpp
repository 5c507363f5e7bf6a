#pragma once
// GUI settings kept between sessions ($XDG_CONFIG_HOME/reducelab/settings.json): theme, scale,
// panels, the last configuration. A corrupt or unreadable file is reported once and replaced.
#include <string>

#include "reducelab/config.hpp"

namespace rl::app {

struct Settings {
  float uiScale = 1.0f;
  std::string theme = "dark";
  float presentationScale = 1.5f;
  std::string presentationTheme = "light";
  bool showLeft = true, showRight = true, showBottom = true;
  bool haveLastConfig = false;
  RunConfig lastConfig;
  std::string view = "warp";
  std::string exportDir = "reducelab-export";
  // The window's position and size (screen coordinates) at exit; restored within the monitor.
  bool haveWindow = false;
  int windowX = 0, windowY = 0, windowW = 1600, windowH = 900;
};

std::string defaultSettingsPath();
// Missing file: defaults, no warning. Corrupt file: defaults and *warning says what was wrong.
Settings loadSettings(const std::string& path, std::string* warning);
std::string saveSettings(const std::string& path, const Settings& s);  // "" or the error

}  // namespace rl::app
