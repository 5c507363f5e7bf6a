#include "figure_export.hpp"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "reducelab/atomic_file.hpp"
#include "reducelab/formats/session_json.hpp"

namespace rl::app {

namespace fs = std::filesystem;

ExportFormats ExportFormats::all() {
  ExportFormats f;
  for (const gui::FigureWriter& w : gui::figureFormats().all()) f.figures.push_back(&w);
  f.tables = tableFileFormats();
  f.records = recordFormats();
  return f;
}

std::vector<std::string> ExportFormats::extensions() const {
  std::vector<std::string> out;
  for (const gui::FigureWriter* f : figures) out.emplace_back(f->extension);
  for (const OutputFormat* f : tables) out.emplace_back(f->extension);
  for (const OutputFormat* f : records) out.emplace_back(f->extension);
  return out;
}

std::vector<std::string_view> exportFormatNames() {
  std::vector<std::string_view> names;
  const ExportFormats all = ExportFormats::all();
  for (const gui::FigureWriter* f : all.figures) names.push_back(f->name);
  for (const OutputFormat* f : all.tables) names.push_back(f->name);
  for (const OutputFormat* f : all.records) names.push_back(f->name);
  return names;
}

std::string parseFormats(const std::string& text, ExportFormats* out) {
  const ExportFormats all = ExportFormats::all();
  std::set<const void*> chosen;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const void* f = gui::figureFormats().find(item);
    if (!f) f = outputFormats().find(item);
    if (item == "all") {
      for (const auto* w : all.figures) chosen.insert(w);
      for (const auto* w : all.tables) chosen.insert(w);
      for (const auto* w : all.records) chosen.insert(w);
    } else if (f && (std::count(all.tables.begin(), all.tables.end(), f) || std::count(all.records.begin(), all.records.end(), f) ||
                     std::count(all.figures.begin(), all.figures.end(), f))) {
      chosen.insert(f);
    } else {
      std::vector<std::string_view> names = exportFormatNames();
      names.push_back("all");
      return "--format '" + item + "' is not one of: " + joinNames(names);
    }
  }
  ExportFormats f;  // in the registries' order, whatever the order asked
  for (const auto* w : all.figures) if (chosen.count(w)) f.figures.push_back(w);
  for (const auto* w : all.tables) if (chosen.count(w)) f.tables.push_back(w);
  for (const auto* w : all.records) if (chosen.count(w)) f.records.push_back(w);
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
  for (const gui::FigureWriter* format : f.figures) {
    const std::string path = base + std::string(format->extension);
    std::string e;
    const std::string bytes = format->render(figure.spec, o, &e);
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
  for (const OutputFormat* format : f.tables) {
    const std::string path = base + std::string(format->extension);
    if (std::string e = writeTextAtomic(path, format->table(t)); !e.empty()) {
      if (r->error.empty()) r->error = e;
    } else {
      r->written.push_back(path);
    }
  }
}

std::vector<std::string> reportFileNames() {
  std::vector<std::string> names = {"report" + std::string(documentFormat().extension)};
  for (const OutputFormat* w : recordFormats()) {
    names.push_back("device" + std::string(w->extension));
    names.push_back("session" + std::string(w->extension));
  }
  return names;
}

ExportResult writeReport(const std::string& dir, const std::string& title, const DeviceInfo& device,
                         const Peaks& peaks, const std::vector<ReportSection>& sections,
                         const std::vector<Measurement>& session, bool force) {
  ExportResult r;
  if (std::string e = prepareFolder(dir); !e.empty()) {
    r.error = e;
    return r;
  }
  const ExportFormats all = ExportFormats::all();
  std::vector<std::string> names = reportFileNames();
  for (const ReportSection& s : sections) {
    for (const gui::Figure& f : s.figures)
      for (const gui::FigureWriter* w : all.figures) names.push_back(f.fileStem + std::string(w->extension));
    for (const auto& [stem, t] : s.tables)
      for (const OutputFormat* w : all.tables) names.push_back(stem + std::string(w->extension));
  }
  if (std::string e = checkOverwrite(dir, names, force); !e.empty()) {
    r.error = e;
    return r;
  }
  // report.md shows a figure inline in a raster format and links the vector ones; it shows a
  // table inline (its own format) and links the other table files.
  const gui::FigureWriter* inlineFigure = nullptr;
  for (const gui::FigureWriter* w : all.figures)
    if (!w->vector && !inlineFigure) inlineFigure = w;
  auto link = [](const FormatInfo& w, const std::string& stem) {
    return "[" + std::string(w.label) + "](" + stem + std::string(w.extension) + ")";
  };
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
      if (inlineFigure) md << "![" << f.spec.title << "](" << f.fileStem << inlineFigure->extension << ")\n\n";
      std::string vectors;
      for (const gui::FigureWriter* w : all.figures)
        if (w->vector) vectors += (vectors.empty() ? "" : ", ") + link(*w, f.fileStem);
      if (!vectors.empty()) md << "Vector versions: " << vectors << "\n\n";
    }
    for (const auto& [stem, t] : s.tables) {
      exportTable(t, dir, stem, all, &r);
      md << documentFormat().table(t) << "\n";
      std::vector<std::string> others;
      for (const OutputFormat* w : all.tables)
        if (!w->document) others.push_back(link(*w, stem));
      if (!others.empty()) md << "Also as " << proseList(others) << ".\n\n";
    }
  }
  SessionInfo info{device, peaks, {}, "report"};
  const nlohmann::json dj = sessionJson(info, {})["devices"][0];
  std::vector<std::pair<std::string, std::string>> files;  // path, text: report.md last
  for (const OutputFormat* w : all.records) {
    files.push_back({(fs::path(dir) / ("device" + std::string(w->extension))).string(), w->records(dj)});
    files.push_back({(fs::path(dir) / ("session" + std::string(w->extension))).string(), w->records(sessionJson(info, session))});
  }
  files.push_back({(fs::path(dir) / ("report" + std::string(documentFormat().extension))).string(), md.str()});
  for (auto& [path, text] : files) {
    if (std::string e = writeTextAtomic(path, text); !e.empty()) {
      if (r.error.empty()) r.error = e;
    } else {
      r.written.push_back(path);
    }
  }
  return r;
}

}  // namespace rl::app
