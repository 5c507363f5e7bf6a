// Exports from the window: figures and tables in the registries' formats (figure_export.hpp) and
// the report folder, each under a name no earlier file in the export folder has.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>

#include "application.hpp"
#include "figure_export.hpp"
#include "png_writer.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/run_tables.hpp"

namespace rl::app {

Table traceTable(const TraceData& t, const TraceSummary& sum);  // cmd_trace.cpp

std::string Application::freePath(const std::string& stem, const std::string& ext) const {
  namespace fs = std::filesystem;
  for (int i = 1;; ++i) {
    const std::string name = stem + (i == 1 ? "" : "-" + std::to_string(i)) + ext;
    const fs::path p = fs::path(model_.exportDir) / name;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(p, ec))) return p.string();  // a dangling link is taken too
  }
}

// An export's outcome: in the Log, and beside the buttons that asked for it (model.saved).
void Application::noteSaved(const std::string& key, const std::string& path, const std::string& error) {
  model_.addLog(error.empty() ? gui::LogLevel::Info : gui::LogLevel::Error, error.empty() ? "Saved " + path : error);
  model_.saved = {key, error.empty() ? "Saved " + path : error, !error.empty(), ImGui::GetTime()};
}

void Application::requestExportFigure(const gui::Figure& figure, const gui::FigureWriter& format) {
  pendingFigures_.push_back({std::make_unique<gui::Figure>(figure), &format});
}

void Application::requestExportTable(const Table& table, const std::string& stem) {
  if (std::string e = prepareFolder(model_.exportDir); !e.empty()) {
    noteSaved(stem, "", e);
    return;
  }
  for (const OutputFormat* format : tableFileFormats()) {
    const std::string path = freePath(stem, std::string(format->extension));
    noteSaved(stem, path, writeTextAtomic(path, format->table(table)));
  }
}

// F12 / File > Save screenshot: in the export folder like every export, under a name no earlier
// file has (two in one second get -2, -3...).
void Application::saveRequestedScreenshot() {
  screenshotRequested_ = false;
  char stem[64];
  std::time_t now = std::time(nullptr);
  std::strftime(stem, sizeof stem, "reducelab-%Y%m%d-%H%M%S", std::localtime(&now));
  std::string e = prepareFolder(model_.exportDir), name;
  if (e.empty()) e = saveScreenshot(name = freePath(stem, std::string(screenshotFormat().extension)));
  model_.addLog(e.empty() ? gui::LogLevel::Info : gui::LogLevel::Error,
                e.empty() ? "Screenshot saved: " + name : e);
}

void Application::processExports() {
  for (PendingFigure& p : pendingFigures_) {
    if (std::string e = prepareFolder(model_.exportDir); !e.empty()) {
      noteSaved(p.figure->fileStem, "", e);
      continue;
    }
    const std::string path = freePath(p.figure->fileStem, std::string(p.format->extension));
    gui::FigureOptions o;
    o.whiteBackground = model_.exportWhite;
    std::string e;
    const std::string bytes = p.format->render(p.figure->spec, o, &e);
    if (e.empty()) e = writeTextAtomic(path, bytes);
    noteSaved(p.figure->fileStem, path, e);
  }
  pendingFigures_.clear();
  // The views as drawn this frame: their pixels, cropped from the framebuffer.
  if (!pendingViews_.empty()) {
    int fbw = 0, fbh = 0;
    ctx_.framebufferSize(&fbw, &fbh);
    glBindFramebuffer(GL_FRAMEBUFFER, ctx_.framebuffer());
    if (!ctx_.headless()) glReadBuffer(GL_BACK);
    const std::vector<uint8_t> frame = readFramebufferRgba(fbw, fbh);  // top row first
    // The display may be smaller than the framebuffer (setDisplaySize): it lies in the lower left
    // (GL's origin), so its top row is `top` rows down the image read top row first.
    const ImGuiIO& io = ImGui::GetIO();
    const float sx = io.DisplayFramebufferScale.x > 0 ? io.DisplayFramebufferScale.x : 1.0f;
    const float sy = io.DisplayFramebufferScale.y > 0 ? io.DisplayFramebufferScale.y : 1.0f;
    const int top = std::max(0, fbh - int(std::lround(io.DisplaySize.y * sy)));
    for (const PendingView& v : pendingViews_) {
      const int x0 = std::clamp(int(std::lround(v.region.x * sx)), 0, fbw);
      const int y0 = std::clamp(top + int(std::lround(v.region.y * sy)), 0, fbh);
      const int x1 = std::clamp(int(std::lround((v.region.x + v.region.w) * sx)), 0, fbw);
      const int y1 = std::clamp(top + int(std::lround((v.region.y + v.region.h) * sy)), 0, fbh);
      std::vector<uint8_t> crop;
      crop.reserve(size_t(std::max(0, x1 - x0)) * size_t(std::max(0, y1 - y0)) * 4);
      for (int y = y0; y < y1; ++y)
        crop.insert(crop.end(), frame.begin() + (long(y) * fbw + x0) * 4, frame.begin() + (long(y) * fbw + x1) * 4);
      std::string e = prepareFolder(model_.exportDir), path;
      if (e.empty()) {
        path = freePath(v.stem, std::string(v.format->extension));
        const std::string bytes = v.format->renderImage(crop, x1 - x0, y1 - y0, &e);
        if (e.empty()) e = writeTextAtomic(path, bytes);
      }
      noteSaved(v.stem, path, e);
    }
    pendingViews_.clear();
  }
  if (reportRequested_) {
    reportRequested_ = false;
    char stamp[32];
    std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "report-%Y%m%d-%H%M%S", std::localtime(&now));
    if (std::string e = prepareFolder(model_.exportDir); !e.empty()) {
      model_.addLog(gui::LogLevel::Error, e);
      return;
    }
    const std::string dir = (std::filesystem::path(model_.exportDir) / stamp).string();
    std::vector<ReportSection> sections;
    std::vector<Measurement> all = model_.results;
    if (!model_.results.empty()) {
      const RunTables tables = runTables(model_.results.rows(), model_.peaks);  // matrix runs: their own columns
      ReportSection runs{"Runs", "Every run of this session, in order.", {gui::liveBandwidthFigure(model_.results, model_.peaks, model_.results.basis())}, {}};
      if (!tables.reductions.rows.empty()) runs.tables.push_back({"runs", tables.reductions});
      if (!tables.matrix.rows.empty()) runs.tables.push_back({"runs-matrix", tables.matrix});
      sections.push_back(runs);
    }
    for (const auto& [axis, rows] : model_.sweep.rows) {
      if (rows.empty()) continue;
      all.insert(all.end(), rows.begin(), rows.end());
      const bool matrix = std::all_of(rows.begin(), rows.end(), isMatrixRun);  // tile and size sweeps, as `reducelab sweep`
      sections.push_back({"Sweep over " + axis, "", {gui::figureForSweep(axis, rows, model_.peaks, measuredDevice())},
                          {{"sweep-" + axis, matrix ? matrixTable(rows) : sweepTable(rows, model_.peaks)}}});
    }
    const DeviceInfo d = model_.device.available ? model_.device : assumedH200();
    const OccupancyCurveInputs curve = occupancyCurveInputs(model_.resources, model_.config.block);
    sections.push_back({"Occupancy", "", {gui::occupancyFigure(d, model_.config.kernel, curve.registers,
                                                                curve.sharedFixedBytes, curve.sharedPerThreadBytes)}, {}});
    if (model_.trace.valid) {
      Table t = traceTable(model_.trace.data, model_.trace.summary);
      t.caption = "Trace of " + model_.trace.config.kernel + ", block " + std::to_string(model_.trace.config.block);
      sections.push_back({"Trace", "From the " + model_.trace.source + ".", {}, {{"trace", t}}});
    }
    ExportResult r = writeReport(dir, "ReduceLab report", measuredDevice(), model_.peaks, sections, all, false);
    model_.addLog(r.error.empty() ? gui::LogLevel::Info : gui::LogLevel::Error,
                  r.error.empty() ? "Report written to " + dir + " (" + std::to_string(r.written.size()) + " files)" : r.error);
  }
}

}  // namespace rl::app
