#include "settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "reducelab/atomic_file.hpp"
#include "reducelab/family.hpp"
#include "reducelab/user_dirs.hpp"

namespace rl::app {

std::string defaultSettingsPath() { return (userConfigDir() / "settings.json").string(); }

std::string moveAsideCorrupt(const std::string& path, std::string* movedTo) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::string target = path + ".corrupt-" + stamp;
  std::error_code ec;
  for (int i = 2; std::filesystem::exists(std::filesystem::symlink_status(target, ec)); ++i)
    target = path + ".corrupt-" + stamp + "-" + std::to_string(i);
  std::filesystem::rename(path, target, ec);
  if (ec) return ec.message();
  *movedTo = target;
  return {};
}

namespace {

// Reads one key; a key of the wrong type keeps its default and is named in *badKeys (the
// other keys are kept: one typo does not cost the whole file).
template <class T>
T keyOr(const nlohmann::json& j, const char* key, const T& fallback, std::vector<std::string>* badKeys) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    if (!it->is_number_integer()) {  // a float is never converted: that could overflow
      badKeys->push_back(key);
      return fallback;
    }
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    badKeys->push_back(key);
    return fallback;
  }
}

float scaleOr(const nlohmann::json& j, const char* key, float fallback, std::vector<std::string>* badKeys) {
  const double v = keyOr<double>(j, key, fallback, badKeys);
  if (!std::isfinite(v) || v < 0.5 || v > 3.0) {
    if (v != fallback) badKeys->push_back(key);
    return fallback;
  }
  return float(v);
}

}  // namespace

Settings loadSettings(const std::string& path, std::string* warning) {
  Settings s;
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return s;  // first start
  std::string text;
  if (std::string e = readTextFile(path, &text, uint64_t(1) << 20); !e.empty()) {
    if (warning) *warning = "settings: " + e + "; using defaults, and the file is left as it is";
    s.keepFile = true;
    return s;
  }
  std::string problem;
  bool unusable = false;
  s = parseSettings(text, &problem, &unusable);
  if (unusable) {
    std::string movedTo;
    const std::string& why = problem;
    if (std::string e = moveAsideCorrupt(path, &movedTo); !e.empty()) {
      if (warning) *warning = "settings file " + path + " " + why + " and could not be moved aside (" + e +
                              "); using defaults, and the file is left as it is";
      s.keepFile = true;
    } else if (warning) {
      *warning = "settings file " + path + " " + why + "; moved it to " + movedTo + " and using defaults";
    }
    return s;
  }
  if (!problem.empty() && warning) *warning = "settings file " + path + ": " + problem;
  return s;
}

Settings parseSettings(const std::string& text, std::string* problem, bool* unusable) {
  Settings s;
  *unusable = false;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *problem = j.is_discarded() ? "is not JSON" : "is not a JSON object";
    *unusable = true;
    return s;
  }
  std::vector<std::string> bad;
  const Settings d;
  s.uiScale = scaleOr(j, "ui_scale", d.uiScale, &bad);
  s.theme = keyOr<std::string>(j, "theme", d.theme, &bad) == "light" ? "light" : "dark";
  s.presentationScale = scaleOr(j, "presentation_scale", d.presentationScale, &bad);
  s.presentationTheme = keyOr<std::string>(j, "presentation_theme", d.presentationTheme, &bad) == "dark" ? "dark" : "light";
  s.showLeft = keyOr<bool>(j, "show_left", true, &bad);
  s.showRight = keyOr<bool>(j, "show_right", true, &bad);
  s.showBottom = keyOr<bool>(j, "show_bottom", true, &bad);
  s.view = keyOr<std::string>(j, "view", d.view, &bad);
  s.exportDir = keyOr<std::string>(j, "export_dir", d.exportDir, &bad);
  if (s.exportDir.empty()) s.exportDir = d.exportDir;
  if (j.contains("window")) {  // [x, y, width, height]
    const auto& w = j["window"];
    const bool ok = w.is_array() && w.size() == 4 &&
                    std::all_of(w.begin(), w.end(), [](const auto& v) {
                      return v.is_number_integer() && v.template get<int64_t>() > -100000 && v.template get<int64_t>() < 100000;
                    });
    if (ok) {
      s.windowX = w[0].get<int>(), s.windowY = w[1].get<int>();
      s.windowW = std::clamp(w[2].get<int>(), 64, 16384), s.windowH = std::clamp(w[3].get<int>(), 64, 16384);
      s.haveWindow = true;
    } else {
      bad.push_back("window");
    }
  }
  if (j.contains("last_config")) {
    const auto& c = j["last_config"];
    if (!c.is_object()) {
      bad.push_back("last_config");
    } else {
      std::vector<std::string> badConfig;
      RunConfig r;
      r.kernel = keyOr<std::string>(c, "kernel", r.kernel, &badConfig);
      r.block = keyOr<int>(c, "block", r.block, &badConfig);
      r.n = keyOr<uint64_t>(c, "n", r.n, &badConfig);
      r.reps = keyOr<int>(c, "reps", r.reps, &badConfig);
      r.warmL2 = keyOr<bool>(c, "warm_l2", r.warmL2, &badConfig);
      // The kernel's family's own parameters (a file may hold another family's too: ignored).
      ParameterValues own;
      for (const FamilyParameter& p : allFamilyParameters())
        if (c.contains(p.key)) own[p.key] = keyOr<uint64_t>(c, p.key.c_str(), p.defaultValue, &badConfig);
      auto choice = [&](const char* key, const char* fallback, auto parse, auto* field) {
        if (auto v = parse(keyOr<std::string>(c, key, fallback, &badConfig))) *field = *v;
        else badConfig.push_back(key);
      };
      choice("type", "float32", parseElemType, &r.type);
      choice("op", "sum", parseOp, &r.op);
      choice("accumulate", "same", parseAccumulate, &r.accumulate);
      choice("final", "default", parseFinalStage, &r.final);
      choice("data", "uniform", parseDataPattern, &r.data);
      for (const auto& [key, value] : own)  // as saved: block and N are the file's
        if (const FamilyParameter* p = ownParameter(r, key)) p->set(r, value);
      const std::string invalid = badConfig.empty() ? validate(r, nullptr) : std::string();
      if (badConfig.empty() && invalid.empty()) {
        s.lastConfig = r;
        s.haveLastConfig = true;
      } else {  // which field, or why the configuration cannot run: the user sees what was reset
        std::string fields;
        for (const std::string& f : badConfig) fields += (fields.empty() ? "" : ", ") + f;
        bad.push_back("last_config (" + (invalid.empty() ? "its " + fields : invalid) + "; the kernel settings start from the defaults)");
      }
    }
  }
  if (!bad.empty()) {
    std::string keys;
    for (const std::string& k : bad) keys += (keys.empty() ? "" : ", ") + k;
    *problem = "ignored " + keys + " (wrong type or value); the other settings are kept";
  }
  return s;
}

std::string saveSettings(const std::string& path, const Settings& s) {
  if (s.keepFile) return {};  // a file we could not read is not replaced
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
  if (s.haveLastConfig)
    if (const KernelFamily* f = familyOf(c))
      for (const FamilyParameter& p : f->parameters()) j["last_config"][p.key] = p.get(c);
  return writeTextAtomic(path, j.dump(2) + "\n");
}

}  // namespace rl::app
