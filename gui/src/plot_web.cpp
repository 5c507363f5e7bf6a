// Exported figures in the browser, where there is no cairo: SVG written here from the same
// PlotLayout as the screen's drawPlot and cairo's figures (plot_cairo.cpp, whose drawFigure this
// follows element by element), text measured with the UI's DejaVu Sans; PNG of what GL drew (the trace
// views) through stb_image_write. No PDF, and no PNG of a plot (that needs a rasterizer): the
// plots' PNG button is SVG's in the browser, and the browser prints SVG to PDF.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "plot_layout.hpp"
#include "reducelab/gui/plot.hpp"

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace rl::gui {
namespace {

constexpr uint32_t rgb(uint32_t r, uint32_t g, uint32_t b) { return 0xFF000000u | (b << 16) | (g << 8) | r; }

struct Theme {
  uint32_t background, plotBackground, text, tickText, grid, axis, legendBackground, legendBorder, reference, shade;
};
// As plot_cairo.cpp's.
const Theme kWhite{rgb(0xff, 0xff, 0xff), rgb(0xff, 0xff, 0xff), rgb(0x22, 0x22, 0x22), rgb(0x44, 0x44, 0x44),
                   rgb(0xe2, 0xe2, 0xe4), rgb(0x55, 0x55, 0x58), rgb(0xff, 0xff, 0xff), rgb(0xc8, 0xc8, 0xcc),
                   rgb(0x66, 0x66, 0x66), rgb(0x88, 0x99, 0xaa)};
const Theme kDark{rgb(0x1c, 0x1c, 0x20), rgb(0x23, 0x23, 0x28), rgb(0xe8, 0xe8, 0xea), rgb(0xc0, 0xc0, 0xc4),
                  rgb(0x3a, 0x3a, 0x40), rgb(0x9a, 0x9a, 0xa0), rgb(0x1c, 0x1c, 0x20), rgb(0x55, 0x55, 0x5a),
                  rgb(0xaa, 0xaa, 0xaa), rgb(0x88, 0x99, 0xaa)};

double shadeOpacity(uint32_t c) {
  const uint32_t a = c >> 24;
  return a == 0 || a == 255 ? 0.15 : a / 255.0;
}

std::string escapeXml(const std::string& s) {
  std::string o;
  for (const char ch : s) {
    if (ch == '&') o += "&amp;";
    else if (ch == '<') o += "&lt;";
    else if (ch == '>') o += "&gt;";
    else if (ch == '"') o += "&quot;";
    else if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\t') o += ch;
  }
  return o;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  std::string s = b;
  while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.')) {
    const bool dot = s.back() == '.';
    s.pop_back();
    if (dot) break;
  }
  return s == "-0" ? "0" : s;
}

// The width of text in the UI's font (DejaVu Sans, as cairo's), else an estimate.
float measureText(const std::string& text, float px) {
  if (ImGui::GetCurrentContext() && ImGui::GetIO().Fonts && !ImGui::GetIO().Fonts->Fonts.empty()) {
    ImFont* f = ImGui::GetIO().Fonts->Fonts[0];
    if (f->IsLoaded()) return f->CalcTextSizeA(px, 1e9f, 0, text.c_str()).x;
  }
  return 0.55f * px * float(text.size());
}

class SvgPainter {
 public:
  std::string out;
  std::string paint(uint32_t c, double opacity = 1) const {
    char b[64];
    std::snprintf(b, sizeof b, "#%02x%02x%02x", c & 0xFF, (c >> 8) & 0xFF, (c >> 16) & 0xFF);
    const double a = double(c >> 24) / 255.0 * opacity;
    return a < 0.999 ? std::string(b) + "\" fill-opacity=\"" + num(a) : std::string(b);
  }
  std::string strokePaint(uint32_t c, double width, bool dashed) const {
    char b[16];
    std::snprintf(b, sizeof b, "#%02x%02x%02x", c & 0xFF, (c >> 8) & 0xFF, (c >> 16) & 0xFF);
    return std::string("fill=\"none\" stroke=\"") + b + "\" stroke-width=\"" + num(width) + "\"" +
           (dashed ? " stroke-dasharray=\"6 4\"" : "") + " stroke-linejoin=\"round\"";
  }
  void rect(const PlotRect& r, uint32_t c, double opacity = 1) {
    out += "<rect x=\"" + num(r.x0) + "\" y=\"" + num(r.y0) + "\" width=\"" + num(r.width()) + "\" height=\"" +
           num(r.height()) + "\" fill=\"" + paint(c, opacity) + "\"/>\n";
  }
  void rectOutline(const PlotRect& r, uint32_t c, double width) {
    out += "<rect x=\"" + num(r.x0) + "\" y=\"" + num(r.y0) + "\" width=\"" + num(r.width()) + "\" height=\"" +
           num(r.height()) + "\" " + strokePaint(c, width, false) + "/>\n";
  }
  void line(float x0, float y0, float x1, float y1, uint32_t c, double width, bool dashed = false) {
    out += "<line x1=\"" + num(x0) + "\" y1=\"" + num(y0) + "\" x2=\"" + num(x1) + "\" y2=\"" + num(y1) + "\" " +
           strokePaint(c, width, dashed) + "/>\n";
  }
  std::string points(const std::vector<std::pair<float, float>>& pts) const {
    std::string s;
    for (const auto& [x, y] : pts) s += num(x) + "," + num(y) + " ";
    return s;
  }
  void polyline(const std::vector<std::pair<float, float>>& pts, uint32_t c, double width, bool dashed) {
    out += "<polyline points=\"" + points(pts) + "\" " + strokePaint(c, width, dashed) + "/>\n";
  }
  void polygon(const std::vector<std::pair<float, float>>& pts, uint32_t c, double opacity) {
    out += "<polygon points=\"" + points(pts) + "\" fill=\"" + paint(c, opacity) + "\"/>\n";
  }
  void circle(float x, float y, float r, uint32_t c) {
    out += "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) + "\" fill=\"" + paint(c) + "\"/>\n";
  }
  void marker(Marker m, float x, float y, float r, uint32_t c) {
    const std::vector<MarkerPoint> outline = markerOutline(m, x, y, r);
    if (outline.empty()) return circle(x, y, r, c);
    std::vector<std::pair<float, float>> pts;
    for (const MarkerPoint& p : outline) pts.emplace_back(p.x, p.y);
    polygon(pts, c, 1);
  }
  // The layout anchors text on the top of its line box; SVG's y is the baseline (DejaVu's ascent
  // is 0.76 of its line box, as cairo measures it).
  void text(const PlotText& t, uint32_t c) {
    if (t.empty()) return;
    const char* anchor = t.align == TextAlign::Center ? "middle" : t.align == TextAlign::Right ? "end" : "start";
    out += "<text x=\"" + num(t.x) + "\" y=\"" + num(t.y + 0.76 * t.px) + "\" font-size=\"" + num(t.px) +
           "\" text-anchor=\"" + anchor + "\" fill=\"" + paint(c) + "\">" + escapeXml(t.text) + "</text>\n";
  }
  void textOnBackdrop(const PlotText& t, uint32_t c, uint32_t backdrop) {
    if (t.empty()) return;
    const double w = measureText(t.text, t.px);
    const double x0 = t.align == TextAlign::Center ? t.x - w / 2 : t.align == TextAlign::Right ? t.x - w : t.x;
    rect({float(x0 - 2), t.y - 1, float(x0 + w + 2), t.y + t.px + 1}, backdrop, 0.75);
    text(t, c);
  }
  void clipTo(const PlotRect& r) {
    ++clips_;
    out += "<clipPath id=\"c" + std::to_string(clips_) + "\"><rect x=\"" + num(r.x0) + "\" y=\"" + num(r.y0) +
           "\" width=\"" + num(r.width()) + "\" height=\"" + num(r.height()) + "\"/></clipPath>\n<g clip-path=\"url(#c" +
           std::to_string(clips_) + ")\">\n";
  }
  void unclip() { out += "</g>\n"; }

 private:
  int clips_ = 0;
};

template <class F>
void forRuns(const std::vector<PlotPoint>& pts, F&& each) {
  size_t i = 0;
  while (i < pts.size()) {
    while (i < pts.size() && !pts[i].valid) ++i;
    size_t j = i;
    while (j < pts.size() && pts[j].valid) ++j;
    if (j > i) each(i, j);
    i = j;
  }
}

void drawSeries(SvgPainter& P, const Series& s, const PlotSeriesLayout& S, const PlotLayout& L, uint32_t textColor) {
  const uint32_t c = S.color;
  const double errorWidth = std::max(1.0f, L.lineWidth * 0.6f);
  auto errorBar = [&](const PlotPoint& p, float capHalf) {
    P.line(p.px, p.pyLow, p.px, p.pyHigh, c, errorWidth);
    P.line(p.px - capHalf, p.pyLow, p.px + capHalf, p.pyLow, c, errorWidth);
    P.line(p.px - capHalf, p.pyHigh, p.px + capHalf, p.pyHigh, c, errorWidth);
  };
  P.clipTo(L.plot);
  switch (s.kind) {
    case SeriesKind::Line: {
      forRuns(S.points, [&](size_t i, size_t j) {
        size_t a = i;
        while (a < j) {
          while (a < j && !S.points[a].band) ++a;
          size_t b = a;
          while (b < j && S.points[b].band) ++b;
          if (b - a >= 2) {
            std::vector<std::pair<float, float>> band;
            for (size_t k = a; k < b; ++k) band.emplace_back(S.points[k].px, S.points[k].pyHigh);
            for (size_t k = b; k-- > a;) band.emplace_back(S.points[k].px, S.points[k].pyLow);
            P.polygon(band, c, 0.2);
          }
          a = b;
        }
      });
      forRuns(S.points, [&](size_t i, size_t j) {
        if (j - i < 2) return;
        std::vector<std::pair<float, float>> pts;
        for (size_t k = i; k < j; ++k) pts.emplace_back(S.points[k].px, S.points[k].py);
        P.polyline(pts, c, L.lineWidth, s.dashed);
      });
      for (size_t k = 0; k < S.points.size(); ++k) {
        const PlotPoint& p = S.points[k];
        const bool prev = k > 0 && S.points[k - 1].valid && S.points[k - 1].band;
        const bool next = k + 1 < S.points.size() && S.points[k + 1].valid && S.points[k + 1].band;
        if (p.valid && p.band && !prev && !next) P.line(p.px, p.pyLow, p.px, p.pyHigh, c, errorWidth);
      }
      for (const PlotPoint& p : S.points)
        if (p.valid) P.marker(S.marker, p.px, p.py, L.markerRadius, c);
      break;
    }
    case SeriesKind::Scatter:
      for (const PlotPoint& p : S.points)
        if (p.valid && p.band) errorBar(p, L.markerRadius * 1.3f);
      for (const PlotPoint& p : S.points)
        if (p.valid) P.marker(S.marker, p.px, p.py, L.markerRadius * 1.15f, c);
      break;
    case SeriesKind::Bars:
      for (const PlotPoint& p : S.points)
        if (p.valid) P.rect(p.bar, c);
      for (const PlotPoint& p : S.points)
        if (p.valid && p.band) errorBar(p, std::min(L.markerRadius * 1.5f, S.barWidth * 0.25f));
      break;
  }
  P.unclip();
  for (const PlotPoint& p : S.points)
    if (p.valid) P.text(p.label, textColor);
}

void drawFigure(SvgPainter& P, const PlotSpec& spec, const PlotLayout& L, const Theme& th) {
  const PlotRect& r = L.plot;
  P.rect({0, 0, L.width, L.height}, th.background);
  P.rect(r, th.plotBackground);
  for (size_t i = 0; i < spec.shades.size(); ++i) {
    const PlotShadeLayout& S = L.shades[i];
    if (!S.visible) continue;
    const uint32_t c = spec.shades[i].color ? spec.shades[i].color : th.shade;
    P.rect({S.px0, r.y0, S.px1, r.y1}, c | 0xFF000000u, shadeOpacity(c));
  }
  if (!L.x.categorical)
    for (const PlotTick& t : L.x.ticks) P.line(t.pos, r.y0, t.pos, r.y1, th.grid, 1);
  for (const PlotTick& t : L.y.ticks) P.line(r.x0, t.pos, r.x1, t.pos, th.grid, 1);
  for (size_t i = 0; i < spec.references.size(); ++i) {
    const PlotReferenceLayout& R = L.references[i];
    if (!R.visible) continue;
    const uint32_t c = (spec.references[i].color ? spec.references[i].color : th.reference) | 0xFF000000u;
    P.line(r.x0, R.py, r.x1, R.py, c, 1.5, spec.references[i].dashed);
  }
  for (size_t i = 0; i < spec.series.size(); ++i) drawSeries(P, spec.series[i], L.series[i], L, th.text);
  for (size_t i = 0; i < spec.shades.size(); ++i)
    if (L.shades[i].visible) P.textOnBackdrop(L.shades[i].label, th.tickText, th.plotBackground);
  for (size_t i = 0; i < spec.references.size(); ++i)
    if (L.references[i].visible)
      P.textOnBackdrop(L.references[i].label, (spec.references[i].color ? spec.references[i].color : th.reference) | 0xFF000000u,
                       th.plotBackground);
  P.line(r.x0, r.y1, r.x1, r.y1, th.axis, 1);
  P.line(r.x0, r.y0, r.x0, r.y1, th.axis, 1);
  if (L.hasY2) P.line(r.x1, r.y0, r.x1, r.y1, th.axis, 1);
  for (const PlotTick& t : L.x.ticks) {
    P.line(t.pos, r.y1, t.pos, r.y1 + L.tickLength, th.axis, 1);
    P.text(t.label, th.tickText);
  }
  for (const PlotTick& t : L.y.ticks) {
    P.line(r.x0 - L.tickLength, t.pos, r.x0, t.pos, th.axis, 1);
    P.text(t.label, th.tickText);
  }
  for (const PlotTick& t : L.y2.ticks) {
    P.line(r.x1, t.pos, r.x1 + L.tickLength, t.pos, th.axis, 1);
    P.text(t.label, th.tickText);
  }
  if (L.legend.visible) {
    P.rect(L.legend.box, th.legendBackground, 0.85);
    P.rectOutline(L.legend.box, th.legendBorder, 1);
    for (const PlotLegendEntry& e : L.legend.entries) {
      if (e.series < 0) {
        P.text(e.text, th.tickText);
        continue;
      }
      const Series& s = spec.series[size_t(e.series)];
      const uint32_t c = L.series[size_t(e.series)].color;
      const float cy = (e.swatch.y0 + e.swatch.y1) * 0.5f, cx = (e.swatch.x0 + e.swatch.x1) * 0.5f;
      if (s.kind == SeriesKind::Bars) {
        P.rect(e.swatch, c);
      } else {
        if (s.kind == SeriesKind::Line) P.line(e.swatch.x0, cy, e.swatch.x1, cy, c, L.lineWidth, s.dashed);
        P.marker(L.series[size_t(e.series)].marker, cx, cy, L.markerRadius, c);
      }
      P.text(e.text, th.text);
    }
  }
  P.text(L.title, th.text);
  P.text(L.subtitle, th.tickText);
  P.text(L.xLabel, th.text);
  P.text(L.yLabel, th.text);
  P.text(L.y2Label, th.text);
  P.text(L.emptyMessage, th.tickText);
}

std::string renderSvg(const PlotSpec& spec, const FigureOptions& options, std::string* error) {
  (void)error;
  const int width = std::clamp(options.width, 16, 16384), height = std::clamp(options.height, 16, 16384);
  const float fontPx = float(options.fontSize > 1 ? options.fontSize : 14);
  const PlotLayout L = computePlotLayout(spec, float(width), float(height), fontPx, measureText);
  SvgPainter P;
  P.out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
          std::to_string(width) + "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) +
          " " + std::to_string(height) + "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n";
  if (!spec.title.empty()) P.out += "<title>" + escapeXml(spec.title) + "</title>\n";
  drawFigure(P, spec, L, options.whiteBackground ? kWhite : kDark);
  P.out += "</svg>\n";
  return P.out;
}

void appendBytes(void* closure, void* data, int size) {
  static_cast<std::string*>(closure)->append(static_cast<const char*>(data), size_t(size));
}

std::string encodePng(const std::vector<uint8_t>& rgba, int width, int height, std::string* error) {
  if (width <= 0 || height <= 0 || rgba.size() < size_t(width) * size_t(height) * 4) {
    if (error) *error = "no picture to save (the view has no area)";
    return {};
  }
  std::vector<uint8_t> opaque(rgba.begin(), rgba.begin() + long(size_t(width) * size_t(height) * 4));
  for (size_t i = 3; i < opaque.size(); i += 4) opaque[i] = 255;
  std::string bytes;
  if (!stbi_write_png_to_func(appendBytes, &bytes, width, height, 4, opaque.data(), width * 4)) {
    if (error) *error = "the PNG could not be encoded";
    return {};
  }
  return bytes;
}

std::string base64(const std::string& in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string o;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
    o += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
  }
  if (i + 1 == in.size()) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    o += {k[v >> 18], k[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8;
    o += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], '='};
  }
  return o;
}

// A view's picture in SVG: the PNG inside, at its pixel size (as cairo's SVG of an image).
std::string svgOfImage(const std::vector<uint8_t>& rgba, int width, int height, std::string* error) {
  const std::string png = encodePng(rgba, width, height, error);
  if (png.empty()) return {};
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
         "xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"" +
         std::to_string(width) + "\" height=\"" + std::to_string(height) + "\">\n<image width=\"" + std::to_string(width) +
         "\" height=\"" + std::to_string(height) + "\" xlink:href=\"data:image/png;base64," + base64(png) + "\"/>\n</svg>\n";
}

FormatRegistry<FigureWriter> makeFigureRegistry() {
  FormatRegistry<FigureWriter> r;
  FigureWriter svg{{.name = "svg", .extension = ".svg", .label = "SVG",
                    .description = "SVG (vector, text kept as text)", .writes = kWritesFigures}};
  svg.vector = svg.panelButton = svg.fallback = true;
  svg.render = renderSvg;
  svg.renderImage = svgOfImage;
  r.add(svg);
  FigureWriter png{{.name = "png", .extension = ".png", .label = "PNG",
                    .description = "PNG (of the views as drawn; plots: SVG in the browser)", .writes = kWritesFigures}};
  png.panelButton = true;
  png.render = [](const PlotSpec&, const FigureOptions&, std::string* e) {
    if (e) *e = "in the browser a plot is exported as SVG (the desktop app writes its PNG and PDF)";
    return std::string();
  };
  png.renderImage = encodePng;
  r.add(png);
  return r;
}

}  // namespace

const FormatRegistry<FigureWriter>& figureFormats() {
  static const FormatRegistry<FigureWriter> registry = makeFigureRegistry();
  return registry;
}

const FigureWriter& figureFormatFor(const std::string& path) {
  if (const FigureWriter* f = figureFormats().findByExtension(std::filesystem::path(path).extension().string())) return *f;
  for (const FigureWriter& f : figureFormats().all())
    if (f.fallback) return f;
  throw std::logic_error("no figure format is the fallback");
}

}  // namespace rl::gui
