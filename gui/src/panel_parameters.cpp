// Parameters: everything a run needs, validated as it is edited; Run measures it.
#include <algorithm>
#include <cstring>

#include "reducelab/catalogue.hpp"
#include "reducelab/family.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {

void selectKernel(Model& model, const KernelInfo& k);
void drawFamilyParameters(RunConfig& c, const KernelInfo& k);
void drawReductionParameters(Model& model, RunConfig& c, const KernelInfo* k);
void drawCommonParameters(RunConfig& c);
void drawRunButtons(Model& model, UiActions& actions, float s);

namespace {

template <class E, size_t N>
bool enumCombo(const char* label, E* value, const E (&options)[N], const char* help) {
  bool changed = false;
  if (ImGui::BeginCombo(label, std::string(name(*value)).c_str())) {
    for (E o : options)
      if (ImGui::Selectable(std::string(name(o)).c_str(), o == *value)) *value = o, changed = true;
    ImGui::EndCombo();
  }
  if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
  return changed;
}

}  // namespace

void drawParametersPanel(Model& model, UiActions& actions) {
  RunConfig& c = model.config;
  const float s = uiScale();
  ImGui::PushItemWidth(std::max(120 * s, ImGui::GetContentRegionAvail().x * 0.55f));
  const KernelInfo* k = findKernel(c.kernel);
  if (ImGui::BeginCombo("kernel", k ? (std::string(k->key) + "  " + std::string(k->name)).c_str() : c.kernel.c_str())) {
    const KernelFamily* group = nullptr;
    for (const KernelInfo& ki : catalogue()) {
      if (&familyOf(ki) != group) {  // grouped by family
        ImGui::TextDisabled("%s", std::string((group = &familyOf(ki))->name()).c_str());
        ImGui::Separator();
      }
      if (ImGui::Selectable((std::string(ki.key) + "  " + std::string(ki.name)).c_str(), &ki == k)) selectKernel(model, ki);
    }
    ImGui::EndCombo();
  }
  if (k) drawFamilyParameters(c, *k);  // its own, from its list (none for the reductions)
  if (!k || familyOf(*k).hasOperation()) {
    drawReductionParameters(model, c, k);
  } else {  // a transpose or a product: float types, its block set by its own parameters
    enumCombo("element type", &c.type, {ElemType::Float32, ElemType::Float64}, nullptr);
    normalizeConfig(c);
  }
  drawCommonParameters(c);
  ImGui::PopItemWidth();
  drawRunButtons(model, actions, s);
}

// A family's own parameters, from its list: the sides (with presets that set them all), then the
// tile as a menu of the kernel's tiles (it sets the block).
void drawFamilyParameters(RunConfig& c, const KernelInfo& k) {
  const std::vector<FamilyParameter>& params = familyOf(k).parameters();
  if (params.empty()) return;
  bool sides = false;
  for (const FamilyParameter& p : params) {
    if (p.role != ParameterRole::OutputSide && p.role != ParameterRole::InnerSide) continue;  // a menu; counts beside what they count
    sides = true;
    int x = int(p.get(c));
    if (ImGui::InputInt(p.label.c_str(), &x, 1, 64)) p.set(c, uint64_t(std::clamp<int64_t>(x, int64_t(p.min), int64_t(p.max))));
    if (!p.tooltip.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.tooltip.c_str());
  }
  if (sides)
    for (const char* preset : {"1024", "1000", "4096"}) {
      if (preset != std::string("1024")) ImGui::SameLine();
      if (ImGui::SmallButton(preset))
        for (const FamilyParameter& p : params)
          if (p.role == ParameterRole::OutputSide || p.role == ParameterRole::InnerSide) p.set(c, std::stoull(preset));
    }
  for (const FamilyParameter& p : params) {
    if (p.role != ParameterRole::Tile) continue;
    const int tile = int(p.used(k, c));
    if (ImGui::BeginCombo(p.label.c_str(), (std::to_string(tile) + " x " + std::to_string(tile)).c_str())) {
      for (int t : k.tiles)
        if (ImGui::Selectable((std::to_string(t) + " x " + std::to_string(t)).c_str(), t == tile)) p.set(c, uint64_t(t));
      ImGui::EndCombo();
    }
    if (!p.tooltip.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.tooltip.c_str());
    normalizeConfig(c);  // the block and N follow from the tile and the sides
    const int used = int(p.used(k, c));
    ImGui::TextDisabled("%d x %d threads per block", matrixBlockX(k, used), matrixBlockY(k, used));
  }
  for (const FamilyParameter& p : params) {  // passes inside one launch (seed 004's loop within the kernel)
    if (p.role != ParameterRole::Repeats) continue;
    int x = int(std::min<uint64_t>(p.get(c), uint64_t(INT32_MAX)));
    if (ImGui::InputInt(p.label.c_str(), &x, 1, 10)) p.set(c, uint64_t(std::clamp<int64_t>(x, int64_t(p.min), int64_t(p.max))));
    if (!p.tooltip.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.tooltip.c_str());
  }
  normalizeConfig(c);
}

void drawReductionParameters(Model& model, RunConfig& c, const KernelInfo* k) {
  {
  if (ImGui::BeginCombo("block size", std::to_string(c.block).c_str())) {
    for (int b = 32; b <= 1024; b *= 2)
      if (ImGui::Selectable(std::to_string(b).c_str(), b == c.block)) c.block = b;
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Threads per block (a power of two). Up/Down in the combo.");
  enumCombo("element type", &c.type, {ElemType::Int32, ElemType::Int64, ElemType::Float32, ElemType::Float64}, nullptr);
  enumCombo("operation", &c.op, {Op::Sum, Op::Min, Op::Max}, "sum (mean = sum / N is shown with it), min or max");
  enumCombo("accumulator", &c.accumulate, {Accumulate::Same, Accumulate::Wide},
            "same: partial sums in the input type, as the seeds do (int32 overflows, float32 rounds);\n"
            "wide: int32 -> int64, float32 -> float64");
  // N as text: 16M, 2^24, 16777216.
  char* const nText = model.fields.nText;  // the window's own: what is being typed, and its error
  uint64_t& shownN = model.fields.nShown;
  if (shownN != c.n) {
    std::snprintf(nText, sizeof model.fields.nText, "%s", formatCount(c.n).c_str());
    shownN = c.n;
  }
  std::string& nError = model.fields.nError;
  if (ImGui::InputText("N", nText, sizeof model.fields.nText, ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll) ||
      ImGui::IsItemDeactivatedAfterEdit()) {
    if (auto v = parseCount(nText, &nError)) {
      c.n = *v;
      shownN = 0;
      nError.clear();
    }
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Number of elements: 16777216, 16M (binary) or 2^24; Enter applies");
  for (const char* preset : {"2^20", "2^24", "2^28"}) {
    if (preset != std::string("2^20")) ImGui::SameLine();
    if (ImGui::SmallButton(preset)) c.n = *parseCount(preset, nullptr);
  }
  if (!nError.empty()) wrappedColoredText(ImVec4(0.95f, 0.3f, 0.3f, 1), nError);
  if (k) {
    if (ImGui::BeginCombo("final stage", c.final == FinalStage::Default
                                             ? ("default (" + std::string(name(defaultFinal(*k))) + ")").c_str()
                                             : std::string(name(c.final)).c_str())) {
      if (ImGui::Selectable("default", c.final == FinalStage::Default)) c.final = FinalStage::Default;
      for (FinalStage f : k->finals)
        if (ImGui::Selectable(std::string(name(f)).c_str(), c.final == f)) c.final = f;
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("How the blocks' partial results become one value: cpu (copy partials, add on the host),\n"
                        "gpu (further passes of the kernel), atomic (k11), last block (k12)");
    // The GPU passes before a CPU final (the family's count parameter): shown where it applies.
    const bool passesApply = resolvedFinal(c) == FinalStage::Cpu && allowsFinal(*k, FinalStage::Gpu);
    for (const FamilyParameter& p : familyOf(*k).parameters()) {
      if (p.role != ParameterRole::Count) continue;
      if (!passesApply) {
        if (p.get(c) > 1) p.set(c, 0);  // a GPU final stage launches until one value is left
        continue;
      }
      int x = int(std::max<uint64_t>(p.get(c), 1));
      if (ImGui::InputInt(p.label.c_str(), &x, 1, 1)) p.set(c, uint64_t(std::clamp<int64_t>(x, 1, int64_t(p.max))));
      if (!p.tooltip.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.tooltip.c_str());
    }
    // The first launch's blocks where the kernel's grid is free (0: one wave of resident blocks).
    const bool gridFree = k->shape == GridShape::GridStride && !k->policyTuned;
    for (const FamilyParameter& p : familyOf(*k).parameters()) {
      if (p.role != ParameterRole::Blocks) continue;
      if (!gridFree) {
        if (p.get(c) != 0) p.set(c, 0);
        continue;
      }
      int x = int(std::min<uint64_t>(p.get(c), uint64_t(INT32_MAX)));
      if (ImGui::InputInt(p.label.c_str(), &x, 64, 1024)) p.set(c, uint64_t(std::clamp<int64_t>(x, 0, int64_t(p.max))));
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.tooltip.c_str());
    }
  }
  if (programmaticDependentLaunchApplies(c)) {  // only where a second pass exists
    ImGui::Checkbox("programmatic dependent launch", &c.pdl);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("On (default): the later passes of final=gpu may start while the previous pass drains (sm_90);\n"
                        "off: plain launches, one after the other. Compare the two to see what it saves.");
  }
  }
}

void drawCommonParameters(RunConfig& c) {
  enumCombo("input data", &c.data,
            {DataPattern::Uniform, DataPattern::IntRange, DataPattern::Ones, DataPattern::IllConditioned},
            "uniform: [0,1) floats, 0..999 integers; int-range: integers in a range;\n"
            "ones; ill-conditioned: +-1e8 alternating plus small values (shows rounding)");
  ImGui::SliderInt("repetitions", &c.reps, 1, 100);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Timed runs; the table shows their median, min and max");
  ImGui::Checkbox("warm L2", &c.warmL2);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Off (default): the L2 cache is flushed before every timed run, so the input comes from DRAM.\n"
                      "On: repeated runs may find the input in L2 and exceed the DRAM peak.");
  int traced = int(c.tracedBlock);
  if (ImGui::InputInt("traced block", &traced)) c.tracedBlock = uint64_t(std::max(0, traced));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Which thread block the trace views show");
}

void drawRunButtons(Model& model, UiActions& actions, float s) {
  ImGui::Spacing();
  const bool canRun = model.configError.empty() && !model.cpuModel();
  if (!canRun) ImGui::BeginDisabled();
  if (ImGui::Button("Run", ImVec2(90 * s, 0))) actions.requestRun();  // F5: shortcuts.cpp
  if (!canRun) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(model.cpuModel() ? "Measuring needs an NVIDIA GPU" : "Measure this configuration (F5)");
  ImGui::SameLine();
  if (model.results.empty()) ImGui::BeginDisabled();
  if (ImGui::Button("Clear results")) actions.requestClearResults();
  if (model.results.empty()) ImGui::EndDisabled();
  if (const size_t n = model.results.restorable(); n > 0) {  // nothing lost by a click
    ImGui::SameLine();
    char label[48];
    std::snprintf(label, sizeof label, "Undo clear (%zu)", n);
    if (ImGui::Button(label)) actions.requestRestoreResults();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Bring back the %zu runs the last Clear removed", n);
  }
  if (model.measuring) {
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) actions.requestCancelRuns();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Stop the running measurement and drop the queued ones");
    ImGui::TextDisabled("%s", model.measuringWhat.c_str());
  }
  if (!model.configError.empty()) wrappedColoredText(ImVec4(0.95f, 0.3f, 0.3f, 1), model.configError);
}

}  // namespace rl::gui
