// Occupancy explorer: what the CUDA occupancy calculator shows for the selected kernel (its
// registers and shared memory from the device, or assumed without one), theoretical occupancy
// against block size with the limiting resource, and a what-if for registers and shared memory.
#include <algorithm>

#include "reducelab/gui/panels.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/gui/plots.hpp"
#include "reducelab/gui/ui.hpp"

namespace rl::gui {

void drawOccupancyPanel(Model& model, UiActions& actions) {
  const ResourceUsage& r = model.resources;
  const DeviceInfo d = model.shownDevice();
  bool& whatIf = model.fields.whatIf;  // the window's own
  int& regs = model.fields.whatIfRegisters;
  int& smemKiB = model.fields.whatIfSmemKiB;
  // The curve over block sizes comes from the same resources as the figures above it (and
  // as `reducelab report`): shared memory that scales with the block scales on the curve too.
  const OccupancyCurveInputs curve = occupancyCurveInputs(r, model.config.block);
  if (!whatIf) {
    regs = curve.registers;
    smemKiB = (r.staticSmemBytes + r.dynamicSmemBytes + 1023) / 1024;
  }
  if (model.config.kernel == "cub") {
    ImGui::TextWrapped("CUB chooses its own launch: there is no single kernel configuration to analyse.");
    return;
  }
  // Figures on the left, the plot on the right (the bottom panel is wide and short).
  const float textW = std::max(260 * uiScale(), ImGui::GetContentRegionAvail().x * 0.36f);
  ImGui::BeginChild("occupancy-text", ImVec2(textW, 0));
  ImGui::TextWrapped("%s, block %d: %d registers/thread%s, %d B shared (%d static + %d dynamic)",
              model.config.kernel.c_str(), model.config.block, r.registers,
              model.resourcesMeasured ? ""
              : r.registersRecorded ? " (recorded from the driver for this architecture)"
                                    : " (assumed: not reported by a device)", r.staticSmemBytes + r.dynamicSmemBytes,
              r.staticSmemBytes, r.dynamicSmemBytes);
  ImGui::TextWrapped("%d active blocks per SM, theoretical occupancy %.0f%%, limited by %s, %.2f waves",
              r.activeBlocksPerSM, 100.0 * r.occupancy, r.limiter.empty() ? "-" : r.limiter.c_str(), r.waves);
  ImGui::Checkbox("what if", &whatIf);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Change registers per thread and shared memory per block to see how occupancy would change");
  if (whatIf) {
    ImGui::SetNextItemWidth(140 * uiScale());
    ImGui::SliderInt("registers", &regs, 16, 255);
    ImGui::SetNextItemWidth(140 * uiScale());
    ImGui::SliderInt("shared KiB/block", &smemKiB, 0, int(d.smemPerBlockOptin / 1024));
  }
  Figure fig = whatIf ? occupancyFigure(d, model.config.kernel, regs, smemKiB * 1024, 0)
                      : occupancyFigure(d, model.config.kernel, curve.registers, curve.sharedFixedBytes,
                                        curve.sharedPerThreadBytes);
  figureExportButtons(model, fig, actions, "##occ");
  ImGui::EndChild();
  ImGui::SameLine();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  if (avail.y < 7 * ImGui::GetTextLineHeightWithSpacing()) {  // squeezed, the plot is unreadable: say so
    ImGui::BeginChild("occupancy-room", avail);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("The occupancy plot needs more room: drag the panel's edge up, F4 hides the side panels, "
                       "Ctrl+- shrinks the UI; PNG and SVG above save it at full size.");
    ImGui::PopStyleColor();
    ImGui::EndChild();
    return;
  }
  const PlotHit hit = drawPlot("occupancy-plot", fig.spec, ImVec2(avail.x, avail.y));
  if (hit.clicked && hit.point >= 0 && size_t(hit.point) < fig.configs[0].size()) {
    const int block = fig.configs[0][size_t(hit.point)].block;
    if (block >= findKernel(model.config.kernel)->minBlock) model.config.block = block;
  }
}

}  // namespace rl::gui
