// The kernel's source as compiled (embedded from kernels/cuda/), monospaced, with the trace
// hooks (`tr.` lines) hidden unless asked for.
#include <sstream>

#include "reducelab/catalogue.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"
#include "trace_views.hpp"

namespace rl::gui {

void drawKernelSource(Model& model, const KernelInfo& k, const std::string&) {
  const Palette& pal = palette(model.ui.theme);
  ImGui::Checkbox("show trace hooks", &model.showTraceHooks);
  helpMarker("Lines starting with `tr.` record the trace. In the untraced build they are empty "
             "inline functions and compile to nothing.");
  ImGui::SameLine();
  ImGui::TextDisabled("kernels/cuda/%s", std::string(k.sourceFile).c_str());
  ImGui::BeginChild("source", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushFont(fonts().mono);
  std::istringstream in{std::string(kernelSource(k))};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t first = line.find_first_not_of(' ');
    const bool hook = first != std::string::npos && line.compare(first, 3, "tr.") == 0;
    if (hook && !model.showTraceHooks) continue;
    const bool comment = first != std::string::npos && line.compare(first, 2, "//") == 0;
    ImGui::TextDisabled("%3d", number);
    ImGui::SameLine();
    const ImU32 c = hook ? pal.dim : (comment ? pal.ok : pal.text);
    ImGui::PushStyleColor(ImGuiCol_Text, c);
    ImGui::TextUnformatted(line.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::PopFont();
  ImGui::EndChild();
}

}  // namespace rl::gui
