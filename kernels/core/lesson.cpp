#include "reducelab/lesson.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reducelab/embedded_text.hpp"

namespace rl {

extern const EmbeddedText kLessonFiles[];
extern const int kLessonFiles_count;

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// "key=value key2=value2" (values without spaces).
std::vector<std::pair<std::string, std::string>> keyValues(const std::string& s, std::string* bad) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(s);
  std::string item;
  while (in >> item) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      *bad = item;
      return {};
    }
    out.push_back({item.substr(0, eq), item.substr(eq + 1)});
  }
  return out;
}

std::vector<std::string> splitBar(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t bar = s.find('|', start);
    out.push_back(trim(s.substr(start, bar == std::string::npos ? std::string::npos : bar - start)));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return out;
}

// Applies one `key=value` of a `set` line (or a `run` override). "" or the reason.
std::string applySetting(RunConfig& c, const std::string& key, const std::string& value) {
  auto bad = [&](const std::string& allowed) { return key + "=" + value + " is not valid (" + allowed + ")"; };
  std::string err;
  if (key == "kernel") {
    if (!findKernel(value)) return "unknown kernel '" + value + "' (known: " + kernelKeys() + ")";
    c.kernel = value;
  } else if (key == "block") {
    try {
      c.block = std::stoi(value);
    } catch (...) {
      return bad("a power of two, 32..1024");
    }
  } else if (key == "type") {
    if (auto v = parseElemType(value)) c.type = *v; else return bad("int32, int64, float32, float64");
  } else if (key == "op") {
    if (auto v = parseOp(value)) c.op = *v; else return bad("sum, min, max");
  } else if (key == "accumulate") {
    if (auto v = parseAccumulate(value)) c.accumulate = *v; else return bad("same, wide");
  } else if (key == "final") {
    if (auto v = parseFinalStage(value)) c.final = *v; else return bad("default, cpu, gpu, atomic, lastblock");
  } else if (key == "data") {
    if (auto v = parseDataPattern(value)) c.data = *v; else return bad("uniform, int-range, ones, ill-conditioned");
  } else if (key == "n") {
    if (auto v = parseCount(value, &err)) c.n = *v; else return err;
  } else if (key == "reps" || key == "warmup" || key == "seed" || key == "traced-block") {
    try {
      const long long v = std::stoll(value);
      if (v < 0) throw 0;
      if (key == "reps") c.reps = int(v);
      else if (key == "warmup") c.warmup = int(v);
      else if (key == "seed") c.seed = uint64_t(v);
      else c.tracedBlock = uint64_t(v);
    } catch (...) {
      return bad("a whole number");
    }
  } else if (key == "warm-l2") {
    if (value == "true" || value == "yes" || value == "1") c.warmL2 = true;
    else if (value == "false" || value == "no" || value == "0") c.warmL2 = false;
    else return bad("true or false");
  } else if (key == "range") {
    const size_t comma = value.find(',');
    try {
      if (comma == std::string::npos) throw 0;
      c.rangeLo = std::stoll(value.substr(0, comma));
      c.rangeHi = std::stoll(value.substr(comma + 1));
    } catch (...) {
      return bad("lo,hi");
    }
  } else {
    return "unknown setting '" + key +
           "' (kernel, block, type, op, accumulate, n, final, data, seed, range, reps, warmup, warm-l2, traced-block)";
  }
  return {};
}

}  // namespace

std::optional<Lesson> parseLesson(const std::string& text, const std::string& fileName, std::string* error) {
  Lesson lesson;
  lesson.name = std::filesystem::path(fileName).stem().string();
  RunConfig current;
  std::istringstream in(text);
  std::string raw;
  int lineNo = 0;
  auto fail = [&](const std::string& why) -> std::optional<Lesson> {
    if (error) *error = fileName + ":" + std::to_string(lineNo) + ": " + why;
    return std::nullopt;
  };
  while (std::getline(in, raw)) {
    ++lineNo;
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(':');
    const size_t space = line.find(' ');
    const bool isColon = colon != std::string::npos && (space == std::string::npos || colon < space);
    const std::string word = isColon ? line.substr(0, colon) : line.substr(0, space);
    const std::string rest = trim(isColon ? line.substr(colon + 1) : (space == std::string::npos ? "" : line.substr(space + 1)));
    LessonStep* step = lesson.steps.empty() ? nullptr : &lesson.steps.back();
    auto needStep = [&]() { return step ? std::string() : "'" + word + "' before the first 'step:'"; };
    if (word == "title" && isColon) {
      lesson.title = rest;
    } else if (word == "description" && isColon) {
      lesson.description += (lesson.description.empty() ? "" : " ") + rest;
    } else if (word == "reference-columns" && isColon) {
      lesson.referenceColumns = splitBar(rest);
    } else if (word == "step" && isColon) {
      if (rest.empty()) return fail("a step needs a title: 'step: <title>'");
      LessonStep s;
      s.line = lineNo;
      s.title = rest;
      s.config = current;
      lesson.steps.push_back(s);
    } else if (word == "caption" && isColon) {
      if (auto e = needStep(); !e.empty()) return fail(e);
      step->caption += (step->caption.empty() ? "" : " ") + rest;
    } else if (word == "set") {
      if (auto e = needStep(); !e.empty()) return fail(e);
      std::string bad;
      auto kv = keyValues(rest, &bad);
      if (!bad.empty() || kv.empty()) return fail("'set' needs key=value pairs, got '" + (bad.empty() ? rest : bad) + "'");
      for (auto& [k, v] : kv)
        if (std::string e = applySetting(current, k, v); !e.empty()) return fail(e);
      if (std::string e = validate(current, nullptr); !e.empty()) return fail(e);
      step->config = current;
    } else if (word == "run") {
      if (auto e = needStep(); !e.empty()) return fail(e);
      LessonRun r;
      r.config = current;
      std::string bad;
      for (auto& [k, v] : keyValues(rest, &bad)) {
        if (k == "label") {
          std::string label = v;
          for (char& ch : label)
            if (ch == '_') ch = ' ';
          r.label = label;
        } else if (k == "times") {
          if (v != "1" && v != "2" && v != "3") return fail("times=" + v + " is not valid (1, 2 or 3)");
          r.times = v[0] - '0';
        } else if (std::string e = applySetting(r.config, k, v); !e.empty()) {
          return fail(e);
        }
      }
      if (!bad.empty()) return fail("'run' takes key=value pairs, got '" + bad + "'");
      if (std::string e = validate(r.config, nullptr); !e.empty()) return fail(e);
      if (r.label.empty()) r.label = r.config.kernel;
      step->runs.push_back(r);
    } else if (word == "reference" && isColon) {
      if (auto e = needStep(); !e.empty()) return fail(e);
      if (step->runs.empty()) return fail("'reference:' must follow the 'run' it describes");
      step->runs.back().reference = splitBar(rest);
      if (step->runs.back().reference.size() > lesson.referenceColumns.size())
        return fail("more reference cells (" + std::to_string(step->runs.back().reference.size()) +
                    ") than reference-columns (" + std::to_string(lesson.referenceColumns.size()) + ")");
    } else if (word == "sweep") {
      if (auto e = needStep(); !e.empty()) return fail(e);
      LessonSweep sw;
      std::string bad;
      for (auto& [k, v] : keyValues(rest, &bad)) {
        if (k == "axis") {
          if (v != "block" && v != "n" && v != "type" && v != "kernel") return fail("axis=" + v + " is not valid (block, n, type, kernel)");
          sw.axis = v;
        } else if (k == "kernels") {
          std::string err;
          for (const KernelInfo* ki : parseKernelList(v, &err)) sw.kernels.push_back(std::string(ki->key));
          if (!err.empty()) return fail(err);
        } else if (k == "nmax") {
          std::string err;
          if (auto n = parseCount(v, &err)) sw.nMax = *n; else return fail(err);
        } else {
          return fail("unknown sweep setting '" + k + "' (axis, kernels, nmax)");
        }
      }
      if (!bad.empty()) return fail("'sweep' takes key=value pairs, got '" + bad + "'");
      if (sw.axis.empty()) return fail("'sweep' needs axis=block|n|type|kernel");
      if (sw.kernels.empty()) sw.kernels = {current.kernel};
      step->sweep = sw;
    } else if (word == "view") {
      if (auto e = needStep(); !e.empty()) return fail(e);
      std::istringstream v(rest);
      std::string which;
      v >> which;
      if (which != "warp" && which != "bank" && which != "tree" && which != "coalescing" && which != "all")
        return fail("view '" + which + "' is not one of: warp, bank, tree, coalescing, all");
      step->view = which;
      std::string opts, bad;
      std::getline(v, opts);
      for (auto& [k, val] : keyValues(opts, &bad)) {
        try {
          if (k == "step") step->viewStep = val == "last" ? -1 : std::stoi(val);
          else if (k == "warp") step->warp = std::stoi(val);
          else return fail("unknown view setting '" + k + "' (step, warp)");
        } catch (...) {
          return fail(k + "=" + val + " is not a number");
        }
      }
      if (!bad.empty()) return fail("'view' options are key=value, got '" + bad + "'");
    } else if (word == "panel") {
      if (auto e = needStep(); !e.empty()) return fail(e);
      static const char* panels[] = {"live", "ladder", "block", "n", "types", "results", "occupancy", "lesson", "multi"};
      bool ok = false;
      for (const char* p : panels) ok = ok || rest == p;
      if (!ok) return fail("panel '" + rest + "' is not one of: live, ladder, block, n, types, results, occupancy, lesson, multi");
      step->panel = rest;
    } else {
      return fail("unknown directive '" + word + "' (title:, description:, reference-columns:, step:, caption:, set, run, reference:, sweep, view, panel)");
    }
  }
  if (lesson.steps.empty()) {
    lineNo = std::max(lineNo, 1);
    return fail("the lesson has no 'step:'");
  }
  if (lesson.title.empty()) lesson.title = lesson.name;
  return lesson;
}

std::vector<std::string> shippedLessons() {
  std::vector<std::string> out;
  for (int i = 0; i < kLessonFiles_count; ++i) out.push_back(std::filesystem::path(kLessonFiles[i].name).stem().string());
  return out;
}

std::optional<Lesson> loadLesson(const std::string& nameOrPath, std::string* error) {
  const std::string_view shipped = findEmbedded(kLessonFiles, kLessonFiles_count, nameOrPath + ".lesson");
  if (!shipped.empty()) return parseLesson(std::string(shipped), "assets/lessons/" + nameOrPath + ".lesson", error);
  std::ifstream in(nameOrPath);
  if (!in) {
    std::string known;
    for (const std::string& n : shippedLessons()) known += (known.empty() ? "" : ", ") + n;
    if (error) *error = "no lesson '" + nameOrPath + "' (shipped: " + known + "; or give a .lesson file)";
    return std::nullopt;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parseLesson(ss.str(), nameOrPath, error);
}

}  // namespace rl
