// Reads a session JSON back (both layouts: schema 1, nvbench 2), checked like command-line input.
#include <charconv>
#include <climits>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "nvbench_layout.hpp"
#include "reducelab/catalogue.hpp"
#include "reducelab/family.hpp"
#include "reducelab/formats/session_json.hpp"

namespace rl {

using nvbench::findSummary;

namespace {

// A list ReduceLab keeps: schema 2 has it in the state's "reducelab" object, schema 1 in a summary.
const nlohmann::json* findList(const nlohmann::json& st, const char* key, const char* oldTag) {
  if (st.contains("reducelab") && st["reducelab"].contains(key)) return &st["reducelab"][key];
  return findSummary(st, oldTag);
}

// Whole decimal text of an unsigned number, nothing else ("-5" and "1e3" are refused).
template <class Int>
std::optional<Int> wholeNumber(const std::string& v) {
  Int x{};
  if (v.empty() || v[0] == '-' || v[0] == '+') return std::nullopt;
  auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size()) return std::nullopt;
  return x;
}

// Measured quantities: finite, not negative, and far from overflowing when scaled and written back.
double finiteNonNegative(const nlohmann::json& v, const char* what) {
  if (!v.is_number()) throw std::invalid_argument(std::string(what) + " is not a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0 || x > 1e30)
    throw std::invalid_argument(std::string(what) + " is negative, not finite or implausibly large");
  return x;
}

// An integer field: a JSON integer within [lo, hi] (a float is not converted: that could overflow).
int64_t integerIn(const nlohmann::json& v, int64_t lo, int64_t hi, const char* what) {
  if (!v.is_number_integer()) throw std::invalid_argument(std::string(what) + " is not an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(hi))
    throw std::invalid_argument(std::string(what) + " is out of range");
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) throw std::invalid_argument(std::string(what) + " is out of range");
  return x;
}

std::vector<double> durations(const nlohmann::json& v, const char* what) {
  std::vector<double> out;
  for (const auto& x : v.get<std::vector<double>>()) out.push_back(finiteNonNegative(x, what));
  return out;
}

// An int64 nvbench-style: a JSON integer, or its decimal text (nvbench writes int64 as text).
int64_t int64In(const nlohmann::json& v, int64_t lo, int64_t hi, const char* what) {
  if (v.is_string()) {
    const std::string& t = v.get_ref<const std::string&>();
    int64_t x = 0;
    auto r = std::from_chars(t.data(), t.data() + t.size(), x);
    if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
      throw std::invalid_argument(std::string(what) + " '" + t + "' is not an integer");
    if (x < lo || x > hi) throw std::invalid_argument(std::string(what) + " is out of range");
    return x;
  }
  return integerIn(v, lo, hi, what);
}

// One state of a session file, checked like command-line input; throws with the reason.
Measurement measurementFromState(const nlohmann::json& st) {
  Measurement m;
  auto bad = [](const std::string& axis, const std::string& v, const std::string& why) {
    return std::invalid_argument(axis + " '" + v + "' " + why);
  };
  ParameterValues ownValues;
  for (const auto& a : st.at("axis_values")) {
    const std::string n = a.at("name");
    const auto& value = a.at("value");  // text, or an integer (nvbench's int64 axes)
    if (!value.is_string() && !value.is_number_integer())
      throw std::invalid_argument("axis " + n + " has a value that is neither text nor an integer");
    const std::string v = value.is_string() ? value.get<std::string>() : value.dump();
    if (n == "Kernel") m.config.kernel = v;
    else if (n == "T") {
      if (auto t = parseElemType(v)) m.config.type = *t; else throw bad(n, v, "is not a type");
    } else if (n == "Op") {
      if (auto o = parseOp(v)) m.config.op = *o; else throw bad(n, v, "is not an operation");
    } else if (n == "Elements") {
      const auto c = wholeNumber<uint64_t>(v);
      if (!c) throw bad(n, v, "is not a count");
      if (*c < 1 || *c > (uint64_t(1) << 40)) throw bad(n, v, "is outside 1..2^40");
      m.config.n = *c;
    } else if (n == "Block") {
      if (auto b = wholeNumber<int>(v)) m.config.block = *b; else throw bad(n, v, "is not a block size");
    } else if (n == "Final") {
      if (auto f = parseFinalStage(v)) m.config.final = *f; else throw bad(n, v, "is not a final stage");
    } else if (n == "Data") {
      if (auto d = parseDataPattern(v)) m.config.data = *d; else throw bad(n, v, "is not a data pattern");
    } else if (n == "Seed") {
      if (auto x = wholeNumber<uint64_t>(v)) m.config.seed = *x; else throw bad(n, v, "is not a seed");
    } else if (n == "L2") {
      if (v != "warm" && v != "cold") throw bad(n, v, "is not warm or cold");
      m.config.warmL2 = v == "warm";
    } else if (const FamilyParameter* p = anyParameterByAxis(n)) {  // a family's own: once the kernel is known
      const auto x = wholeNumber<uint64_t>(v);
      if (!x || *x < p->min || *x > p->max)
        throw bad(n, v, "is not " + p->what + " (" + std::to_string(p->min) + ".." + std::to_string(p->max) + ")");
      ownValues[p->key] = *x;
    } else if (n == "Timing") {  // absent in files written before the timing modes: blocked
      if (auto t = parseTimingMode(v)) m.config.timing = *t; else throw bad(n, v, "is not a timing mode");
    } else if (n == "PDL") {  // absent in files written before the switch: on
      if (auto p = parseOnOff(v)) m.config.pdl = *p; else throw bad(n, v, "is not on or off");
    } else if (n == "Accumulator") {
      const auto acc = parseElemType(v);
      if (!acc) throw bad(n, v, "is not a type");
      m.config.accumulate = *acc == m.config.type ? Accumulate::Same : Accumulate::Wide;
    }
  }
  // Set as the record gives them: its Elements and Block axes are the run's own (not normalized).
  for (const auto& [key, value] : ownValues)
    if (const FamilyParameter* p = ownParameter(m.config, key)) p->set(m.config, value);
  const auto skipped = st.find("is_skipped");
  if (skipped != st.end() && !skipped->is_boolean()) throw std::invalid_argument("is_skipped is not true or false");
  m.ok = !(skipped != st.end() && skipped->get<bool>());
  const auto reason = st.find("skip_reason");
  if (reason != st.end()) {
    if (!reason->is_string()) throw std::invalid_argument("skip_reason is not text");
    m.error = reason->get<std::string>();
  }
  // ReduceLab's own fields (recordings; absent in older files): the label, the rest of the
  // configuration, the CPU baseline.
  if (const auto own = st.find("reducelab"); own != st.end()) {
    if (!own->is_object()) throw std::invalid_argument("the reducelab object is not an object");
    if (const auto v = own->find("label"); v != own->end()) {
      if (!v->is_string() || v->get_ref<const std::string&>().size() > 256)
        throw std::invalid_argument("the label is not text of at most 256 characters");
      m.label = v->get<std::string>();
      if (m.label.rfind("lesson:", 0) == 0 && !wholeNumber<uint32_t>(m.label.substr(7)))
        throw bad("label", m.label, "does not name a lesson row");
    }
    if (const auto v = own->find("kernel_name"); v != own->end()) {
      if (!v->is_string() || v->get_ref<const std::string&>().size() > 256)
        throw std::invalid_argument("the kernel name is not text of at most 256 characters");
      m.kernelName = v->get<std::string>();
    }
    if (const auto v = own->find("reps"); v != own->end()) m.config.reps = int(integerIn(*v, 1, 1000000, "reps"));
    if (const auto v = own->find("warmup"); v != own->end()) m.config.warmup = int(integerIn(*v, 0, 1000000, "warm-up"));
    if (const auto v = own->find("range_lo"); v != own->end()) m.config.rangeLo = integerIn(*v, INT64_MIN, INT64_MAX, "range_lo");
    if (const auto v = own->find("range_hi"); v != own->end()) m.config.rangeHi = integerIn(*v, INT64_MIN, INT64_MAX, "range_hi");
    if (m.config.rangeLo > m.config.rangeHi) throw std::invalid_argument("range_lo is above range_hi");
    if (const auto v = own->find("traced_block"); v != own->end())
      m.config.tracedBlock = uint64_t(integerIn(*v, 0, int64_t(1) << 40, "traced_block"));
    if (const auto v = own->find("enqueue_timeouts"); v != own->end())
      m.enqueueTimeouts = int(integerIn(*v, 0, 1000000, "enqueue_timeouts"));
    if (const auto v = own->find("step_speedup"); v != own->end()) m.stepSpeedup = finiteNonNegative(*v, "the step speedup");
    if (const auto v = own->find("cumulative_speedup"); v != own->end())
      m.cumulativeSpeedup = finiteNonNegative(*v, "the cumulative speedup");
    if (const auto cpu = own->find("cpu"); cpu != own->end()) {
      if (!cpu->is_object()) throw std::invalid_argument("the CPU baseline is not an object");
      m.haveCpu = true;
      m.cpu.ms.median = finiteNonNegative(cpu->at("median_ms"), "a CPU time");
      m.cpu.ms.min = finiteNonNegative(cpu->at("min_ms"), "a CPU time");
      m.cpu.ms.max = finiteNonNegative(cpu->at("max_ms"), "a CPU time");
      m.cpu.ms.mean = finiteNonNegative(cpu->at("mean_ms"), "a CPU time");
      m.cpu.ms.stddev = finiteNonNegative(cpu->at("stddev_ms"), "a CPU time");
      m.cpu.reps = int(integerIn(cpu->at("reps"), 0, 1000000000, "the CPU repetitions"));
      m.cpu.ms.count = m.cpu.reps;
      const auto& r = cpu->at("result");
      if (r.is_number_integer()) {
        m.cpu.result.isInt = true;
        m.cpu.result.i = integerIn(r, INT64_MIN, INT64_MAX, "the CPU result");
      } else if (r.is_number_float() && std::isfinite(r.get<double>())) {
        m.cpu.result.f = r.get<double>();
      } else {
        throw std::invalid_argument("the CPU result is not a finite number");
      }
    }
  }
  // A measured record must be a configuration that can run; a skipped one records why it could not
  // (k5 at 32 threads, say), but still names a known kernel and a block size a GPU can have.
  // (The student's own kernel, in no catalogue, is known by its family: findAnyKernel, validateRow.)
  if (m.ok) {
    if (std::string e = validateRow(m.config, nullptr); !e.empty()) throw std::invalid_argument(e);
  } else if (!findAnyKernel(m.config.kernel) || m.config.block < 1 || m.config.block > 1024) {
    throw std::invalid_argument("a skipped record names kernel '" + m.config.kernel + "' with block " +
                                std::to_string(m.config.block));
  }
  if (m.ok) {
    auto doubles = [](const nlohmann::json& v, const char* what) {
      if (!v.is_array()) throw std::invalid_argument(std::string(what) + " is not a list");
      return durations(v, what);
    };
    if (auto* v = findList(st, "gpu_time_ms", "reducelab/samples/gpu_time")) m.kernelMs = doubles(*v, "a GPU time");
    if (auto* v = findList(st, "end_to_end_ms", "reducelab/samples/end_to_end_time")) m.endToEndMs = doubles(*v, "an end-to-end time");
    if (auto* v = findList(st, "distinct_results", "reducelab/distinct_results")) {
      if (!v->is_array()) throw std::invalid_argument("the distinct results are not a list");
      for (const auto& r : *v) {
        if (!r.is_string()) throw std::invalid_argument("a distinct result is not text");
        m.distinctResults.push_back(r.get<std::string>());
      }
    }
    if (auto* v = findList(st, "grid_per_pass", "reducelab/launch/grid")) {
      if (!v->is_array()) throw std::invalid_argument("the grid is not a list");
      for (const auto& g : *v) m.geometry.passGrids.push_back(uint64_t(int64In(g, 0, INT64_MAX, "a grid size")));
    }
    m.kernel = Stats::of(m.kernelMs);
    m.endToEnd = Stats::of(m.endToEndMs);
    if (auto* v = findSummary(st, "/bw/global/bytes_per_second")) m.bandwidthGBs = finiteNonNegative(*v, "the bandwidth") / 1e9;
    if (auto* v = findSummary(st, "/bw/global/utilization")) m.pctTheoretical = finiteNonNegative(*v, "the utilization") * 100;
    else if (auto* v1 = findSummary(st, "/bw/global/peak_fraction")) m.pctTheoretical = finiteNonNegative(*v1, "the peak fraction") * 100;
    if (auto* v = findSummary(st, "reducelab/result")) {
      if (!v->is_number() && !v->is_string()) throw std::invalid_argument("the result is not a number");
      m.result.isInt = v->is_number_integer() || v->is_string();
      if (m.result.isInt) m.result.i = int64In(*v, INT64_MIN, INT64_MAX, "the result");
      else m.result.f = v->get<double>();
    }
    if (auto* v = findSummary(st, "reducelab/resources/registers")) m.resources.registers = int(int64In(*v, 0, 65536, "registers"));
    if (auto* v = findSummary(st, "reducelab/resources/occupancy")) m.resources.occupancy = finiteNonNegative(*v, "the occupancy");
    if (auto* v = findSummary(st, "reducelab/resources/limiter")) {
      if (!v->is_string()) throw std::invalid_argument("the limiter is not text");
      m.resources.limiter = v->get<std::string>();
    }
    if (auto* v = findSummary(st, "reducelab/resources/active_blocks_per_sm")) m.resources.activeBlocksPerSM = int(int64In(*v, 0, 65536, "active blocks"));
    if (auto* v = findSummary(st, "reducelab/resources/waves")) m.resources.waves = finiteNonNegative(*v, "the waves");
    if (auto* v = findSummary(st, "reducelab/launch/shared_bytes")) m.geometry.smemBytes = size_t(int64In(*v, 0, INT64_MAX, "shared memory"));
    if (auto* v = findSummary(st, "reducelab/speedup/cpu"); v && m.haveCpu) m.speedupVsCpu = finiteNonNegative(*v, "the CPU speedup");
    if (auto* v = findSummary(st, "reducelab/launch/loads_in_flight")) m.geometry.loadsInFlight = int(int64In(*v, 1, 64, "loads in flight"));
    if (auto* v = findSummary(st, "reducelab/launch/cache_hint")) {
      const auto h = v->is_string() ? parseCacheHint(v->get<std::string>()) : std::nullopt;
      if (!h) throw std::invalid_argument("the cache hint is not one of none, L1::no_allocate, L2::evict_first, L2::256B");
      m.geometry.cacheHint = *h;
    }
    if (auto* v = findSummary(st, "reducelab/launch/policy")) {
      if (!v->is_string()) throw std::invalid_argument("the launch policy source is not text");
      m.geometry.policySource = v->get<std::string>();
    }
    if (auto* v = findSummary(st, "reducelab/launch/programmatic_dependent")) m.geometry.programmaticDependentLaunch = int64In(*v, 0, 1, "the PDL flag") == 1;
    if (auto* v = findSummary(st, "reducelab/time/launch_floor")) m.launchFloorMs = finiteNonNegative(*v, "the launch floor") * 1e3;
    if (auto* v = findSummary(st, "reducelab/bw/measured_read_fraction")) m.pctMeasuredRead = finiteNonNegative(*v, "the read fraction") * 100;
    if (auto* v = findSummary(st, "reducelab/check")) {
      if (!v->is_string()) throw std::invalid_argument("the check is not text");
      const std::string check = v->get<std::string>();
      if (check != "pass" && check != "fail") throw bad("check", check, "is not pass or fail");
      m.haveReference = true;
      m.check.pass = check == "pass";
    }
    if (auto* v = findSummary(st, "reducelab/error/absolute"); v && !v->is_null()) m.check.absError = finiteNonNegative(*v, "the absolute error");
    if (auto* v = findSummary(st, "reducelab/error/relative"); v && !v->is_null()) m.check.relError = finiteNonNegative(*v, "the relative error");
    if (auto* v = findSummary(st, "reducelab/error/tolerance"); v && !v->is_null()) m.check.tolerance = finiteNonNegative(*v, "the tolerance");
    m.bytesRead = bytesMoved(m.config);
    // Derived as the engine derives it (a session file does not store it).
    m.endToEndGBs = m.endToEnd.median > 0 ? m.bytesRead / (m.endToEnd.median * 1e-3) / 1e9 : 0;
    if (auto* v = findSummary(st, "reducelab/bw/measured_copy_fraction")) m.pctCopy = finiteNonNegative(*v, "the copy fraction") * 100;
    if (auto* v = findSummary(st, "reducelab/flops/gflops")) m.gflops = finiteNonNegative(*v, "the GFLOP/s");
    if (auto* v = findSummary(st, "reducelab/flops/peak_gflops")) m.peakGflops = finiteNonNegative(*v, "the peak GFLOP/s");
    if (auto* v = findSummary(st, "reducelab/flops/peak_fraction")) m.pctPeakFlops = finiteNonNegative(*v, "the peak fraction") * 100;
    m.geometry.final = m.config.final;
    // A grid that follows from the family's parameters alone (the 2-D launch of a matrix): planned again.
    if (const KernelInfo* k = findKernel(m.config.kernel); k && !familyOf(*k).gridFromResidency()) {
      const Geometry g = planGeometry(*k, m.config, 1);
      m.geometry.gridX = g.gridX, m.geometry.gridY = g.gridY, m.geometry.blockX = g.blockX, m.geometry.blockY = g.blockY;
      m.geometry.tile = g.tile;
      m.geometry.block = g.block;
    }
  }
  return m;
}


}  // namespace

std::vector<Measurement> measurementsFromJson(const nlohmann::json& j, std::string* error) {
  std::vector<Measurement> out;
  size_t index = 0;
  try {
    // A later layout may move or rename what this reader looks for: refuse it rather than misread it.
    if (j.contains("meta") && j["meta"].contains("version") && j["meta"]["version"].contains("json_schema") &&
        j["meta"]["version"]["json_schema"].get<int>() > nvbench::kJsonSchema) {
      if (error)
        *error = "written by a newer ReduceLab (JSON schema " + j["meta"]["version"]["json_schema"].dump() +
                 "; this one reads up to " + std::to_string(nvbench::kJsonSchema) + ")";
      return {};
    }
    for (const auto& st : j.at("benchmarks").at(0).at("states")) {
      out.push_back(measurementFromState(st));
      ++index;
    }
  } catch (const nlohmann::json::exception& e) {
    if (error) *error = "not a ReduceLab session file (record " + std::to_string(index + 1) + "): " + e.what();
    return {};
  } catch (const std::exception& e) {
    if (error) *error = "record " + std::to_string(index + 1) + " is impossible: " + e.what();
    return {};
  }
  return out;
}

// Both read what a file offers and ignore the rest: a field of the wrong type counts as absent.
DeviceInfo deviceFromJson(const nlohmann::json& j) {
  DeviceInfo d;
  if (!j.is_object()) return d;
  const auto devs = j.find("devices");
  if (devs == j.end() || !devs->is_array() || devs->empty() || !(*devs)[0].is_object()) return d;
  const auto& x = (*devs)[0];
  // An integer field within [0, hi], else 0 (a float is never converted: that could overflow).
  auto integer = [&](const char* key, int64_t hi) -> int64_t {
    const auto it = x.find(key);
    if (it == x.end() || !it->is_number_integer()) return 0;
    if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(hi)) return 0;
    const int64_t v = it->get<int64_t>();
    return v < 0 || v > hi ? 0 : v;
  };
  try {
    d.name = x.value("name", "");
    d.available = d.name.rfind("none", 0) != 0 && !d.name.empty();
    d.smCount = int(integer("number_of_sms", 1 << 20));
    d.l2Bytes = integer("l2_cache_size", int64_t(1) << 50);
    d.totalMemBytes = integer("global_memory_size", int64_t(1) << 50);
    d.busWidthBits = int(integer("global_memory_bus_width", 1 << 20));
    d.memClockKHz = int(integer("global_memory_bus_peak_clock_rate", int64_t(1) << 40) / 1000);
    const int sm = int(integer("sm_version", 10000));
    d.ccMajor = sm / 100;
    d.ccMinor = (sm % 100) / 10;
    d.uuid = x.value("uuid", "");
    d.smClockKHz = int(integer("sm_default_clock_rate", int64_t(1) << 40) / 1000);
    d.maxThreadsPerSM = int(integer("max_threads_per_sm", 1 << 20));
    d.maxThreadsPerBlock = int(integer("max_threads_per_block", 1 << 20));
    d.maxBlocksPerSM = int(integer("max_blocks_per_sm", 1 << 20));
    d.regsPerSM = int(integer("registers_per_sm", 1 << 24));
    d.regsPerBlock = int(integer("registers_per_block", 1 << 24));
    d.smemPerSM = integer("shared_memory_per_sm", int64_t(1) << 40);
    d.smemPerBlock = integer("shared_memory_per_block", int64_t(1) << 40);
    d.driverVersion = cudaVersionFromString(x.value("driver_version", ""));
    d.runtimeVersion = cudaVersionFromString(x.value("runtime_version", ""));
  } catch (const nlohmann::json::exception&) {
    return DeviceInfo{};
  }
  return d;
}

Peaks peaksFromJson(const nlohmann::json& j) {
  Peaks p;
  if (!j.is_object() || !j.contains("meta") || !j["meta"].is_object() || !j["meta"].contains("peaks") ||
      !j["meta"]["peaks"].is_object())
    return p;
  const auto& x = j["meta"]["peaks"];
  try {
    p.theoreticalGBs = x.value("theoretical_gbs", 0.0);
    p.readGBs = x.value("measured_read_gbs", 0.0);
    p.copyGBs = x.value("measured_copy_gbs", 0.0);
    p.source = x.value("source", std::string("from the session file"));
  } catch (const nlohmann::json::exception&) {
    return Peaks{};
  }
  for (double* v : {&p.theoreticalGBs, &p.readGBs, &p.copyGBs})
    if (!std::isfinite(*v) || *v < 0) *v = 0;
  return p;
}

}  // namespace rl
