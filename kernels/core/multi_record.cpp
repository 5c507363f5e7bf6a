// Tables, JSON and the text header of `reducelab multi` results (plain C++; see multi.hpp).
#include <cstdio>

#include "reducelab/collective.hpp"
#include "reducelab/multi_record.hpp"

namespace rl::multi {

namespace {

std::string gbs(double v) { return v > 0 ? fixed(v, 1) : "-"; }

std::string checkText(const Row& w) {
  if (!w.checked) return "-";
  return (w.pass ? "PASS " : "FAIL ") + w.check;
}

}  // namespace

Table scalarTable(const Report& r) {
  Table t;
  t.caption = "Scalar reduction of N elements spread over the GPUs";
  t.headers = {"collective", "algorithm", "GPUs", "N", "time ms", "GB/s", "vs 1 GPU", "result", "check"};
  t.numeric = {false, false, true, true, true, true, true, true, false};
  double oneGpuMs = 0;  // the single-GPU row: the speedup's reference
  for (const Row& w : r.rows)
    if (w.kind == "scalar" && w.algorithm == "single-gpu" && w.ok) oneGpuMs = w.ms.median;
  for (const Row& w : r.rows) {
    if (w.kind != "scalar") continue;
    if (!w.ok) {
      t.rows.push_back({w.collective, w.algorithm, std::to_string(w.gpus), formatCount(w.count), "-", "-", "-", "-",
                        "not measured: " + w.error});
      continue;
    }
    t.rows.push_back({w.collective, w.algorithm, std::to_string(w.gpus), formatCount(w.count), fixed(w.ms.median, 4),
                      gbs(w.algbwGBs), oneGpuMs > 0 ? "x" + fixed(oneGpuMs / w.ms.median, 2) : "-", w.result,
                      checkText(w)});
  }
  return t;
}

Table vectorTable(const Report& r) {
  Table t;
  t.caption = "Element-wise AllReduce of a vector on every GPU (busbw = algbw x 2(G-1)/G)";
  t.headers = {"bytes per GPU", "algorithm", "GPUs", "time ms", "algbw GB/s", "busbw GB/s", "% of P2P", "check"};
  t.numeric = {true, false, true, true, true, true, true, false};
  const double p2p = [&] {
    double best = 0;
    for (size_t g = 1; g < r.p2pGBs.size(); ++g) best = best == 0 ? r.p2pGBs[g] : std::min(best, r.p2pGBs[g]);
    return best;
  }();
  for (const Row& w : r.rows) {
    if (w.kind != "vector") continue;
    if (!w.ok) {
      t.rows.push_back({collective::formatBytes(w.bytes), w.algorithm, std::to_string(w.gpus), "-", "-", "-", "-",
                        "not measured: " + w.error});
      continue;
    }
    t.rows.push_back({collective::formatBytes(w.bytes), w.algorithm, std::to_string(w.gpus), fixed(w.ms.median, 4),
                      gbs(w.algbwGBs), gbs(w.busbwGBs), p2p > 0 ? fixed(100.0 * w.busbwGBs / p2p, 1) : "-",
                      checkText(w)});
  }
  return t;
}

namespace {

nlohmann::json statsJson(const Stats& s) {
  return {{"count", s.count}, {"median", s.median}, {"min", s.min}, {"max", s.max}, {"mean", s.mean},
          {"stddev", s.stddev}};
}

Stats statsFrom(const nlohmann::json& j) {
  Stats s;
  if (!j.is_object()) return s;
  s.count = j.value("count", 0);
  s.median = j.value("median", 0.0);
  s.min = j.value("min", 0.0);
  s.max = j.value("max", 0.0);
  s.mean = j.value("mean", 0.0);
  s.stddev = j.value("stddev", 0.0);
  return s;
}

}  // namespace

nlohmann::json toJson(const Report& r) {
  nlohmann::json j;
  j["benchmark"] = "multi";
  j["ok"] = r.ok;
  j["error"] = r.error;
  j["gpus_visible"] = r.gpusVisible;
  j["gpus_asked"] = r.gpusAsked;
  j["gpus_used"] = r.gpusUsed;
  j["type"] = std::string(name(r.type));
  j["op"] = std::string(name(r.op));
  j["argv"] = r.argv;
  nlohmann::json devs = nlohmann::json::array();
  for (const DeviceInfo& d : r.devices)
    devs.push_back({{"ordinal", d.ordinal}, {"name", d.name}, {"uuid", d.uuid}, {"pci_bus_id", d.pciBusId},
                    {"driver", cudaVersionString(d.driverVersion)}});
  j["devices"] = devs;
  j["peer_access"] = r.peerAccess;
  j["nccl_version"] = r.ncclVersion;
  j["nccl_library"] = r.ncclLibrary;
  j["nccl_algorithm_note"] = r.ncclAlgoNote;
  j["p2p_copy_gbs"] = r.p2pGBs;
  j["hbm_read_gbs"] = r.hbmReadGBs;
  j["not_measured"] = r.notMeasured;
  nlohmann::json rows = nlohmann::json::array();
  for (const Row& w : r.rows)
    rows.push_back({{"kind", w.kind}, {"collective", w.collective}, {"algorithm", w.algorithm}, {"gpus", w.gpus},
                    {"bytes", w.bytes}, {"count", w.count}, {"ok", w.ok}, {"error", w.error}, {"ms", statsJson(w.ms)},
                    {"algbw_gbs", w.algbwGBs}, {"busbw_gbs", w.busbwGBs}, {"checked", w.checked}, {"pass", w.pass},
                    {"check", w.check}, {"result", w.result}});
  j["rows"] = rows;
  nlohmann::json refs = nlohmann::json::array();
  for (const ReferenceFigure& f : referenceFigures())
    refs.push_back({{"what", f.what}, {"value", f.value}, {"source", f.source}});
  j["references"] = refs;
  return j;
}

bool fromJson(const nlohmann::json& j, Report* r, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (!j.is_object() || j.value("benchmark", std::string()) != "multi")
    return fail("not a `reducelab multi --format json` file (no \"benchmark\": \"multi\")");
  if (!j.contains("rows") || !j["rows"].is_array()) return fail("the file has no \"rows\" array");
  try {
    Report out;
    out.ok = j.value("ok", false);
    out.error = j.value("error", std::string());
    out.gpusVisible = j.value("gpus_visible", 0);
    out.gpusAsked = j.value("gpus_asked", 0);
    out.gpusUsed = j.value("gpus_used", 0);
    out.type = parseElemType(j.value("type", std::string("float32"))).value_or(ElemType::Float32);
    out.op = parseOp(j.value("op", std::string("sum"))).value_or(Op::Sum);
    if (j.contains("devices") && j["devices"].is_array())
      for (const auto& d : j["devices"]) {
        DeviceInfo info;
        info.available = true;
        info.ordinal = d.value("ordinal", 0);
        info.name = d.value("name", std::string());
        info.uuid = d.value("uuid", std::string());
        info.pciBusId = d.value("pci_bus_id", std::string());
        out.devices.push_back(info);
      }
    if (j.contains("peer_access")) out.peerAccess = j["peer_access"].get<std::vector<std::vector<bool>>>();
    out.ncclVersion = j.value("nccl_version", std::string());
    out.ncclLibrary = j.value("nccl_library", std::string());
    out.ncclAlgoNote = j.value("nccl_algorithm_note", std::string());
    if (j.contains("p2p_copy_gbs")) out.p2pGBs = j["p2p_copy_gbs"].get<std::vector<double>>();
    if (j.contains("hbm_read_gbs")) out.hbmReadGBs = j["hbm_read_gbs"].get<std::vector<double>>();
    if (j.contains("not_measured")) out.notMeasured = j["not_measured"].get<std::vector<std::string>>();
    for (const auto& w : j["rows"]) {
      if (!w.is_object()) return fail("a row is not an object");
      Row row;
      row.kind = w.value("kind", std::string());
      row.collective = w.value("collective", std::string());
      row.algorithm = w.value("algorithm", std::string());
      row.gpus = w.value("gpus", 0);
      row.bytes = w.value("bytes", uint64_t(0));
      row.count = w.value("count", uint64_t(0));
      row.ok = w.value("ok", false);
      row.error = w.value("error", std::string());
      row.ms = statsFrom(w.contains("ms") ? w["ms"] : nlohmann::json());
      row.algbwGBs = w.value("algbw_gbs", 0.0);
      row.busbwGBs = w.value("busbw_gbs", 0.0);
      row.checked = w.value("checked", false);
      row.pass = w.value("pass", false);
      row.check = w.value("check", std::string());
      row.result = w.value("result", std::string());
      if (row.kind != "scalar" && row.kind != "vector") return fail("a row's kind is neither scalar nor vector");
      out.rows.push_back(std::move(row));
    }
    *r = std::move(out);
    return true;
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("malformed multi results: ") + e.what());
  }
}

std::string describe(const Report& r) {
  std::string s;
  char b[512];
  std::snprintf(b, sizeof b, "ReduceLab multi: %d GPU(s) used of %d visible (%s asked)\n", r.gpusUsed, r.gpusVisible,
                r.gpusAsked > 0 ? std::to_string(r.gpusAsked).c_str() : "all");
  s += b;
  for (size_t g = 0; g < r.devices.size(); ++g) {
    const DeviceInfo& d = r.devices[g];
    std::snprintf(b, sizeof b, "  GPU %d: %s (%s)", d.ordinal, d.name.c_str(), d.pciBusId.c_str());
    s += b;
    if (g < r.hbmReadGBs.size() && r.hbmReadGBs[g] > 0) s += ", HBM read roof " + fixed(r.hbmReadGBs[g], 0) + " GB/s";
    if (g >= 1 && g < r.p2pGBs.size() && r.p2pGBs[g] > 0) s += ", copy to GPU 0 " + fixed(r.p2pGBs[g], 1) + " GB/s";
    s += "\n";
  }
  if (!r.peerAccess.empty()) {
    bool all = true;
    for (size_t a = 0; a < r.peerAccess.size(); ++a)
      for (size_t c = 0; c < r.peerAccess[a].size(); ++c) all = all && (a == c || r.peerAccess[a][c]);
    s += std::string("  peer access: ") + (all ? "every pair" : "not every pair (the hand-written combine needs it)") + "\n";
  }
  s += "  NCCL: " + (r.ncclVersion.empty() ? std::string("not loaded") : r.ncclVersion) +
       (r.ncclLibrary.empty() ? "" : " (" + r.ncclLibrary + ")") + "\n";
  if (!r.ncclAlgoNote.empty()) s += "  " + r.ncclAlgoNote + "\n";
  std::snprintf(b, sizeof b, "  type %s, op %s\n", std::string(name(r.type)).c_str(), std::string(name(r.op)).c_str());
  s += b;
  for (const std::string& n : r.notMeasured) s += "  not measured: " + n + "\n";
  s += "References (published, not measured here):\n";
  for (const ReferenceFigure& f : referenceFigures()) s += "  " + f.what + ": " + f.value + " [" + f.source + "]\n";
  return s;
}

std::vector<ReferenceFigure> referenceFigures() {
  return {
      {"NCCL ring AllReduce busbw, H100 SXM, 2 to 8 GPUs", "365-370 GB/s", "NVIDIA/nccl issue #1455"},
      {"NCCL NVLink SHARP (NVLS) AllReduce busbw, 8 GPUs", "~480 GB/s (switched off here: NCCL_NVLS_ENABLE=0)",
       "NVIDIA/nccl issue #1455"},
  };
}

}  // namespace rl::multi
