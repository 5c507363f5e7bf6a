#include "reducelab/lesson.hpp"
#include "reducelab/usercode/starters.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reducelab/atomic_file.hpp"
#include "reducelab/embedded_text.hpp"
#include "reducelab/family.hpp"
#include "reducelab/views.hpp"

namespace rl {

extern const EmbeddedText kLessonFiles[];
extern const int kLessonFiles_count;
extern const EmbeddedText kExerciseFiles[];  // assets/lessons/exercises/*.cu
extern const int kExerciseFiles_count;
extern const EmbeddedText kSeedGpuFiles[];
extern const int kSeedGpuFiles_count;

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
  // The kernel first: the parameters beside it are its family's.
  std::stable_partition(out.begin(), out.end(), [](const auto& kv) { return kv.first == "kernel"; });
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
  } else if (const FamilyParameter* p = anyParameterByKey(key)) {  // a family's own (rows, tile)
    try {
      size_t used = 0;
      const long long v = std::stoll(value, &used);
      if (used != value.size() || v < 0 || uint64_t(v) < p->min || uint64_t(v) > p->max) throw 0;
      if (const FamilyParameter* own = ownParameter(c, key)) own->set(c, uint64_t(v));  // another family's: not this kernel's
    } catch (...) {
      return bad(p->allowed);
    }
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
  } else if (key == "timing") {
    if (auto v = parseTimingMode(value)) c.timing = *v; else return bad("blocked, events, graph");
  } else if (key == "pdl") {
    if (auto v = parseOnOff(value)) c.pdl = *v; else return bad("on, off");
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
    std::string known = "kernel, block, type, op, accumulate, n, final, data, seed, range, reps, warmup, warm-l2, timing, pdl, "
                        "traced-block";
    for (const FamilyParameter& p : allFamilyParameters()) known += ", " + p.key;
    return "unknown setting '" + key + "' (" + known + ")";
  }
  normalizeConfig(c);  // matrix kernels: block and N follow from the tile and the sides
  return {};
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, std::fabs(v) >= 1e7 ? "%.3g" : f, v);  // absurd figures stay short
  return b;
}

// A positive number, whole or not, that fills the whole cell.
std::optional<double> positiveNumber(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

// A `seed:` line after the `run` it describes: gpu=ID time=13.75us [n=2^21] [type=int32] [impossible].
std::string parseSeedFigure(const std::string& rest, const LessonRun& run, const std::vector<SeedGpu>& declared,
                            SeedFigure* f) {
  std::string kvText;
  std::istringstream words(rest);
  std::string w;
  while (words >> w) {
    if (w == "impossible") f->markedImpossible = true;
    else kvText += w + " ";
  }
  std::string bad, gpuId;
  f->n = run.config.n;
  f->type = run.config.type;
  // A run that moves more than its N elements once (a transpose reads and writes every element)
  // keeps its own bytes; otherwise the seed's n= and type= below decide them.
  if (const double b = bytesMoved(run.config); b != double(run.config.n) * double(elemBytes(run.config.type)))
    f->bytesMoved = b;
  for (auto& [k, v] : keyValues(kvText, &bad)) {
    if (k == "gpu") {
      gpuId = v;
    } else if (k == "time") {
      const std::optional<double> ms = parseSeedTime(v);
      if (!ms) return "time=" + v + " is not a time (a positive number with a unit: 13.75us, 5.25ms, 1.3e-05s)";
      f->timeMs = *ms;
      const size_t unit = v.find_first_not_of("0123456789.eE+-");
      f->timeText = v.substr(0, unit) + " " + v.substr(unit);
    } else if (k == "n") {
      std::string err;
      if (auto n = parseCount(v, &err)) f->n = *n; else return err;
    } else if (k == "type") {
      if (auto t = parseElemType(v)) f->type = *t; else return "type=" + v + " is not valid (int32, int64, float32, float64)";
    } else {
      return "unknown seed setting '" + k + "' (gpu, time, n, type, impossible)";
    }
  }
  if (!bad.empty()) return "'seed:' takes key=value pairs and the word 'impossible', got '" + bad + "'";
  if (gpuId.empty() || f->timeMs <= 0) return "'seed:' needs gpu=ID and time=VALUE+UNIT";
  const SeedGpu* gpu = nullptr;
  for (const SeedGpu& g : declared) gpu = !gpu && g.id == gpuId ? &g : gpu;
  for (const SeedGpu& g : shippedSeedGpus()) gpu = !gpu && g.id == gpuId ? &g : gpu;
  if (!gpu) {
    std::string known;
    for (const SeedGpu& g : declared) known += (known.empty() ? "" : ", ") + g.id;
    for (const SeedGpu& g : shippedSeedGpus()) known += (known.empty() ? "" : ", ") + g.id;
    return "unknown seed GPU '" + gpuId + "' (known: " + known + "; declare it with 'seed-gpu:')";
  }
  f->gpu = *gpu;
  if (f->abovePeak() && !f->markedImpossible)
    return seedFigureFinding(*f) + ". Mark the figure 'impossible' (and say in the caption what it measured) or correct it";
  if (!f->abovePeak() && f->markedImpossible)
    return "the figure is marked 'impossible' but " + f->timeText + " on " + f->gpu.name + " is " +
           fmt("%.1f", f->shareOfPeak() * 100) + " % of its " + fmt("%.1f", f->gpu.peakGBs()) + " GB/s peak: remove the mark";
  return {};
}

// A `seed-method:` line: label=in_words span=kernel|e2e stat=median|mean [warm-l2=true|false] [reps=N].
std::string parseSeedMethod(const std::string& rest, SeedMethod* m) {
  std::string bad;
  for (auto& [k, v] : keyValues(rest, &bad)) {
    if (k == "label") {
      m->label = v;
      for (char& ch : m->label)
        if (ch == '_') ch = ' ';
    } else if (k == "span") {
      if (v != "kernel" && v != "e2e") return "span=" + v + " is not valid (kernel: the launches only, e2e: final stage included)";
      m->endToEnd = v == "e2e";
    } else if (k == "stat") {
      if (v != "median" && v != "mean") return "stat=" + v + " is not valid (median, mean)";
      m->mean = v == "mean";
    } else if (k == "warm-l2") {
      if (v != "true" && v != "false") return "warm-l2=" + v + " is not valid (true or false)";
      m->warmL2 = v == "true";
    } else if (k == "reps") {
      const std::optional<double> r = positiveNumber(v);
      if (!r || *r != std::floor(*r) || *r > 100000) return "reps=" + v + " is not valid (1 to 100000)";
      m->reps = int(*r);
    } else {
      return "unknown seed-method setting '" + k + "' (label, span, stat, warm-l2, reps)";
    }
  }
  if (!bad.empty()) return "'seed-method:' takes key=value pairs, got '" + bad + "'";
  if (m->label.empty()) return "'seed-method:' needs label=how_the_seed_timed (shown in the table's header)";
  return {};
}

// A `pitfall` line: NAME [block=N] [sizes=a,b,c] [seed=S] (seed 002's pitfalls, pitfalls.hpp);
// a `transfer` line: NAME [sizes=bytes,...] [directions=h2d,d2h,both] [streams=S] (transfers.hpp).
std::string parsePitfallLine(const std::string& directive, const std::string& rest, std::vector<PitfallRequest>* out) {
  std::istringstream words(rest);
  std::string which, options;
  words >> which;
  std::getline(words, options);
  const bool transfer = directive == "transfer";
  std::string names;
  std::vector<Pitfall> kinds = transfer ? transferDemos() : allPitfalls();
  if (!transfer) kinds.insert(kinds.end(), {Pitfall::KahanSum, Pitfall::AchievedOccupancy});  // seed 000's
  for (Pitfall p : kinds) names += (names.empty() ? "" : ", ") + std::string(name(p));
  const std::optional<Pitfall> kind = parsePitfall(which);
  if (!kind || isTransferDemo(*kind) != transfer) return directive + " '" + which + "' is not one of: " + names;
  PitfallRequest r;
  r.kind = *kind;
  std::string bad;
  auto wholeNumber = [](const std::string& v, double most) -> std::optional<uint64_t> {
    const std::optional<double> d = positiveNumber(v);
    if (!d || *d != std::floor(*d) || *d > most) return std::nullopt;
    return uint64_t(*d);
  };
  for (auto& [k, v] : keyValues(options, &bad)) {
    std::string err;
    const bool seed002 = !transfer && *kind != Pitfall::KahanSum && *kind != Pitfall::AchievedOccupancy;
    if (k == "block" && seed002) {
      const std::optional<uint64_t> b = wholeNumber(v, 1024);
      if (!b) return "block=" + v + " is not a power of two from 32 to 1024";
      r.block = int(*b);
    } else if (k == "sizes" && *kind != Pitfall::AchievedOccupancy) {
      std::istringstream list(v);
      std::string item;
      while (std::getline(list, item, ','))
        if (auto n = parseCount(item, &err)) r.sizes.push_back(*n); else return err;
    } else if (k == "seed" && (seed002 || *kind == Pitfall::KahanSum)) {
      const std::optional<uint64_t> sd = wholeNumber(v, 1e15);
      if (!sd) return "seed=" + v + " is not a whole number";
      r.seed = *sd;
    } else if (k == "directions" && r.kind == Pitfall::HostCopies) {
      std::istringstream list(v);
      std::string item;
      while (std::getline(list, item, ',')) {
        std::optional<TransferDirection> d;
        auto lower = [](std::string x) {
          for (char& ch : x) ch = char(std::tolower(static_cast<unsigned char>(ch)));
          return x;
        };
        for (TransferDirection t : {TransferDirection::HostToDevice, TransferDirection::DeviceToHost, TransferDirection::Both})
          if (lower(item) == lower(std::string(name(t)))) d = t;
        if (!d) return "direction '" + item + "' is not one of: h2d, d2h, both";
        r.directions.push_back(*d);
      }
    } else if (k == "streams" && r.kind == Pitfall::StreamOverlap) {
      const std::optional<uint64_t> n = wholeNumber(v, 8);
      if (!n) return "streams=" + v + " is not a whole number from 1 to 8";
      r.streams = int(*n);
    } else {
      const std::string settings = *kind == Pitfall::KahanSum            ? "sizes, seed"
                                   : *kind == Pitfall::AchievedOccupancy ? "none"
                                   : !transfer                           ? "block, sizes, seed"
                                   : r.kind == Pitfall::HostCopies ? "sizes, directions"
                                   : r.kind == Pitfall::StreamOverlap ? "sizes, streams"
                                                                      : "sizes";
      return "unknown " + directive + " " + which + " setting '" + k + "' (" + settings + ")";
    }
  }
  if (!bad.empty()) return "'" + directive + "' options are key=value, got '" + bad + "'";
  if (std::string e = validatePitfall(r); !e.empty()) return e;
  out->push_back(r);
  return {};
}

}  // namespace

std::string parseSeedGpu(const std::string& text, SeedGpu* out) {
  const std::vector<std::string> cells = splitBar(text);
  if (cells.size() != 7)
    return "'seed-gpu:' needs 7 cells: id | name | memory | clock MHz | transfers per clock | bus bits | source (got " +
           std::to_string(cells.size()) + ")";
  SeedGpu g;
  g.id = cells[0];
  g.name = cells[1];
  g.memory = cells[2];
  g.source = cells[6];
  if (g.id.empty() || g.id.find_first_of(" \t=") != std::string::npos) return "the seed GPU's id '" + g.id + "' must be one word";
  if (g.name.empty() || g.memory.empty()) return "the seed GPU needs a name and a memory type";
  if (g.source.empty()) return "the seed GPU '" + g.id + "' needs a source for its memory clock and bus width";
  const std::optional<double> clock = positiveNumber(cells[3]);
  const std::optional<double> transfers = positiveNumber(cells[4]);
  const std::optional<double> bus = positiveNumber(cells[5]);
  if (!clock || *clock > 100000) return "memory clock '" + cells[3] + "' is not a number of MHz (up to 100000)";
  if (!transfers || (*transfers != 1 && *transfers != 2 && *transfers != 4 && *transfers != 8 && *transfers != 16))
    return "transfers per clock '" + cells[4] + "' is not 1, 2, 4, 8 or 16";
  if (!bus || *bus != std::floor(*bus) || *bus > 16384) return "bus width '" + cells[5] + "' is not a whole number of bits";
  g.clockMHz = *clock;
  g.transfersPerClock = int(*transfers);
  g.busBits = int(*bus);
  *out = g;
  return {};
}

const std::vector<SeedGpu>& shippedSeedGpus() {
  static const std::vector<SeedGpu> gpus = [] {
    std::vector<SeedGpu> out;
    const std::string_view text = findEmbedded(kSeedGpuFiles, kSeedGpuFiles_count, "seed_gpus.txt");
    std::istringstream in{std::string(text)};
    std::string raw;
    while (std::getline(in, raw)) {
      const std::string line = trim(raw);
      if (line.rfind("seed-gpu:", 0) != 0) continue;  // comments; tests check every line parses
      SeedGpu g;
      if (parseSeedGpu(line.substr(9), &g).empty()) out.push_back(g);
    }
    return out;
  }();
  return gpus;
}

std::optional<double> parseSeedTime(const std::string& text) {
  const std::string t = trim(text);
  const size_t unitAt = t.find_first_not_of("0123456789.eE+-");
  if (unitAt == std::string::npos || unitAt == 0) return std::nullopt;
  const std::optional<double> v = positiveNumber(t.substr(0, unitAt));
  const std::string unit = trim(t.substr(unitAt));
  if (!v) return std::nullopt;
  if (unit == "s") return *v * 1e3;
  if (unit == "ms") return *v;
  if (unit == "us" || unit == "\u00b5s") return *v * 1e-3;
  if (unit == "ns") return *v * 1e-6;
  return std::nullopt;
}

std::string seedFigureFinding(const SeedFigure& f) {
  return "seed time " + f.timeText + " on " + f.gpu.name + ": " + fmt("%.2f", f.bytes() / 1e6) + " MB in " + f.timeText +
         " is " + fmt("%.1f", f.impliedGBs()) + " GB/s, " + fmt("%.0f", f.shareOfPeak() * 100) + " % of its " +
         fmt("%.1f", f.gpu.peakGBs()) + " GB/s peak (reading the input at peak takes " + fmt("%.2f", f.floorMs() * 1e3) +
         " us): impossible for a kernel that reads its input from memory; most likely an asynchronous launch timed "
         "without waiting for it";
}

std::optional<Lesson> parseLesson(const std::string& text, const std::string& fileName, std::string* error) {
  Lesson lesson;
  lesson.name = std::filesystem::path(fileName).stem().string();
  RunConfig current;
  std::optional<SeedMethod> seedMethod;  // the last `seed-method:`, for the runs that follow
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
    } else if (word == "show-columns" && isColon) {
      for (const std::string& c : splitBar(rest)) {
        const auto& known = lessonColumnsOnDemand();
        if (std::find(known.begin(), known.end(), c) == known.end()) {
          std::string list;
          for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
          return fail("show-columns: '" + c + "' is none of: " + list);
        }
        lesson.shownColumns.push_back(c);
      }
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
    } else if (word == "goal" && isColon) {
      if (auto e = needStep(); !e.empty()) return fail(e);
      if (rest.empty()) return fail("'goal:' needs a text");
      step->goal += (step->goal.empty() ? "" : " ") + rest;
    } else if (word == "require" && isColon) {
      if (auto e = needStep(); !e.empty()) return fail(e);
      std::string why;
      const auto r = parseRequirement(rest, &why);
      if (!r) return fail(why);
      step->requirements.push_back(*r);
    } else if (word == "exercise") {
      if (auto e = needStep(); !e.empty()) return fail(e);
      if (!step->exercise.empty()) return fail("a step has one 'exercise'");
      if (exerciseSource(rest).empty()) {
        std::string known;
        for (const std::string& n : exerciseNames()) known += (known.empty() ? "" : ", ") + n;
        return fail("exercise '" + rest + "' is none of: " + known);
      }
      step->exercise = rest;
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
      r.seedMethod = seedMethod;
      step->runs.push_back(r);
    } else if (word == "reference" && isColon) {
      if (auto e = needStep(); !e.empty()) return fail(e);
      if (step->runs.empty()) return fail("'reference:' must follow the 'run' it describes");
      step->runs.back().reference = splitBar(rest);
      if (step->runs.back().reference.size() > lesson.referenceColumns.size())
        return fail("more reference cells (" + std::to_string(step->runs.back().reference.size()) +
                    ") than reference-columns (" + std::to_string(lesson.referenceColumns.size()) + ")");
    } else if (word == "seed-gpu" && isColon) {
      SeedGpu g;
      if (std::string e = parseSeedGpu(rest, &g); !e.empty()) return fail(e);
      for (const SeedGpu& other : lesson.seedGpus)
        if (other.id == g.id) return fail("seed GPU '" + g.id + "' is declared twice");
      for (const SeedGpu& other : shippedSeedGpus())
        if (other.id == g.id) return fail("seed GPU '" + g.id + "' is already shipped (assets/seed_gpus.txt): use it or another id");
      lesson.seedGpus.push_back(g);
    } else if (word == "seed-method" && isColon && rest == "none") {
      seedMethod.reset();  // the runs that follow have no seed method to repeat
    } else if (word == "seed-method" && isColon) {
      SeedMethod m;
      if (std::string e = parseSeedMethod(rest, &m); !e.empty()) return fail(e);
      seedMethod = m;
    } else if (word == "seed" && isColon) {
      if (auto e = needStep(); !e.empty()) return fail(e);
      if (step->runs.empty()) return fail("'seed:' must follow the 'run' it describes");
      SeedFigure f;
      f.line = lineNo;
      if (std::string e = parseSeedFigure(rest, step->runs.back(), lesson.seedGpus, &f); !e.empty()) return fail(e);
      if (f.abovePeak()) lesson.notes.push_back(fileName + ":" + std::to_string(lineNo) + ": note: " + seedFigureFinding(f));
      step->runs.back().seed.push_back(f);
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
      if (!findView(which)) return fail("view '" + which + "' is not one of: " + viewNames());
      step->view = which;
      step->viewGiven = true;
      std::string opts, bad;
      std::getline(v, opts);
      for (auto& [k, val] : keyValues(opts, &bad)) {
        try {
          if (k == "step") step->viewStep = val == "last" ? -1 : std::stoi(val);
          else if (k == "warp") step->warp = std::stoi(val);
          else if (k == "slot") {
            const int slot = std::stoi(val);
            if (slot < 1 || slot > 4) return fail("slot=" + val + " is not a slot of a step (1 to 4)");
            step->slot = slot - 1;
          } else return fail("unknown view setting '" + k + "' (step, warp, slot)");
        } catch (...) {
          return fail(k + "=" + val + " is not a number");
        }
      }
      if (!bad.empty()) return fail("'view' options are key=value, got '" + bad + "'");
    } else if (word == "pitfall" || word == "transfer") {
      if (auto e = needStep(); !e.empty()) return fail(e);
      if (std::string e = parsePitfallLine(word, rest, &step->pitfalls); !e.empty()) return fail(e);
    } else if (word == "panel") {
      if (auto e = needStep(); !e.empty()) return fail(e);
      static const char* panels[] = {"live", "ladder", "block", "n", "types", "results", "occupancy", "lesson", "multi"};
      bool ok = false;
      for (const char* p : panels) ok = ok || rest == p;
      if (!ok) return fail("panel '" + rest + "' is not one of: live, ladder, block, n, types, results, occupancy, lesson, multi");
      step->panel = rest;
    } else {
      return fail("unknown directive '" + word +
                  "' (title:, description:, reference-columns:, show-columns:, seed-gpu:, seed-method:, step:, caption:, set, run, "
                  "reference:, seed:, sweep, view, panel, pitfall, transfer, exercise, goal:, require:)");
    }
  }
  if (lesson.steps.empty()) {
    lineNo = std::max(lineNo, 1);
    return fail("the lesson has no 'step:'");
  }
  if (lesson.title.empty()) lesson.title = lesson.name;
  // A run with seed figures whose seed timed differently (warm L2, other repetitions) is
  // measured a second time that way, so the table can put both methods side by side.
  for (LessonStep& st : lesson.steps)
    for (LessonRun& r : st.runs) {
      if (r.seed.empty() || !r.seedMethod) continue;
      RunConfig like = r.config;
      if (r.seedMethod->reps > 0) like.reps = r.seedMethod->reps;
      if (r.seedMethod->warmL2 >= 0) like.warmL2 = r.seedMethod->warmL2 == 1;
      if (like.reps != r.config.reps || like.warmL2 != r.config.warmL2) r.seedMethodConfig = like;
    }
  // The goal is read out with the caption (the lesson bar and the exports show the caption).
  for (LessonStep& st : lesson.steps)
    if (!st.goal.empty()) st.caption += std::string(st.caption.empty() ? "" : " ") + "Goal: " + st.goal;
  return lesson;
}

const std::vector<std::string>& lessonColumnsOnDemand() {
  static const std::vector<std::string> columns = {"floor",     "seed floor at peak", "seed % of its peak", "like",
                                                   "seed GB/s", "seed GPU",           "seed GPU peak GB/s", "seed MB read",
                                                   "vs CPU",    "N",                  "block",              "error",
                                                   "CPU loop error", "occupancy", "CPU ms"};
  return columns;
}

std::vector<std::string> exerciseNames() {
  std::vector<std::string> out;
  for (int i = 0; i < kExerciseFiles_count; ++i) out.push_back(std::filesystem::path(kExerciseFiles[i].name).stem().string());
  std::sort(out.begin(), out.end());
  for (const usercode::Starter& s : usercode::starters()) out.push_back(s.key);
  return out;
}

std::string exerciseSource(std::string_view name) {
  if (name.empty()) return {};
  const std::string_view shipped = findEmbedded(kExerciseFiles, kExerciseFiles_count, std::string(name) + ".cu");
  if (!shipped.empty()) return std::string(shipped);
  const usercode::Starter* s = usercode::findStarter(name);
  return s && s->key == name ? usercode::starterSource(s->key) : std::string();
}

std::string exerciseFileName(std::string_view name) {
  if (exerciseSource(name).empty()) return {};
  const usercode::Starter* s = usercode::findStarter(name);
  return s && s->key == name ? s->fileName : std::string(name) + ".cu";
}

std::vector<std::string> shippedLessons() {
  std::vector<std::string> out;
  for (int i = 0; i < kLessonFiles_count; ++i) out.push_back(std::filesystem::path(kLessonFiles[i].name).stem().string());
  return out;
}

std::optional<std::string> lessonText(const std::string& nameOrPath, std::string* error) {
  const std::string_view shipped = findEmbedded(kLessonFiles, kLessonFiles_count, nameOrPath + ".lesson");
  if (!shipped.empty()) return std::string(shipped);
  std::string text;
  std::error_code ec;
  if (!std::filesystem::exists(nameOrPath, ec)) {
    std::string known;
    for (const std::string& n : shippedLessons()) known += (known.empty() ? "" : ", ") + n;
    if (error) *error = "no lesson '" + nameOrPath + "' (shipped: " + known + "; or give a .lesson file)";
    return std::nullopt;
  }
  if (std::string e = readTextFile(nameOrPath, &text, kMaxLessonBytes); !e.empty()) {
    if (error) *error = e;
    return std::nullopt;
  }
  return text;
}

std::optional<Lesson> loadLesson(const std::string& nameOrPath, std::string* error) {
  const bool shipped = !findEmbedded(kLessonFiles, kLessonFiles_count, nameOrPath + ".lesson").empty();
  const std::optional<std::string> text = lessonText(nameOrPath, error);
  if (!text) return std::nullopt;
  return parseLesson(*text, shipped ? "assets/lessons/" + nameOrPath + ".lesson" : nameOrPath, error);
}

}  // namespace rl

namespace rl {

std::string Requirement::text() const {
  switch (kind) {
    case Kind::Pass: return "pass";
    case Kind::NoHazard: return "no hazard";
    case Kind::NoBankConflict: return "no bank conflict";
    case Kind::SpeedOfCub: {
      char b[32];
      std::snprintf(b, sizeof b, "%g%%", percent);
      return std::string(b) + " of cub at " + formatCount(n);
    }
  }
  return {};
}

std::optional<Requirement> parseRequirement(std::string_view text, std::string* error) {
  std::string t;
  for (char c : text) t += char(std::tolower(static_cast<unsigned char>(c)));
  while (!t.empty() && (t.back() == ' ' || t.back() == '.')) t.pop_back();
  while (!t.empty() && t.front() == ' ') t.erase(t.begin());
  Requirement r;
  if (t == "pass") return r;
  if (t == "no hazard" || t == "no hazards") return r.kind = Requirement::Kind::NoHazard, r;
  if (t == "no bank conflict" || t == "no bank conflicts") return r.kind = Requirement::Kind::NoBankConflict, r;
  // "P% of cub at N"
  const size_t pct = t.find("% of cub at ");
  if (pct != std::string::npos) {
    const std::string p = t.substr(0, pct), n = t.substr(pct + 12);
    char* end = nullptr;
    const double v = std::strtod(p.c_str(), &end);
    std::string why;
    const auto size = parseCount(n, &why);
    if (p.empty() || end != p.c_str() + p.size() || !(v > 0 && v <= 1000)) {
      if (error) *error = "require: '" + p + "%' is not a percentage from 0 to 1000";
      return std::nullopt;
    }
    if (!size) {
      if (error) *error = "require: " + why;
      return std::nullopt;
    }
    r.kind = Requirement::Kind::SpeedOfCub;
    r.percent = v;
    r.n = *size;
    return r;
  }
  if (error)
    *error = "require: '" + std::string(text) + "' is none of: pass, no hazard, no bank conflict, P% of cub at N (e.g. 90% of cub at 2^24)";
  return std::nullopt;
}

}  // namespace rl
