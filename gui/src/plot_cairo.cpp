// Exported figures: the PlotSpec drawn by cairo (Debian's libcairo) into PDF, SVG or PNG, from
// the same PlotLayout as the screen's drawPlot. Text is DejaVu Sans, measured by cairo itself, and
// embedded as a font subset in PDF and as glyphs in SVG, so a figure looks the same everywhere.
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <memory>
#include <string>

#include "plot_layout.hpp"
#include "reducelab/gui/plot.hpp"

namespace rl::gui {

namespace {

constexpr uint32_t rgb(uint32_t r, uint32_t g, uint32_t b) { return 0xFF000000u | (b << 16) | (g << 8) | r; }

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

constexpr const char* kFontFamily = "DejaVu Sans";

// Translucent fill for a shade: its own alpha if it has one, else a light wash.
double shadeOpacity(uint32_t c) {
  const uint32_t a = c >> 24;
  return a == 0 || a == 255 ? 0.15 : a / 255.0;
}

// Text as cairo expects it: valid UTF-8 (invalid bytes and control characters become U+FFFD).
std::string validUtf8(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += c < 0x20 ? "\xEF\xBF\xBD" : std::string(1, char(c));
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
    ok = ok && cp >= (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u) && cp <= 0x10FFFF &&
         !(cp >= 0xD800 && cp <= 0xDFFF);
    if (ok) {
      out.append(s, i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

struct CairoDeleter {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
using CairoPtr = std::unique_ptr<cairo_t, CairoDeleter>;
using SurfacePtr = std::unique_ptr<cairo_surface_t, CairoDeleter>;

void setFont(cairo_t* cr, float px) {
  cairo_select_font_face(cr, kFontFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, px);
}

// Draws one PlotLayout on a cairo context (figure units: pixels of the layout).
class Painter {
 public:
  explicit Painter(cairo_t* cr) : cr_(cr) {}

  void color(uint32_t c, double opacity = 1) {
    cairo_set_source_rgba(cr_, (c & 0xFF) / 255.0, ((c >> 8) & 0xFF) / 255.0, ((c >> 16) & 0xFF) / 255.0,
                          double(c >> 24) / 255.0 * opacity);
  }
  void rect(const PlotRect& r, uint32_t c, double opacity = 1) {
    color(c, opacity);
    cairo_rectangle(cr_, r.x0, r.y0, r.width(), r.height());
    cairo_fill(cr_);
  }
  void stroke(uint32_t c, double width, bool dashed = false) {
    color(c);
    cairo_set_line_width(cr_, width);
    const double dash[] = {6, 4};
    cairo_set_dash(cr_, dash, dashed ? 2 : 0, 0);
    cairo_stroke(cr_);
    cairo_set_dash(cr_, nullptr, 0, 0);
  }
  void line(float x0, float y0, float x1, float y1, uint32_t c, double width, bool dashed = false) {
    cairo_move_to(cr_, x0, y0);
    cairo_line_to(cr_, x1, y1);
    stroke(c, width, dashed);
  }
  void marker(Marker m, float x, float y, float r, uint32_t c) {
    const std::vector<MarkerPoint> outline = markerOutline(m, x, y, r);
    if (outline.empty()) return circle(x, y, r, c);
    color(c);
    cairo_move_to(cr_, outline[0].x, outline[0].y);
    for (size_t i = 1; i < outline.size(); ++i) cairo_line_to(cr_, outline[i].x, outline[i].y);
    cairo_close_path(cr_);
    cairo_fill(cr_);
  }
  void circle(float x, float y, float r, uint32_t c) {
    color(c);
    cairo_new_sub_path(cr_);
    cairo_arc(cr_, x, y, r, 0, 2 * M_PI);
    cairo_fill(cr_);
  }
  // A label over the data: a translucent backdrop of the plot's colour keeps it readable.
  void textOnBackdrop(const PlotText& t, uint32_t c, uint32_t backdrop) {
    if (t.empty()) return;
    setFont(cr_, t.px);
    cairo_text_extents_t ext;
    cairo_text_extents(cr_, validUtf8(t.text).c_str(), &ext);
    const double w = ext.x_advance;
    const double x0 = t.align == TextAlign::Center ? t.x - w / 2 : t.align == TextAlign::Right ? t.x - w : t.x;
    rect({float(x0 - 2), t.y - 1, float(x0 + w + 2), t.y + t.px + 1}, backdrop, 0.75);
    text(t, c);
  }
  // The layout anchors text on the top of its line box; cairo draws from the baseline.
  void text(const PlotText& t, uint32_t c) {
    if (t.empty()) return;
    setFont(cr_, t.px);
    const std::string s = validUtf8(t.text);
    cairo_text_extents_t ext;
    cairo_text_extents(cr_, s.c_str(), &ext);
    cairo_font_extents_t fe;
    cairo_font_extents(cr_, &fe);
    double x = t.x;
    if (t.align == TextAlign::Center) x -= ext.x_advance / 2;
    if (t.align == TextAlign::Right) x -= ext.x_advance;
    color(c);
    cairo_move_to(cr_, x, t.y + fe.ascent * t.px / (fe.ascent + fe.descent));
    cairo_show_text(cr_, s.c_str());
    cairo_new_path(cr_);
  }
  void clipTo(const PlotRect& r) {
    cairo_save(cr_);
    cairo_rectangle(cr_, r.x0, r.y0, r.width(), r.height());
    cairo_clip(cr_);
  }
  void unclip() { cairo_restore(cr_); }
  cairo_t* cr() { return cr_; }

 private:
  cairo_t* cr_;
};

// Runs of consecutive valid points: lines and bands break where a point cannot be placed.
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

void drawSeries(Painter& P, const Series& s, const PlotSeriesLayout& S, const PlotLayout& L, uint32_t textColor) {
  cairo_t* cr = P.cr();
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
      forRuns(S.points, [&](size_t i, size_t j) {  // min-max band: upper edge out, lower edge back
        size_t a = i;
        while (a < j) {
          while (a < j && !S.points[a].band) ++a;
          size_t b = a;
          while (b < j && S.points[b].band) ++b;
          if (b - a >= 2) {
            cairo_move_to(cr, S.points[a].px, S.points[a].pyHigh);
            for (size_t k = a + 1; k < b; ++k) cairo_line_to(cr, S.points[k].px, S.points[k].pyHigh);
            for (size_t k = b; k-- > a;) cairo_line_to(cr, S.points[k].px, S.points[k].pyLow);
            cairo_close_path(cr);
            P.color(c, 0.2);
            cairo_fill(cr);
          }
          a = b;
        }
      });
      forRuns(S.points, [&](size_t i, size_t j) {
        if (j - i < 2) return;
        cairo_move_to(cr, S.points[i].px, S.points[i].py);
        for (size_t k = i + 1; k < j; ++k) cairo_line_to(cr, S.points[k].px, S.points[k].py);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        P.stroke(c, L.lineWidth, s.dashed);
      });
      for (size_t k = 0; k < S.points.size(); ++k) {  // a lone band point still shows its range
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

void drawFigure(Painter& P, const PlotSpec& spec, const PlotLayout& L, const Theme& th) {
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
  // The labels of shades and peak lines over everything (on a backdrop: a crowded plot puts data
  // under them).
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
    cairo_rectangle(P.cr(), L.legend.box.x0, L.legend.box.y0, L.legend.box.width(), L.legend.box.height());
    P.stroke(th.legendBorder, 1);
    for (const PlotLegendEntry& e : L.legend.entries) {
      if (e.series < 0) {  // a text-only line ("+ 8 earlier")
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

cairo_status_t appendBytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

// paletteColor, paletteMarker, neutralColor: plot_layout.cpp (the browser's build has no cairo).

namespace {

enum class Surface { Pdf, Svg, Png };  // the cairo surface each figure writer draws on

std::string renderFigure(const PlotSpec& spec, Surface format, const FigureOptions& options, std::string* error) {
  // cairo and fontconfig keep their font caches for the life of the process; released at exit so
  // the leak checker (asan preset) sees what the program itself leaks.
  static const bool releaseAtExit = [] {
    std::atexit([] {
      cairo_debug_reset_static_data();
      FcFini();
    });
    return true;
  }();
  (void)releaseAtExit;
  const int width = std::clamp(options.width, 16, 16384), height = std::clamp(options.height, 16, 16384);
  const float fontPx = float(options.fontSize > 1 ? options.fontSize : 14);
  // Text is measured with the font that draws it.
  SurfacePtr scratch(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1));
  CairoPtr measureCr(cairo_create(scratch.get()));
  const TextMeasure measure = [&](const std::string& text, float px) {
    setFont(measureCr.get(), px);
    cairo_text_extents_t ext;
    cairo_text_extents(measureCr.get(), validUtf8(text).c_str(), &ext);
    return float(ext.x_advance);
  };
  const PlotLayout L = computePlotLayout(spec, float(width), float(height), fontPx, measure);

  std::string bytes;
  SurfacePtr surface;
  const double scale = format == Surface::Png ? std::clamp(options.pngScale, 0.25, 8.0) : 1.0;
  switch (format) {
    case Surface::Pdf:  // PDF points = layout pixels: a 960-pixel figure is 13.3 inches wide
      surface.reset(cairo_pdf_surface_create_for_stream(appendBytes, &bytes, width, height));
      if (!spec.title.empty())
        cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_TITLE, validUtf8(spec.title).c_str());
      cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATOR, "ReduceLab");
      break;
    case Surface::Svg:
      surface.reset(cairo_svg_surface_create_for_stream(appendBytes, &bytes, width, height));
      cairo_svg_surface_restrict_to_version(surface.get(), CAIRO_SVG_VERSION_1_1);
      break;
    case Surface::Png:
      surface.reset(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, int(std::lround(width * scale)),
                                               int(std::lround(height * scale))));
      break;
  }
  {
    CairoPtr cr(cairo_create(surface.get()));
    cairo_scale(cr.get(), scale, scale);
    Painter P(cr.get());
    drawFigure(P, spec, L, options.whiteBackground ? kWhite : kDark);
    cairo_show_page(cr.get());
    if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS) {
      if (error) *error = std::string("cairo: ") + cairo_status_to_string(cairo_status(cr.get()));
      return {};
    }
  }
  if (format == Surface::Png) {
    cairo_surface_flush(surface.get());
    if (cairo_surface_write_to_png_stream(surface.get(), appendBytes, &bytes) != CAIRO_STATUS_SUCCESS) {
      if (error) *error = "cairo could not encode the PNG";
      return {};
    }
  }
  cairo_surface_finish(surface.get());
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS) {
    if (error) *error = std::string("cairo: ") + cairo_status_to_string(cairo_surface_status(surface.get()));
    return {};
  }
  return bytes;
}

std::string renderImageAs(Surface format, const std::vector<uint8_t>& rgba, int width, int height, std::string* error) {
  if (width <= 0 || height <= 0 || rgba.size() < size_t(width) * size_t(height) * 4) {
    if (error) *error = "no picture to save (the view has no area)";
    return {};
  }
  SurfacePtr image(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height));
  cairo_surface_flush(image.get());
  unsigned char* dst = cairo_image_surface_get_data(image.get());
  const int stride = cairo_image_surface_get_stride(image.get());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const uint8_t* p = &rgba[(size_t(y) * size_t(width) + size_t(x)) * 4];
      uint32_t argb = 0xFF000000u | (uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) | p[2];  // opaque
      std::memcpy(dst + size_t(y) * size_t(stride) + size_t(x) * 4, &argb, 4);
    }
  cairo_surface_mark_dirty(image.get());
  std::string bytes;
  if (format == Surface::Png) {
    if (cairo_surface_write_to_png_stream(image.get(), appendBytes, &bytes) != CAIRO_STATUS_SUCCESS) {
      if (error) *error = "cairo could not encode the PNG";
      return {};
    }
    return bytes;
  }
  SurfacePtr doc(format == Surface::Pdf ? cairo_pdf_surface_create_for_stream(appendBytes, &bytes, width, height)
                                        : cairo_svg_surface_create_for_stream(appendBytes, &bytes, width, height));
  {
    CairoPtr cr(cairo_create(doc.get()));
    cairo_set_source_surface(cr.get(), image.get(), 0, 0);
    cairo_paint(cr.get());
    cairo_show_page(cr.get());
  }
  cairo_surface_finish(doc.get());
  if (cairo_surface_status(doc.get()) != CAIRO_STATUS_SUCCESS) {
    if (error) *error = std::string("cairo: ") + cairo_status_to_string(cairo_surface_status(doc.get()));
    return {};
  }
  return bytes;
}

std::string renderPdf(const PlotSpec& spec, const FigureOptions& o, std::string* e) {
  return renderFigure(spec, Surface::Pdf, o, e);
}
std::string renderSvg(const PlotSpec& spec, const FigureOptions& o, std::string* e) {
  return renderFigure(spec, Surface::Svg, o, e);
}
std::string renderPng(const PlotSpec& spec, const FigureOptions& o, std::string* e) {
  return renderFigure(spec, Surface::Png, o, e);
}

// In the order exports write them.
FormatRegistry<FigureWriter> makeFigureRegistry() {
  FormatRegistry<FigureWriter> r;
  FigureWriter pdf{{.name = "pdf", .extension = ".pdf", .label = "PDF",
                    .description = "PDF (vector, fonts embedded, for print)", .writes = kWritesFigures}};
  pdf.vector = true;
  pdf.render = renderPdf;
  pdf.renderImage = [](const std::vector<uint8_t>& px, int w, int h, std::string* e) { return renderImageAs(Surface::Pdf, px, w, h, e); };
  r.add(pdf);
  FigureWriter svg{{.name = "svg", .extension = ".svg", .label = "SVG",
                    .description = "SVG (vector, text kept as text)", .writes = kWritesFigures}};
  svg.vector = svg.panelButton = svg.fallback = true;
  svg.render = renderSvg;
  svg.renderImage = [](const std::vector<uint8_t>& px, int w, int h, std::string* e) { return renderImageAs(Surface::Svg, px, w, h, e); };
  r.add(svg);
  FigureWriter png{{.name = "png", .extension = ".png", .label = "PNG",
                    .description = "PNG (2x, white background)", .writes = kWritesFigures}};
  png.panelButton = true;
  png.render = renderPng;
  png.renderImage = [](const std::vector<uint8_t>& px, int w, int h, std::string* e) { return renderImageAs(Surface::Png, px, w, h, e); };
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
