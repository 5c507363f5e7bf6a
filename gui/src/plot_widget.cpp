// drawPlot: the plot on screen with ImDrawList, from the same PlotLayout as the exported figures (plot_cairo.cpp). Colours of
// text, grid and axes derive from the style's text colour, so dark and light themes both work.
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "plot_layout.hpp"
#include "reducelab/gui/plot.hpp"

namespace rl::gui {
namespace {

ImU32 withAlpha(ImU32 c, float a) {
  const float alpha = std::clamp(float(c >> 24) / 255.0f * a, 0.0f, 1.0f);
  return (c & 0x00FFFFFFu) | (ImU32(alpha * 255.0f + 0.5f) << 24);
}

// Translucent fill for a shade: its own alpha if it has one, else a light wash (as in the SVG).
ImU32 shadeFill(uint32_t c) {
  if (c == 0) c = IM_COL32(0x88, 0x99, 0xaa, 0xff);
  const uint32_t a = c >> 24;
  return a == 0 || a == 255 ? withAlpha(c | 0xFF000000u, 0.15f) : c;
}

// Draws in layout coordinates (relative to the widget's top-left corner).
struct Painter {
  ImDrawList* dl;
  ImVec2 origin;
  const ImFont* font;

  ImVec2 at(float x, float y) const { return ImVec2(origin.x + x, origin.y + y); }
  // 1-pixel lines on pixel centres stay sharp.
  ImVec2 crisp(float x, float y) const {
    return ImVec2(std::floor(origin.x + x) + 0.5f, std::floor(origin.y + y) + 0.5f);
  }

  void text(const PlotText& t, ImU32 col) const {
    if (t.empty()) return;
    const char* s = t.text.c_str();
    float x = t.x;
    if (t.align != TextAlign::Left) {
      const float w = font->CalcTextSizeA(t.px, FLT_MAX, 0.0f, s).x;
      x -= t.align == TextAlign::Center ? w * 0.5f : w;
    }
    dl->AddText(font, t.px, at(x, t.y), col, s);
  }

  void marker(Marker m, float x, float y, float r, ImU32 col) const {
    const std::vector<MarkerPoint> outline = markerOutline(m, x, y, r);
    if (outline.empty()) {
      dl->AddCircleFilled(at(x, y), r, col);
      return;
    }
    std::vector<ImVec2> pts;
    for (const MarkerPoint& p : outline) pts.push_back(at(p.x, p.y));
    dl->AddConvexPolyFilled(pts.data(), int(pts.size()), col);
  }

  // A label over the data: a translucent backdrop keeps it readable.
  void textOnBackdrop(const PlotText& t, ImU32 col, ImU32 backdrop) const {
    if (t.empty()) return;
    const float w = font->CalcTextSizeA(t.px, FLT_MAX, 0.0f, t.text.c_str()).x;
    const float x0 = t.align == TextAlign::Center ? t.x - 0.5f * w : t.align == TextAlign::Right ? t.x - w : t.x;
    dl->AddRectFilled(at(x0 - 2, t.y - 1), at(x0 + w + 2, t.y + t.px + 1), backdrop, 2.0f);
    text(t, col);
  }

  void line(ImVec2 a, ImVec2 b, ImU32 col, float thickness, bool dashed) const {
    const float dx = b.x - a.x, dy = b.y - a.y, len = std::sqrt(dx * dx + dy * dy);
    const float dash = 6.0f, gap = 4.0f;
    // Very long segments (points far outside the range) are drawn solid: no millions of dashes.
    if (!dashed || len <= dash || len / (dash + gap) > 5000.0f) {
      dl->AddLine(a, b, col, thickness);
      return;
    }
    for (float s = 0; s < len; s += dash + gap) {
      const float e = std::min(s + dash, len);
      dl->AddLine(ImVec2(a.x + dx * s / len, a.y + dy * s / len), ImVec2(a.x + dx * e / len, a.y + dy * e / len),
                  col, thickness);
    }
  }

  void errorBar(const PlotPoint& p, float capHalf, ImU32 col, float thickness) const {
    line(at(p.px, p.pyLow), at(p.px, p.pyHigh), col, thickness, false);
    line(at(p.px - capHalf, p.pyLow), at(p.px + capHalf, p.pyLow), col, thickness, false);
    line(at(p.px - capHalf, p.pyHigh), at(p.px + capHalf, p.pyHigh), col, thickness, false);
  }
};

void drawSeries(const Painter& P, const Series& s, const PlotSeriesLayout& S, const PlotLayout& L) {
  const ImU32 col = S.color;
  const float errorWidth = std::max(1.0f, L.lineWidth * 0.6f);
  const std::vector<PlotPoint>& pts = S.points;
  switch (s.kind) {
    case SeriesKind::Line: {
      // Band: one quad per segment whose both ends have a range (quads with vertical sides are
      // convex, the whole band is not). No anti-aliased fringe: it would seam translucent quads.
      const ImDrawListFlags flags = P.dl->Flags;
      P.dl->Flags &= ~ImDrawListFlags_AntiAliasedFill;
      const ImU32 bandCol = withAlpha(col, 0.2f);
      for (size_t k = 0; k + 1 < pts.size(); ++k) {
        const PlotPoint &a = pts[k], &b = pts[k + 1];
        if (!a.valid || !b.valid || !a.band || !b.band) continue;
        const ImVec2 quad[4] = {P.at(a.px, a.pyHigh), P.at(b.px, b.pyHigh), P.at(b.px, b.pyLow), P.at(a.px, a.pyLow)};
        P.dl->AddConvexPolyFilled(quad, 4, bandCol);
      }
      P.dl->Flags = flags;
      // Lone points with a range (neighbours missing) show it as an error bar, as in the SVG.
      for (size_t k = 0; k < pts.size(); ++k) {
        const bool prev = k > 0 && pts[k - 1].valid && pts[k - 1].band;
        const bool next = k + 1 < pts.size() && pts[k + 1].valid && pts[k + 1].band;
        if (pts[k].valid && pts[k].band && !prev && !next)
          P.line(P.at(pts[k].px, pts[k].pyLow), P.at(pts[k].px, pts[k].pyHigh), col, errorWidth, false);
      }
      // The line breaks where a point cannot be placed (NaN, or <= 0 on a log axis).
      std::vector<ImVec2> run;
      auto flush = [&] {
        if (run.size() >= 2) {
          if (s.dashed)
            for (size_t k = 0; k + 1 < run.size(); ++k) P.line(run[k], run[k + 1], col, L.lineWidth, true);
          else
            P.dl->AddPolyline(run.data(), int(run.size()), col, 0, L.lineWidth);
        }
        run.clear();
      };
      for (const PlotPoint& p : pts) {
        if (p.valid) run.push_back(P.at(p.px, p.py));
        else flush();
      }
      flush();
      for (const PlotPoint& p : pts)
        if (p.valid) P.marker(S.marker, p.px, p.py, L.markerRadius, col);
      break;
    }
    case SeriesKind::Scatter:
      for (const PlotPoint& p : pts)
        if (p.valid && p.band) P.errorBar(p, L.markerRadius * 1.3f, col, errorWidth);
      for (const PlotPoint& p : pts)
        if (p.valid) P.marker(S.marker, p.px, p.py, L.markerRadius * 1.15f, col);
      break;
    case SeriesKind::Bars:
      for (const PlotPoint& p : pts)
        if (p.valid) P.dl->AddRectFilled(P.at(p.bar.x0, p.bar.y0), P.at(p.bar.x1, p.bar.y1), col);
      for (const PlotPoint& p : pts)
        if (p.valid && p.band) P.errorBar(p, std::min(L.markerRadius * 1.5f, S.barWidth * 0.25f), col, errorWidth);
      break;
  }
}

// The point nearest the mouse within ~8 px (bars: anywhere on the bar counts as on it).
bool findHover(const PlotLayout& L, ImVec2 mouse, int& series, int& point) {
  const float reach = 8.0f * std::max(1.0f, L.fontPx / 14.0f);
  float best = reach * reach;
  bool found = false;
  for (size_t si = 0; si < L.series.size(); ++si) {
    const PlotSeriesLayout& S = L.series[si];
    for (size_t i = 0; i < S.points.size(); ++i) {
      const PlotPoint& p = S.points[i];
      if (!p.valid) continue;
      const bool isBar = S.barWidth > 0;
      if (!isBar && !L.plot.contains(p.px, p.py)) continue;  // clipped away, not visible
      const float dx = mouse.x - p.px, dy = mouse.y - p.py;
      float d2 = dx * dx + dy * dy;
      if (isBar && p.bar.contains(mouse.x, mouse.y) && L.plot.contains(mouse.x, mouse.y)) d2 = 0;
      if (d2 <= best) {
        best = d2;
        series = int(si);
        point = int(i);
        found = true;
      }
    }
  }
  return found;
}

std::string xText(const PlotSpec& spec, double x) {
  const std::vector<std::string>& cats = spec.x.categories;
  if (!cats.empty() && x >= 0 && x == std::floor(x) && x < double(cats.size())) return cats[size_t(x)];
  std::string s = formatPlotValue(x);
  if (spec.x.scale == AxisScale::Log2 && x > 0) {
    int e = 0;
    if (std::frexp(x, &e) == 0.5) s += " = 2^" + std::to_string(e - 1);  // exact power of two
  }
  return s;
}

void tooltip(const PlotSpec& spec, const PlotLayout& L, int si, int pi) {
  const Series& s = spec.series[size_t(si)];
  const PlotPoint& p = L.series[size_t(si)].points[size_t(pi)];
  const Axis& ya = s.secondaryY ? spec.y2 : spec.y;
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(s.name.empty() ? "(unnamed series)" : s.name.c_str());
  ImGui::Separator();
  ImGui::Text("%s: %s", spec.x.label.empty() ? "x" : spec.x.label.c_str(), xText(spec, p.x).c_str());
  ImGui::Text("%s: %s", ya.label.empty() ? "y" : ya.label.c_str(), formatPlotValue(p.y).c_str());
  const size_t i = size_t(pi);
  if (i < s.yLow.size() && i < s.yHigh.size())
    ImGui::Text("min %s, max %s", formatPlotValue(s.yLow[i]).c_str(), formatPlotValue(s.yHigh[i]).c_str());
  if (i < s.pointLabels.size() && !s.pointLabels[i].empty()) ImGui::TextUnformatted(s.pointLabels[i].c_str());
  ImGui::EndTooltip();
}

}  // namespace

PlotHit drawPlot(const char* id, const PlotSpec& spec, const ImVec2& sizeArg) {
  PlotHit hit;
  // Like ImGui's widgets: 0 (or less) means the available width / height.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size(std::max(sizeArg.x > 0 ? sizeArg.x : avail.x, 1.0f),
                    std::max(sizeArg.y > 0 ? sizeArg.y : avail.y, 1.0f));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const bool pressed = ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  if (!ImGui::IsItemVisible()) return hit;

  const ImFont* font = ImGui::GetFont();
  const float fontPx = ImGui::GetFontSize();
  const PlotLayout L = computePlotLayout(spec, size.x, size.y, fontPx, [font](const std::string& s, float px) {
    return font->CalcTextSizeA(px, FLT_MAX, 0.0f, s.c_str()).x;
  });

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const Painter P{dl, origin, font};
  const PlotRect& r = L.plot;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dimText = ImGui::GetColorU32(ImGuiCol_Text, 0.8f);
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Text, 0.10f);
  const ImU32 axis = ImGui::GetColorU32(ImGuiCol_Text, 0.5f);
  const ImVec2 plotMin = P.at(r.x0, r.y0), plotMax = P.at(r.x1, r.y1);

  dl->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
  dl->AddRectFilled(plotMin, plotMax, ImGui::GetColorU32(ImGuiCol_Text, 0.035f));

  // Inside the plot area: shades, grid, reference lines, series.
  dl->PushClipRect(plotMin, plotMax, true);
  for (size_t i = 0; i < spec.shades.size(); ++i) {
    const PlotShadeLayout& S = L.shades[i];
    if (!S.visible) continue;
    dl->AddRectFilled(P.at(S.px0, r.y0), P.at(S.px1, r.y1), shadeFill(spec.shades[i].color));
  }
  if (!L.x.categorical)
    for (const PlotTick& t : L.x.ticks) dl->AddLine(P.crisp(t.pos, r.y0), P.crisp(t.pos, r.y1), grid);
  for (const PlotTick& t : L.y.ticks) dl->AddLine(P.crisp(r.x0, t.pos), P.crisp(r.x1, t.pos), grid);
  for (size_t i = 0; i < spec.references.size(); ++i) {
    const PlotReferenceLayout& R = L.references[i];
    if (!R.visible) continue;
    const ImU32 c = spec.references[i].color ? spec.references[i].color : ImGui::GetColorU32(ImGuiCol_Text, 0.6f);
    P.line(P.at(r.x0, R.py), P.at(r.x1, R.py), c, 1.5f, spec.references[i].dashed);
  }
  for (size_t i = 0; i < spec.series.size(); ++i) drawSeries(P, spec.series[i], L.series[i], L);
  // The labels of shades and peak lines over everything (on a backdrop: a crowded plot puts data
  // under them).
  const ImU32 backdrop = ImGui::GetColorU32(ImGuiCol_WindowBg, 0.75f);
  for (size_t i = 0; i < spec.shades.size(); ++i)
    if (L.shades[i].visible) P.textOnBackdrop(L.shades[i].label, dimText, backdrop);
  for (size_t i = 0; i < spec.references.size(); ++i)
    if (L.references[i].visible)
      P.textOnBackdrop(L.references[i].label,
                       (spec.references[i].color ? spec.references[i].color : ImGui::GetColorU32(ImGuiCol_Text, 0.6f)) | IM_COL32_A_MASK,
                       backdrop);
  dl->PopClipRect();

  // Point labels may reach over the plot's top edge.
  for (const PlotSeriesLayout& S : L.series)
    for (const PlotPoint& p : S.points)
      if (p.valid) P.text(p.label, text);

  // Axes, ticks and their labels.
  dl->AddLine(P.crisp(r.x0, r.y1), P.crisp(r.x1, r.y1), axis);
  dl->AddLine(P.crisp(r.x0, r.y0), P.crisp(r.x0, r.y1), axis);
  if (L.hasY2) dl->AddLine(P.crisp(r.x1, r.y0), P.crisp(r.x1, r.y1), axis);
  for (const PlotTick& t : L.x.ticks) {
    dl->AddLine(P.crisp(t.pos, r.y1), P.crisp(t.pos, r.y1 + L.tickLength), axis);
    P.text(t.label, dimText);
  }
  for (const PlotTick& t : L.y.ticks) {
    dl->AddLine(P.crisp(r.x0 - L.tickLength, t.pos), P.crisp(r.x0, t.pos), axis);
    P.text(t.label, dimText);
  }
  for (const PlotTick& t : L.y2.ticks) {
    dl->AddLine(P.crisp(r.x1, t.pos), P.crisp(r.x1 + L.tickLength, t.pos), axis);
    P.text(t.label, dimText);
  }

  if (L.legend.visible) {
    const PlotRect& b = L.legend.box;
    dl->AddRectFilled(P.at(b.x0, b.y0), P.at(b.x1, b.y1), ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f), 3.0f);
    dl->AddRect(P.at(b.x0, b.y0), P.at(b.x1, b.y1), ImGui::GetColorU32(ImGuiCol_Border), 3.0f);
    for (const PlotLegendEntry& e : L.legend.entries) {
      if (e.series < 0) {  // a text-only line ("+ 8 earlier")
        P.text(e.text, dimText);
        continue;
      }
      const Series& s = spec.series[size_t(e.series)];
      const ImU32 c = L.series[size_t(e.series)].color;
      const float cy = (e.swatch.y0 + e.swatch.y1) * 0.5f, cx = (e.swatch.x0 + e.swatch.x1) * 0.5f;
      if (s.kind == SeriesKind::Bars) {
        dl->AddRectFilled(P.at(e.swatch.x0, e.swatch.y0), P.at(e.swatch.x1, e.swatch.y1), c);
      } else {
        if (s.kind == SeriesKind::Line) P.line(P.at(e.swatch.x0, cy), P.at(e.swatch.x1, cy), c, L.lineWidth, s.dashed);
        P.marker(L.series[size_t(e.series)].marker, cx, cy, L.markerRadius, c);
      }
      P.text(e.text, text);
    }
  }

  P.text(L.title, text);
  P.text(L.subtitle, dimText);
  P.text(L.xLabel, text);
  P.text(L.yLabel, text);
  P.text(L.y2Label, text);
  P.text(L.emptyMessage, dimText);

  if (hovered && !L.empty) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    int si = -1, pi = -1;
    if (findHover(L, ImVec2(m.x - origin.x, m.y - origin.y), si, pi)) {
      const PlotPoint& p = L.series[size_t(si)].points[size_t(pi)];
      dl->AddCircle(P.at(p.px, p.py), L.markerRadius * 2.2f, text, 0, 1.5f);
      tooltip(spec, L, si, pi);
      hit.hovered = true;
      hit.clicked = pressed;
      hit.series = si;
      hit.point = pi;
    }
  }
  dl->PopClipRect();
  return hit;
}

}  // namespace rl::gui
