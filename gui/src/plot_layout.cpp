// The plot's layout: axis ranges, "nice" ticks, margins and the pixel geometry of every element.
// Renderer-independent (text is measured through the function it is given), so drawPlot and
// renderFigure (cairo) place everything in the same spot.
#include "plot_layout.hpp"

#include <algorithm>
#include <cstdint>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace rl::gui {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double toAxis(AxisScale s, double v) {
  switch (s) {
    case AxisScale::Log2: return std::log2(v);
    case AxisScale::Log10: return std::log10(v);
    case AxisScale::Linear: break;
  }
  return v;
}

double fromAxis(AxisScale s, double t) {
  switch (s) {
    case AxisScale::Log2: return std::exp2(t);
    case AxisScale::Log10: return std::pow(10.0, t);
    case AxisScale::Linear: break;
  }
  return t;
}

bool placeable(AxisScale s, double v) { return std::isfinite(v) && (s == AxisScale::Linear || v > 0); }

struct Extent {
  double lo = kInf, hi = -kInf;
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return !(lo <= hi); }
};

// A series without x values is plotted against its indices (bar charts of categories).
size_t pointCount(const Series& s) { return s.x.empty() ? s.y.size() : std::min(s.x.size(), s.y.size()); }
double xAt(const Series& s, size_t i) { return s.x.empty() ? double(i) : s.x[i]; }

// Whether the segment (x0,y0)-(x1,y1) passes through the rectangle (Liang-Barsky clipping).
bool segmentCrosses(float x0, float y0, float x1, float y1, const PlotRect& r) {
  float t0 = 0, t1 = 1;
  const float dx = x1 - x0, dy = y1 - y0;
  const float p[4] = {-dx, dx, -dy, dy}, q[4] = {x0 - r.x0, r.x1 - x0, y0 - r.y0, r.y1 - y0};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
      continue;
    }
    const float t = q[i] / p[i];
    if (p[i] < 0) t0 = std::max(t0, t);
    else t1 = std::min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

uint32_t seriesColor(const Series& s, int index) {
  if (s.color == 0) return paletteColor(index);
  // An IM_COL32 with alpha 0 would make the series invisible: take it as opaque.
  return (s.color >> 24) == 0 ? s.color | 0xFF000000u : s.color;
}

}  // namespace

std::vector<MarkerPoint> markerOutline(Marker m, float cx, float cy, float r) {
  switch (m) {
    case Marker::Square: {
      const float h = r * 0.89f;  // the area of the circle of radius r
      return {{cx - h, cy - h}, {cx + h, cy - h}, {cx + h, cy + h}, {cx - h, cy + h}};
    }
    case Marker::Diamond: {
      const float h = r * 1.25f;
      return {{cx, cy - h}, {cx + h, cy}, {cx, cy + h}, {cx - h, cy}};
    }
    case Marker::TriangleUp:
    case Marker::TriangleDown: {
      const float h = r * 1.35f, s = m == Marker::TriangleUp ? 1.0f : -1.0f;
      return {{cx, cy - s * h}, {cx + h * 0.866f, cy + s * h * 0.5f}, {cx - h * 0.866f, cy + s * h * 0.5f}};
    }
    default:
      return {};
  }
}

namespace {

// The visible range of one axis: the spec's min/max where given, otherwise the data's extent plus
// a 5% margin (in log units on log axes), starting exactly at 0 where zero is to be included.
void resolveRange(AxisLayout& a, const Axis& axis, Extent e, bool zeroBase) {
  const bool log = a.scale != AxisScale::Linear;
  double lo = 0, hi = 1;
  if (a.categorical) {
    const double n = std::max(double(axis.categories.size()), e.empty() ? 0.0 : std::floor(e.hi) + 1);
    lo = -0.5;
    hi = n - 0.5;
  } else if (e.empty()) {
    lo = log ? 1 : 0;
    hi = a.scale == AxisScale::Log2 ? 1024 : a.scale == AxisScale::Log10 ? 1000 : 1;
  } else {
    const bool zero = !log && (axis.includeZero || zeroBase);
    if (zero) e.add(0);
    double tlo = toAxis(a.scale, e.lo), thi = toAxis(a.scale, e.hi);
    const double span = thi - tlo;
    if (span > 0) {
      tlo -= 0.05 * span;
      thi += 0.05 * span;
    } else if (log) {
      tlo -= 1;
      thi += 1;
    } else {
      const double d = tlo != 0 ? std::fabs(tlo) * 0.1 : 1;
      tlo -= d;
      thi += d;
    }
    lo = fromAxis(a.scale, tlo);
    hi = fromAxis(a.scale, thi);
    // No margin past zero when the data stay on one side of it (bars, bandwidth from 0).
    if (zero && e.lo >= 0) lo = 0;
    else if (zero && e.hi <= 0) hi = 0;
  }
  if (placeable(a.scale, axis.min)) lo = axis.min;
  if (placeable(a.scale, axis.max)) hi = axis.max;
  if (!(hi > lo)) hi = log ? lo * 2 : lo + 1;
  a.lo = lo;
  a.hi = hi;
}

// Multiples of a 1/2/5 x 10^k step inside [lo, hi], at most maxTicks of them.
std::vector<double> linearTicks(double lo, double hi, int maxTicks, double& step) {
  std::vector<double> out;
  const double span = hi - lo;
  if (!(span > 0) || !std::isfinite(span)) return out;
  const double raw = span / std::max(1, maxTicks - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  step = 10 * mag;
  for (double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw * (1 - 1e-9)) {
      step = m * mag;
      break;
    }
  const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
  for (double k = first; k <= last; ++k) out.push_back(std::fabs(k) < 0.5 ? 0.0 : k * step);
  return out;
}

// Powers of the axis' base inside [lo, hi]: every stride-th one, so that at most maxTicks remain.
std::vector<double> logTicks(AxisScale s, double lo, double hi, int maxTicks) {
  std::vector<double> out;
  const double kLo = std::ceil(toAxis(s, lo) - 1e-9), kHi = std::floor(toAxis(s, hi) + 1e-9);
  if (!(kHi >= kLo)) return out;
  maxTicks = std::max(maxTicks, 1);  // from the plot's size: a squeezed plot must not loop forever
  auto count = [&](double stride) { return std::floor(kHi / stride) - std::ceil(kLo / stride) + 1; };
  double stride = 1;
  while (count(stride) > maxTicks) ++stride;
  for (double k = std::ceil(kLo / stride) * stride; k <= kHi; k += stride) out.push_back(fromAxis(s, k));
  return out;
}

// "1.5e+07" -> "1.5e7": shorter tick labels.
std::string compactExponent(std::string s) {
  const size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mant = s.substr(0, e), exp = s.substr(e + 1);
  const bool neg = !exp.empty() && exp[0] == '-';
  if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.erase(0, 1);
  while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
  return mant + "e" + (neg ? "-" : "") + exp;
}

// Linear tick labels: as many decimals as the step needs; exponent form from a million up.
std::string linearLabel(double v, double step, double maxAbs) {
  char b[64];
  if (maxAbs >= 1e6) {
    const int digits = std::clamp(int(std::floor(std::log10(std::max(std::fabs(v), step))) -
                                      std::floor(std::log10(step))) + 1, 1, 15);
    std::snprintf(b, sizeof b, "%.*g", digits, v);
    return compactExponent(b);
  }
  const int decimals = step >= 1 ? 0 : std::clamp(int(std::ceil(-std::log10(step) - 1e-9)), 0, 12);
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string powerLabel(AxisScale s, double v) {
  const int k = int(std::lround(toAxis(s, v)));
  char b[32];
  if (s == AxisScale::Log2) std::snprintf(b, sizeof b, "2^%d", k);
  else if (std::abs(k) <= 3) std::snprintf(b, sizeof b, "%g", v);
  else std::snprintf(b, sizeof b, "10^%d", k);
  return b;
}

struct TickCandidate {
  std::vector<double> values;
  double step = 1;
  bool powers = false;  // log axis ticks at powers of the base
};

TickCandidate candidate(const AxisLayout& a, int maxTicks) {
  TickCandidate c;
  if (a.scale != AxisScale::Linear) {
    c.values = logTicks(a.scale, a.lo, a.hi, maxTicks);
    c.powers = true;
    if (c.values.size() >= 2) return c;
    // Less than one power of the base in view: plain linear values, placed on the log scale.
    c.powers = false;
    c.values = linearTicks(a.lo, a.hi, std::min(maxTicks, 4), c.step);
    return c;
  }
  c.values = linearTicks(a.lo, a.hi, maxTicks, c.step);
  return c;
}

void categoricalTicks(AxisLayout& a, const Axis& axis, bool horizontal, float fontPx,
                      const TextMeasure& measure) {
  a.ticks.clear();
  a.labelRows = 1;
  // Absurd explicit limits: no labels rather than millions (or an overflowing index).
  if (!(a.hi - a.lo <= 100000) || std::fabs(a.lo) > 1e9 || std::fabs(a.hi) > 1e9) return;
  const long first = long(std::ceil(a.lo - 1e-9)), last = long(std::floor(a.hi + 1e-9));
  if (last < first) return;
  float maxW = 0;
  for (long i = first; i <= last; ++i) {
    PlotTick t;
    t.value = double(i);
    t.label.px = fontPx;
    if (i >= 0 && size_t(i) < axis.categories.size()) t.label.text = axis.categories[size_t(i)];
    else t.label.text = std::to_string(i);
    maxW = std::max(maxW, horizontal ? measure(t.label.text, fontPx) : fontPx * 1.2f);
    a.ticks.push_back(std::move(t));
  }
  // Crowded labels alternate between two rows, and only every stride-th is kept if still crowded.
  const float slot = std::fabs(a.pixHi - a.pixLo) / float(a.hi - a.lo);
  const float need = maxW + 0.6f * fontPx;
  if (need <= slot || slot <= 0) return;
  long stride = 1;
  if (horizontal) {
    a.labelRows = 2;
    stride = long(std::ceil(need / (2 * slot)));
  } else {
    stride = long(std::ceil(need / slot));
  }
  for (PlotTick& t : a.ticks) {
    const long i = long(t.value);
    if (i % stride != 0) t.label.text.clear();
    else if (a.labelRows > 1) t.row = int(((i / stride) % 2 + 2) % 2);
  }
}

// The densest candidate whose labels do not overlap: up to 8 linear ticks, 10 powers on log axes.
void chooseTicks(AxisLayout& a, const Axis& axis, bool horizontal, float fontPx, const TextMeasure& measure) {
  if (a.categorical) {
    categoricalTicks(a, axis, horizontal, fontPx, measure);
    return;
  }
  a.labelRows = 1;
  for (int maxTicks = a.scale == AxisScale::Linear ? 8 : 10; maxTicks >= 2; --maxTicks) {
    const TickCandidate c = candidate(a, maxTicks);
    double maxAbs = 0;
    for (double v : c.values) maxAbs = std::max(maxAbs, std::fabs(v));
    std::vector<PlotTick> ticks;
    std::vector<float> widths;
    for (double v : c.values) {
      PlotTick t;
      t.value = v;
      t.pos = a.map(v);
      t.label.px = fontPx;
      if (!axis.tickFormat.empty()) {
        char b[128];
        std::snprintf(b, sizeof b, axis.tickFormat.c_str(), v);
        t.label.text = b;
      } else {
        t.label.text = c.powers ? powerLabel(a.scale, v) : linearLabel(v, c.step, maxAbs);
      }
      widths.push_back(horizontal ? measure(t.label.text, fontPx) : fontPx);
      ticks.push_back(std::move(t));
    }
    bool fits = true;
    for (size_t i = 1; i < ticks.size() && fits; ++i) {
      const float gap = std::fabs(ticks[i].pos - ticks[i - 1].pos);
      fits = gap >= (widths[i] + widths[i - 1]) * 0.5f + (horizontal ? 0.8f : 0.4f) * fontPx;
    }
    a.ticks = std::move(ticks);
    if (fits) return;
  }
}

// Fits one text between x = lo and x = hi: a smaller size first (not below 70 %), then an
// ellipsis; its anchor moves so that the whole box stays inside.
void fitTextInto(PlotText& t, float lo, float hi, const TextMeasure& measure) {
  if (t.empty() || !(hi > lo)) return;
  const float room = hi - lo;
  float w = measure(t.text, t.px);
  if (w > room) {
    t.px = std::max(t.px * room / w, t.px * 0.7f);
    w = measure(t.text, t.px);
  }
  while (w > room && t.text.size() > 1) {
    std::string s = t.text;
    if (s.size() >= 3 && s.compare(s.size() - 3, 3, "\xE2\x80\xA6") == 0) s.resize(s.size() - 3);
    s.pop_back();
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole UTF-8 characters
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0xC0) s.pop_back();
    t.text = s + "\xE2\x80\xA6";
    w = measure(t.text, t.px);
  }
  float x0 = t.align == TextAlign::Right ? t.x - w : t.align == TextAlign::Center ? t.x - 0.5f * w : t.x;
  const float shift = x0 < lo ? lo - x0 : (x0 + w > hi ? hi - (x0 + w) : 0.0f);
  t.x += shift;
}

float maxLabelWidth(const AxisLayout& a, const TextMeasure& measure) {
  float w = 0;
  for (const PlotTick& t : a.ticks)
    if (!t.label.empty()) w = std::max(w, measure(t.label.text, t.label.px));
  return w;
}

// How far the first and last x tick labels stick out past the plot's left and right edges.
void xLabelOverhang(const AxisLayout& a, const TextMeasure& measure, float& left, float& right) {
  left = right = 0;
  for (const PlotTick& t : a.ticks) {
    if (t.label.empty()) continue;
    const float half = measure(t.label.text, t.label.px) * 0.5f;
    left = std::max(left, half - (t.pos - std::min(a.pixLo, a.pixHi)));
    right = std::max(right, half - (std::max(a.pixLo, a.pixHi) - t.pos));
  }
}

}  // namespace

bool AxisLayout::accepts(double v) const { return placeable(scale, v); }

float AxisLayout::map(double v) const {
  const double t0 = toAxis(scale, lo), t1 = toAxis(scale, hi);
  // Clamped far outside the plot: keeps huge values from becoming inf pixels (clipped anyway).
  const double f = std::clamp((toAxis(scale, v) - t0) / (t1 - t0), -1e4, 1e4);
  return float(pixLo + f * (pixHi - pixLo));
}

std::string formatPlotValue(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[48];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

namespace {

// The whole layout; `legendStrip` > 0 reserves that many pixels at the right for the legend,
// `legendBelow` > 0 that many at the bottom (a plot too narrow for a strip beside it).
PlotLayout layoutPlot(const PlotSpec& spec, float width, float height, float fontPx, const TextMeasure& measure,
                      float legendStrip, float legendBelow = 0) {
  PlotLayout L;
  L.width = width;
  L.height = height;
  L.fontPx = fontPx;
  const float scale = fontPx / 14.0f;
  L.lineWidth = std::max(1.5f, 2.0f * scale);
  L.markerRadius = std::max(2.5f, 3.0f * scale);
  L.tickLength = std::max(3.0f, 4.0f * scale);
  const float pad = std::max(6.0f, 0.6f * fontPx);
  const float smallPx = 0.9f * fontPx;

  // --- Ranges, from the points that can be placed (finite; positive on log axes).
  L.x.scale = spec.x.scale;
  L.y.scale = spec.y.scale;
  L.y2.scale = spec.y2.scale;
  L.x.categorical = !spec.x.categories.empty();
  L.y.categorical = !spec.y.categories.empty();
  L.y2.categorical = !spec.y2.categories.empty();
  for (const Series& s : spec.series) L.hasY2 = L.hasY2 || s.secondaryY;

  Extent ex, ey, ey2, barX;
  bool barsY = false, barsY2 = false, anyValid = false;
  std::vector<double> barXs;
  for (const Series& s : spec.series) {
    const AxisLayout& ya = s.secondaryY ? L.y2 : L.y;
    Extent& e = s.secondaryY ? ey2 : ey;
    const bool bars = s.kind == SeriesKind::Bars;
    if (bars) (s.secondaryY ? barsY2 : barsY) = true;
    for (size_t i = 0, n = pointCount(s); i < n; ++i) {
      const double x = xAt(s, i), y = s.y[i];
      if (!L.x.accepts(x) || !ya.accepts(y)) continue;
      anyValid = true;
      ex.add(x);
      e.add(y);
      if (i < s.yLow.size() && ya.accepts(s.yLow[i])) e.add(s.yLow[i]);
      if (i < s.yHigh.size() && ya.accepts(s.yHigh[i])) e.add(s.yHigh[i]);
      if (bars) {
        barX.add(x);
        barXs.push_back(x);
      }
    }
  }
  for (const ReferenceLine& r : spec.references)
    if (L.y.accepts(r.value)) ey.add(r.value);
  // Bars on a linear x axis need half a slot either side of the outermost bars.
  if (!barX.empty() && !L.x.categorical && L.x.scale == AxisScale::Linear) {
    std::sort(barXs.begin(), barXs.end());
    double minDx = kInf;
    for (size_t i = 1; i < barXs.size(); ++i)
      if (barXs[i] > barXs[i - 1]) minDx = std::min(minDx, barXs[i] - barXs[i - 1]);
    const double half = 0.5 * (std::isfinite(minDx) ? minDx : 1.0);
    ex.add(barX.lo - half);
    ex.add(barX.hi + half);
  }
  resolveRange(L.x, spec.x, ex, false);
  resolveRange(L.y, spec.y, ey, barsY);
  resolveRange(L.y2, spec.y2, ey2, barsY2);
  L.empty = !anyValid;

  // --- Title block and the row of y axis labels above the plot (ImGui cannot rotate text).
  float top = pad;
  if (!spec.title.empty()) {
    const float px = 1.2f * fontPx;
    L.title = {spec.title, width * 0.5f, top, px, TextAlign::Center};
    top += px * 1.3f;
  }
  if (!spec.subtitle.empty()) {
    L.subtitle = {spec.subtitle, width * 0.5f, top, smallPx, TextAlign::Center};
    top += smallPx * 1.4f;
  }
  const bool y2Label = L.hasY2 && !spec.y2.label.empty();
  const float yLabelTop = top;
  top += (!spec.y.label.empty() || y2Label) ? fontPx * 1.5f : fontPx * 0.6f;
  const float xLabelH = spec.x.label.empty() ? 0.0f : fontPx * 1.5f;

  // --- Margins depend on the tick labels, whose choice depends on the plot's size: two passes.
  auto place = [&](PlotRect r) {
    r.x1 = std::max(r.x1, r.x0 + 10);
    r.y1 = std::max(r.y1, r.y0 + 10);
    L.plot = r;
    L.x.pixLo = r.x0;
    L.x.pixHi = r.x1;
    L.y.pixLo = L.y2.pixLo = r.y1;
    L.y.pixHi = L.y2.pixHi = r.y0;
  };
  PlotRect r{pad + 3 * fontPx, top, width - pad - (L.hasY2 ? 3 * fontPx : fontPx) - legendStrip,
             height - pad - 2 * fontPx - xLabelH - legendBelow};
  for (int pass = 0; pass < 2; ++pass) {
    place(r);
    chooseTicks(L.x, spec.x, true, fontPx, measure);
    chooseTicks(L.y, spec.y, false, fontPx, measure);
    if (L.hasY2) chooseTicks(L.y2, spec.y2, false, fontPx, measure);
    float overLeft = 0, overRight = 0;
    xLabelOverhang(L.x, measure, overLeft, overRight);
    const float gap = 0.3f * fontPx;
    const float left = pad + std::max(maxLabelWidth(L.y, measure) + L.tickLength + gap, overLeft);
    const float right = pad + (L.hasY2 ? std::max(maxLabelWidth(L.y2, measure) + L.tickLength + gap, overRight)
                                       : std::max(0.5f * fontPx, overRight));
    const float bottom = pad + L.tickLength + gap + float(L.x.labelRows) * fontPx * 1.15f + xLabelH;
    r = {left, top, width - right - legendStrip, height - bottom - legendBelow};
  }
  place(r);
  r = L.plot;

  // --- Tick and axis label positions on the final plot area.
  const float gap = 0.3f * fontPx;
  for (PlotTick& t : L.x.ticks) {
    t.pos = L.x.map(t.value);
    t.label.x = t.pos;
    t.label.y = r.y1 + L.tickLength + gap + float(t.row) * fontPx * 1.15f;
    t.label.align = TextAlign::Center;
  }
  for (AxisLayout* a : {&L.y, &L.y2}) {
    const bool right = a == &L.y2;
    for (PlotTick& t : a->ticks) {
      t.pos = a->map(t.value);
      t.label.x = right ? r.x1 + L.tickLength + gap : r.x0 - L.tickLength - gap;
      t.label.y = t.pos - fontPx * 0.5f;
      t.label.align = right ? TextAlign::Left : TextAlign::Right;
    }
  }
  if (!L.hasY2) L.y2.ticks.clear();
  if (!spec.x.label.empty())
    L.xLabel = {spec.x.label, (r.x0 + r.x1) * 0.5f,
                r.y1 + L.tickLength + gap + float(L.x.labelRows) * fontPx * 1.15f + 0.3f * fontPx, fontPx,
                TextAlign::Center};
  if (!spec.y.label.empty()) L.yLabel = {spec.y.label, pad, yLabelTop, fontPx, TextAlign::Left};
  if (y2Label) L.y2Label = {spec.y2.label, width - pad, yLabelTop, fontPx, TextAlign::Right};
  if (L.empty)
    L.emptyMessage = {spec.emptyMessage, (r.x0 + r.x1) * 0.5f, (r.y0 + r.y1 - fontPx) * 0.5f, fontPx,
                      TextAlign::Center};

  // --- Bars: slots of 0.8 of the category (or of the closest pair of bars), shared in a group.
  int barSeries = 0;
  for (const Series& s : spec.series) barSeries += s.kind == SeriesKind::Bars;
  float slot = 0;
  if (barSeries > 0) {
    if (L.x.categorical || barXs.size() < 2) {
      slot = L.x.scale == AxisScale::Linear ? std::fabs(L.x.map(L.x.lo + 1) - L.x.map(L.x.lo)) : r.width() * 0.1f;
    } else {
      std::vector<float> px;
      for (double x : barXs) px.push_back(L.x.map(x));
      std::sort(px.begin(), px.end());
      slot = r.width();
      for (size_t i = 1; i < px.size(); ++i)
        if (px[i] - px[i - 1] > 0.5f) slot = std::min(slot, px[i] - px[i - 1]);
    }
    slot = std::min(slot, r.width());
  }
  const float groupW = 0.8f * slot, barW = barSeries > 0 ? groupW / float(barSeries) : 0;

  // --- Series geometry. Point labels that would overlap one already placed are dropped.
  std::vector<PlotRect> placedLabels;
  auto textBounds = [&](const PlotText& t) {
    const float w = measure(t.text, t.px);
    const float x0 = t.align == TextAlign::Right ? t.x - w : t.align == TextAlign::Center ? t.x - 0.5f * w : t.x;
    return PlotRect{x0, t.y, x0 + w, t.y + t.px};
  };
  auto overlaps = [](const PlotRect& a, const PlotRect& b) {
    return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  };
  auto placeLabel = [&](const PlotText& t) {
    const PlotRect box = textBounds(t);
    for (const PlotRect& b : placedLabels)
      if (overlaps(box, b)) return false;
    placedLabels.push_back(box);
    return true;
  };
  int barIndex = 0;
  for (size_t si = 0; si < spec.series.size(); ++si) {
    const Series& s = spec.series[si];
    const AxisLayout& ya = s.secondaryY ? L.y2 : L.y;
    const bool bars = s.kind == SeriesKind::Bars;
    PlotSeriesLayout S;
    S.color = seriesColor(s, int(si));
    S.marker = s.marker == Marker::Auto ? paletteMarker(int(si)) : s.marker;
    S.secondary = s.secondaryY;
    S.barWidth = bars ? barW : 0;
    // Bars grow from 0 on linear axes (from the edge when 0 is out of view), from the bottom on log axes.
    const float base = ya.scale == AxisScale::Linear ? ya.map(std::clamp(0.0, ya.lo, ya.hi)) : ya.pixLo;
    const float offset = bars ? -groupW * 0.5f + (float(barIndex) + 0.5f) * barW : 0;
    for (size_t i = 0, n = pointCount(s); i < n; ++i) {
      PlotPoint p;
      p.x = xAt(s, i);
      p.y = s.y[i];
      p.valid = L.x.accepts(p.x) && ya.accepts(p.y);
      if (p.valid) {
        p.px = L.x.map(p.x) + offset;
        p.py = ya.map(p.y);
        if (i < s.yLow.size() && i < s.yHigh.size() && ya.accepts(s.yLow[i]) && ya.accepts(s.yHigh[i])) {
          p.band = true;
          p.pyLow = ya.map(s.yLow[i]);
          p.pyHigh = ya.map(s.yHigh[i]);
        }
        if (bars)
          p.bar = {p.px - 0.45f * barW, std::min(p.py, base), p.px + 0.45f * barW, std::max(p.py, base)};
        if (i < s.pointLabels.size() && !s.pointLabels[i].empty()) {
          float above = p.py - (bars ? 0 : L.markerRadius);
          if (p.band) above = std::min({above, p.pyLow, p.pyHigh});
          float y = above - smallPx * 1.15f;
          if (y < 0) y = p.py + L.markerRadius + 2;  // no room above: below the point
          p.label = {s.pointLabels[i], p.px, y, smallPx, TextAlign::Center};
          if (!placeLabel(p.label)) p.label = {};
        }
      }
      S.points.push_back(std::move(p));
    }
    barIndex += bars;
    L.series.push_back(std::move(S));
  }

  // --- Reference lines: the label at the line's right end, just above the line, else just below
  // it, else the nearest free row away from it (close peaks: 4814 and 4790 GB/s); never over another
  // reference label, and dropped only when the plot has no free row at all.
  const float refRow = smallPx * 1.1f;
  std::vector<std::pair<float, float>> refRows;  // vertical extents of the labels placed so far
  auto refRowFree = [&](float y) {
    if (y < r.y0 || y + refRow > r.y1) return false;
    for (const auto& [a, b] : refRows)
      if (y < b && a < y + refRow) return false;
    return true;
  };
  std::vector<float> refLines;  // where the visible lines are: a label is not written through one
  for (const ReferenceLine& ref : spec.references)
    if (L.y.accepts(ref.value) && ref.value >= L.y.lo && ref.value <= L.y.hi) refLines.push_back(L.y.map(ref.value));
  auto crossesALine = [&](float y) {
    return std::any_of(refLines.begin(), refLines.end(), [&](float py) { return py > y && py < y + refRow; });
  };
  // Whether a label box would be written over the data (a point or a line between two points).
  auto overData = [&](const PlotRect& box) {
    const PlotRect around{box.x0 - L.markerRadius, box.y0 - L.markerRadius, box.x1 + L.markerRadius, box.y1 + L.markerRadius};
    for (size_t si = 0; si < L.series.size(); ++si) {
      const std::vector<PlotPoint>& pts = L.series[si].points;
      const bool line = spec.series[si].kind == SeriesKind::Line;
      for (size_t k = 0; k < pts.size(); ++k) {
        if (!pts[k].valid) continue;
        if (around.contains(pts[k].px, pts[k].py)) return true;
        if (line && k + 1 < pts.size() && pts[k + 1].valid &&
            segmentCrosses(pts[k].px, pts[k].py, pts[k + 1].px, pts[k + 1].py, box))
          return true;
      }
    }
    return false;
  };
  for (const ReferenceLine& ref : spec.references) {
    PlotReferenceLayout R;
    R.visible = L.y.accepts(ref.value) && ref.value >= L.y.lo && ref.value <= L.y.hi;
    if (R.visible) {
      R.py = L.y.map(ref.value);
      // The label right-aligned inside the plot: the long form where it fits the plot's width,
      // else the short one, else none (a narrow plot cut "theoretical peak" to "eoretical peak").
      const float room = (r.x1 - 0.4f * fontPx) - r.x0;
      const std::string* text = nullptr;
      for (const std::string* candidate : {&ref.label, &ref.shortLabel})
        if (!text && !candidate->empty() && measure(*candidate, smallPx) <= room) text = candidate;
      const float right = r.x1 - 0.4f * fontPx, left = text ? right - measure(*text, smallPx) : right;
      const float above = R.py - smallPx * 1.2f, below = R.py + 0.2f * smallPx;
      std::optional<float> y;
      // Nearest the line first: a row off the data and the other lines, else off the lines, else any
      // row free of other labels.
      for (int pass = 0; pass < 3 && !y; ++pass)  // (the first two within 3 rows of the line: near it)
        for (int k = 0; !y && (pass == 2 || k <= 3) && (above - float(k) * refRow >= r.y0 || below + float(k) * refRow <= r.y1); ++k)
          for (float candidate : {above - float(k) * refRow, below + float(k) * refRow})
            if (refRowFree(candidate) && (pass == 2 || !crossesALine(candidate)) &&
                (pass >= 1 || !overData({left, candidate, right, candidate + smallPx}))) {
              y = candidate;
              break;
            }
      if (text && y) {
        R.label = {*text, right, *y, smallPx, TextAlign::Right};
        refRows.push_back({*y, *y + refRow});
      }
    }
    L.references.push_back(std::move(R));
  }
  auto shadeEdge = [&](double v) {
    if (L.x.accepts(v)) return std::clamp(L.x.map(v), r.x0, r.x1);
    return v > 0 ? r.x1 : r.x0;  // +inf: the right edge; -inf, or <= 0 on a log axis: the left
  };
  int shadeLabelRow = 0;  // labels of overlapping shades are stacked, not drawn over each other
  for (const Shade& sh : spec.shades) {
    PlotShadeLayout S;
    if (!std::isnan(sh.x0) && !std::isnan(sh.x1)) {
      const float a = shadeEdge(sh.x0), b = shadeEdge(sh.x1);
      S.px0 = std::min(a, b);
      S.px1 = std::max(a, b);
      S.visible = S.px1 - S.px0 >= 0.5f;
      if (S.visible && !sh.label.empty()) {
        // Whole inside the plot (a shade at the left edge cut "latency" to "atency"), in the first
        // row below those taken that no peak line or peak label crosses.
        S.label = {sh.label, (S.px0 + S.px1) * 0.5f, 0, smallPx, TextAlign::Center};
        fitTextInto(S.label, r.x0 + 2, r.x1 - 2, measure);
        for (int row = shadeLabelRow;; ++row) {
          S.label.y = r.y0 + (0.3f + 1.3f * float(row)) * fontPx;
          const PlotRect box = textBounds(S.label);
          const bool clear = !crossesALine(S.label.y) &&
                             std::none_of(L.references.begin(), L.references.end(), [&](const PlotReferenceLayout& R) {
                               return !R.label.empty() && overlaps(textBounds(R.label), box);
                             });
          if (clear || row >= shadeLabelRow + 6 || S.label.y + 2 * smallPx > r.y1) {
            shadeLabelRow = row + 1;
            break;
          }
        }
      }
    }
    L.shades.push_back(std::move(S));
  }

  // --- Legend: inside the plot area, one row per named series, in the corner that hides the
  // fewest points (top-left when there is a tie).
  if (spec.legend && !L.empty) {  // an empty plot has nothing to name
    const float rowH = fontPx * 1.35f, swatchW = fontPx * 1.6f, inner = 0.5f * fontPx;
    float maxW = 0;
    for (const Series& s : spec.series)
      if (!s.name.empty()) maxW = std::max(maxW, measure(s.name, fontPx));
    // The legend is never wider than the plot: longer names end in an ellipsis (the hover says all).
    const float textRoom = std::max(4 * fontPx, r.width() - 1.2f * fontPx - 3 * inner - swatchW);
    maxW = std::min(maxW, textRoom);
    PlotLegendLayout& G = L.legend;
    G.box.x0 = r.x0 + 0.6f * fontPx;
    G.box.y0 = r.y0 + 0.6f * fontPx;
    float y = G.box.y0 + 0.3f * fontPx;
    int named = 0;
    for (const Series& s : spec.series) named += !s.name.empty();
    // No more rows than the plot holds (a short plot cut its legend): the earlier ones summarised.
    // A plot that holds fewer than two rows gets no legend at all (a lone "+ N earlier" line only
    // covered a peak label): the series are named on hover and in the table.
    const int fitRows = std::max(0, int((r.height() - 1.8f * fontPx) / rowH));
    const bool room = fitRows >= 2;
    const int maxEntries = std::min(spec.legendMaxEntries > 0 ? spec.legendMaxEntries : named, named > fitRows ? fitRows - 1 : named);
    const int skip = std::max(0, named - std::max(1, maxEntries));
    if (room && skip > 0) {  // the earlier series are summarised in one line (no hover on paper: no "hover")
      const std::string more = "+ " + std::to_string(skip) + " earlier series";
      maxW = std::max(maxW, measure(more, fontPx) - swatchW - inner);
      PlotLegendEntry e;
      e.series = -1;
      e.text = {more, G.box.x0 + inner, y + (rowH - fontPx) * 0.5f, fontPx, TextAlign::Left};
      G.entries.push_back(std::move(e));
      y += rowH;
    }
    int seen = 0;
    for (size_t si = 0; room && si < spec.series.size(); ++si) {
      if (spec.series[si].name.empty()) continue;
      if (seen++ < skip) continue;
      PlotLegendEntry e;
      e.series = int(si);
      e.swatch = {G.box.x0 + inner, y + 0.2f * rowH, G.box.x0 + inner + swatchW, y + 0.8f * rowH};
      e.text = {spec.series[si].name, e.swatch.x1 + inner, y + (rowH - fontPx) * 0.5f, fontPx, TextAlign::Left};
      fitTextInto(e.text, e.text.x, e.text.x + maxW + 0.5f, measure);  // + 0.5: (x + w) - x may round below w
      G.entries.push_back(std::move(e));
      y += rowH;
    }
    G.box.x1 = G.box.x0 + 2 * inner + swatchW + inner + maxW;
    G.box.y1 = y + 0.3f * fontPx;
    G.visible = !G.entries.empty();
    const float w = G.box.x1 - G.box.x0, h = G.box.y1 - G.box.y0, m = 0.6f * fontPx;
    float xs[2] = {r.x0 + m, r.x1 - m - w}, ys[2] = {r.y0 + m, r.y1 - m - h};
    int best = 0, bestCount = INT32_MAX, bestData = 0;
    for (int c = 0; c < 4; ++c) {
      const float x0 = xs[c % 2], y0 = ys[c / 2];
      int data = 0, count = 0;
      const PlotRect box{x0, y0, x0 + w, y0 + h};
      const PlotRect around{x0 - m, y0 - m, x0 + w + m, y0 + h + m};
      for (size_t si = 0; si < L.series.size(); ++si) {  // data: points, lines, bars and their labels
        const PlotSeriesLayout& S = L.series[si];
        const bool line = spec.series[si].kind == SeriesKind::Line;
        for (size_t k = 0; k < S.points.size(); ++k) {
          const PlotPoint& p = S.points[k];
          if (!p.valid) continue;
          if (around.contains(p.px, p.py) || (S.barWidth > 0 && overlaps(p.bar, box))) ++data;
          else if (line && k + 1 < S.points.size() && S.points[k + 1].valid &&
                   segmentCrosses(p.px, p.py, S.points[k + 1].px, S.points[k + 1].py, around))
            ++data;  // a line between two points outside the box still runs under it
          if (!p.label.empty() && overlaps(textBounds(p.label), box)) ++data;
        }
      }
      int lines = 0;
      for (const PlotReferenceLayout& R : L.references) {  // and keep the reference labels readable
        if (R.visible && !R.label.empty() && overlaps(textBounds(R.label), box)) data += 5;
        lines += R.visible && R.py >= around.y0 && R.py <= around.y1;  // a corner off the peak lines is better
      }
      count = data + lines;  // (a line under the legend alone moves it to another corner, not out)
      for (const PlotShadeLayout& S : L.shades)  // these can move out of the way (below)
        if (S.visible && !S.label.empty() && overlaps(textBounds(S.label), box)) count += 1;
      if (count < bestCount) best = c, bestCount = count, bestData = data;
    }
    G.covered = bestData;
    if (legendStrip > 0) {  // the strip reserved beside the plot: nothing to cover there
      xs[best % 2] = width - legendStrip + 0.5f * m, ys[best / 2] = r.y0;
      G.covered = 0;
    }
    if (legendBelow > 0) {  // the strip under the x axis label: entries in as many columns as fit
      G.covered = 0;
      const float entryW = 2 * inner + swatchW + maxW, x0 = pad, y0 = height - legendBelow;
      const int cols = std::max(1, int((width - 2 * pad) / entryW));
      int i = 0;
      for (PlotLegendEntry& e : G.entries) {
        const float ex = x0 + float(i % cols) * entryW, ey = y0 + 0.3f * fontPx + float(i / cols) * rowH;
        const float ddx = ex - (e.series < 0 ? e.text.x - inner : e.swatch.x0 - inner), ddy = ey - (e.text.y - (rowH - fontPx) * 0.5f);
        e.swatch = {e.swatch.x0 + ddx, e.swatch.y0 + ddy, e.swatch.x1 + ddx, e.swatch.y1 + ddy};
        e.text.x += ddx;
        e.text.y += ddy;
        ++i;
      }
      const int rows = (int(G.entries.size()) + cols - 1) / cols;
      G.box = {x0, y0, x0 + float(std::min<int>(cols, int(G.entries.size()))) * entryW, y0 + 0.6f * fontPx + float(rows) * rowH};
      xs[best % 2] = G.box.x0, ys[best / 2] = G.box.y0;
    }
    const float dx = xs[best % 2] - G.box.x0, dy = ys[best / 2] - G.box.y0;
    G.box = {G.box.x0 + dx, G.box.y0 + dy, G.box.x1 + dx, G.box.y1 + dy};
    for (PlotLegendEntry& e : G.entries) {
      e.swatch = {e.swatch.x0 + dx, e.swatch.y0 + dy, e.swatch.x1 + dx, e.swatch.y1 + dy};  // unused when series < 0
      e.text.x += dx;
      e.text.y += dy;
    }
    // A shade label the legend still covers moves to the legend's right when its shade has room
    // there, else under the legend (stacked when several move).
    float belowY = G.box.y1 + 0.3f * fontPx;
    for (PlotShadeLayout& S : L.shades) {
      if (!G.visible || S.label.empty() || !overlaps(textBounds(S.label), G.box)) continue;
      const float lw = measure(S.label.text, S.label.px), x0 = G.box.x1 + 0.5f * fontPx;
      if (x0 + lw <= S.px1) {
        S.label.x = x0 + 0.5f * lw;
      } else if (belowY + S.label.px <= r.y1) {
        S.label.y = belowY;
        belowY += 1.3f * fontPx;
      }
    }
  }
  // --- Titles and axis labels must be whole at any size and UI scale: smaller (down to 70 %),
  // then shortened with an ellipsis, and kept inside the figure.
  for (PlotText* t : {&L.title, &L.subtitle, &L.xLabel, &L.yLabel, &L.y2Label, &L.emptyMessage})
    fitTextInto(*t, pad, width - pad, measure);
  if (L.empty) {  // no data: no invented 0..1 axes, only the message
    L.x.ticks.clear();
    L.y.ticks.clear();
    L.y2.ticks.clear();
    if (L.emptyMessage.empty()) L.emptyMessage = {"no data yet", (r.x0 + r.x1) * 0.5f, (r.y0 + r.y1 - fontPx) * 0.5f,
                                                  fontPx, TextAlign::Center};
    fitTextInto(L.emptyMessage, pad, width - pad, measure);
    // The message keeps clear of the peak labels: the free row nearest the centre.
    PlotText& m = L.emptyMessage;
    const float mw = measure(m.text, m.px), mx0 = m.x - 0.5f * mw, mx1 = m.x + 0.5f * mw;
    auto clear = [&](float y) {
      if (y < r.y0 || y + m.px > r.y1) return false;
      for (const PlotReferenceLayout& R : L.references) {
        if (R.label.empty()) continue;
        const float w = measure(R.label.text, R.label.px);
        if (mx0 < R.label.x && R.label.x - w < mx1 && y < R.label.y + R.label.px && R.label.y < y + m.px) return false;
      }
      return true;
    };
    const float centre = m.y, step = 0.25f * m.px;
    bool placed = false;
    for (int k = 0; !placed && (centre - float(k) * step >= r.y0 || centre + float(k) * step <= r.y1); ++k)
      for (float y : {centre + float(k) * step, centre - float(k) * step})
        if (!placed && clear(y)) {
          m.y = y;
          placed = true;
        }
    if (!placed)  // a plot too small for both: the message says what to do, the lines stay unlabelled
      for (PlotReferenceLayout& R : L.references) {
        if (R.label.empty()) continue;
        const float w = measure(R.label.text, R.label.px);
        if (mx0 < R.label.x && R.label.x - w < mx1 && m.y < R.label.y + R.label.px && R.label.y < m.y + m.px) R.label = {};
      }
  }
  return L;
}

}  // namespace

PlotLayout computePlotLayout(const PlotSpec& spec, float width, float height, float fontPx,
                             const TextMeasure& measure) {
  PlotLayout L = layoutPlot(spec, width, height, fontPx, measure, 0);
  // A legend that would cover data in every corner moves out, into a strip at the right, else
  // (a narrow plot) into rows under the plot.
  if (L.legend.visible && L.legend.covered > 0) {
    const float strip = L.legend.box.width() + 1.2f * fontPx;
    if (strip < 0.4f * width) return layoutPlot(spec, width, height, fontPx, measure, strip);
    const float pad = std::max(6.0f, 0.6f * fontPx), rowH = fontPx * 1.35f;
    const float entryW = L.legend.box.width() - 0.5f * fontPx;  // its entries' width, without the box's margin
    const int cols = std::max(1, int((width - 2 * pad) / std::max(entryW, 1.0f)));
    const int rows = (int(L.legend.entries.size()) + cols - 1) / cols;
    // One row spare: the shorter plot may summarise more series in a "+ N earlier" line.
    const float below = 0.6f * fontPx + float(rows + 1) * rowH + 0.3f * fontPx;
    if (below < 0.35f * height) return layoutPlot(spec, width, height, fontPx, measure, 0, below);
    // Nowhere to go in a small plot: a legend over a peak's label would garble both; without it
    // the series are still named on hover and in the table.
    for (const PlotReferenceLayout& R : L.references) {
      if (R.label.empty()) continue;
      const float w = measure(R.label.text, R.label.px);
      const PlotRect& b = L.legend.box;
      if (R.label.x - w < b.x1 && b.x0 < R.label.x && R.label.y < b.y1 && b.y0 < R.label.y + R.label.px) {
        L.legend = {};
        break;
      }
    }
  }
  return L;
}

// The series styles (plot.hpp), shared by the screen, cairo's figures and the browser's.
namespace {
constexpr uint32_t paletteRgb(uint32_t r, uint32_t g, uint32_t b) { return 0xFF000000u | (b << 16) | (g << 8) | r; }
}  // namespace

uint32_t paletteColor(int index) {
  // Okabe & Ito's colour-blind-safe hues without black (invisible on the dark theme) and yellow
  // (invisible on white), and Tol's olive: every pair apart under deutan and protan simulation.
  static constexpr uint32_t kColors[kPaletteColors] = {
      paletteRgb(0x00, 0x72, 0xb2),  // blue
      paletteRgb(0xe6, 0x9f, 0x00),  // orange
      paletteRgb(0x00, 0x9e, 0x73),  // bluish green
      paletteRgb(0xd5, 0x5e, 0x00),  // vermillion
      paletteRgb(0x56, 0xb4, 0xe9),  // sky blue
      paletteRgb(0xcc, 0x79, 0xa7),  // reddish purple
      paletteRgb(0x99, 0x99, 0x33),  // olive (Tol's; Okabe & Ito's yellow does not read on white)
  };
  return kColors[((index % kPaletteColors) + kPaletteColors) % kPaletteColors];
}

Marker paletteMarker(int index) {
  static constexpr Marker kMarkers[kPaletteMarkers] = {Marker::Circle, Marker::Square, Marker::TriangleUp,
                                                       Marker::Diamond, Marker::TriangleDown};
  return kMarkers[((index % kPaletteMarkers) + kPaletteMarkers) % kPaletteMarkers];
}

uint32_t neutralColor() { return paletteRgb(0x7a, 0x8b, 0x99); }

}  // namespace rl::gui
