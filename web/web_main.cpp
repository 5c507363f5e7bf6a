// ReduceLab in a web page: the window's Application on a WebGL 2 canvas, driven by the browser's
// animation frames instead of a loop of its own. The page (web/shell.html) passes the starting state
// as arguments (from the address's query), writes the files the user picks or drops, or a
// ?recording=URL it fetched, into the in-memory file system and asks for them here; exports the
// Application writes into its export folder are handed to the browser as downloads.
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "application.hpp"
#include "reducelab/gui/plot.hpp"
#include "reducelab/gui/plots.hpp"
#include "reducelab/run_tables.hpp"

namespace {

using rl::app::Application;

std::unique_ptr<rl::app::GlContext> g_context;
std::unique_ptr<Application> g_app;
std::vector<std::string> g_opens;     // files to open before the next frame
std::vector<std::string> g_commands;  // rl_web_command lines, run before the next frame
std::set<std::string> g_delivered;    // exports already handed to the browser
int g_frames = 0;
std::chrono::steady_clock::time_point g_start;

// The browser saves a file of the in-memory file system under its own name (web/shell.html).
EM_JS(void, deliverDownload, (const char* path), { Module.reducelabDownload(UTF8ToString(path)); });
EM_JS(void, signalFrame, (int frame, double ms), { if (Module.reducelabFrame) Module.reducelabFrame(frame, ms); });

void deliverExports() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = g_app->model().exportDir;
  if (!fs::is_directory(dir, ec)) return;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    const std::string p = e.path().string();
    if (g_delivered.insert(p).second) deliverDownload(p.c_str());
  }
}

// What the page (and scripts/test-web.sh through it) asks between frames: one line each.
void runCommand(const std::string& line) {
  Application& app = *g_app;
  rl::gui::Model& m = app.model();
  const std::string verb = line.substr(0, line.find(' '));
  const std::string arg = line.find(' ') == std::string::npos ? "" : line.substr(line.find(' ') + 1);
  if (verb == "view") {
    if (const rl::ViewInfo* v = rl::findView(arg)) m.view = v->id;
    else std::fprintf(stderr, "reducelab: no view '%s' (%s)\n", arg.c_str(), rl::viewNames().c_str());
  } else if (verb == "lesson") {
    app.requestOpenLesson(arg);
  } else if (verb == "step") {
    app.requestLessonStep(std::atoi(arg.c_str()));
  } else if (verb == "trace-step") {  // the step the views show (the |< < > >| controls)
    if (m.trace.valid) m.trace.step = std::clamp(std::atoi(arg.c_str()), 0, m.trace.data.numSteps() - 1);
  } else if (verb == "export-view") {  // the trace view as drawn, in the figure format named (png, svg)
    const rl::gui::FigureWriter* f = rl::gui::figureFormats().find(arg.empty() ? "png" : arg);
    if (f && f->renderImage) app.requestExportView(m.viewRect, std::string("view-") + std::string(rl::viewInfo(m.view).name), *f);
  } else if (verb == "export-figure") {  // the live bandwidth plot of the runs shown, as the panel's button does
    const rl::gui::FigureWriter* f = rl::gui::figureFormats().find(arg.empty() ? "svg" : arg);
    rl::gui::Figure fig = rl::gui::liveBandwidthFigure(m.results.rows(), m.peaks, rl::TimeBasis::Kernel);
    if (f && f->render) app.requestExportFigure(fig, *f);
  } else if (verb == "export-table") {  // the results as the Results panel's Table button writes them (every table format)
    app.requestExportTable(rl::benchTable(m.results.rows(), m.peaks), "results");
  } else if (verb == "save-session") {  // File > Save session: a recording of what is shown, downloaded
    app.requestSaveSession();
  } else if (verb == "kernel") {  // a configuration of the Parameters panel (the recording may lack it: CPU model)
    m.config.kernel = arg;
  } else if (verb == "block") {
    m.config.block = std::atoi(arg.c_str());
  } else if (verb == "state") {  // one JSON line on the console: what the test checks
    const rl::gui::Rect views = m.layout.count("Views") ? m.layout.at("Views") : rl::gui::Rect{};
    std::printf("reducelab-state {\"view\":\"%s\",\"lesson\":%s,\"step\":%d,\"trace\":%s,\"steps\":%d,\"results\":%zu,"
                "\"recording\":%s,\"kernel\":\"%s\",\"block\":%d,\"source\":\"%s\",\"views\":[%.0f,%.0f,%.0f,%.0f]}\n",
                std::string(rl::viewInfo(m.view).name).c_str(), m.lesson.active ? "true" : "false", m.lesson.step,
                m.trace.valid ? "true" : "false", m.trace.valid ? m.trace.data.numSteps() : 0, m.results.size(),
                m.replay.active() ? "true" : "false", m.trace.config.kernel.c_str(), m.trace.config.block,
                m.trace.source.substr(0, m.trace.source.find(" (")).c_str(), double(views.x), double(views.y),
                double(views.w), double(views.h));
  } else {
    std::fprintf(stderr, "reducelab: unknown page command '%s'\n", line.c_str());
  }
}

void frame() {
  for (const std::string& path : std::exchange(g_opens, {}))
    if (std::string e = g_app->openRecording(path); !e.empty()) std::fprintf(stderr, "reducelab: %s\n", e.c_str());
  for (const std::string& c : std::exchange(g_commands, {})) runCommand(c);
  g_app->drawFrame();
  deliverExports();
  ++g_frames;
  if (g_frames <= 2 || g_frames % 60 == 0)
    signalFrame(g_frames, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g_start).count());
}

}  // namespace

extern "C" {
EMSCRIPTEN_KEEPALIVE void rl_web_open_file(const char* path) { g_opens.emplace_back(path); }
EMSCRIPTEN_KEEPALIVE void rl_web_command(const char* line) { g_commands.emplace_back(line); }
}

// Arguments (web/shell.html builds them from the query): --size WxH, --open FILE, --lesson NAME,
// --view NAME, --step N, --theme dark|light.
int main(int argc, char** argv) {
  g_start = std::chrono::steady_clock::now();
  rl::app::GuiOptions o;
  o.settingsPath = "/home/web_user/.config/reducelab/settings.json";  // in memory: the page's session only
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--size") rl::parseSize(v, &o.width, &o.height);
    else if (k == "--open") o.openFile = v;
    else if (k == "--lesson") o.lesson = v;
    else if (k == "--view") o.view = v;
    else if (k == "--step") o.step = std::atoi(v.c_str());
    else if (k == "--theme") o.theme = v, o.themeGiven = true;
    else std::fprintf(stderr, "reducelab: unknown page argument %s\n", k.c_str());
  }
  if (std::string e = rl::app::checkGuiOptions(o, nullptr, nullptr); !e.empty()) {
    std::fprintf(stderr, "reducelab: %s\n", e.c_str());
    o.view = rl::viewInfo(rl::kDefaultView).name, o.theme = "dark";
  }
  std::string error;
  g_context = rl::app::createWindowContext(o.width, o.height, &error);
  if (!g_context) {
    std::fprintf(stderr, "reducelab: %s\n", error.c_str());
    return 1;
  }
  g_app = std::make_unique<Application>(*g_context, o);
  emscripten_set_main_loop(frame, 0, false);
  return 0;
}
