#pragma once
// GUI settings kept between sessions ($XDG_CONFIG_HOME/reducelab/settings.json): theme, scale,
// panels, the last configuration. A file that is not a JSON object is moved aside
// (FILE.corrupt-YYYYmmdd-HHMMSS) and reported; a key of the wrong type is reported and only that
// key falls back to its default; a file that cannot be read is reported and left alone.
#include <string>

#include "reducelab/config.hpp"
#include "reducelab/views.hpp"

namespace rl::app {

struct Settings {
  float uiScale = 1.0f;
  std::string theme = "dark";
  float presentationScale = 1.5f;
  std::string presentationTheme = "light";
  bool showLeft = true, showRight = true, showBottom = true;
  bool haveLastConfig = false;
  RunConfig lastConfig;
  std::string view{viewInfo(kDefaultView).name};  // a view's name (reducelab/views.hpp): read and written back, not applied
  std::string exportDir = "reducelab-export";
  // The window's position and size (screen coordinates) at exit; restored within the monitor.
  bool haveWindow = false;
  int windowX = 0, windowY = 0, windowW = 1600, windowH = 900;
  bool keepFile = false;  // the file could not be read: saveSettings leaves it alone
};

std::string defaultSettingsPath();
// Missing file: defaults, no warning. Corrupt file: defaults and *warning says what was wrong.
Settings loadSettings(const std::string& path, std::string* warning);
// The text of a settings file: *unusable when it is not a JSON object (*problem says why); keys
// of the wrong type are named in *problem and keep their defaults. Pure: fuzzed.
Settings parseSettings(const std::string& text, std::string* problem, bool* unusable);
std::string saveSettings(const std::string& path, const Settings& s);  // "" or the error
// Renames `path` to path.corrupt-YYYYmmdd-HHMMSS (a free name). "" or the error; *movedTo: the name.
std::string moveAsideCorrupt(const std::string& path, std::string* movedTo);

}  // namespace rl::app
