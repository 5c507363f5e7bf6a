// toSvg: the plot as a standalone SVG 1.1 document, drawn from the same PlotLayout as drawPlot
// so the export matches the screen. Text stays text (<text>), measured approximately.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

#include "plot_layout.hpp"
#include "reducelab/gui/plot.hpp"

namespace rl::gui {

namespace {

constexpr uint32_t rgb(uint32_t r, uint32_t g, uint32_t b) { return 0xFF000000u | (b << 16) | (g << 8) | r; }

}  // namespace

uint32_t paletteColor(int index) {
  // Mid-tone colours: dark enough on white, light enough on a dark background, and apart in hue.
  static constexpr uint32_t kColors[] = {
      rgb(0x2f, 0x7e, 0xd8),  // blue
      rgb(0xe8, 0x74, 0x3b),  // orange
      rgb(0x19, 0xa9, 0x79),  // green
      rgb(0xd6, 0x45, 0x50),  // red
      rgb(0x94, 0x5e, 0xcf),  // purple
      rgb(0x13, 0xa4, 0xb4),  // teal
      rgb(0xc9, 0x9a, 0x06),  // mustard
      rgb(0xe3, 0x5d, 0x9c),  // pink
      rgb(0x7a, 0x8b, 0x99),  // slate
      rgb(0xa8, 0x78, 0x45),  // brown
  };
  const int n = int(std::size(kColors));
  return kColors[((index % n) + n) % n];
}

namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Text for XML: &, <, >, " escaped; bytes that are not valid UTF-8 and control characters (not
// allowed in XML 1.0) become U+FFFD, so any series name still gives a well-formed document.
std::string xmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += (c < 0x20 && c != '\t' && c != '\n' && c != '\r') ? kReplacement : std::string(1, char(c));
      }
      ++i;
      continue;
    }
    const size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    uint32_t cp = c & (0x7Fu >> len);
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and non-characters are not valid XML text either.
    ok = ok && cp >= (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) && cp <= 0x10FFFF &&
         !(cp >= 0xD800 && cp <= 0xDFFF) && cp != 0xFFFE && cp != 0xFFFF;
    if (ok) {
      out.append(s, i, len);
      i += len;
    } else {
      out += kReplacement;
      ++i;
    }
  }
  return out;
}

// Approximate width of DejaVu Sans text: 0.55 em per code point.
float measureSvgText(const std::string& s, float px) {
  size_t points = 0;
  for (char c : s) points += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return 0.55f * px * float(points);
}

// Coordinates with at most two decimals, no trailing zeros.
std::string num(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.2f", v);
  std::string s = b;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

// IM_COL32 (0xAABBGGRR) -> "#rrggbb" and an opacity.
std::string hex(uint32_t c) {
  char b[8];
  std::snprintf(b, sizeof b, "#%02x%02x%02x", c & 0xFF, (c >> 8) & 0xFF, (c >> 16) & 0xFF);
  return b;
}
double alphaOf(uint32_t c) { return double(c >> 24) / 255.0; }

struct Theme {
  uint32_t background, plotBackground, text, tickText, grid, axis, legendBackground, legendBorder,
      reference, shade;
};

const Theme kWhite{rgb(0xff, 0xff, 0xff), rgb(0xff, 0xff, 0xff), rgb(0x22, 0x22, 0x22),
                   rgb(0x44, 0x44, 0x44), rgb(0xe2, 0xe2, 0xe4), rgb(0x55, 0x55, 0x58),
                   rgb(0xff, 0xff, 0xff), rgb(0xc8, 0xc8, 0xcc), rgb(0x66, 0x66, 0x66),
                   rgb(0x88, 0x99, 0xaa)};
const Theme kDark{rgb(0x1c, 0x1c, 0x20), rgb(0x23, 0x23, 0x28), rgb(0xe8, 0xe8, 0xea),
                  rgb(0xc0, 0xc0, 0xc4), rgb(0x3a, 0x3a, 0x40), rgb(0x9a, 0x9a, 0xa0),
                  rgb(0x1c, 0x1c, 0x20), rgb(0x55, 0x55, 0x5a), rgb(0xaa, 0xaa, 0xaa),
                  rgb(0x88, 0x99, 0xaa)};

class SvgWriter {
 public:
  std::string out;

  void raw(const std::string& s) { out += s; }

  // fill / stroke attributes, with an opacity attribute only where the colour is translucent.
  std::string fill(uint32_t c, double opacity = 1) const {
    const double a = alphaOf(c) * opacity;
    return " fill=\"" + hex(c) + "\"" + (a < 0.999 ? " fill-opacity=\"" + num(a) + "\"" : "");
  }
  std::string stroke(uint32_t c, double width, bool dashed = false) const {
    const double a = alphaOf(c);
    return " fill=\"none\" stroke=\"" + hex(c) + "\" stroke-width=\"" + num(width) + "\"" +
           (a < 0.999 ? " stroke-opacity=\"" + num(a) + "\"" : "") +
           (dashed ? " stroke-dasharray=\"6 4\"" : "");
  }

  void line(float x1, float y1, float x2, float y2, const std::string& style) {
    out += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
           "\"" + style + "/>\n";
  }
  void rect(const PlotRect& r, const std::string& style, const char* cls = nullptr) {
    out += "<rect";
    if (cls) out += std::string(" class=\"") + cls + "\"";
    out += " x=\"" + num(r.x0) + "\" y=\"" + num(r.y0) + "\" width=\"" + num(r.width()) + "\" height=\"" +
           num(r.height()) + "\"" + style + "/>\n";
  }
  void circle(float x, float y, float radius, const std::string& style) {
    out += "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(radius) + "\"" + style + "/>\n";
  }
  // The layout anchors text on the top of its line box; SVG on the baseline (~0.8 em lower).
  void text(const PlotText& t, uint32_t color, const char* cls = nullptr) {
    if (t.empty()) return;
    const char* anchor = t.align == TextAlign::Center ? "middle" : t.align == TextAlign::Right ? "end" : "start";
    out += "<text";
    if (cls) out += std::string(" class=\"") + cls + "\"";
    out += " x=\"" + num(t.x) + "\" y=\"" + num(t.y + 0.8f * t.px) + "\" font-size=\"" + num(t.px) + "\"";
    if (t.align != TextAlign::Left) out += std::string(" text-anchor=\"") + anchor + "\"";
    out += fill(color) + ">" + xmlEscape(t.text) + "</text>\n";
  }
};

// Translucent fill for a shade: its own alpha if it has one, else a light wash.
double shadeOpacity(uint32_t c) {
  const uint32_t a = c >> 24;
  return a == 0 || a == 255 ? 0.15 : a / 255.0;
}

// One <g class="series">: shapes clipped to the plot area, point labels unclipped above them.
void writeSeries(SvgWriter& w, const Series& s, const PlotSeriesLayout& S, const PlotLayout& L,
                 uint32_t textColor) {
  w.raw("<g class=\"series\" data-name=\"" + xmlEscape(s.name) + "\">\n");
  w.raw("<g clip-path=\"url(#plot-area)\">\n");
  const uint32_t color = S.color;
  const std::string errorStyle = w.stroke(color, std::max(1.0f, L.lineWidth * 0.6f));
  auto errorBars = [&](float capHalf) {
    for (const PlotPoint& p : S.points) {
      if (!p.valid || !p.band) continue;
      w.line(p.px, p.pyLow, p.px, p.pyHigh, errorStyle);
      w.line(p.px - capHalf, p.pyLow, p.px + capHalf, p.pyLow, errorStyle);
      w.line(p.px - capHalf, p.pyHigh, p.px + capHalf, p.pyHigh, errorStyle);
    }
  };
  // Runs of consecutive valid points: lines and bands break where a point cannot be placed.
  auto runs = [&](auto&& each) {
    size_t i = 0;
    while (i < S.points.size()) {
      while (i < S.points.size() && !S.points[i].valid) ++i;
      size_t j = i;
      while (j < S.points.size() && S.points[j].valid) ++j;
      if (j > i) each(i, j);
      i = j;
    }
  };
  switch (s.kind) {
    case SeriesKind::Line: {
      runs([&](size_t i, size_t j) {
        // The band: upper edge forwards, lower edge backwards, over points that have both.
        size_t a = i;
        while (a < j) {
          while (a < j && !S.points[a].band) ++a;
          size_t b = a;
          while (b < j && S.points[b].band) ++b;
          if (b - a >= 2) {
            std::string pts;
            for (size_t k = a; k < b; ++k) pts += num(S.points[k].px) + "," + num(S.points[k].pyHigh) + " ";
            for (size_t k = b; k-- > a;) pts += num(S.points[k].px) + "," + num(S.points[k].pyLow) + " ";
            pts.pop_back();
            w.raw("<polygon points=\"" + pts + "\"" + w.fill(color, 0.2) + "/>\n");
          }
          a = b;
        }
      });
      runs([&](size_t i, size_t j) {
        if (j - i < 2) return;
        std::string pts;
        for (size_t k = i; k < j; ++k) pts += num(S.points[k].px) + "," + num(S.points[k].py) + " ";
        pts.pop_back();
        w.raw("<polyline points=\"" + pts + "\"" + w.stroke(color, L.lineWidth, s.dashed) +
              " stroke-linejoin=\"round\"/>\n");
      });
      // A lone band point (neighbours missing) still shows its range, as an error bar.
      for (size_t k = 0; k < S.points.size(); ++k) {
        const PlotPoint& p = S.points[k];
        const bool prev = k > 0 && S.points[k - 1].valid && S.points[k - 1].band;
        const bool next = k + 1 < S.points.size() && S.points[k + 1].valid && S.points[k + 1].band;
        if (p.valid && p.band && !prev && !next) w.line(p.px, p.pyLow, p.px, p.pyHigh, errorStyle);
      }
      for (const PlotPoint& p : S.points)
        if (p.valid) w.circle(p.px, p.py, L.markerRadius, w.fill(color));
      break;
    }
    case SeriesKind::Scatter:
      errorBars(L.markerRadius * 1.3f);
      for (const PlotPoint& p : S.points)
        if (p.valid) w.circle(p.px, p.py, L.markerRadius * 1.15f, w.fill(color));
      break;
    case SeriesKind::Bars:
      for (const PlotPoint& p : S.points)
        if (p.valid) w.rect(p.bar, w.fill(color));
      errorBars(std::min(L.markerRadius * 1.5f, S.barWidth * 0.25f));
      break;
  }
  w.raw("</g>\n");
  for (const PlotPoint& p : S.points)
    if (p.valid) w.text(p.label, textColor, "point-label");
  w.raw("</g>\n");
}

}  // namespace

std::string toSvg(const PlotSpec& spec, const SvgOptions& options) {
  const int width = std::max(options.width, 16), height = std::max(options.height, 16);
  const float fontPx = float(options.fontSize > 1 ? options.fontSize : 14);
  const PlotLayout L = computePlotLayout(spec, float(width), float(height), fontPx, measureSvgText);
  const Theme& th = options.whiteBackground ? kWhite : kDark;
  const PlotRect& r = L.plot;

  SvgWriter w;
  w.raw("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
  w.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + std::to_string(width) +
        "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
        std::to_string(height) + "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"" + num(fontPx) +
        "\">\n");
  if (!spec.title.empty()) w.raw("<title>" + xmlEscape(spec.title) + "</title>\n");
  w.raw("<defs><clipPath id=\"plot-area\"><rect x=\"" + num(r.x0) + "\" y=\"" + num(r.y0) + "\" width=\"" +
        num(r.width()) + "\" height=\"" + num(r.height()) + "\"/></clipPath></defs>\n");
  w.rect({0, 0, float(width), float(height)}, w.fill(th.background), "background");
  w.rect(r, w.fill(th.plotBackground), "plot-area");

  // Shaded x ranges, under everything else.
  w.raw("<g class=\"shades\">\n");
  for (size_t i = 0; i < spec.shades.size(); ++i) {
    const PlotShadeLayout& S = L.shades[i];
    if (!S.visible) continue;
    const uint32_t c = spec.shades[i].color ? spec.shades[i].color : th.shade;
    w.rect({S.px0, r.y0, S.px1, r.y1}, " fill=\"" + hex(c) + "\" fill-opacity=\"" + num(shadeOpacity(c)) + "\"");
    w.text(S.label, th.tickText, "shade-label");
  }
  w.raw("</g>\n");

  // Grid: vertical lines only on numeric x axes (category slots need none).
  w.raw("<g class=\"grid\"" + w.stroke(th.grid, 1) + ">\n");
  if (!L.x.categorical)
    for (const PlotTick& t : L.x.ticks) w.line(t.pos, r.y0, t.pos, r.y1, "");
  for (const PlotTick& t : L.y.ticks) w.line(r.x0, t.pos, r.x1, t.pos, "");
  w.raw("</g>\n");

  // Reference lines, label at the right end.
  w.raw("<g class=\"references\">\n");
  for (size_t i = 0; i < spec.references.size(); ++i) {
    const PlotReferenceLayout& R = L.references[i];
    if (!R.visible) continue;
    const uint32_t c = spec.references[i].color ? spec.references[i].color : th.reference;
    w.line(r.x0, R.py, r.x1, R.py, w.stroke(c, 1.5, spec.references[i].dashed));
    w.text(R.label, c | 0xFF000000u, "reference-label");
  }
  w.raw("</g>\n");

  for (size_t i = 0; i < spec.series.size(); ++i) {
    writeSeries(w, spec.series[i], L.series[i], L, th.text);
  }

  // Axes: lines, tick marks and tick labels.
  w.raw("<g class=\"axes\">\n");
  const std::string axisStyle = w.stroke(th.axis, 1);
  w.line(r.x0, r.y1, r.x1, r.y1, axisStyle);
  w.line(r.x0, r.y0, r.x0, r.y1, axisStyle);
  if (L.hasY2) w.line(r.x1, r.y0, r.x1, r.y1, axisStyle);
  for (const PlotTick& t : L.x.ticks) {
    w.line(t.pos, r.y1, t.pos, r.y1 + L.tickLength, axisStyle);
    w.text(t.label, th.tickText, "tick");
  }
  for (const PlotTick& t : L.y.ticks) {
    w.line(r.x0 - L.tickLength, t.pos, r.x0, t.pos, axisStyle);
    w.text(t.label, th.tickText, "tick");
  }
  for (const PlotTick& t : L.y2.ticks) {
    w.line(r.x1, t.pos, r.x1 + L.tickLength, t.pos, axisStyle);
    w.text(t.label, th.tickText, "tick");
  }
  w.raw("</g>\n");

  if (L.legend.visible) {
    w.raw("<g class=\"legend\">\n");
    w.rect(L.legend.box, w.fill(th.legendBackground, 0.85) + " stroke=\"" + hex(th.legendBorder) + "\" rx=\"3\"");
    for (const PlotLegendEntry& e : L.legend.entries) {
      if (e.series < 0) {  // a text-only line ("+ 8 earlier")
        w.text(e.text, th.tickText);
        continue;
      }
      const Series& s = spec.series[size_t(e.series)];
      const uint32_t c = L.series[size_t(e.series)].color;
      const float cy = (e.swatch.y0 + e.swatch.y1) * 0.5f, cx = (e.swatch.x0 + e.swatch.x1) * 0.5f;
      if (s.kind == SeriesKind::Bars) {
        w.rect(e.swatch, w.fill(c));
      } else {
        if (s.kind == SeriesKind::Line) w.line(e.swatch.x0, cy, e.swatch.x1, cy, w.stroke(c, L.lineWidth, s.dashed));
        w.circle(cx, cy, L.markerRadius, w.fill(c));
      }
      w.text(e.text, th.text);
    }
    w.raw("</g>\n");
  }

  w.text(L.title, th.text, "title");
  w.text(L.subtitle, th.tickText, "subtitle");
  w.text(L.xLabel, th.text, "axis-label");
  w.text(L.yLabel, th.text, "axis-label");
  w.text(L.y2Label, th.text, "axis-label");
  w.text(L.emptyMessage, th.tickText, "empty-message");
  w.raw("</svg>\n");
  return w.out;
}

}  // namespace rl::gui
