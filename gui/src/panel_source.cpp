// The kernel's source as compiled (embedded from kernels/cuda/): syntax-coloured, the lines of the
// current animation step highlighted (following into included files), the trace hooks hidden
// unless asked for, and a diff against the previous kernel of the catalogue.
#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "reducelab/catalogue.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/ui.hpp"
#include "code_colours.hpp"
#include "reducelab/usercode/starters.hpp"
#include "trace_views.hpp"

namespace rl::gui {
namespace {

std::vector<std::string> lines(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

bool isHook(const std::string& line) {
  const size_t first = line.find_first_not_of(' ');
  return first != std::string::npos && line.compare(first, 3, "tr.") == 0;
}

// The file and its includes from kernels/cuda, depth first, each once.
void collectFiles(const std::string& file, std::vector<std::string>* out) {
  if (std::find(out->begin(), out->end(), file) != out->end() || kernelSourceFile(file).empty()) return;
  out->push_back(file);
  for (const std::string& l : lines(kernelSourceFile(file))) {
    const size_t a = l.find("#include \"");
    if (a == std::string::npos) continue;
    const size_t b = l.find('"', a + 10);
    if (b != std::string::npos) collectFiles(l.substr(a + 10, b - a - 10), out);
  }
}

const char* kindName(uint32_t kind) {
  switch (kind) {
    case trace::kStepLoad: return "kStepLoad";
    case trace::kStepGridStride: return "kStepGridStride";
    case trace::kStepTreeLevel: return "kStepTreeLevel";
    case trace::kStepWarpSync: return "kStepWarpSync";
    case trace::kStepShuffle: return "kStepShuffle";
    case trace::kStepWarpReduce: return "kStepWarpReduce";
    case trace::kStepWarpStore: return "kStepWarpStore";
    case trace::kStepWarpLoad: return "kStepWarpLoad";
    case trace::kStepBlockResult: return "kStepBlockResult";
    case trace::kStepCopyRow: return "kStepCopyRow";
    case trace::kStepTileLoad: return "kStepTileLoad";
    case trace::kStepTileStore: return "kStepTileStore";
    case trace::kStepDot: return "kStepDot";
    case trace::kStepDotTerm: return "kStepDotTerm";
    case trace::kStepOutput: return "kStepOutput";
  }
  return "";
}

// Lines [first, last] of `file` that do the work of a step of this kind: the statement before
// its tr.step() through its tr.lane().
bool stepLines(const std::vector<std::string>& src, uint32_t kind, int* first, int* last) {
  if (*kindName(kind) == '\0') return false;  // an instrumented trace's phase: no tr.step() marks it
  const std::string key = std::string("tr.step(") + kindName(kind);
  for (int i = 0; i < int(src.size()); ++i) {
    if (src[size_t(i)].find(key) == std::string::npos) continue;
    *first = std::max(0, i - 1);
    *last = i;
    for (int j = i + 1; j < int(src.size()) && j <= i + 8; ++j)
      if (src[size_t(j)].find("tr.lane(") != std::string::npos) {
        *last = j;
        break;
      }
    return true;
  }
  return false;
}

// A line in the colours of code_colours.hpp.
void colouredLine(const std::string& line, const Palette& pal, bool dim) {
  if (line.empty()) {
    ImGui::TextUnformatted("");
    return;
  }
  bool first = true;
  for (const CodeRun& r : colourRuns(line)) {
    const ImU32 c = dim                           ? pal.dim
                    : r.kind == CodeKind::Keyword ? pal.accent
                    : r.kind == CodeKind::Cuda    ? pal.active
                    : r.kind == CodeKind::Comment ? pal.ok
                    : r.kind == CodeKind::Literal ? pal.broadcast
                                                  : pal.text;
    if (!first) ImGui::SameLine(0, 0);
    first = false;
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(c), "%s", line.substr(r.begin, r.end - r.begin).c_str());
  }
}

// Line diff by longest common subsequence: ' ' kept, '-' only in a, '+' only in b.
std::vector<std::pair<char, std::string>> diffLines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> L(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) L[i][j] = a[i] == b[j] ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
  std::vector<std::pair<char, std::string>> out;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) out.push_back({' ', a[i++]}), ++j;
    else if (j < m && (i == n || L[i][j + 1] >= L[i + 1][j])) out.push_back({'+', b[j++]});
    else out.push_back({'-', a[i++]});
  }
  return out;
}

}  // namespace

// "Edit a copy": the kernel's starter (plain CUDA for the contract) into the editor. Kernels without
// one say why (k9, k13, k14); the matrix families and CUB have no button.
void editCopyButton(Model& model, UiActions& actions, const KernelInfo& k) {
  const usercode::Starter* starter = usercode::findStarter(k.key);
  const std::string_view why = usercode::whyNoStarter(k.key);
  if (!starter && why.empty()) return;
  const bool unsaved = model.editor.doc.unsavedWork();
  const std::string label = starter ? "Edit a copy (" + starter->fileName + ")" : std::string("Edit a copy");
  sameLineIfFits(buttonWidth(label.c_str()));
  if (!starter || unsaved) ImGui::BeginDisabled();
  if (ImGui::Button(label.c_str())) actions.requestEditCopy(starter->key);
  if (!starter || unsaved) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", !starter ? std::string(why).c_str()
                            : unsaved ? "Your kernel has changes that are not saved: save them (Ctrl+S) first"
                                      : "This kernel written as plain CUDA for the contract, in the editor: change it, "
                                        "compile it, check it (docs/your-kernel.md)");
}

void drawKernelSource(Model& model, UiActions& actions, const KernelInfo& k, const std::string&) {
  const Palette& pal = palette(model.ui.theme);
  Model::SourceViewState& sv = model.sourceView;  // per window, not a process-wide static
  std::string& shownKernel = sv.shownKernel;
  int& fileIndex = sv.fileIndex;
  bool &follow = sv.follow, &compare = sv.compare;
  int& lastStep = sv.lastStep;
  std::vector<std::string> files;
  collectFiles(std::string(k.sourceFile), &files);
  if (files.empty()) {
    ImGui::TextDisabled("No source for %s.", std::string(k.key).c_str());
    return;
  }
  if (shownKernel != k.key) shownKernel = std::string(k.key), fileIndex = 0, lastStep = -1;
  // The current animation step's lines, in whichever file holds them.
  int hiFile = -1, hiFirst = -1, hiLast = -1;
  const TraceState& t = model.trace;
  if (t.valid && t.config.kernel == k.key && t.step < t.data.numSteps())
    for (size_t f = 0; f < files.size() && hiFile < 0; ++f)
      if (stepLines(lines(kernelSourceFile(files[f])), t.data.steps[size_t(t.step)].kind, &hiFirst, &hiLast)) hiFile = int(f);
  const bool stepChanged = t.step != lastStep;
  if (follow && hiFile >= 0 && stepChanged) fileIndex = hiFile;
  fileIndex = std::clamp(fileIndex, 0, int(files.size()) - 1);

  ImGui::Checkbox("trace hooks", &model.showTraceHooks);
  helpMarker("Lines starting with `tr.` record the trace. In the untraced build they are empty inline functions and compile "
             "to nothing.");
  const float box = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
  sameLineIfFits(box + ImGui::CalcTextSize("follow step").x);
  ImGui::Checkbox("follow step", &follow);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Highlight (and scroll to) the code of the current animation step");
  const KernelInfo* previous = nullptr;
  for (const KernelInfo& c : catalogue()) {
    if (&c == &k) break;
    if (c.traceable) previous = &c;
  }
  const std::string diffLabel = previous ? "diff vs " + std::string(previous->key) : "diff";
  sameLineIfFits(box + ImGui::CalcTextSize(diffLabel.c_str()).x);
  if (!previous) ImGui::BeginDisabled();
  ImGui::Checkbox(diffLabel.c_str(), &compare);
  if (!previous) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Compare with the previous kernel of the catalogue: + added, - removed");
  editCopyButton(model, actions, k);
  if (files.size() > 1 && !(compare && previous)) {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    if (ImGui::BeginCombo("##file", files[size_t(fileIndex)].c_str())) {
      for (size_t f = 0; f < files.size(); ++f)
        if (ImGui::Selectable(files[f].c_str(), int(f) == fileIndex)) fileIndex = int(f), follow = false;
      ImGui::EndCombo();
    }
  }
  ImGui::BeginChild("source", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushFont(fonts().mono);
  if (compare && previous) {
    auto strip = [&](std::vector<std::string> v) {
      if (!model.showTraceHooks) v.erase(std::remove_if(v.begin(), v.end(), isHook), v.end());
      return v;
    };
    const auto d = diffLines(strip(lines(kernelSource(*previous))), strip(lines(kernelSource(k))));
    for (const auto& [op, line] : d) {
      const ImU32 c = op == '+' ? pal.ok : op == '-' ? pal.conflict : pal.dim;
      ImGui::PushStyleColor(ImGuiCol_Text, c);
      ImGui::Text("%c %s", op, line.c_str());
      ImGui::PopStyleColor();
    }
  } else {
    const std::vector<std::string> src = lines(kernelSourceFile(files[size_t(fileIndex)]));
    for (int n = 0; n < int(src.size()); ++n) {
      const std::string& line = src[size_t(n)];
      const bool hook = isHook(line);
      if (hook && !model.showTraceHooks) continue;
      const bool highlighted = fileIndex == hiFile && n >= hiFirst && n <= hiLast;
      if (highlighted) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled(
            p, ImVec2(p.x + ImGui::GetContentRegionMax().x + ImGui::GetScrollX(), p.y + ImGui::GetTextLineHeightWithSpacing()),
            IM_COL32(80, 130, 240, 70));
        if (follow && stepChanged && n == hiFirst) ImGui::SetScrollHereY(0.3f);
      }
      ImGui::TextDisabled("%3d", n + 1);
      ImGui::SameLine();
      colouredLine(line, pal, hook);
    }
  }
  ImGui::PopFont();
  ImGui::EndChild();
  lastStep = t.step;
}

}  // namespace rl::gui
