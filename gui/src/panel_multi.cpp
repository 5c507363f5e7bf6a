// The multi-GPU panel: ring and tree Reduce / AllReduce animated from the CPU model, step by
// step (GPUs as boxes, the chunks they hold, the chunks in flight and the bytes on each link),
// timed by a loaded measurement where it has the figure; and the algbw / busbw chart.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "reducelab/gui/multi_view.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"
#include "reducelab/multi_record.hpp"

namespace rl::gui {

namespace col = rl::collective;

MultiPanelState& multiPanelState(Model& model) {
  if (!model.multiPanel) model.multiPanel = std::make_shared<MultiPanelState>();
  return *model.multiPanel;
}

std::string loadMultiResults(MultiPanelState& s, const std::string& path) {
  std::ifstream in(path);
  if (!in) return "cannot open " + path;
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded()) return path + " is not JSON";
  multi::Report r;
  std::string err;
  if (!multi::fromJson(j, &r, &err)) return path + ": " + err;
  s.measured = std::move(r);
  s.haveMeasured = true;
  if (s.measured.gpusUsed >= 2) s.gpus = s.measured.gpusUsed;
  s.step = 0;
  s.progress = 0;
  return "";
}

double measuredSeconds(const multi::Report& r, col::Algorithm a, col::Collective c, uint64_t bytes, int gpus) {
  const std::string algo = a == col::Algorithm::Ring ? "nccl-ring" : "nccl-tree";
  for (const multi::Row& w : r.rows)
    if (w.ok && w.kind == "vector" && w.algorithm == algo && w.collective == std::string(col::name(c)) &&
        w.bytes == bytes && w.gpus == gpus)
      return w.ms.median * 1e-3;
  return 0;
}

Figure multiFigure(const multi::Report& r) {
  Figure f;
  f.fileStem = "multi-allreduce";
  PlotSpec& p = f.spec;
  p.title = "AllReduce across " + std::to_string(r.gpusUsed) + " GPUs: bandwidth by size";
  p.subtitle = (r.devices.empty() ? std::string("no measured run") : r.devices.front().name) + ", " +
               std::string(name(r.type)) + " " + std::string(name(r.op)) +
               (r.ncclVersion.empty() ? "" : ", NCCL " + r.ncclVersion) + "; busbw = algbw x 2(G-1)/G";
  p.x.label = "bytes per GPU";
  p.x.scale = AxisScale::Log2;
  // Log scale: the links (~400 GB/s) and the HBM roof (~4.6 TB/s) differ tenfold, and small
  // messages reach well under 1 GB/s; on a linear axis every curve would sit on the floor.
  p.y.label = "GB/s (log scale)";
  p.y.scale = AxisScale::Log10;
  p.emptyMessage = "no measured vector AllReduce (reducelab multi --format json)";
  int colourIndex = 0;
  for (const char* algo : {"nccl-ring", "nccl-tree", "hand"}) {
    Series bus, alg;
    bus.name = std::string(algo) + " busbw";
    alg.name = std::string(algo) + " algbw";
    bus.color = alg.color = paletteColor(colourIndex++);
    alg.dashed = true;
    std::vector<RunConfig> configs;
    for (const multi::Row& w : r.rows) {
      if (w.kind != "vector" || w.algorithm != algo || !w.ok) continue;
      bus.x.push_back(double(w.bytes));
      bus.y.push_back(w.busbwGBs);
      alg.x.push_back(double(w.bytes));
      alg.y.push_back(w.algbwGBs);
      configs.push_back(RunConfig{});
    }
    if (bus.x.empty()) continue;
    p.series.push_back(bus);
    f.configs.push_back(configs);
    p.series.push_back(alg);
    f.configs.push_back(configs);
  }
  double p2p = 0;
  for (size_t g = 1; g < r.p2pGBs.size(); ++g)
    if (r.p2pGBs[g] > 0) p2p = p2p == 0 ? r.p2pGBs[g] : std::min(p2p, r.p2pGBs[g]);
  char label[160];
  if (p2p > 0) {
    std::snprintf(label, sizeof label, "peer copy (measured) %.0f GB/s", p2p);
    p.references.push_back({p2p, label, IM_COL32(40, 160, 90, 255), true, "peer " + std::to_string(int(p2p + 0.5))});
  }
  if (!r.hbmReadGBs.empty() && r.hbmReadGBs[0] > 0) {
    std::snprintf(label, sizeof label, "HBM read roof (measured) %.0f GB/s", r.hbmReadGBs[0]);
    p.references.push_back({r.hbmReadGBs[0], label, IM_COL32(200, 80, 60, 255), true,
                            "HBM " + std::to_string(int(r.hbmReadGBs[0] + 0.5))});
  }
  // The published ring figure (H100 SXM, NVIDIA/nccl #1455): 365-370 GB/s busbw.
  p.references.push_back({365.0, "NCCL ring busbw, H100 SXM (nccl #1455) 365-370", IM_COL32(130, 130, 130, 255), true,
                          "NCCL H100 365"});
  return f;
}

namespace {

uint32_t chunkColour(int chunk, int chunks, int alpha) {
  // Distinct hues around the wheel, the same chunk the same colour on every GPU.
  const float h = chunks <= 1 ? 0.08f : float(chunk) / float(chunks);
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(h, 0.65f, 0.95f, r, g, b);
  return IM_COL32(int(r * 255), int(g * 255), int(b * 255), alpha);
}

std::string microseconds(double s) {
  char b[32];
  if (s >= 1e-3) std::snprintf(b, sizeof b, "%.2f ms", s * 1e3);
  else std::snprintf(b, sizeof b, "%.1f us", s * 1e6);
  return b;
}

// Where GPU g's box goes: a ring for the ring, heap levels (root on top) for the tree.
ImVec2 gpuCentre(int g, int gpus, bool tree, ImVec2 origin, ImVec2 size, ImVec2 box) {
  if (tree) {
    int level = 0;
    while ((2 << level) - 1 <= g) ++level;
    const int first = (1 << level) - 1, width = 1 << level;
    const int levels = [&] {
      int l = 0;
      while ((2 << l) - 1 < gpus) ++l;
      return l + 1;
    }();
    const float y = origin.y + box.y * 0.7f + (size.y - box.y * 1.4f) * (levels == 1 ? 0.5f : float(level) / float(levels - 1));
    const float x = origin.x + size.x * (float(g - first) + 0.5f) / float(width);
    return ImVec2(x, y);
  }
  const float cx = origin.x + size.x * 0.5f, cy = origin.y + size.y * 0.5f;
  const float rx = std::max(10.0f, size.x * 0.5f - box.x * 0.6f), ry = std::max(10.0f, size.y * 0.5f - box.y * 0.6f);
  const float a = -1.5707963f + 6.2831853f * float(g) / float(std::max(gpus, 1));
  return ImVec2(cx + rx * std::cos(a), cy + ry * std::sin(a));
}

void arrow(ImDrawList* dl, ImVec2 a, ImVec2 b, uint32_t colour, float thickness) {
  dl->AddLine(a, b, colour, thickness);
  const float dx = b.x - a.x, dy = b.y - a.y, len = std::sqrt(dx * dx + dy * dy);
  if (len < 1) return;
  const float ux = dx / len, uy = dy / len, s = 6 * thickness;
  dl->AddTriangleFilled(b, ImVec2(b.x - ux * s - uy * s * 0.6f, b.y - uy * s + ux * s * 0.6f),
                        ImVec2(b.x - ux * s + uy * s * 0.6f, b.y - uy * s - ux * s * 0.6f), colour);
}

// The animation canvas for schedule `s` after `done` steps, step `done` in flight at `progress`.
void drawSchedule(const col::Schedule& s, int done, float progress, ImVec2 size) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float sc = uiScale();
  const bool tree = s.algorithm == col::Algorithm::Tree;
  const ImVec2 box(std::clamp(size.x / float(std::max(3, s.gpus)) * 0.8f, 70 * sc, 150 * sc), 54 * sc);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), frame = ImGui::GetColorU32(ImGuiCol_Border),
              bg = ImGui::GetColorU32(ImGuiCol_FrameBg);
  dl->AddRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), frame);

  col::Contributions state = col::initialContributions(s);
  for (int k = 0; k < done && k < int(s.steps.size()); ++k) col::applyStep(s, k, &state);
  std::vector<ImVec2> centre;
  for (int g = 0; g < s.gpus; ++g) centre.push_back(gpuCentre(g, s.gpus, tree, origin, size, box));

  // Links in flight: arrows with the bytes, and the chunk moving along them.
  if (done < int(s.steps.size())) {
    const col::Step& st = s.steps[size_t(done)];
    for (const col::Transfer& t : st.transfers) {
      ImVec2 a = centre[size_t(t.from)], b = centre[size_t(t.to)];
      // Offset to the right of the direction so a -> b and b -> a stay apart; stop at the boxes.
      const float dx = b.x - a.x, dy = b.y - a.y, len = std::max(1.0f, std::sqrt(dx * dx + dy * dy));
      const float ox = -dy / len * 8 * sc, oy = dx / len * 8 * sc;
      const float trim = std::min(len * 0.35f, std::max(box.x, box.y) * 0.55f);
      a = ImVec2(a.x + dx / len * trim + ox, a.y + dy / len * trim + oy);
      b = ImVec2(b.x - dx / len * trim + ox, b.y - dy / len * trim + oy);
      const uint32_t c = t.kind == col::TransferKind::Reduce ? IM_COL32(235, 140, 40, 255) : IM_COL32(70, 140, 235, 255);
      arrow(dl, a, b, c, 2.0f * sc);
      const ImVec2 p(a.x + (b.x - a.x) * progress, a.y + (b.y - a.y) * progress);
      const float h = 7 * sc;
      dl->AddRectFilled(ImVec2(p.x - h, p.y - h), ImVec2(p.x + h, p.y + h), chunkColour(t.chunk, int(s.chunks.size()), 255));
      dl->AddRect(ImVec2(p.x - h, p.y - h), ImVec2(p.x + h, p.y + h), text);
      const std::string label = col::formatBytes(t.bytes);
      const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
      // The label near the sender, out of the moving chunk's way at the middle of the step.
      const ImVec2 mid(a.x + (b.x - a.x) * 0.25f + ox * 1.6f - ts.x * 0.5f, a.y + (b.y - a.y) * 0.25f + oy * 1.6f - ts.y * 0.5f);
      dl->AddRectFilled(ImVec2(mid.x - 2, mid.y - 1), ImVec2(mid.x + ts.x + 2, mid.y + ts.y + 1), bg);
      dl->AddText(mid, text, label.c_str());
    }
  }
  // GPU boxes: the chunks each holds, coloured by chunk, filled by how many GPUs are summed in.
  const int chunks = int(s.chunks.size());
  for (int g = 0; g < s.gpus; ++g) {
    const ImVec2 c = centre[size_t(g)];
    const ImVec2 p0(c.x - box.x * 0.5f, c.y - box.y * 0.5f), p1(c.x + box.x * 0.5f, c.y + box.y * 0.5f);
    dl->AddRectFilled(p0, p1, bg, 4 * sc);
    dl->AddRect(p0, p1, g == s.root && s.collective == col::Collective::Reduce ? IM_COL32(235, 140, 40, 255) : text,
                4 * sc, 0, 1.5f * sc);
    char title[32];
    std::snprintf(title, sizeof title, "GPU %d", g);
    dl->AddText(ImVec2(p0.x + 4 * sc, p0.y + 2 * sc), text, title);
    const float cellsX = p0.x + 4 * sc, cellsW = box.x - 8 * sc, cellY0 = p0.y + 22 * sc, cellY1 = p1.y - 5 * sc;
    const float w = cellsW / float(chunks);
    for (int k = 0; k < chunks; ++k) {
      const int have = col::popcountContributions(state[size_t(g)][size_t(k)]);
      const float x0 = cellsX + w * float(k), x1 = x0 + w - 1;
      dl->AddRectFilled(ImVec2(x0, cellY0), ImVec2(x1, cellY1), chunkColour(k, chunks, 50));
      const float fill = float(have) / float(s.gpus);
      dl->AddRectFilled(ImVec2(x0, cellY1 - (cellY1 - cellY0) * fill), ImVec2(x1, cellY1), chunkColour(k, chunks, 230));
      if (have == s.gpus) dl->AddRect(ImVec2(x0, cellY0), ImVec2(x1, cellY1), text);
    }
  }
  ImGui::Dummy(size);
}

// "#rrggbb" of an IM_COL32 colour, mixed with `white` (0..1) of white: pale cells without
// relying on opacity, which some SVG renderers ignore.
std::string svgColour(uint32_t c, float white = 0) {
  auto mix = [&](uint32_t v) { return int(float(v & 0xff) * (1 - white) + 255 * white + 0.5f); };
  char b[16];
  std::snprintf(b, sizeof b, "#%02x%02x%02x", mix(c), mix(c >> 8), mix(c >> 16));
  return b;
}

}  // namespace

std::string scheduleSvg(const col::Schedule& s, int done) {
  const float W = 800, H = 600, top = 60;
  const bool tree = s.algorithm == col::Algorithm::Tree;
  const ImVec2 box(std::clamp(W / float(std::max(3, s.gpus)) * 0.8f, 90.0f, 150.0f), 60);
  const int steps = int(s.steps.size());
  done = std::clamp(done, 0, steps);
  col::Contributions state = col::initialContributions(s);
  for (int k = 0; k < done; ++k) col::applyStep(s, k, &state);
  std::vector<ImVec2> centre;
  for (int g = 0; g < s.gpus; ++g) centre.push_back(gpuCentre(g, s.gpus, tree, ImVec2(0, top), ImVec2(W, H - top - 30), box));
  std::string o;
  char b[512];
  std::snprintf(b, sizeof b,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                "font-family=\"DejaVu Sans, sans-serif\" font-size=\"14\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
                W, H, W, H);
  o += b;
  const std::string what = std::string(col::name(s.algorithm)) + " " + std::string(col::name(s.collective)) + ", " +
                           std::to_string(s.gpus) + " GPUs, " + col::formatBytes(s.bytes()) + " per GPU";
  const std::string stepText = steps == 0 ? "one GPU: nothing moves"
                               : done < steps ? "step " + std::to_string(done + 1) + " of " + std::to_string(steps) + ": " +
                                                    s.steps[size_t(done)].phase + ", busiest GPU moves " +
                                                    col::formatBytes(s.busiestGpuBytes(done))
                                              : "done after " + std::to_string(steps) + " steps";
  o += "<text x=\"16\" y=\"26\" font-size=\"18\" font-weight=\"bold\">" + what + "</text>\n";
  o += "<text x=\"16\" y=\"48\">" + stepText + "</text>\n";
  if (done < steps)
    for (const col::Transfer& t : s.steps[size_t(done)].transfers) {
      ImVec2 a = centre[size_t(t.from)], e = centre[size_t(t.to)];
      const float dx = e.x - a.x, dy = e.y - a.y, len = std::max(1.0f, std::sqrt(dx * dx + dy * dy));
      const float ox = -dy / len * 8, oy = dx / len * 8, trim = std::min(len * 0.35f, std::max(box.x, box.y) * 0.55f);
      a = ImVec2(a.x + dx / len * trim + ox, a.y + dy / len * trim + oy);
      e = ImVec2(e.x - dx / len * trim + ox, e.y - dy / len * trim + oy);
      const std::string c = t.kind == col::TransferKind::Reduce ? "#eb8c28" : "#468ceb";
      const float ux = dx / len, uy = dy / len, hs = 12;
      std::snprintf(b, sizeof b,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"/>\n"
                    "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>\n",
                    a.x, a.y, e.x, e.y, c.c_str(), e.x, e.y, e.x - ux * hs - uy * hs * 0.6f, e.y - uy * hs + ux * hs * 0.6f,
                    e.x - ux * hs + uy * hs * 0.6f, e.y - uy * hs - ux * hs * 0.6f, c.c_str());
      o += b;
      const ImVec2 m((a.x + e.x) * 0.5f, (a.y + e.y) * 0.5f);
      std::snprintf(b, sizeof b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#000000\"/>\n",
                    m.x - 7, m.y - 7, svgColour(chunkColour(t.chunk, int(s.chunks.size()), 255)).c_str());
      o += b;
      const ImVec2 l(a.x + (e.x - a.x) * 0.25f + ox * 2.2f, a.y + (e.y - a.y) * 0.25f + oy * 2.2f);
      std::snprintf(b, sizeof b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", l.x, l.y + 5,
                    col::formatBytes(t.bytes).c_str());
      o += b;
    }
  const int chunks = int(s.chunks.size());
  for (int g = 0; g < s.gpus; ++g) {
    const ImVec2 c = centre[size_t(g)];
    const float x0 = c.x - box.x * 0.5f, y0 = c.y - box.y * 0.5f;
    const bool root = g == s.root && s.collective == col::Collective::Reduce;
    std::snprintf(b, sizeof b,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"5\" fill=\"#f2f2f2\" stroke=\"%s\" "
                  "stroke-width=\"1.5\"/>\n<text x=\"%.1f\" y=\"%.1f\">GPU %d</text>\n",
                  x0, y0, box.x, box.y, root ? "#eb8c28" : "#000000", x0 + 5, y0 + 17, g);
    o += b;
    const float cw = (box.x - 10) / float(chunks), cy0 = y0 + 24, cy1 = y0 + box.y - 6;
    for (int k = 0; k < chunks; ++k) {
      const float fill = float(col::popcountContributions(state[size_t(g)][size_t(k)])) / float(s.gpus);
      const float cx = x0 + 5 + cw * float(k);
      const std::string colour = svgColour(chunkColour(k, chunks, 255)), pale = svgColour(chunkColour(k, chunks, 255), 0.8f);
      std::snprintf(b, sizeof b,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n"
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s/>\n",
                    cx, cy0, cw - 1, cy1 - cy0, pale.c_str(), cx, cy1 - (cy1 - cy0) * fill, cw - 1, (cy1 - cy0) * fill,
                    colour.c_str(), fill >= 1 ? " stroke=\"#000000\"" : "");
      o += b;
    }
  }
  o += "<text x=\"16\" y=\"590\" fill=\"#555555\">cells: chunks, filled by how many GPUs are summed in; "
       "orange: added in, blue: copied</text>\n</svg>\n";
  return o;
}

void drawMultiGpuPanel(Model& model, UiActions& actions) {
  MultiPanelState& s = multiPanelState(model);
  const float sc = uiScale();
  // Controls.
  ImGui::SetNextItemWidth(90 * sc);
  if (ImGui::SliderInt("GPUs", &s.gpus, 1, 8)) s.step = 0;
  ImGui::SameLine();
  const char* algos[] = {"ring", "tree"};
  ImGui::SetNextItemWidth(70 * sc);
  if (ImGui::Combo("##algo", &s.algorithm, algos, 2)) s.step = 0;
  ImGui::SameLine();
  const char* colls[] = {"AllReduce", "Reduce"};
  ImGui::SetNextItemWidth(100 * sc);
  if (ImGui::Combo("##coll", &s.collective, colls, 2)) s.step = 0;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110 * sc);
  const std::string sizeText = col::formatBytes(uint64_t(1) << s.sizeLog2);
  if (ImGui::SliderInt("bytes/GPU", &s.sizeLog2, 10, 33, sizeText.c_str())) s.step = std::min(s.step, 0);

  const col::Algorithm algo = s.algorithm == 0 ? col::Algorithm::Ring : col::Algorithm::Tree;
  const col::Collective coll = s.collective == 0 ? col::Collective::AllReduce : col::Collective::Reduce;
  const uint64_t bytes = uint64_t(1) << s.sizeLog2;
  const uint64_t eb = s.haveMeasured ? elemBytes(s.measured.type) : 4;
  std::string err;
  const auto sched = col::makeSchedule(algo, coll, s.gpus, std::max<uint64_t>(1, bytes / eb), eb, &err);
  if (!sched) {
    wrappedColoredText(ImVec4(1, 0.4f, 0.3f, 1), err);
    return;
  }
  const int steps = int(sched->steps.size());
  s.step = std::clamp(s.step, 0, steps);

  // Step controls.
  if (ImGui::SmallButton("|<")) s.step = 0, s.progress = 0;
  ImGui::SameLine();
  if (ImGui::SmallButton("<")) s.step = std::max(0, s.step - 1), s.progress = 0;
  ImGui::SameLine();
  if (ImGui::SmallButton(s.playing ? "Pause" : "Play")) {
    s.playing = !s.playing;
    if (s.playing && s.step >= steps) s.step = 0, s.progress = 0;
  }
  ImGui::SameLine();
  if (ImGui::SmallButton(">")) s.step = std::min(steps, s.step + 1), s.progress = 0;
  ImGui::SameLine();
  if (ImGui::SmallButton(">|")) s.step = steps, s.progress = 0;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90 * sc);
  ImGui::SliderFloat("s/step", &s.secondsPerStep, 0.2f, 4.0f, "%.1f");
  if (s.playing && steps > 0 && s.step < steps) {
    // A step that moves twice the bytes (the tree's inner GPUs) takes twice as long on screen.
    double mean = 0;
    for (int k = 0; k < steps; ++k) mean += double(sched->busiestGpuBytes(k)) / steps;
    const float weight = mean > 0 ? float(double(sched->busiestGpuBytes(s.step)) / mean) : 1.0f;
    s.progress += ImGui::GetIO().DeltaTime / std::max(0.05f, s.secondsPerStep * std::max(0.1f, weight));
    if (s.progress >= 1) {
      s.progress = 0;
      if (++s.step >= steps) s.playing = false;
    }
  }

  // What this step is, and how long it takes.
  const double measured = s.haveMeasured ? measuredSeconds(s.measured, algo, coll, bytes, s.gpus) : 0;
  double p2p = 0;
  if (s.haveMeasured)
    for (size_t g = 1; g < s.measured.p2pGBs.size(); ++g)
      if (s.measured.p2pGBs[g] > 0) p2p = p2p == 0 ? s.measured.p2pGBs[g] : std::min(p2p, s.measured.p2pGBs[g]);
  const col::StepTiming timing = col::timeSteps(*sched, p2p, 0.0, measured);
  if (steps == 0) {
    ImGui::TextWrapped("One GPU: nothing moves. The reduction is the single-GPU one.");
  } else if (s.step < steps) {
    const col::Step& st = sched->steps[size_t(s.step)];
    std::string when;
    if (timing.measured) when = ", " + microseconds(timing.seconds[size_t(s.step)]) + " (measured total, shared by the model)";
    else if (p2p > 0) when = ", ~" + microseconds(timing.seconds[size_t(s.step)]) + " (model at the measured peer copy rate)";
    else if (s.haveMeasured && s.measured.gpusUsed != s.gpus)
      when = ", not measured with " + std::to_string(s.gpus) + " GPUs (the loaded run used " +
             std::to_string(s.measured.gpusUsed) + ")";
    else when = ", time not measured";
    ImGui::TextWrapped("Step %d of %d: %s. Busiest GPU moves %s%s", s.step + 1, steps, st.phase.c_str(),
                       col::formatBytes(sched->busiestGpuBytes(s.step)).c_str(), when.c_str());
  } else {
    ImGui::TextWrapped("Done after %d steps: %s on %s.", steps,
                coll == col::Collective::AllReduce ? "every GPU holds the sum of every chunk" : "the root holds the sum",
                coll == col::Collective::AllReduce ? "all GPUs" : "GPU 0");
  }
  const auto sent = sched->sentBytes();
  const uint64_t most = sent.empty() ? 0 : *std::max_element(sent.begin(), sent.end());
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("Each GPU sends up to %s in all (%.3f x the buffer); %s over all links. %s",
                     col::formatBytes(most).c_str(), double(most) / double(std::max<uint64_t>(1, sched->bytes())),
                     col::formatBytes(sched->totalBytesMoved()).c_str(),
                     s.haveMeasured ? "" : "Model only (nothing measured): load a run for times.");
  ImGui::PopStyleColor();

  // The canvas, and under it the chart.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float canvasH = std::max(160 * sc, avail.y * (s.haveMeasured ? 0.55f : 1.0f) - ImGui::GetFrameHeightWithSpacing() * 3);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  model.layout["multi-canvas"] = {at.x, at.y, avail.x, canvasH};
  drawSchedule(*sched, s.step, s.step < steps ? s.progress : 0, ImVec2(avail.x, canvasH));

  ImGui::SetNextItemWidth(std::max(120 * sc, avail.x - 60 * sc));
  ImGui::InputTextWithHint("##load", "multi.json from reducelab multi --format json", s.loadPath, sizeof s.loadPath);
  ImGui::SameLine();
  if (ImGui::SmallButton("Load")) {
    s.loadError = loadMultiResults(s, s.loadPath);
    if (s.loadError.empty()) model.addLog(LogLevel::Info, std::string("Loaded multi-GPU results from ") + s.loadPath);
    else model.addLog(LogLevel::Error, s.loadError);
  }
  if (!s.loadError.empty()) wrappedColoredText(ImVec4(1, 0.4f, 0.3f, 1), s.loadError);
  if (!s.haveMeasured) {
    ImGui::TextWrapped("No measured run: `reducelab multi --format json --out multi.json` on a machine with GPUs, then Load it "
                       "here for the algbw / busbw chart and measured step times.");
    return;
  }
  const Figure fig = multiFigure(s.measured);
  figureExportButtons(model, fig, actions);
  ImGui::SameLine();
  if (ImGui::SmallButton("Table")) actions.requestExportTable(multi::vectorTable(s.measured), "multi-allreduce");
  for (const std::string& n : s.measured.notMeasured) ImGui::TextDisabled("not measured: %s", n.c_str());
  const ImVec2 rest = ImGui::GetContentRegionAvail();
  drawPlot("multi-plot", fig.spec, ImVec2(rest.x, std::max(80 * sc, rest.y)));
}

}  // namespace rl::gui
