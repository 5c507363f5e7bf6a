#include "figure_export.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "reducelab/atomic_file.hpp"
#include "reducelab/formats/session_json.hpp"
#include "reducelab/formats/table_writers.hpp"

namespace rl::app {

namespace fs = std::filesystem;

std::string parseFormats(const std::string& text, ExportFormats* out) {
  ExportFormats f{false, false, false, false, false, false, false};
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "png") f.png = true;
    else if (item == "svg") f.svg = true;
    else if (item == "pdf") f.pdf = true;
    else if (item == "csv") f.csv = true;
    else if (item == "md") f.md = true;
    else if (item == "tex" || item == "latex") f.tex = true;
    else if (item == "json") f.json = true;
    else if (item == "all") f = ExportFormats{};
    else return "--format '" + item + "' is not one of: png, svg, pdf, csv, md, tex, json, all";
  }
  *out = f;
  return {};
}

std::string prepareFolder(const std::string& dir) {
  std::error_code ec;
  fs::path p(dir);
  if (fs::is_directory(p, ec)) return {};
  if (fs::exists(p, ec)) return dir + " exists and is not a folder";
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) return "cannot create " + dir + ": folder " + parent.string() + " does not exist";
  if (!fs::create_directory(p, ec)) return "cannot create " + dir + ": " + ec.message();
  return {};
}

std::string checkOverwrite(const std::string& dir, const std::vector<std::string>& names, bool force) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};  // created later: nothing in it to overwrite
  for (const std::string& n : names)  // the one writer's check: links, devices, FIFOs are refused
    if (std::string e = checkOutputTarget((fs::path(dir) / n).string(), force); !e.empty()) return e;
  return {};
}

void exportFigure(const gui::Figure& figure, const std::string& dir, const ExportFormats& f, bool white,
                  ExportResult* r) {
  const std::string base = (fs::path(dir) / figure.fileStem).string();
  gui::FigureOptions o;
  o.whiteBackground = white;
  for (const auto& [on, format] : {std::pair{f.pdf, gui::FigureFormat::Pdf}, std::pair{f.svg, gui::FigureFormat::Svg},
                                   std::pair{f.png, gui::FigureFormat::Png}}) {
    if (!on) continue;
    const std::string path = base + "." + std::string(gui::figureFormatName(format));
    std::string e;
    const std::string bytes = gui::renderFigure(figure.spec, format, o, &e);
    if (e.empty()) e = writeTextAtomic(path, bytes);
    if (!e.empty()) {
      if (r->error.empty()) r->error = path + ": " + e;
    } else {
      r->written.push_back(path);
    }
  }
}

void exportTable(const Table& t, const std::string& dir, const std::string& stem, const ExportFormats& f,
                 ExportResult* r) {
  const std::string base = (fs::path(dir) / stem).string();
  auto one = [&](bool on, const char* ext, std::string (*fmt)(const Table&)) {
    if (!on) return;
    if (std::string e = writeTextAtomic(base + ext, fmt(t)); !e.empty()) {
      if (r->error.empty()) r->error = e;
    } else {
      r->written.push_back(base + ext);
    }
  };
  one(f.csv, ".csv", csvTable);
  one(f.md, ".md", markdownTable);
  one(f.tex, ".tex", latexTable);
}

ExportResult writeReport(const std::string& dir, const std::string& title, const DeviceInfo& device,
                         const Peaks& peaks, const std::vector<ReportSection>& sections,
                         const std::vector<Measurement>& session, bool force) {
  ExportResult r;
  if (std::string e = prepareFolder(dir); !e.empty()) {
    r.error = e;
    return r;
  }
  std::vector<std::string> names = {"report.md", "device.json", "session.json"};
  for (const ReportSection& s : sections) {
    for (const gui::Figure& f : s.figures)
      for (const char* ext : {".png", ".svg", ".pdf"}) names.push_back(f.fileStem + ext);
    for (const auto& [stem, t] : s.tables) names.push_back(stem + ".csv");
  }
  if (std::string e = checkOverwrite(dir, names, force); !e.empty()) {
    r.error = e;
    return r;
  }
  ExportFormats all;
  std::ostringstream md;
  md << "# " << title << "\n\n";
  if (device.available) {
    char b[512];
    std::snprintf(b, sizeof b,
                  "**Device:** %s (compute capability %s, %d SMs, L2 %.0f MiB, %.0f GiB, %d-bit bus at %d MHz). "
                  "**Peaks:** theoretical %.0f GB/s, measured read %.0f GB/s, measured copy %.0f GB/s. "
                  "CUDA driver %s, runtime %s.\n\n",
                  device.name.c_str(), device.ccString().c_str(), device.smCount, device.l2Bytes / 1048576.0,
                  device.totalMemBytes / 1073741824.0, device.busWidthBits, device.memClockKHz / 1000,
                  peaks.theoreticalGBs, peaks.readGBs, peaks.copyGBs, cudaVersionString(device.driverVersion).c_str(),
                  cudaVersionString(device.runtimeVersion).c_str());
    md << b;
  } else {
    md << "**Device:** none: " << device.unavailableReason
       << ". Measurements need an NVIDIA GPU; traces and occupancy below come from the CPU model.\n\n";
  }
  md << "Times are medians of CUDA-event timings after warm-up runs, with L2 flushed before each timed run unless a "
        "figure says warm L2. Bandwidth = N x element size / median time.\n\n";
  for (const ReportSection& s : sections) {
    md << "## " << s.heading << "\n\n";
    if (!s.text.empty()) md << s.text << "\n\n";
    for (const gui::Figure& f : s.figures) {
      exportFigure(f, dir, all, true, &r);
      md << "![" << f.spec.title << "](" << f.fileStem << ".png)\n\n";
      md << "Vector versions: [PDF](" << f.fileStem << ".pdf), [SVG](" << f.fileStem << ".svg)\n\n";
    }
    for (const auto& [stem, t] : s.tables) {
      exportTable(t, dir, stem, all, &r);
      md << markdownTable(t) << "\n";
      md << "Also as [CSV](" << stem << ".csv) and [LaTeX](" << stem << ".tex).\n\n";
    }
  }
  SessionInfo info{device, peaks, {}, "report"};
  const nlohmann::json dj = sessionJson(info, {})["devices"][0];
  for (auto& [path, text] : std::vector<std::pair<std::string, std::string>>{
           {(fs::path(dir) / "device.json").string(), dj.dump(2) + "\n"},
           {(fs::path(dir) / "session.json").string(), sessionJson(info, session).dump(2) + "\n"},
           {(fs::path(dir) / "report.md").string(), md.str()}}) {
    if (std::string e = writeTextAtomic(path, text); !e.empty()) {
      if (r.error.empty()) r.error = e;
    } else {
      r.written.push_back(path);
    }
  }
  return r;
}

}  // namespace rl::app
