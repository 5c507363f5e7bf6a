#include "reducelab/gui/plots.hpp"

#include "reducelab/family.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "reducelab/catalogue.hpp"


namespace rl::gui {
namespace {

constexpr uint32_t kTheoreticalColor = 0xFF3C3CDC;  // red  (IM_COL32 layout: AABBGGRR)
constexpr uint32_t kMeasuredColor = 0xFF998B7A;     // slate: apart from the series' palette
constexpr uint32_t kCubColor = 0xFF8C8C8C;          // grey

void addPeakLines(PlotSpec& s, const Peaks& p) {
  char b[96];
  if (p.theoreticalGBs > 0) {
    std::snprintf(b, sizeof b, "theoretical peak %.0f GB/s", p.theoreticalGBs);
    char shortText[32];
    std::snprintf(shortText, sizeof shortText, "peak %.0f", p.theoreticalGBs);
    s.references.push_back({p.theoreticalGBs, b, kTheoreticalColor, true, shortText});
  }
  if (p.readGBs > 0) {
    std::snprintf(b, sizeof b, "measured read %.0f GB/s", p.readGBs);
    char shortText[32];
    std::snprintf(shortText, sizeof shortText, "read %.0f", p.readGBs);
    s.references.push_back({p.readGBs, b, kMeasuredColor, true, shortText});
  }
}

std::string subtitleOf(const RunConfig& c, bool withN, bool withType, bool withBlock) {
  std::string s = std::string(name(c.op));
  if (withType) s += ", " + std::string(name(c.type)) + (c.accumulate == Accumulate::Wide ? " (wide acc.)" : "");
  if (withN) s += ", N = " + formatCount(c.n);
  if (withBlock) s += ", block " + std::to_string(c.block);
  s += c.warmL2 ? ", warm L2" : ", cold L2";
  return s;
}

// A kernel's series in the figure's `style`-th colour and marker: styles go by order of
// appearance in one figure, so no two of its series look alike (a colour per catalogue entry
// repeated every ten kernels: k3, k12 and CUB were all green).
// `rowName`: the rows' own name where the catalogue has none ("your kernel (mine.cu)").
Series seriesFor(const std::string& kernel, SeriesKind kind, int style, const std::string& rowName = "") {
  Series s;
  const KernelInfo* k = findKernel(kernel);
  s.name = k ? std::string(k->key) + " " + std::string(k->name) : !rowName.empty() ? rowName : kernel;
  s.kind = kind;
  s.color = paletteColor(style);
  s.marker = paletteMarker(style);
  return s;
}

// The kernel's second series on the right axis, dashed ("k7 grid-stride occupancy").
Series rightAxisSeriesFor(const std::string& kernel, const char* suffix, int style) {
  Series s = seriesFor(kernel, SeriesKind::Line, style);
  s.name += suffix;
  s.secondaryY = true;
  s.dashed = true;
  return s;
}

const Measurement* firstOk(const std::vector<Measurement>& rows) {
  for (const Measurement& m : rows)
    if (m.ok) return &m;
  return nullptr;
}

// Groups rows by kernel keeping first-appearance order.
std::vector<std::pair<std::string, std::vector<const Measurement*>>> byKernel(const std::vector<Measurement>& rows) {
  std::vector<std::pair<std::string, std::vector<const Measurement*>>> out;
  for (const Measurement& m : rows) {
    if (!m.ok) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](auto& p) { return p.first == m.config.kernel; });
    if (it == out.end()) out.push_back({m.config.kernel, {&m}});
    else it->second.push_back(&m);
  }
  return out;
}

// "k7" from an occupancy series' name "k7 occupancy".
std::string kernelOf(const Series& occupancy) { return occupancy.name.substr(0, occupancy.name.find(' ')); }

double bandwidthAt(const Measurement& m, double ms) { return ms > 0 ? m.bytesRead / (ms * 1e-3) / 1e9 : 0; }

// A compute-bound run (a matrix product): plotted in GFLOP/s against its type's FP peak, not in
// GB/s against the memory's (where it sits near zero).
bool computeBound(const Measurement& m) {
  const KernelFamily* f = familyOf(m.config);
  return f && f->measuresFlops();
}

// The FP peaks of the compute-bound rows' types, as reference lines on the axis they are drawn on.
void addFlopPeakLines(PlotSpec& s, const std::vector<const Measurement*>& rows) {
  std::vector<std::pair<ElemType, double>> seen;
  for (const Measurement* m : rows)
    if (m->peakGflops > 0 && std::none_of(seen.begin(), seen.end(), [&](auto& p) { return p.first == m->config.type; }))
      seen.push_back({m->config.type, m->peakGflops});
  for (const auto& [type, peak] : seen) {
    char b[96], shortText[32];
    const char* fp = type == ElemType::Float64 || type == ElemType::Int64 ? "FP64" : "FP32";
    std::snprintf(b, sizeof b, "%s peak %.0f GFLOP/s", fp, peak);
    std::snprintf(shortText, sizeof shortText, "%s %.0f", fp, peak);
    s.references.push_back({peak, b, kTheoreticalColor, true, shortText});
  }
}

// One bandwidth point on the rows' basis: the median, and the range of the repetitions.
void addBandwidthPoint(Series& s, double x, const Measurement& m, TimeBasis b) {
  const Stats& t = comparedTime(m, b);
  s.x.push_back(x);
  s.y.push_back(comparedGBs(m, b));
  s.yLow.push_back(bandwidthAt(m, t.max));
  s.yHigh.push_back(bandwidthAt(m, t.min));
}

}  // namespace

std::vector<std::string> configParts(const RunConfig& c) {
  const KernelFamily* f = familyOf(c);
  const bool operation = !f || f->hasOperation();  // a transpose or a product has no op and no final stage
  return {c.kernel,
          std::string(name(c.type)) + (c.accumulate == Accumulate::Wide ? "/wide" : ""),
          operation ? std::string(name(c.op)) : "",
          runShape(c),
          operation ? "final " + std::string(name(resolvedFinal(c))) : "",
          c.warmL2 ? "warm L2" : "cold L2",
          c.timing == TimingMode::Blocked ? "" : "timed by " + std::string(name(c.timing))};
}

std::string configKey(const RunConfig& c) {
  std::string key;
  for (const std::string& p : configParts(c))
    if (!p.empty()) key += (key.empty() ? "" : " ") + p;
  return key;
}

Figure liveBandwidthFigure(const std::vector<Measurement>& runs, const Peaks& peaks, TimeBasis basis) {
  Figure f;
  f.fileStem = "live-bandwidth";
  f.spec.title = "Bandwidth of each run";
  f.spec.x.label = "run";
  f.spec.x.tickFormat = "%.0f";
  f.spec.y.label = bandwidthLabel(basis);
  f.spec.y.includeZero = true;
  f.spec.emptyMessage = "Run (F5) adds a point";
  f.spec.legendMaxEntries = 5;
  std::map<std::string, size_t> index;
  double cub = 0;
  std::string cubKey;
  int run = 0;
  bool memoryRuns = false;
  std::vector<const Measurement*> flopRuns;
  for (const Measurement& m : runs) {
    ++run;
    if (!m.ok) continue;
    const std::string key = configKey(m.config);
    auto it = index.find(key);
    if (it == index.end()) {
      Series s = seriesFor(m.config.kernel, SeriesKind::Line, int(f.spec.series.size()));
      s.name = key;
      index[key] = f.spec.series.size();
      f.spec.series.push_back(s);
      f.configs.emplace_back();
      it = index.find(key);
    }
    Series& s = f.spec.series[it->second];
    if (computeBound(m)) {  // GFLOP/s: on the right axis beside bandwidth runs, else the only axis
      s.x.push_back(run);
      s.y.push_back(m.gflops);
      s.secondaryY = true;
      flopRuns.push_back(&m);
    } else {
      addBandwidthPoint(s, run, m, basis);  // (s.name is set below, from what differs)
      memoryRuns = true;
    }
    f.configs[it->second].push_back(m.config);
    if (m.config.kernel == "cub") cub = comparedGBs(m, basis), cubKey = key;
  }
  // Each series is named by what differs between the series (the kernel always), what they share
  // goes once into the subtitle: K07 and K08 (final cpu / final gpu) stay two named lines.
  if (!f.configs.empty()) {
    std::vector<std::vector<std::string>> parts;
    for (const std::vector<RunConfig>& c : f.configs) parts.push_back(configParts(c.front()));
    std::string common;
    std::vector<std::string> names(parts.size());
    for (size_t j = 0; j < parts.front().size(); ++j) {
      const bool same = std::all_of(parts.begin(), parts.end(), [&](const auto& p) { return p[j] == parts.front()[j]; });
      if (same && j > 0) {
        if (!parts.front()[j].empty()) common += (common.empty() ? "" : ", ") + parts.front()[j];
        continue;
      }
      for (size_t i = 0; i < parts.size(); ++i)
        if (!parts[i][j].empty()) names[i] += (names[i].empty() ? "" : " ") + parts[i][j];
    }
    for (size_t i = 0; i < names.size(); ++i) f.spec.series[i].name = names[i];
    f.spec.subtitle = common;
  }
  f.spec.x.min = 0.5;  // whole run numbers, room for a few runs before the axis grows
  f.spec.x.max = std::max(5, run) + 0.5;
  if (!flopRuns.empty() && !memoryRuns) {  // products only: GFLOP/s on the one axis, against the FP peaks
    for (Series& s : f.spec.series) s.secondaryY = false;
    f.spec.title = "GFLOP/s of each run";
    f.spec.y.label = "GFLOP/s";
    addFlopPeakLines(f.spec, flopRuns);
    return f;
  }
  if (!flopRuns.empty()) {
    f.spec.y2.label = "GFLOP/s (products)";
    f.spec.y2.min = 0;
    double peak = 0;
    for (const Measurement* m : flopRuns) peak = std::max({peak, m->peakGflops, m->gflops});
    if (peak > 0) f.spec.y2.max = peak * 1.05;  // up to the FP peak: how far below it a product is
  }
  addPeakLines(f.spec, peaks);
  if (cub > 0 && !runs.empty()) {  // CUB's figure for the latest configuration's N and type
    const RunConfig& last = runs.back().config;
    for (auto it = runs.rbegin(); it != runs.rend(); ++it)
      if (it->ok && it->config.kernel == "cub" && it->config.n == last.n && it->config.type == last.type) {
        char b[64];
        const double gbs = comparedGBs(*it, basis);
        std::snprintf(b, sizeof b, "CUB %.0f GB/s", gbs);
        f.spec.references.push_back({gbs, b, kCubColor, true, "CUB"});
        break;
      }
  }
  return f;
}

std::optional<Headline> liveHeadline(const std::vector<Measurement>& runs, const Peaks& peaks, TimeBasis basis) {
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (!it->ok) continue;
    const double gbs = comparedGBs(*it, basis);
    char value[48], detail[160];
    std::snprintf(value, sizeof value, "%.0f GB/s", gbs);
    // No peak known (no GPU here, none recorded): no share of it, rather than a false 0 %.
    if (peaks.theoreticalGBs > 0)
      std::snprintf(detail, sizeof detail, "%s time: %.1f%% of theoretical, %.4f ms median", timeBasisName(basis),
                    100.0 * gbs / peaks.theoreticalGBs, comparedTime(*it, basis).median);
    else
      std::snprintf(detail, sizeof detail, "%s time: %.4f ms median", timeBasisName(basis), comparedTime(*it, basis).median);
    return Headline{value, configKey(it->config), detail};
  }
  return std::nullopt;
}

Figure ladderFigure(const std::vector<Measurement>& input, const Peaks& peaks) {
  std::vector<Measurement> rows;
  for (const Measurement& m : input)
    if (m.ok) rows.push_back(m);
  fillLadderSpeedups(rows);
  const TimeBasis basis = comparisonBasis(rows);  // the bars and their speedup labels alike
  Figure f;
  f.fileStem = "ladder";
  f.spec.title = "The kernel ladder";
  if (!rows.empty()) f.spec.subtitle = subtitleOf(rows.front().config, true, true, true);
  f.spec.x.label = "kernel";
  f.spec.y.label = bandwidthLabel(basis);
  f.spec.y.includeZero = true;
  Series s;
  s.name = "bandwidth (median)";
  s.kind = SeriesKind::Bars;
  s.color = paletteColor(0);
  f.configs.emplace_back();
  for (size_t i = 0; i < rows.size(); ++i) {
    const Measurement& m = rows[i];
    f.spec.x.categories.push_back(m.config.kernel);
    addBandwidthPoint(s, double(i), m, basis);
    char lab[48];
    std::snprintf(lab, sizeof lab, "x%.2f / x%.1f", m.stepSpeedup, m.cumulativeSpeedup);
    s.pointLabels.push_back(lab);
    f.configs.back().push_back(m.config);
  }
  f.spec.series.push_back(s);
  addPeakLines(f.spec, peaks);
  f.spec.emptyMessage = "run the ladder (all kernels) to fill this chart";
  return f;
}

Figure blockSweepFigure(const std::vector<Measurement>& rows, const Peaks& peaks) {
  Figure f;
  f.fileStem = "sweep-block";
  f.spec.title = "Bandwidth against block size";
  if (const Measurement* m = firstOk(rows)) f.spec.subtitle = subtitleOf(m->config, true, true, false);
  f.spec.x.label = "threads per block";
  f.spec.x.scale = AxisScale::Log2;
  f.spec.x.tickFormat = "%.0f";
  const TimeBasis basis = comparisonBasis(rows);
  f.spec.y.label = bandwidthLabel(basis);
  f.spec.y.includeZero = true;
  f.spec.y2.label = "theoretical occupancy %";
  f.spec.y2.min = 0;
  f.spec.y2.max = 105;
  // Occupancy is a property of the kernel's resources, not of its speed: kernels whose curves
  // coincide share one line (named after all of them) instead of hiding each other.
  std::vector<Series> occupancy;
  std::vector<std::vector<RunConfig>> occupancyConfigs;
  int style = 0;
  for (auto& [kernel, ms] : byKernel(rows)) {
    Series bw = seriesFor(kernel, SeriesKind::Line, style, ms.front()->kernelName);
    Series occ = rightAxisSeriesFor(kernel, " occupancy", style++);
    occ.name = kernel + " occupancy";
    std::vector<RunConfig> cfg, occCfg;
    std::string lastLimiter;
    for (const Measurement* m : ms) {
      addBandwidthPoint(bw, m->config.block, *m, basis);
      if (m->config.kernel != "cub" && m->resources.occupancy > 0) {  // CUB's and unknown resources: no curve
        occ.x.push_back(m->config.block);
        occ.y.push_back(100.0 * m->resources.occupancy);
        // The limiting resource where it changes.
        const bool changed = occ.pointLabels.empty() || m->resources.limiter != lastLimiter;
        occ.pointLabels.push_back(changed ? m->resources.limiter : "");
        lastLimiter = m->resources.limiter;
        occCfg.push_back(m->config);
      }
      cfg.push_back(m->config);
    }
    f.spec.series.push_back(bw);
    f.configs.push_back(cfg);
    if (occ.x.empty()) continue;
    auto same = std::find_if(occupancy.begin(), occupancy.end(),
                             [&](const Series& o) { return o.x == occ.x && o.y == occ.y; });
    if (same != occupancy.end()) {  // the same curve: one line in a neutral colour, named for all
      const std::string shared = "occupancy (";
      if (same->name.rfind(shared, 0) != 0) same->name = shared + kernelOf(*same) + ")";
      same->name.insert(same->name.size() - 1, ", " + kernel);
      same->color = neutralColor();
      continue;
    }
    occupancy.push_back(occ);
    occupancyConfigs.push_back(occCfg);
  }
  for (size_t i = 0; i < occupancy.size(); ++i) {
    f.spec.series.push_back(occupancy[i]);
    f.configs.push_back(occupancyConfigs[i]);
  }
  addPeakLines(f.spec, peaks);
  return f;
}

Figure nSweepFigure(const std::vector<Measurement>& rows, const Peaks& peaks, const DeviceInfo& d) {
  Figure f;
  f.fileStem = "sweep-n";
  f.spec.title = "Bandwidth against N";
  f.spec.x.label = "N (elements)";
  f.spec.x.scale = AxisScale::Log2;
  const TimeBasis basis = comparisonBasis(rows);
  f.spec.y.label = bandwidthLabel(basis);
  f.spec.y.includeZero = true;
  double nMin = 0, nMax = 0, floorMs = 1e30;
  size_t elem = 4;
  for (const Measurement& m : rows)
    if (m.ok) {
      if (f.spec.subtitle.empty()) f.spec.subtitle = subtitleOf(m.config, false, true, true);
      nMin = nMin == 0 ? double(m.config.n) : std::min(nMin, double(m.config.n));
      nMax = std::max(nMax, double(m.config.n));
      floorMs = std::min(floorMs, comparedTime(m, basis).median);  // the axis's basis
      elem = elemBytes(m.config.type);
    }
  int style = 0;
  for (auto& [kernel, ms] : byKernel(rows)) {
    Series s = seriesFor(kernel, SeriesKind::Line, style++, ms.front()->kernelName);
    std::vector<RunConfig> cfg;
    for (const Measurement* m : ms) {
      addBandwidthPoint(s, double(m->config.n), *m, basis);
      cfg.push_back(m->config);
    }
    f.spec.series.push_back(s);
    f.configs.push_back(cfg);
  }
  if (nMax > 0 && d.l2Bytes > 0) {
    const double l2N = double(d.l2Bytes) / double(elem);
    char b[80];
    std::snprintf(b, sizeof b, "input fits in L2 (%.0f MiB)", d.l2Bytes / 1048576.0);
    if (l2N >= nMin) f.spec.shades.push_back({nMin, std::min(l2N, nMax), b, 0x30FFB450});
  }
  if (floorMs < 1e29) {  // where the time is within 4x of the smallest: launch latency dominates
    double edge = nMin;
    for (const Measurement& m : rows)
      if (m.ok && comparedTime(m, basis).median < 4 * floorMs) edge = std::max(edge, double(m.config.n));
    char b[96];
    std::snprintf(b, sizeof b, "launch latency dominates (time < 4 x %.1f us)", floorMs * 1000);
    if (edge > nMin) f.spec.shades.push_back({nMin, edge, b, 0x30A0A0A0});
  }
  addPeakLines(f.spec, peaks);
  return f;
}

Figure typeSweepFigure(const std::vector<Measurement>& rows, const Peaks& peaks) {
  Figure f;
  f.fileStem = "sweep-type";
  f.spec.title = "Bandwidth and elements per second by element type";
  f.spec.x.label = "element type";
  f.spec.x.categories = {"int32", "int64", "float32", "float64"};
  const TimeBasis basis = comparisonBasis(rows);
  f.spec.y.label = bandwidthLabel(basis) + ", bar labels: G elements/s";
  f.spec.y.includeZero = true;
  if (const Measurement* m = firstOk(rows)) f.spec.subtitle = subtitleOf(m->config, true, false, true);
  // One axis: the bars are bandwidth against the peak lines; elements per second, a different
  // unit, is written on each bar instead of being drawn against a second scale.
  int style = 0;
  for (auto& [kernel, ms] : byKernel(rows)) {
    Series bars = seriesFor(kernel, SeriesKind::Bars, style++, ms.front()->kernelName);
    std::vector<RunConfig> cfg;
    for (const Measurement* m : ms) {
      addBandwidthPoint(bars, double(int(m->config.type)), *m, basis);
      const double ms = comparedTime(*m, basis).median;
      char b[32];
      std::snprintf(b, sizeof b, "%.1f", ms > 0 ? double(m->config.n) / (ms * 1e-3) / 1e9 : 0.0);
      bars.pointLabels.push_back(b);
      cfg.push_back(m->config);
    }
    f.spec.series.push_back(bars);
    f.configs.push_back(cfg);
  }
  addPeakLines(f.spec, peaks);
  return f;
}

Figure occupancyFigure(const DeviceInfo& d, const std::string& kernel, int registers, int sharedFixed,
                       int sharedPerThread) {
  Figure f;
  f.fileStem = "occupancy";
  f.spec.title = "Theoretical occupancy against block size";
  char b[128];
  std::snprintf(b, sizeof b, "%s: %d registers/thread, %d + %d x block bytes of shared memory, %s",
                kernel.c_str(), registers, sharedFixed, sharedPerThread, d.name.c_str());
  f.spec.subtitle = b;
  f.spec.x.label = "threads per block";
  f.spec.x.scale = AxisScale::Log2;
  f.spec.x.tickFormat = "%.0f";
  f.spec.y.label = "occupancy %";
  f.spec.y.min = 0;
  f.spec.y.max = 105;
  Series s = seriesFor(kernel, SeriesKind::Line, 0);
  s.name = "theoretical occupancy";
  Series blocks = seriesFor(kernel, SeriesKind::Scatter, 1);
  blocks.name = "active blocks per SM (right axis)";
  blocks.secondaryY = true;
  f.spec.y2.label = "blocks per SM";
  f.spec.y2.min = 0;
  f.configs.emplace_back();
  f.configs.emplace_back();
  std::string lastLimiter;
  for (int block = 32; block <= d.maxThreadsPerBlock && block <= 1024; block *= 2) {
    const OccupancyResult r = computeOccupancy(d, {block, registers, sharedFixed + sharedPerThread * block});
    s.x.push_back(block);
    s.y.push_back(100.0 * r.occupancy);
    s.pointLabels.push_back(r.limiter != lastLimiter ? "limit: " + r.limiter : "");  // where it changes
    lastLimiter = r.limiter;
    blocks.x.push_back(block);
    blocks.y.push_back(r.activeBlocks);
    RunConfig c;
    c.kernel = kernel;
    c.block = block;
    f.configs[0].push_back(c);
    f.configs[1].push_back(c);
  }
  f.spec.series.push_back(s);
  f.spec.series.push_back(blocks);
  return f;
}

Figure matrixSweepFigure(const std::string& axis, const std::vector<Measurement>& rows, const Peaks& peaks) {
  Figure f;
  f.fileStem = "sweep-" + axis;
  bool allMatmul = !rows.empty();
  for (const Measurement& m : rows) {
    const KernelFamily* family = familyOf(m.config);
    allMatmul = allMatmul && family && family->measuresFlops();
  }
  f.spec.title = std::string(allMatmul ? "GFLOP/s" : "Bandwidth") + " against " +
                 (axis == "tile" ? "the tile" : "the matrix side");
  // A family parameter's value as the run used it: the first of this role (the tile; a side, all
  // equal on the size axis).
  auto parameter = [](const Measurement& m, ParameterRole role) -> std::optional<uint64_t> {
    const KernelInfo* k = findKernel(m.config.kernel);
    if (k)
      for (const FamilyParameter& p : familyOf(*k).parameters())
        if (p.role == role) return p.used(*k, m.config);
    return std::nullopt;
  };
  if (const Measurement* m = firstOk(rows)) {
    std::string sides;  // the output's: "1024 x 1024"
    if (const KernelInfo* k = findKernel(m->config.kernel))
      for (const FamilyParameter& p : familyOf(*k).parameters())
        if (p.role == ParameterRole::OutputSide) sides += (sides.empty() ? "" : " x ") + std::to_string(p.used(*k, m->config));
    f.spec.subtitle = std::string(name(m->config.type)) + (axis == "tile" ? ", " + sides : "");
  }
  f.spec.x.label = axis == "tile" ? "tile side" : "matrix side (rows = cols = K)";
  f.spec.x.scale = axis == "tile" ? AxisScale::Linear : AxisScale::Log2;
  f.spec.x.tickFormat = "%.0f";
  f.spec.y.label = allMatmul ? "GFLOP/s" : "GB/s (read + write)";
  f.spec.y.includeZero = true;
  int style = 0;
  for (auto& [kernel, ms] : byKernel(rows)) {
    Series s = seriesFor(kernel, SeriesKind::Line, style++, ms.front()->kernelName);
    std::vector<RunConfig> cfg;
    for (const Measurement* m : ms) {
      s.x.push_back(double(parameter(*m, axis == "tile" ? ParameterRole::Tile : ParameterRole::OutputSide).value_or(0)));
      s.y.push_back(allMatmul ? m->gflops : m->bandwidthGBs);
      cfg.push_back(m->config);
    }
    f.spec.series.push_back(s);
    f.configs.push_back(cfg);
  }
  if (allMatmul) {
    std::vector<const Measurement*> ok;
    for (const Measurement& m : rows)
      if (m.ok) ok.push_back(&m);
    addFlopPeakLines(f.spec, ok);
  }
  if (!allMatmul && peaks.copyGBs > 0) {
    char label[64];
    std::snprintf(label, sizeof label, "measured copy %.0f GB/s", peaks.copyGBs);
    char shortText[32];
    std::snprintf(shortText, sizeof shortText, "copy %.0f", peaks.copyGBs);
    f.spec.references.push_back({peaks.copyGBs, label, kMeasuredColor, true, shortText});
  }
  return f;
}

Figure figureForSweep(const std::string& axis, const std::vector<Measurement>& rows, const Peaks& peaks,
                      const DeviceInfo& d) {
  if (axis == "tile" || axis == "size") return matrixSweepFigure(axis, rows, peaks);
  if (axis == "block") return blockSweepFigure(rows, peaks);
  if (axis == "n") return nSweepFigure(rows, peaks, d);
  if (axis == "type") return typeSweepFigure(rows, peaks);
  Figure f = ladderFigure(rows, peaks);
  f.fileStem = "sweep-kernel";
  return f;
}

}  // namespace rl::gui
