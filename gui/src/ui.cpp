// Window layout, fonts, theme and the menu bar. Panels live in panel_*.cpp / view_*.cpp.
#include "reducelab/gui/ui.hpp"
#include "reducelab/gui/multi_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "reducelab/gui/lesson_view.hpp"
#include "reducelab/gui/panels.hpp"
#include "reducelab/gui/shortcuts.hpp"

namespace rl::gui {
namespace {

Fonts g_fonts;
float g_scale = 1.0f;
constexpr float kBaseFontPx = 18.0f;  // readable on a projector at scale 1
constexpr const char* kDefaultFontDir = "/usr/share/fonts/truetype/dejavu/";
constexpr ImGuiWindowFlags kPanelFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
    ImGuiWindowFlags_NoFocusOnAppearing;
// The tiled panels draw no background: the frame is cleared to WindowBg, and filling it again
// under every panel cost the CPU model's rasterizer a whole-screen layer each frame.
// ImGui leaves out the border of a window without background: beginTiled draws it where ImGui
// would, after the title bar and scrollbars and before the contents.
constexpr ImGuiWindowFlags kTiledFlags = kPanelFlags | ImGuiWindowFlags_NoBackground;
bool beginTiled(const char* id, ImGuiWindowFlags extra = 0) {
  const bool open = ImGui::Begin(id, nullptr, kTiledFlags | extra);
  const ImGuiStyle& style = ImGui::GetStyle();
  if (style.WindowBorderSize > 0) {
    const ImVec2 p = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    const ImVec2 end(p.x + size.x, p.y + size.y);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PushClipRect(p, end, false);
    dl->AddRect(p, end, ImGui::GetColorU32(ImGuiCol_Border), style.WindowRounding, 0, style.WindowBorderSize);
    dl->PopClipRect();
  }
  return open;
}

}  // namespace

const Fonts& fonts() { return g_fonts; }
float uiScale() { return g_scale; }

void wrappedColoredText(const ImVec4& colour, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

std::string fontDir() {
  const char* env = std::getenv("REDUCELAB_FONT_DIR");
  std::string d = env && *env ? env : kDefaultFontDir;
  return d.back() == '/' ? d : d + "/";
}

ImGuiStyle themeStyle(Theme theme, float scale) {
  ImGuiStyle style;
  if (theme == Theme::Dark) {
    ImGui::StyleColorsDark(&style);
  } else {
    ImGui::StyleColorsLight(&style);
    // High contrast for projectors: pure white panels, black text, strong borders.
    style.Colors[ImGuiCol_WindowBg] = ImVec4(1, 1, 1, 1);
    style.Colors[ImGuiCol_Text] = ImVec4(0, 0, 0, 1);
    style.Colors[ImGuiCol_Border] = ImVec4(0.2f, 0.2f, 0.2f, 1);
    style.FrameBorderSize = 1.0f;
  }
  style.WindowRounding = 3.0f;
  style.FrameRounding = 3.0f;
  style.ScaleAllSizes(scale);
  return style;
}

void Model::addLog(LogLevel level, std::string text) { log.push_back({level, std::move(text)}); }

DeviceInfo Model::shownDevice() const {
  if (device.available) return device;
  if (replay.active() && replay.recording->fromGpu()) return replay.recording->device;
  return assumedH200();
}

bool Ui::init(float contentScale, std::string* error) {
  contentScale_ = contentScale > 0 ? contentScale : 1.0f;
  fontOk_ = std::filesystem::exists(fontDir() + "DejaVuSans.ttf");
  if (!fontOk_ && error)
    *error = "font DejaVuSans.ttf not found in " + fontDir() +
             " (install fonts-dejavu-core); using ImGui's built-in font";
  return fontOk_;
}

void Ui::rebuildFonts() {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  const float px = std::round(kBaseFontPx * g_scale);
  if (fontOk_) {
    // Latin-1 plus punctuation, arrows and math signs (-> <= x ...) that the panels use.
    static ImVector<ImWchar> ranges;
    if (ranges.empty()) {
      ImFontGlyphRangesBuilder b;
      b.AddRanges(io.Fonts->GetGlyphRangesDefault());
      static const ImWchar extra[] = {0x2010, 0x205E, 0x2190, 0x21FF, 0x2200, 0x22FF, 0x2500, 0x257F, 0};
      b.AddRanges(extra);
      b.BuildRanges(&ranges);
    }
    const std::string dir = fontDir();
    g_fonts.regular = io.Fonts->AddFontFromFileTTF((dir + "DejaVuSans.ttf").c_str(), px, nullptr, ranges.Data);
    g_fonts.mono = io.Fonts->AddFontFromFileTTF((dir + "DejaVuSansMono.ttf").c_str(), px, nullptr, ranges.Data);
    g_fonts.large = io.Fonts->AddFontFromFileTTF((dir + "DejaVuSans-Bold.ttf").c_str(), px * 2.2f, nullptr, ranges.Data);
  }
  if (!g_fonts.regular || !g_fonts.mono || !g_fonts.large) {
    ImFontConfig cfg;
    cfg.SizePixels = px;
    g_fonts.regular = g_fonts.mono = io.Fonts->AddFontDefault(&cfg);
    cfg.SizePixels = px * 2.0f;
    g_fonts.large = io.Fonts->AddFontDefault(&cfg);
  }
  io.Fonts->Build();
  fontsDirty_ = true;
}

void Ui::applyStyle(const UiSettings& ui) { ImGui::GetStyle() = themeStyle(ui.theme, g_scale); }

void Ui::applyPendingSettings(Model& model) {
  model.ui.uiScale = std::clamp(model.ui.uiScale, 0.5f, 3.0f);
  // A scale the window cannot hold (3.0 on a 1280 x 720 projector) is limited to what fits: the
  // views keep room for their text. The status bar says so; the user's setting is kept.
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const float fits = d.x > 0 && d.y > 0 ? std::max(0.5f, std::min(d.x / 900.0f, d.y / 500.0f)) : 3.0f;
  // Presentation is sized for the room, not the monitor: text keeps its share of the screen's
  // height (the presentation scale is for 1920 x 1080: a 4K projector grows it, a 1280 x 720 one
  // shrinks it, where 1.5 left the plot 60 px), never below the 18 px of scale 1.
  const float roomFactor =
      model.presentation && d.x > 0 && d.y > 0 ? std::min(d.x / 1920.0f, d.y / 1080.0f) / contentScale_ : 1.0f;
  const float wanted = model.presentation ? std::max(1.0f, contentScale_ * model.ui.uiScale * roomFactor)
                                          : contentScale_ * model.ui.uiScale;
  const float scale = std::round(std::min(wanted, fits) * 20.0f) / 20.0f;  // steps of 0.05: fewer font rebuilds
  model.ui.scaleLimited = scale < wanted - 0.01f;
  if (scale != appliedScale_ || model.ui.theme != appliedTheme_) {
    const bool scaleChanged = scale != appliedScale_;
    g_scale = appliedScale_ = scale;
    appliedTheme_ = model.ui.theme;
    if (scaleChanged) rebuildFonts();
    applyStyle(model.ui);
  }
}

void Ui::drawMenuBar(Model& model, UiActions& actions) {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (model.fileDialogOpen) ImGui::BeginDisabled();
    if (ImGui::MenuItem("Open recording or session...", "Ctrl+O")) actions.requestFileChoice(FileChoice::OpenRecording);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("A .reducelab recording (reducelab record) or a session JSON; or drop it onto the window");
    if (ImGui::MenuItem("Open the shipped H200 recording (UPC lesson)")) actions.requestOpenShippedRecording();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("The UPC lecture's kernels measured and traced on an NVIDIA H200: real GPU figures without a GPU");
    if (ImGui::MenuItem("Save session as...")) actions.requestFileChoice(FileChoice::SaveSession);
    if (ImGui::MenuItem("Open your kernel (.cu)...", nullptr, false, !model.editor.doc.unsavedWork()))
      actions.requestFileChoice(FileChoice::OpenKernel);
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", model.editor.doc.unsavedWork() ? "Your kernel has changes that are not saved: save them (Ctrl+S) first"
                                                          : "Your own kernel in the editor (docs/your-kernel.md); "
                                                            "or start with --kernel-file FILE.cu");
    if (model.fileDialogOpen) ImGui::EndDisabled();
    if (model.replay.active() && ImGui::MenuItem("Replay the recorded runs")) {  // the live plot fills again, run by run
      model.results.clear();
      for (LessonRow& row : model.lesson.rows) row.runs.clear();
      model.replay.replayed = 0;
    }
    if (ImGui::MenuItem("Save session (recording, in the export folder)")) actions.requestSaveSession();
    ImGui::Separator();
    if (ImGui::MenuItem("Save screenshot", "F12")) actions.requestScreenshot();
    if (ImGui::MenuItem("Write report folder")) actions.requestReport();
    char* const dir = model.fields.exportDir;  // the window's own
    std::string& shownDir = model.fields.exportDirShown;
    if (shownDir != model.exportDir) {  // chosen elsewhere (the folder chooser): show it
      shownDir = model.exportDir;
      std::snprintf(dir, sizeof model.fields.exportDir, "%s", model.exportDir.c_str());
    }
    ImGui::SetNextItemWidth(220 * g_scale);
    if (ImGui::InputText("export folder", dir, sizeof model.fields.exportDir)) model.exportDir = shownDir = dir;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Figures, tables, sessions and reports are written here (created if needed)");
    ImGui::SameLine();
    if (model.fileDialogOpen) ImGui::BeginDisabled();
    if (ImGui::SmallButton("Choose...")) actions.requestFileChoice(FileChoice::ExportFolder);
    if (model.fileDialogOpen) ImGui::EndDisabled();
    ImGui::MenuItem("Figures on white (print)", nullptr, &model.exportWhite);
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) actions.requestQuit();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Left panels (kernel, parameters)", nullptr, &model.ui.showLeft);
    ImGui::MenuItem("Right panel (bandwidth plots)", nullptr, &model.ui.showRight);
    ImGui::MenuItem("Bottom panel (results, occupancy, log)", nullptr, &model.ui.showBottom);
    if (ImGui::MenuItem("Presentation mode", "F11", model.presentation)) actions.requestTogglePresentation();
    ImGui::MenuItem("Multi-GPU window (ring and tree AllReduce)", nullptr, &model.showMultiGpu);
    ImGui::Separator();
    bool dark = model.ui.theme == Theme::Dark;
    if (ImGui::MenuItem("Dark theme", nullptr, dark)) model.ui.theme = Theme::Dark;
    if (ImGui::MenuItem("Light theme (projector)", nullptr, !dark)) model.ui.theme = Theme::Light;
    ImGui::Separator();
    ImGui::SetNextItemWidth(160 * g_scale);
    float s = model.ui.uiScale;
    if (ImGui::SliderFloat("UI scale", &s, 0.5f, 3.0f, "%.2fx")) model.ui.uiScale = s;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Size of text and widgets. Ctrl+= / Ctrl+- also change it.");
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Lessons")) {
    if (ImGui::MenuItem("upc on the H200 (the shipped recording)")) actions.requestOpenShippedRecording();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The UPC lesson with the runs and traces an NVIDIA H200 recorded: no GPU needed");
    ImGui::Separator();
    for (const std::string& name : shippedLessons()) {
      std::string err;
      auto l = loadLesson(name, &err);
      const std::string label = name + (l ? "  -  " + l->title : "");
      if (ImGui::MenuItem(label.c_str(), nullptr, model.lesson.active && model.lesson.lesson.name == name))
        actions.requestOpenLesson(name);
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::TextUnformatted("ReduceLab — parallel reduction on NVIDIA GPUs");
    ImGui::Separator();
    if (ImGui::BeginTable("help-keys", 2, ImGuiTableFlags_SizingFixedFit)) {
      std::string lastKeys;
      for (const Shortcut& k : shortcuts()) {
        if (k.keys == lastKeys) continue;  // Ctrl+- twice (main and keypad minus)
        lastKeys = k.keys;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(k.keys);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(k.help);
      }
      ImGui::EndTable();
    }
    ImGui::EndMenu();
  }
  // The presentation switch, visible at the right of the menu bar.
  const char* present = model.presentation ? "Leave presentation (F11)" : "Present (F11)";
  ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize(present).x - 3 * ImGui::GetStyle().ItemSpacing.x);
  if (ImGui::SmallButton(present)) actions.requestTogglePresentation();
  model.layout["menu"] = {0, 0, ImGui::GetWindowWidth(), ImGui::GetWindowHeight()};
  ImGui::EndMainMenuBar();
}

void Ui::drawStatusBar(Model& model, float y, float h) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(0, y));
  ImGui::SetNextWindowSize(ImVec2(display.x, h));
  beginTiled("##status", ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
  drawStatusContents(model);
  ImGui::End();
  model.layout["status"] = {0, y, display.x, h};
}

void Ui::drawPanels(Model& model, UiActions& actions) {
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const float s = g_scale;
  float top = model.layout["menu"].h;
  // Presenting, where the numbers come from goes on the row of panel buttons: every line counts.
  if ((model.replay.active() || model.cpuModel()) && !model.presentation) {
    // An opened recording says where its numbers come from instead of "CPU model".
    const bool replay = model.replay.active();
    const std::string banner =
        replay ? model.replay.banner + " (" + model.replay.path + ")" +
                     (model.replay.recording->fromGpu()
                          ? ". Runs and traces come from the recording; configurations it lacks use the CPU model."
                          : ". Traces come from the CPU model; the recording holds no GPU measurements.")
               : "CPU model mode: " + model.device.unavailableReason +
                     ". Traces come from the CPU model; measurements need an NVIDIA GPU "
                     "(Lessons > upc on the H200 shows real H200 figures).";
    const float wrapW = d.x - 2 * ImGui::GetStyle().WindowPadding.x;
    // Presenting: one line (the class sees the screen's content, the detail is on hover).
    const float bannerH = (model.presentation ? ImGui::GetTextLineHeight()
                                              : ImGui::CalcTextSize(banner.c_str(), nullptr, false, wrapW).y) +
                          2 * ImGui::GetStyle().WindowPadding.y + 2 * s;
    ImGui::SetNextWindowPos(ImVec2(0, top));
    ImGui::SetNextWindowSize(ImVec2(d.x, bannerH));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, replay ? ImVec4(0.30f, 0.62f, 0.95f, 1.0f) : ImVec4(0.85f, 0.45f, 0.05f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 0, 0, 1));
    ImGui::Begin("##cpu-model-banner", nullptr, kPanelFlags | ImGuiWindowFlags_NoTitleBar |
                                                    ImGuiWindowFlags_NoScrollbar);
    if (model.presentation) {
      const std::string shown = replay ? model.replay.banner : "CPU model: no NVIDIA GPU (traces from the model)";
      ImGui::TextUnformatted(shown.c_str());
      if (ImGui::IsWindowHovered()) ImGui::SetTooltip("%s", banner.c_str());
    } else {
      ImGui::TextWrapped("%s", banner.c_str());
    }
    ImGui::End();
    ImGui::PopStyleColor(2);
    model.layout["banner"] = {0, top, d.x, bannerH};
    top += bannerH;
  } else {
    model.layout.erase("banner");
  }
  if (model.lesson.active) {
    // At most 30 % of what the menu and banner leave: the views and the lesson's table keep room.
    const float statusH = ImGui::GetFrameHeight() + 10 * s;
    const float barH = lessonBarHeight(model, d.x, 0.30f * (d.y - statusH - top));
    ImGui::SetNextWindowPos(ImVec2(0, top));
    ImGui::SetNextWindowSize(ImVec2(d.x, barH));
    beginTiled("##lesson-bar", ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
    drawLessonBar(model, actions);
    ImGui::End();
    model.layout["lesson"] = {0, top, d.x, barH};
    top += barH;
  } else {
    model.layout.erase("lesson");
  }
  if (model.presentation) {  // one panel at a time, filling the screen: readable from the back
    drawPresentation(model, actions, top, d.y);
    return;
  }
  const float statusH = ImGui::GetFrameHeight() + 10 * s;
  const float bottom = d.y - statusH;
  drawStatusBar(model, bottom, statusH);

  // Side panels never take more than their share: the views in the centre keep 40 % or more.
  const float leftW = model.ui.showLeft ? std::min(std::clamp(d.x * 0.22f, 280 * s, 520 * s), d.x * 0.26f) : 0;
  const float rightW = model.ui.showRight ? std::min(std::clamp(d.x * 0.28f, 300 * s, 640 * s), d.x * 0.34f) : 0;
  const float centreW = std::max(100.0f, d.x - leftW - rightW);
  const float bottomH =
      model.ui.showBottom ? std::min(std::clamp((bottom - top) * 0.30f, 120 * s, 420 * s), (bottom - top) * 0.35f) : 0;

  auto panel = [&](const char* id, float x, float y, float w, float h, auto&& body) {
    if (w <= 0 || h <= 0) return;
    ImGui::SetNextWindowPos(ImVec2(x, y));
    ImGui::SetNextWindowSize(ImVec2(w, h));
    if (beginTiled(id)) body();
    ImGui::End();
    std::string name = id;
    name = name.substr(0, name.find("###"));
    model.layout[name] = {x, y, w, h};
  };
  const float mid = bottom - top;
  panel("Kernel", 0, top, leftW, mid * 0.5f, [&] { drawKernelPanel(model, actions); });
  panel("Parameters", 0, top + mid * 0.5f, leftW, mid * 0.5f,
        [&] { drawParametersPanel(model, actions); });
  panel("Views", leftW, top, centreW, mid - bottomH, [&] { drawCentreViews(model, actions); });
  panel("Results", leftW, bottom - bottomH, centreW, bottomH,
        [&] { drawResultsAndLog(model, actions); });
  panel("Bandwidth", leftW + centreW, top, rightW, mid, [&] { drawBandwidthPanel(model, actions); });
}

// Presentation mode: a row to choose what fills the screen, then that one panel, full size.
void Ui::drawPresentation(Model& model, UiActions& actions, float top, float bottom) {
  using P = Model::Presenting;
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  const float rowH = ImGui::GetFrameHeightWithSpacing() + 2 * ImGui::GetStyle().WindowPadding.y;
  ImGui::SetNextWindowPos(ImVec2(0, top));
  ImGui::SetNextWindowSize(ImVec2(d.x, rowH));
  beginTiled("##presenting", ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
  const struct {
    P what;
    const char* label;
  } choices[] = {{P::Views, "Trace views (1)"}, {P::Plots, "Bandwidth (2)"},
                 {P::Results, model.lesson.active ? "Lesson table (3)" : "Results (3)"}};
  for (const auto& c : choices) {
    const bool on = model.presenting == c.what;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(c.label)) model.presenting = c.what;
    if (on) ImGui::PopStyleColor();
    ImGui::SameLine();
  }
  ImGui::TextDisabled("F11 / Esc: leave");
  if (model.replay.active() || model.cpuModel()) {  // where the numbers come from (the banner's place)
    // The longest form that fits the row: never a second, cut line.
    const std::string gpu = model.replay.active() ? model.replay.recording->device.name : "";
    const std::string forms[] = {model.replay.active() ? model.replay.banner : "CPU model: no NVIDIA GPU",
                                 model.replay.active() ? "Recorded on " + gpu : "CPU model", gpu};
    const float room = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x - ImGui::GetItemRectMax().x -
                       ImGui::GetStyle().ItemSpacing.x;
    for (const std::string& from : forms)
      if (!from.empty() && ImGui::CalcTextSize(from.c_str()).x <= room) {
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, model.replay.active() ? ImVec4(0.10f, 0.40f, 0.80f, 1.0f) : ImVec4(0.80f, 0.40f, 0.0f, 1.0f));
        ImGui::TextUnformatted(from.c_str());
        ImGui::PopStyleColor();
        break;
      }
  }
  ImGui::End();
  model.layout["presenting"] = {0, top, d.x, rowH};
  top += rowH;
  const char* id = model.presenting == P::Plots ? "Bandwidth" : model.presenting == P::Results ? "Results" : "Views";
  ImGui::SetNextWindowPos(ImVec2(0, top));
  ImGui::SetNextWindowSize(ImVec2(d.x, bottom - top));
  if (beginTiled(id)) {
    if (model.presenting == P::Plots) drawBandwidthPanel(model, actions);
    else if (model.presenting == P::Results) drawResultsAndLog(model, actions);
    else drawCentreViews(model, actions);
  }
  ImGui::End();
  for (const char* other : {"Kernel", "Parameters", "Views", "Results", "Bandwidth", "status"}) model.layout.erase(other);
  model.layout[id] = {0, top, d.x, bottom - top};
}

// The in-app path field: where no desktop file chooser runs (zenity missing or failing).
void drawPathPrompt(Model& model, UiActions& actions) {
  PathPrompt& p = model.pathPrompt;
  if (!p.open) return;
  const char* title = "";
  const char* verb = "Open";
  switch (p.purpose) {
    case FileChoice::OpenRecording: title = "Open a recording or session###path-prompt"; break;
    case FileChoice::SaveSession: title = "Save the session as###path-prompt", verb = "Save"; break;
    case FileChoice::ExportFolder: title = "Export folder###path-prompt", verb = "Use"; break;
    case FileChoice::OpenKernel: title = "Open your kernel (.cu)###path-prompt"; break;
    case FileChoice::SaveKernelAs: title = "Save your kernel as###path-prompt", verb = "Save"; break;
  }
  const ImVec2 d = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(d.x * 0.5f, d.y * 0.35f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(std::min(d.x * 0.9f, 640 * g_scale), 0), ImGuiCond_Appearing);
  bool keep = true;
  if (ImGui::Begin(title, &keep, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
    if (!p.why.empty()) ImGui::TextWrapped("%s: type the path.", p.why.c_str());
    char buf[1024];
    std::snprintf(buf, sizeof buf, "%s", p.text.c_str());
    ImGui::SetNextItemWidth(-1);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool enter = ImGui::InputText("##path", buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue);
    p.text = buf;
    const bool ok = ImGui::Button(verb);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) keep = false;
    if ((enter || ok) && !p.text.empty()) {
      p.open = false;
      actions.requestPathChosen(p.purpose, p.text);
    }
  }
  ImGui::End();
  if (!keep) p.open = false;
}

void Ui::draw(Model& model, UiActions& actions) {
  handleShortcuts(model, actions);  // before the panels: keys work whichever panels are shown
  drawMenuBar(model, actions);
  drawPanels(model, actions);
  drawPathPrompt(model, actions);
  // The multi-GPU animation has its own window (View menu, or a lesson's `panel multi`): the
  // bandwidth panel's tabs already fill a narrow panel at projector scales.
  if (model.focusPanel == "multi") {
    model.showMultiGpu = true;
    model.focusPanel.clear();
  }
  drawLessonPitfallsWindow(model);
  if (model.showMultiGpu) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowSize(ImVec2(display.x * 0.7f, display.y * 0.7f), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.15f, display.y * 0.15f), ImGuiCond_Appearing);
    if (ImGui::Begin("Multi-GPU: reduction across GPUs", &model.showMultiGpu)) drawMultiGpuPanel(model, actions);
    ImGui::End();
  }
}

}  // namespace rl::gui
