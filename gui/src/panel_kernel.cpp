// Kernel panel: the catalogue, the selected kernel's notes and its source.
#include <algorithm>
#include <sstream>

#include "reducelab/catalogue.hpp"
#include "reducelab/family.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {

// Selecting a kernel keeps the other parameters, adjusted where the kernel needs it.
void selectKernel(Model& model, const KernelInfo& k) {
  RunConfig& c = model.config;
  const KernelInfo* before = findKernel(c.kernel);
  // Back to a family picked before: the parameters it had then (a matrix's sides after a reduction).
  if (before && &familyOf(*before) != &familyOf(k)) {
    model.parkedParams[std::string(familyOf(*before).name())] = c.params;
    if (auto it = model.parkedParams.find(std::string(familyOf(k).name())); it != model.parkedParams.end())
      c.params = it->second;
  }
  c.kernel = std::string(k.key);
  familyOf(k).adopt(k, c, before);  // e.g. a matrix's own parameters; back from one, a block a reduction takes
  if (model.config.block < k.minBlock) {
    model.config.block = k.minBlock;
    model.addLog(LogLevel::Info, "Block size raised to " + std::to_string(k.minBlock) + ": " +
                                     std::string(k.key) + " needs it");
  }
  if (!allowsFinal(k, model.config.final)) model.config.final = FinalStage::Default;
}

namespace {

struct DispatchChoice {
  std::string shortText, why;
};
const DispatchChoice& dispatchChoice(const Model& model, const KernelInfo& k);

void drawNotes(const KernelInfo& k, const Palette& pal) {
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.accent), "%s", std::string(k.title).c_str());
  if (k.harris || !k.upc.empty())
    ImGui::TextDisabled("%s%s%s", k.harris ? ("Harris kernel " + std::to_string(k.harris)).c_str() : "",
                        k.harris && !k.upc.empty() ? "  |  " : "",
                        k.upc.empty() ? "" : ("UPC lecture " + std::string(k.upc)).c_str());
  ImGui::Separator();
  std::istringstream in{std::string(kernelNotes(k))};
  std::string para, line;
  auto flush = [&] {
    if (para.empty()) return;
    if (para.rfind("**", 0) == 0) {  // "**Heading.** text"
      const size_t end = para.find("**", 2);
      if (end != std::string::npos) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.accent), "%s", para.substr(2, end - 2).c_str());
        para = para.substr(end + 2);
      }
    }
    std::string plain;
    for (size_t i = 0; i < para.size(); ++i)
      if (!(para[i] == '*' && i + 1 < para.size() && para[i + 1] == '*') && !(i > 0 && para[i] == '*' && para[i - 1] == '*') && para[i] != '`')
        plain += para[i];
    ImGui::TextWrapped("%s", plain.c_str());
    ImGui::Spacing();
    para.clear();
  };
  while (std::getline(in, line)) {
    if (line.empty()) flush();
    else para += (para.empty() ? "" : " ") + line;
  }
  flush();
}

// A tuned kernel's policy on this device: the stored table, and what the latest run of it used.
void drawPolicy(const Model& model, const KernelInfo& k, const Palette& pal) {
  if (!k.policyTuned) return;
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.accent), "Launch policy on this device");
  if (model.policies.empty()) {
    ImGui::TextWrapped("No tuned table is stored for this GPU: the latency rule decides (reducelab tune measures one).");
  } else {
    ImGui::TextWrapped("Tuned %s on %s (driver %s); per N: loads in flight / CTAs per SM / cache hint.",
                       model.policies.date.c_str(), model.policies.deviceName.c_str(), model.policies.driver.c_str());
    for (const std::string& line : describePolicyTable(model.policies)) ImGui::TextWrapped("%s", line.c_str());
  }
  if (k.dispatches) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.accent), "What auto picks now");
    ImGui::TextWrapped("%s", dispatchChoice(model, k).why.c_str());
  }
  for (size_t i = model.results.size(); i-- > 0;) {
    const Measurement& m = model.results[i];
    if (!m.ok || m.config.kernel != k.key) continue;
    ImGui::TextWrapped("Latest run (%s, N = %s, block %d): grid %llu, %s; %s.", std::string(name(m.config.type)).c_str(),
                       formatCount(m.config.n).c_str(), m.config.block, (unsigned long long)m.geometry.grid(),
                       (std::to_string(m.geometry.loadsInFlight) + " loads in flight, hint " +
                        std::string(name(m.geometry.cacheHint))).c_str(),
                       m.geometry.policySource.c_str());
    break;
  }
  ImGui::Spacing();
}

// What a dispatch (auto) picks for the configuration on screen, on the GPU the screen is about:
// "b256, 1 CTA" for the catalogue row, and the plan's reason for its tooltip. The plan reads the
// device's tuned table from disk, so it is made again only when the question changes.
const DispatchChoice& dispatchChoice(const Model& model, const KernelInfo& k) {
  static std::string lastKey;
  static DispatchChoice choice;
  const DeviceInfo device = model.shownDevice();
  RunConfig c = model.config;
  c.kernel = std::string(k.key);
  familyOf(k).normalize(k, c);
  const std::string key = std::string(k.key) + " " + std::string(name(c.type)) + " " + std::string(name(c.op)) + " " +
                          std::to_string(c.n) + " " + device.name + " " + device.uuid;
  if (key != lastKey) {
    lastKey = key;
    const Geometry g = assumedGeometry(c, device);
    std::string shape = g.grid() == 1 ? "1 CTA" : g.clusterCtas > 1 ? "cluster of " + std::to_string(g.clusterCtas)
                                                                    : std::to_string(g.grid()) + " CTAs";
    choice.shortText = "b" + std::to_string(g.block) + ", " + shape + (g.final == FinalStage::Atomic ? ", atomic" : "");
    choice.why = "For " + std::string(name(c.type)) + ", N = " + formatCount(c.n) + " on " + device.name + ": block " +
                 std::to_string(g.block) + ", grid " + std::to_string(g.grid()) + ", " +
                 std::to_string(g.loadsInFlight) + " loads in flight, hint " + std::string(name(g.cacheHint)) + ".\n" +
                 g.policySource;
  }
  return choice;
}

}  // namespace

void drawKernelSource(Model& model, UiActions& actions, const KernelInfo& k, const std::string& highlight);

void drawKernelPanel(Model& model, UiActions& actions) {
  const KernelInfo* current = findKernel(model.config.kernel);
  const Palette& pal = palette(model.ui.theme);
  if (!ImGui::BeginTabBar("kernel-tabs")) return;
  if (ImGui::BeginTabItem("Catalogue")) {
    ImGui::BeginChild("catalogue");
    const KernelFamily* group = nullptr;
    for (const KernelInfo& k : catalogue()) {
      if (&familyOf(k) != group) {  // grouped by family: the reduction ladder, transpose, matmul
        group = &familyOf(k);
        ImGui::TextDisabled("%s", std::string(group->heading()).c_str());
        ImGui::Separator();
      }
      const bool selected = current == &k;
      std::string label = std::string(k.key) + "  " + std::string(k.name);
      if (ImGui::Selectable(label.c_str(), selected)) selectKernel(model, k);
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(std::string(k.title).c_str());
        if (k.harris) ImGui::Text("Harris kernel %d", k.harris);
        if (!k.upc.empty()) ImGui::Text("UPC lecture %s", std::string(k.upc).c_str());
        if (k.unsafe) ImGui::TextUnformatted("Unsafe since Volta (kept for teaching)");
        if (!k.deterministic) ImGui::TextUnformatted("Float results vary run to run");
        if (k.dispatches) ImGui::TextUnformatted(dispatchChoice(model, k).why.c_str());
        ImGui::EndTooltip();
      }
      std::string tag;  // "H1 K01/02": Harris's number and the UPC lecture's; a dispatch: what it picks
      if (k.dispatches) tag = dispatchChoice(model, k).shortText;
      if (k.harris) tag += "H" + std::to_string(k.harris);
      if (k.upc.size() > 6) tag += (tag.empty() ? "K" : " K") + std::string(k.upc.substr(6));
      const float tagX = ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(tag.c_str()).x;
      if (!tag.empty() && ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().ItemSpacing.x * 2 < tagX) {
        ImGui::SameLine(tagX);
        ImGui::TextDisabled("%s", tag.c_str());
      }
    }
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  if (current && ImGui::BeginTabItem("Notes")) {
    ImGui::BeginChild("notes");
    drawNotes(*current, pal);
    drawPolicy(model, *current, pal);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  if (current && ImGui::BeginTabItem("Source")) {
    drawKernelSource(model, actions, *current, "");
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace rl::gui
