#include "reducelab/gui/layout_check.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace rl::gui {
namespace {

struct GlyphIndex {
  const ImFontAtlas* atlas = nullptr;
  int glyphs = -1;
  ImTextureID tex = nullptr;
  float sizes = 0;
  int texW = 0, texH = 0;
  std::unordered_map<uint64_t, const ImFontGlyph*> byUv;  // intact glyphs by their top-left UV
  std::vector<const ImFontGlyph*> all;
  std::unordered_map<const ImFontGlyph*, const ImFont*> fontOf;  // a run is one font's glyphs
};

uint64_t uvKey(float u, float v) {
  uint32_t a, b;
  std::memcpy(&a, &u, 4);
  std::memcpy(&b, &v, 4);
  return (uint64_t(a) << 32) | b;
}

const GlyphIndex& glyphIndex() {
  static GlyphIndex index;
  const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  int count = 0;
  for (const ImFont* f : atlas->Fonts) count += f->Glyphs.Size;
  // Rebuilt whenever the atlas may have changed. The font sizes are part of the key: a rebuild at
  // another scale keeps the atlas, the glyph count and (with NVIDIA's GL, which reuses texture
  // names) the texture ID, while every glyph's UVs move.
  float sizes = 0;
  for (const ImFont* f : atlas->Fonts) sizes += f->FontSize;
  if (index.atlas != atlas || index.glyphs != count || index.tex != atlas->TexID || index.sizes != sizes ||
      index.texW != atlas->TexWidth || index.texH != atlas->TexHeight) {
    index = GlyphIndex{atlas, count, atlas->TexID, sizes, atlas->TexWidth, atlas->TexHeight, {}, {}};
    for (const ImFont* f : atlas->Fonts)
      for (const ImFontGlyph& g : f->Glyphs) {
        if (!g.Visible) continue;
        index.byUv[uvKey(g.U0, g.V0)] = &g;
        index.all.push_back(&g);
        index.fontOf[&g] = f;
      }
  }
  return index;
}

void appendUtf8(std::string& s, unsigned c) {
  char b[5] = {};
  ImTextCharToUtf8(b, c);
  s += b;
}

struct Quad {
  ImVec2 p0, p1;
  bool trimmed;
  unsigned codepoint;
  const ImFont* font = nullptr;
};

// A glyph quad: indices (a, a+1, a+2, a, a+2, a+3) over an axis-aligned rectangle whose UVs
// span an area of the atlas (rectangles and lines use a single UV or a UV line).
bool glyphQuad(const ImDrawList& dl, const ImDrawCmd& cmd, unsigned k, const GlyphIndex& gi, Quad* q) {
  const ImDrawIdx* idx = dl.IdxBuffer.Data + cmd.IdxOffset + k;
  const unsigned a = idx[0];
  if (idx[1] != a + 1 || idx[2] != a + 2 || idx[3] != a || idx[4] != a + 2 || idx[5] != a + 3) return false;
  const ImDrawVert* v = dl.VtxBuffer.Data + cmd.VtxOffset + a;
  if (v[0].uv.x >= v[1].uv.x || v[0].uv.y >= v[2].uv.y) return false;
  if (v[0].pos.y != v[1].pos.y || v[1].pos.x != v[2].pos.x || v[3].pos.x != v[0].pos.x) return false;
  q->p0 = v[0].pos;
  q->p1 = v[2].pos;
  auto it = gi.byUv.find(uvKey(v[0].uv.x, v[0].uv.y));
  if (it != gi.byUv.end() && it->second->U1 == v[2].uv.x && it->second->V1 == v[2].uv.y) {
    q->trimmed = false;
    q->codepoint = it->second->Codepoint;
    q->font = gi.fontOf.at(it->second);
    return true;
  }
  // Not a whole glyph: a glyph the CPU clipped (ImGui's fine clipping) or another textured quad.
  const float cu = (v[0].uv.x + v[2].uv.x) * 0.5f, cv = (v[0].uv.y + v[2].uv.y) * 0.5f;
  for (const ImFontGlyph* g : gi.all)
    if (cu >= g->U0 && cu <= g->U1 && cv >= g->V0 && cv <= g->V1) {
      // How much of the glyph the clip took, in drawn pixels: a descender's last pixel trimmed (a
      // small button's 'p': its frame is one line high) is not text cut; a pixel and a half is.
      // In drawn pixels: a window's font scale enlarges the glyph by what the axis the clip did
      // not trim shows (drawn size over the atlas size); both trimmed, the atlas's own size.
      const float keptU = (v[2].uv.x - v[0].uv.x) / std::max(1e-9f, g->U1 - g->U0);
      const float keptV = (v[2].uv.y - v[0].uv.y) / std::max(1e-9f, g->V1 - g->V0);
      float scale = 1.0f;
      if (keptU > 0.999f && g->X1 > g->X0) scale = (v[2].pos.x - v[0].pos.x) / (g->X1 - g->X0);
      else if (keptV > 0.999f && g->Y1 > g->Y0) scale = (v[2].pos.y - v[0].pos.y) / (g->Y1 - g->Y0);
      const float lostPx = scale * std::max((1 - keptU) * (g->X1 - g->X0), (1 - keptV) * (g->Y1 - g->Y0));
      q->trimmed = lostPx >= 1.5f;
      q->codepoint = g->Codepoint;
      q->font = gi.fontOf.at(g);
      return true;
    }
  return false;
}

}  // namespace

std::vector<TextRun> collectTextRuns() {
  std::vector<TextRun> runs;
  ImGuiContext* g = ImGui::GetCurrentContext();
  if (!g) return runs;
  const GlyphIndex& gi = glyphIndex();
  constexpr float kTol = 0.75f;  // pixels: glyph boxes touching an edge are not cut
  for (ImGuiWindow* w : g->Windows) {
    if (!w->WasActive || w->Hidden || !w->DrawList) continue;
    const ImDrawList& dl = *w->DrawList;
    TextRun* run = nullptr;
    Quad last{};
    for (const ImDrawCmd& cmd : dl.CmdBuffer) {
      if (cmd.UserCallback) continue;
      run = nullptr;
      const ImVec4 c = cmd.ClipRect;
      for (unsigned k = 0; k + 6 <= cmd.ElemCount;) {
        Quad q;
        if (!glyphQuad(dl, cmd, k, gi, &q)) {
          k += 3;
          continue;
        }
        k += 6;
        const float h = q.p1.y - q.p0.y;
        // One run is one font's glyphs on one line: a large value beside small text is two runs
        // (merged, the value's tall box seemed to lie over the small text's second line).
        const bool sameLine = run && q.font == last.font && q.p0.y < last.p1.y && q.p1.y > last.p0.y;
        const bool continues = sameLine && q.p0.x >= last.p1.x - 1.5f &&
                               q.p0.x <= last.p1.x + 1.2f * std::max(h, last.p1.y - last.p0.y);
        if (!continues) {
          runs.push_back({});
          run = &runs.back();
          run->window = w->Name;
          run->rect = {q.p0.x, q.p0.y, 0, 0};
          run->clip = {c.x, c.y, c.z - c.x, c.w - c.y};
          run->scrollsX = w->ScrollMax.x > 0;
          run->scrollsY = w->ScrollMax.y > 0;
        } else if (q.p0.x > last.p1.x + 0.35f * h) {
          run->text += ' ';
        }
        const float x0 = std::min(run->rect.x, q.p0.x), y0 = std::min(run->rect.y, q.p0.y);
        const float x1 = std::max(run->rect.x + run->rect.w, q.p1.x), y1 = std::max(run->rect.y + run->rect.h, q.p1.y);
        run->rect = {x0, y0, x1 - x0, y1 - y0};
        appendUtf8(run->text, q.codepoint);
        if (q.p0.x < c.x - kTol || q.p1.x > c.z + kTol) run->cutX = true;
        if (q.p0.y < c.y - kTol || q.p1.y > c.w + kTol) run->cutY = true;
        if (q.trimmed) (q.p0.x <= c.x + kTol || q.p1.x >= c.z - kTol ? run->cutX : run->cutY) = true;
        last = q;
      }
    }
  }
  return runs;
}

bool isKeyWindow(const std::string& window) {
  for (const char* key : {"Views/", "Bandwidth", "##lesson-bar", "seed-table"})
    if (window.find(key) != std::string::npos) {
      // Inside the views, the source listing and the editor's text scroll like a text editor.
      return window.find("source") == std::string::npos && window.find("editor-text") == std::string::npos;
    }
  return false;
}

std::vector<LayoutIssue> findLayoutIssues(const std::vector<TextRun>& runs) {
  std::vector<LayoutIssue> issues;
  for (const TextRun& r : runs) {
    const bool key = isKeyWindow(r.window);
    // Rows of a table or list that scrolls may pass under its edge; a view's own picture may not.
    // (A lesson caption scrolls only when even its smallest type does not fit the bar.)
    const bool list = r.window.find("seed-table") != std::string::npos || r.window.find("ladder-table") != std::string::npos ||
                      r.window.find("lesson-caption") != std::string::npos;
    if (r.cutX && (key || !r.scrollsX)) issues.push_back({"cut sideways", r.window, "'" + r.text + "'"});
    else if (r.cutY && ((key && !(list && r.scrollsY)) || !r.scrollsY))
      issues.push_back({"cut", r.window, "'" + r.text + "'"});
  }
  // Overlaps: text over other text of the same window, by more than anti-aliasing slack, as drawn:
  // each run within its clip rectangle (a table's row scrolled under its frozen header is hidden
  // by the clip, not drawn over the header).
  constexpr float kSlack = 2.0f;
  auto drawn = [](const TextRun& r) {
    const float x0 = std::max(r.rect.x, r.clip.x), y0 = std::max(r.rect.y, r.clip.y);
    const float x1 = std::min(r.rect.x + r.rect.w, r.clip.x + r.clip.w);
    const float y1 = std::min(r.rect.y + r.rect.h, r.clip.y + r.clip.h);
    return Rect{x0, y0, std::max(0.0f, x1 - x0), std::max(0.0f, y1 - y0)};
  };
  for (size_t i = 0; i < runs.size(); ++i)
    for (size_t j = i + 1; j < runs.size() && runs[j].window == runs[i].window; ++j) {
      const Rect a = drawn(runs[i]);
      const Rect b = drawn(runs[j]);
      const float ix = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
      const float iy = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
      if (ix > kSlack && iy > kSlack)
        issues.push_back({"overlap", runs[i].window, "'" + runs[i].text + "' | '" + runs[j].text + "'"});
    }
  return issues;
}

}  // namespace rl::gui
