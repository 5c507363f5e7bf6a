#pragma once
// ReduceLab's one plot widget. A PlotSpec describes a figure completely (series, axes, reference
// lines, shaded regions, legend); drawPlot() renders it with ImDrawList on screen and the figure writers
// (figureFormats()) draw the same layout with cairo into PDF, SVG or PNG, so what is exported is what was shown.
// Debian has no ImPlot.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "reducelab/formats/registry.hpp"

struct ImVec2;

namespace rl::gui {

enum class SeriesKind {
  Line,         // polyline through the points, markers at each point
  Scatter,      // markers only
  Bars,         // vertical bars at each x (categorical x: x = 0, 1, 2 ...), grouped if several bar series
};

// A point's shape: with the colour, what tells series apart in print and for colour-blind readers.
enum class Marker { Auto, Circle, Square, TriangleUp, Diamond, TriangleDown };

enum class AxisScale { Linear, Log2, Log10 };

struct Axis {
  std::string label;                 // e.g. "N (elements)", "GB/s"
  AxisScale scale = AxisScale::Linear;
  double min = std::numeric_limits<double>::quiet_NaN();  // NaN: from the data (with a margin)
  double max = std::numeric_limits<double>::quiet_NaN();
  bool includeZero = false;          // linear y axes of bandwidth should start at 0
  // Categorical axis (bar charts): tick i at x = i labelled categories[i].
  std::vector<std::string> categories;
  std::string tickFormat;            // printf format for tick labels ("%.0f"); "" = automatic;
                                     // log2 axes label ticks as 2^k
};

struct Series {
  std::string name;                  // legend entry
  SeriesKind kind = SeriesKind::Line;
  uint32_t color = 0;                // 0xAABBGGRR as ImGui's IM_COL32; 0 = next palette colour
  Marker marker = Marker::Auto;      // Auto: the series' index in the marker cycle
  std::vector<double> x, y;
  // Optional min-max band per point (repeated samples): drawn as a translucent band / error bar.
  std::vector<double> yLow, yHigh;
  // Optional text drawn next to each point or on top of each bar (e.g. "x2.33").
  std::vector<std::string> pointLabels;
  bool secondaryY = false;           // plotted against PlotSpec::y2 (right-hand axis)
  bool dashed = false;
};

struct ReferenceLine {
  double value = 0;                  // y value (on the primary axis)
  std::string label;                 // drawn at the right end, e.g. "theoretical peak 4814 GB/s"
  uint32_t color = 0;
  bool dashed = true;
  std::string shortLabel;            // where `label` is wider than the plot: e.g. "peak 4814"
};

struct Shade {                       // a vertical band over an x range, e.g. "fits in L2"
  double x0 = 0, x1 = 0;
  std::string label;
  uint32_t color = 0;                // translucent fill
};

struct PlotSpec {
  std::string title;
  std::string subtitle;              // second line under the title, smaller (config, device)
  Axis x, y, y2;                     // y2 used only if some series has secondaryY
  std::vector<Series> series;
  std::vector<ReferenceLine> references;
  std::vector<Shade> shades;
  bool legend = true;
  int legendMaxEntries = 0;          // > 0: only the last N named series, then "+ k more"
  std::string emptyMessage = "no data yet";  // drawn when there are no points
};

// What the user did with the plot this frame (screen only).
struct PlotHit {
  bool hovered = false;              // a point is under the mouse (a tooltip is shown)
  bool clicked = false;              // ... and it was clicked
  int series = -1, point = -1;
};

// Draws the plot into the current ImGui window at the cursor, filling `size` (pixels), and
// advances the cursor. Hovering a point shows its exact values; clicking reports it.
PlotHit drawPlot(const char* id, const PlotSpec& spec, const ImVec2& size);

// Exported figures: the same PlotSpec drawn by cairo into a file's bytes (DejaVu Sans embedded).
struct FigureOptions {
  int width = 960, height = 540;     // layout pixels (PDF: points)
  bool whiteBackground = true;       // print: white; otherwise the dark theme
  double fontSize = 14;
  double pngScale = 2;               // PNG pixels per layout pixel
};
// One writer per figure format, registered once beside the cairo code (plot_cairo.cpp) in the
// kind of registry every output format has (reducelab/formats/registry.hpp): PDF, SVG, PNG.
struct FigureWriter : FormatInfo {
  bool vector = false;       // scales without loss (PDF, SVG); a Markdown report shows the other kind inline
  bool panelButton = false;  // a button of the panels' exports (PDF is for print: sweep, report, multi --chart)
  bool fallback = false;     // what a chart file whose extension names no format is written as (SVG)
  // The file's bytes, or "" with *error.
  std::string (*render)(const PlotSpec& spec, const FigureOptions& options, std::string* error) = nullptr;
  // A picture of a view as drawn on screen (the trace views are GL and ImGui, not a PlotSpec):
  // `rgba` top row first, opaque. PNG as is; PDF and SVG hold it as an image at its pixel size.
  std::string (*renderImage)(const std::vector<uint8_t>& rgba, int width, int height, std::string* error) = nullptr;
};
const FormatRegistry<FigureWriter>& figureFormats();
// The writer for this file name: by its extension, else the fallback.
const FigureWriter& figureFormatFor(const std::string& path);

// Series styles: a colour-blind-safe palette (Okabe & Ito's hues; IM_COL32 layout, readable on dark
// and white) of kPaletteColors colours and a cycle of kPaletteMarkers shapes. The counts are
// coprime, so style i = (paletteColor(i), paletteMarker(i)) differs for the first 35 series.
constexpr int kPaletteColors = 7, kPaletteMarkers = 5;
uint32_t paletteColor(int index);
Marker paletteMarker(int index);
// A grey apart from the palette, for what belongs to no one series (curves shared by several).
uint32_t neutralColor();

}  // namespace rl::gui
