#include "settings.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "reducelab/atomic_file.hpp"

namespace rl::app {

std::string defaultSettingsPath() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path dir = xdg && *xdg ? std::filesystem::path(xdg)
                              : home && *home ? std::filesystem::path(home) / ".config"
                                              : std::filesystem::temp_directory_path();
  return (dir / "reducelab" / "settings.json").string();
}

Settings loadSettings(const std::string& path, std::string* warning) {
  Settings s;
  std::ifstream in(path);
  if (!in) {
    if (std::filesystem::exists(path) && warning) *warning = "settings file " + path + " cannot be read; using defaults";
    return s;
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (!j.is_object()) throw std::runtime_error("not a JSON object");
    Settings d;
    s.uiScale = std::clamp(j.value("ui_scale", d.uiScale), 0.5f, 3.0f);
    s.theme = j.value("theme", d.theme) == "light" ? "light" : "dark";
    s.presentationScale = std::clamp(j.value("presentation_scale", d.presentationScale), 0.5f, 3.0f);
    s.presentationTheme = j.value("presentation_theme", d.presentationTheme) == "dark" ? "dark" : "light";
    s.showLeft = j.value("show_left", true);
    s.showRight = j.value("show_right", true);
    s.showBottom = j.value("show_bottom", true);
    s.view = j.value("view", d.view);
    s.exportDir = j.value("export_dir", d.exportDir);
    if (j.contains("window") && j["window"].is_array() && j["window"].size() == 4) {
      const auto& w = j["window"];
      s.windowX = w[0].get<int>(), s.windowY = w[1].get<int>();
      s.windowW = std::clamp(w[2].get<int>(), 64, 16384), s.windowH = std::clamp(w[3].get<int>(), 64, 16384);
      s.haveWindow = true;
    }
    if (j.contains("last_config") && j["last_config"].is_object()) {
      const auto& c = j["last_config"];
      RunConfig r;
      r.kernel = c.value("kernel", r.kernel);
      r.block = c.value("block", r.block);
      r.n = c.value("n", r.n);
      r.reps = c.value("reps", r.reps);
      r.warmL2 = c.value("warm_l2", r.warmL2);
      r.type = parseElemType(c.value("type", std::string("float32"))).value_or(r.type);
      r.op = parseOp(c.value("op", std::string("sum"))).value_or(r.op);
      r.accumulate = parseAccumulate(c.value("accumulate", std::string("same"))).value_or(r.accumulate);
      r.final = parseFinalStage(c.value("final", std::string("default"))).value_or(r.final);
      r.data = parseDataPattern(c.value("data", std::string("uniform"))).value_or(r.data);
      if (validate(r, nullptr).empty()) {
        s.lastConfig = r;
        s.haveLastConfig = true;
      }
    }
  } catch (const std::exception& e) {
    if (warning) *warning = "settings file " + path + " is corrupt (" + e.what() + "); using defaults, it will be replaced";
    return Settings{};
  }
  return s;
}

std::string saveSettings(const std::string& path, const Settings& s) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const RunConfig& c = s.lastConfig;
  nlohmann::json j = {{"ui_scale", s.uiScale},
                      {"theme", s.theme},
                      {"presentation_scale", s.presentationScale},
                      {"presentation_theme", s.presentationTheme},
                      {"show_left", s.showLeft},
                      {"show_right", s.showRight},
                      {"show_bottom", s.showBottom},
                      {"view", s.view},
                      {"export_dir", s.exportDir}};
  if (s.haveWindow) j["window"] = {s.windowX, s.windowY, s.windowW, s.windowH};
  if (s.haveLastConfig)
    j["last_config"] = {{"kernel", c.kernel}, {"block", c.block}, {"n", c.n}, {"reps", c.reps},
                        {"warm_l2", c.warmL2}, {"type", std::string(name(c.type))}, {"op", std::string(name(c.op))},
                        {"accumulate", std::string(name(c.accumulate))}, {"final", std::string(name(c.final))},
                        {"data", std::string(name(c.data))}};
  return writeTextAtomic(path, j.dump(2) + "\n");
}

}  // namespace rl::app
