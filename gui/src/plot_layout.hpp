#pragma once
// Internal to gui/: where everything of a PlotSpec goes, in pixels, independent of the renderer.
// drawPlot (ImDrawList) and renderFigure (cairo) both draw from one PlotLayout, so the screen and the exported
// figures agree. Coordinates are relative to the figure's top-left corner, y grows downwards.
#include <functional>
#include <string>
#include <vector>

#include "reducelab/gui/plot.hpp"

namespace rl::gui {

// Width in pixels of `text` drawn at `fontPx`.
using TextMeasure = std::function<float(const std::string& text, float fontPx)>;

struct PlotRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
  bool contains(float x, float y) const { return x >= x0 && x <= x1 && y >= y0 && y <= y1; }
};

enum class TextAlign { Left, Center, Right };

// One line of text. (x, y): the anchor on the top edge of the line box (fontPx high); `align`
// says whether x is the left end, the centre or the right end.
struct PlotText {
  std::string text;
  float x = 0, y = 0;
  float px = 0;
  TextAlign align = TextAlign::Left;
  bool empty() const { return text.empty(); }
};

struct PlotTick {
  double value = 0;   // data units
  float pos = 0;      // pixel along the axis (x for the x axis, y for y axes)
  PlotText label;     // may be empty (thinned category labels)
  int row = 0;        // label row below the x axis (crowded categories alternate)
};

struct AxisLayout {
  AxisScale scale = AxisScale::Linear;
  bool categorical = false;
  double lo = 0, hi = 1;        // visible range in data units
  float pixLo = 0, pixHi = 1;   // pixels of lo and hi (y axes: pixLo is the bottom edge)
  std::vector<PlotTick> ticks;
  int labelRows = 1;            // 2 when crowded category labels alternate between two rows

  bool accepts(double v) const;  // finite, and positive on log scales
  float map(double v) const;     // data -> pixel; only for accepted values
};

struct PlotPoint {
  bool valid = false;            // x and y can be placed (finite; positive on log axes)
  double x = 0, y = 0;           // data values (x = index when the series has no x)
  float px = 0, py = 0;          // the point in pixels (bars: top centre)
  bool band = false;             // yLow/yHigh given and placeable
  float pyLow = 0, pyHigh = 0;
  PlotRect bar;                  // Bars only
  PlotText label;                // point label, above the point or bar
};

struct PlotSeriesLayout {
  uint32_t color = 0;            // resolved: series.color or the palette's
  Marker marker = Marker::Circle;  // resolved: series.marker or the marker cycle's
  bool secondary = false;
  std::vector<PlotPoint> points;
  float barWidth = 0;            // Bars only
};

struct PlotReferenceLayout {
  bool visible = false;          // inside the y range
  float py = 0;
  PlotText label;
};

struct PlotShadeLayout {
  bool visible = false;
  float px0 = 0, px1 = 0;        // clamped to the plot area
  PlotText label;
};

struct PlotLegendEntry {
  int series = -1;
  PlotRect swatch;               // a line (Line) or a box (Bars, Scatter) is drawn in it
  PlotText text;
};

struct PlotLegendLayout {
  bool visible = false;
  int covered = 0;               // data it hides: points, bars, their labels, reference labels
  PlotRect box;
  std::vector<PlotLegendEntry> entries;
};

struct PlotLayout {
  float width = 0, height = 0, fontPx = 0;
  float lineWidth = 2, markerRadius = 3, tickLength = 4;
  PlotRect plot;                 // the data area, inside the axes
  AxisLayout x, y, y2;
  bool hasY2 = false;
  bool empty = false;            // no placeable point in any series
  PlotText title, subtitle, xLabel, yLabel, y2Label, emptyMessage;
  std::vector<PlotSeriesLayout> series;          // parallel to spec.series
  std::vector<PlotReferenceLayout> references;   // parallel to spec.references
  std::vector<PlotShadeLayout> shades;           // parallel to spec.shades
  PlotLegendLayout legend;
};

// A marker's outline around (cx, cy) for "radius" r (same visual weight for every shape); empty
// for a circle, which each renderer draws natively.
struct MarkerPoint {
  float x, y;
};
std::vector<MarkerPoint> markerOutline(Marker m, float cx, float cy, float r);

PlotLayout computePlotLayout(const PlotSpec& spec, float width, float height, float fontPx,
                             const TextMeasure& measure);

// A value as shown in tooltips: enough digits to be exact for measured numbers.
std::string formatPlotValue(double v);

}  // namespace rl::gui
