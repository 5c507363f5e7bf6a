// `reducelab multi`: Reduce and AllReduce across the GPUs of this machine (hand-written over peer
// access; NCCL ring and tree), the vector AllReduce sweep with algbw / busbw, and --model: the
// algorithm model's schedules, which need no GPU.
#include "cmd_multi.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reducelab/atomic_file.hpp"
#include "reducelab/collective.hpp"
#include "reducelab/gui/multi_view.hpp"
#include "reducelab/gui/plot.hpp"
#include "reducelab/multi_record.hpp"

namespace rl::app {

namespace col = rl::collective;

namespace {

// "pdf, svg or png (else svg)": the figure formats --chart picks by extension.
std::string figureChartFormats() {
  std::vector<std::string> names;
  std::string fallback;
  for (const gui::FigureWriter& f : gui::figureFormats().all()) {
    names.emplace_back(f.extension);
    if (f.fallback) fallback = std::string(f.name);
  }
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return list + "; else " + fallback;
}

}  // namespace

CLI::App* addMultiCommand(CLI::App& cli, MultiCommandOptions& o, int argc, char** argv) {
  CLI::App* c = cli.add_subcommand("multi", "Reduce / AllReduce across GPUs: hand-written, NCCL ring and tree; the vector AllReduce sweep");
  c->add_option("--gpus", o.gpus, "GPUs to use (default: every visible one; --model: 4)");
  c->add_option("--op", o.op, "Operation: sum, min or max")->capture_default_str();
  c->add_option("--type", o.type, "Element type: int32, int64, float32, float64")->capture_default_str();
  c->add_option("--n", o.n, "Scalar reduction: elements in all, spread over the GPUs")->capture_default_str();
  c->add_option("--sizes", o.sizes, "Vector AllReduce bytes per GPU: 1K..8G (powers of two), a comma list, or none")
      ->capture_default_str();
  c->add_option("--algo", o.algo, "Comma list of ring, tree, hand")->capture_default_str();
  c->add_option("--reps", o.reps, "Timed repetitions (median reported)")->capture_default_str();
  c->add_option("--warmup", o.warmup, "Untimed warm-up runs")->capture_default_str();
  c->add_option("--format", o.format, outputFormatChoices(kWritesTables | kWritesRecords))->capture_default_str();
  c->add_option("--out", o.out, "Write to this file (atomically) instead of stdout");
  c->add_option("--chart", o.chart, "Also write the algbw/busbw chart to this file (its extension picks the format: " +
                                        figureChartFormats() + ")");
  c->add_flag("--force", o.force, "Overwrite --out / --chart if they exist");
  c->add_option("--from", o.from, "Re-render a saved `multi --format json` file (tables, --chart) without measuring");
  c->add_option("--frames", o.frames, "With --model and one size: every step of the animation as SVG into this folder");
  c->add_flag("--model", o.model, "Print the ring and tree schedules of the algorithm model (no GPU needed)");
  for (int i = 0; i < argc; ++i) o.argv.push_back(argv[i]);
  return c;
}

namespace {

int fail(int code, const std::string& what) {
  std::fprintf(stderr, "reducelab: error: %s\n", what.c_str());
  return code;
}

std::string emit(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::fputs(text.c_str(), stdout);
    return "";
  }
  return writeTextAtomic(path, text);
}

// One row per algorithm, collective and size: what the model moves.
Table modelTable(const std::vector<col::Schedule>& list) {
  Table t;
  t.caption = "Algorithm model: steps and bytes (no GPU involved)";
  t.headers = {"algorithm", "collective", "GPUs", "bytes per GPU", "steps", "busiest GPU per step", "sent per GPU (max)",
               "x buffer", "all links"};
  t.numeric = {false, false, true, true, true, true, true, true, true};
  for (const col::Schedule& s : list) {
    uint64_t busiest = 0;
    for (int k = 0; k < int(s.steps.size()); ++k) busiest = std::max(busiest, s.busiestGpuBytes(k));
    const auto sent = s.sentBytes();
    const uint64_t most = *std::max_element(sent.begin(), sent.end());
    t.rows.push_back({std::string(col::name(s.algorithm)), std::string(col::name(s.collective)), std::to_string(s.gpus),
                      col::formatBytes(s.bytes()), std::to_string(s.steps.size()), col::formatBytes(busiest),
                      col::formatBytes(most), fixed(double(most) / double(s.bytes()), 3),
                      col::formatBytes(s.totalBytesMoved())});
  }
  return t;
}

std::string stepListing(const col::Schedule& s) {
  std::ostringstream o;
  o << col::name(s.algorithm) << " " << col::name(s.collective) << " on " << s.gpus << " GPUs, "
    << col::formatBytes(s.bytes()) << " per GPU, " << s.chunks.size() << " chunk(s):\n";
  for (size_t k = 0; k < s.steps.size(); ++k) {
    o << "  step " << k + 1 << " (" << s.steps[k].phase << "):";
    for (const col::Transfer& t : s.steps[k].transfers)
      o << "  " << t.from << "->" << t.to << " c" << t.chunk << " " << col::formatBytes(t.bytes)
        << (t.kind == col::TransferKind::Reduce ? " +" : " =");
    o << "\n";
  }
  if (s.steps.empty()) o << "  (one GPU: nothing moves)\n";
  return o.str();
}

nlohmann::json scheduleJson(const col::Schedule& s) {
  nlohmann::json steps = nlohmann::json::array();
  for (const col::Step& st : s.steps) {
    nlohmann::json tr = nlohmann::json::array();
    for (const col::Transfer& t : st.transfers)
      tr.push_back({{"from", t.from}, {"to", t.to}, {"chunk", t.chunk}, {"bytes", t.bytes},
                    {"kind", t.kind == col::TransferKind::Reduce ? "reduce" : "copy"}});
    steps.push_back({{"phase", st.phase}, {"transfers", tr}});
  }
  nlohmann::json chunks = nlohmann::json::array();
  for (const col::Chunk& c : s.chunks) chunks.push_back({{"first", c.first}, {"count", c.count}});
  return {{"algorithm", col::name(s.algorithm)}, {"collective", col::name(s.collective)}, {"gpus", s.gpus},
          {"elements", s.elements}, {"element_bytes", s.elemBytes}, {"bytes", s.bytes()}, {"chunks", chunks},
          {"steps", steps}, {"sent_bytes", s.sentBytes()}, {"total_bytes_moved", s.totalBytesMoved()}};
}

// All rows of a measurement as one table (CSV has one table per file).
Table allRowsTable(const multi::Report& r) {
  Table t;
  t.headers = {"kind", "collective", "algorithm", "gpus", "bytes", "count", "time_ms", "algbw_gbs", "busbw_gbs",
               "result", "check", "error"};
  t.numeric = {false, false, false, true, true, true, true, true, true, true, false, false};
  for (const multi::Row& w : r.rows)
    t.rows.push_back({w.kind, w.collective, w.algorithm, std::to_string(w.gpus), std::to_string(w.bytes),
                      std::to_string(w.count), w.ok ? fixed(w.ms.median, 6) : "", w.ok ? fixed(w.algbwGBs, 3) : "",
                      w.ok ? fixed(w.busbwGBs, 3) : "", w.result,
                      w.checked ? std::string(w.pass ? "PASS " : "FAIL ") + w.check : "", w.error});
  return t;
}

// Every step of each schedule as SVG: NAME-step-01.svg (step 1 in flight) ... the end state last.
int writeFrames(const std::vector<col::Schedule>& list, const std::string& dir, bool force) {
  std::vector<std::pair<std::string, std::string>> files;  // path, SVG
  for (const col::Schedule& s : list)
    for (int k = 0; k <= int(s.steps.size()); ++k) {
      char name[128];
      std::snprintf(name, sizeof name, "%s-%s-g%d-step-%02d.svg", std::string(col::name(s.algorithm)).c_str(),
                    std::string(col::name(s.collective)).c_str(), s.gpus, k + 1);
      files.emplace_back((std::filesystem::path(dir) / name).string(), gui::scheduleSvg(s, k));
    }
  for (const auto& f : files)  // nothing is written unless everything may be
    if (std::filesystem::exists(f.first) && !force) return fail(1, f.first + " exists; add --force to overwrite it");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(1, "cannot create " + dir + ": " + ec.message());
  for (const auto& f : files)
    if (std::string e = writeTextAtomic(f.first, f.second); !e.empty()) return fail(1, e);
  std::printf("%zu frames written to %s\n", files.size(), dir.c_str());
  return 0;
}

}  // namespace

int runMultiCommand(const MultiCommandOptions& o) {
  // Every usage check first, so a typo reads the same with or without GPUs.
  multi::Options mo;
  std::string err;
  if (auto v = parseElemType(o.type)) mo.type = *v;
  else return fail(2, "--type '" + o.type + "' is not one of: int32, int64, float32, float64");
  if (auto v = parseOp(o.op)) mo.op = *v;
  else return fail(2, "--op '" + o.op + "' is not one of: sum, min, max");
  if (auto v = parseCount(o.n, &err)) mo.n = *v;
  else return fail(2, "--n: " + err);
  if (o.gpus < 0 || o.gpus > 64) return fail(2, "--gpus must be 1 to 64 (or 0: every visible GPU)");
  if (o.sizes != "none") {
    auto sizes = col::parseSizeList(o.sizes, &err);
    if (!sizes) return fail(2, "--sizes: " + err);
    mo.vectorBytes = *sizes;
  }
  mo.hand = mo.ring = mo.tree = false;
  {
    std::string item;
    std::istringstream in(o.algo);
    int count = 0;
    while (std::getline(in, item, ',')) {
      if (item == "ring") mo.ring = true;
      else if (item == "tree") mo.tree = true;
      else if (item == "hand") mo.hand = true;
      else return fail(2, "--algo '" + item + "' is not one of: ring, tree, hand");
      ++count;
    }
    if (count == 0) return fail(2, "--algo needs at least one of: ring, tree, hand");
  }
  if (o.reps < 1 || o.reps > 10000) return fail(2, "--reps must be 1 to 10000");
  if (o.warmup < 0 || o.warmup > 1000) return fail(2, "--warmup must be 0 to 1000");
  mo.reps = o.reps;
  mo.warmup = o.warmup;
  mo.gpus = o.gpus;
  const OutputFormat* chosen = chooseOutputFormat(o.format, kWritesTables | kWritesRecords, &err);
  if (!chosen) return fail(2, err);
  const OutputFormat& format = *chosen;
  if (!o.chart.empty() && o.model) return fail(2, "--chart draws measured figures; --model has none");
  if (!o.from.empty() && o.model) return fail(2, "--from re-renders a measurement; --model measures nothing");
  if (!o.frames.empty() && (!o.model || mo.vectorBytes.size() != 1))
    return fail(2, "--frames needs --model and one size (e.g. --model --sizes 1G --frames DIR)");
  for (const std::string* path : {&o.out, &o.chart})
    if (!path->empty() && std::filesystem::exists(*path) && !o.force)
      return fail(1, *path + " exists; add --force to overwrite it");

  if (o.model) {
    const int gpus = o.gpus > 0 ? o.gpus : 4;
    if (mo.vectorBytes.empty()) return fail(2, "--model needs --sizes (the buffer each GPU holds)");
    std::vector<col::Schedule> list;
    const uint64_t eb = elemBytes(mo.type);
    for (uint64_t bytes : mo.vectorBytes)
      for (col::Algorithm a : {col::Algorithm::Ring, col::Algorithm::Tree}) {
        if ((a == col::Algorithm::Ring && !mo.ring) || (a == col::Algorithm::Tree && !mo.tree)) continue;
        for (col::Collective c : {col::Collective::AllReduce, col::Collective::Reduce}) {
          auto s = col::makeSchedule(a, c, gpus, std::max<uint64_t>(1, bytes / eb), eb, &err);
          if (!s) return fail(2, err);
          if (std::string e = col::verifySchedule(*s); !e.empty()) return fail(3, "model: " + e);
          list.push_back(std::move(*s));
        }
      }
    if (list.empty()) return fail(2, "--model shows ring and tree: --algo hand has no model");
    if (!o.frames.empty()) return writeFrames(list, o.frames, o.force);
    std::string text;
    if (format.writes & kWritesRecords) {
      nlohmann::json j = nlohmann::json::array();
      for (const col::Schedule& s : list) j.push_back(scheduleJson(s));
      text = format.records(j);
    } else {
      text = format.table(modelTable(list));
      if (format.prose && mo.vectorBytes.size() == 1) {
        text += "\n";
        for (const col::Schedule& s : list) text += stepListing(s);
      }
    }
    if (std::string e = emit(o.out, text); !e.empty()) return fail(1, e);
    return 0;
  }

  multi::Report r;
  if (!o.from.empty()) {
    std::ifstream in(o.from);
    if (!in) return fail(1, "cannot open " + o.from);
    std::stringstream buf;
    buf << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(buf.str(), nullptr, false);
    if (j.is_discarded()) return fail(2, o.from + " is not JSON");
    if (!multi::fromJson(j, &r, &err)) return fail(2, o.from + ": " + err);
  } else {
    r = multi::measure(mo, o.argv);
  }
  if (!r.ok)
    return fail(1, "multi " + r.error + "; `reducelab multi --model --sizes 1G` shows the algorithm without them");

  std::string text;
  if (format.writes & kWritesRecords) {
    text = format.records(multi::toJson(r));
  } else if (!format.prose) {  // the data alone: every row in one table
    text = format.table(allRowsTable(r));
  } else {
    text = format.block(multi::describe(r));
    const Table scalar = multi::scalarTable(r), vector = multi::vectorTable(r);
    if (!scalar.rows.empty()) text += format.table(scalar) + "\n";  // each table carries its caption
    if (!vector.rows.empty()) text += format.table(vector);
    if (r.gpusUsed >= 2) {
      text += "\nModel: a ring AllReduce sends 2(G-1)/G = " + fixed(col::busBandwidthFactor(col::Collective::AllReduce, r.gpusUsed), 3) +
              " x the buffer from each GPU in 2(G-1) = " + std::to_string(2 * (r.gpusUsed - 1)) +
              " steps; busbw divides that traffic by the time.\n";
    }
  }
  if (std::string e = emit(o.out, text); !e.empty()) return fail(1, e);
  if (!o.chart.empty()) {
    const gui::Figure fig = gui::multiFigure(r);
    std::string e;  // the chart's format follows its extension (else the fallback, SVG)
    const std::string bytes = gui::figureFormatFor(o.chart).render(fig.spec, {}, &e);
    if (e.empty()) e = writeTextAtomic(o.chart, bytes);
    if (!e.empty()) return fail(1, e);
  }
  bool anyOk = false, allPass = true;
  for (const multi::Row& w : r.rows) {
    anyOk = anyOk || w.ok;
    allPass = allPass && (!w.checked || w.pass);
  }
  if (!anyOk) return fail(1, "nothing could be measured (see the not measured lines)");
  return allPass ? 0 : 3;
}

}  // namespace rl::app
