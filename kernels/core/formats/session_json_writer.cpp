// ReduceLab's session JSON: the device, the peaks and every measurement, in nvbench 1.0.0's
// layout (nvbench_layout.hpp) with ReduceLab's own fields beside it (docs/json-schema.md).
#include "reducelab/formats/session_json.hpp"

#include "nvbench_layout.hpp"
#include "reducelab/catalogue.hpp"
#include "reducelab/family.hpp"
#include "reducelab/table.hpp"
#include "reducelab/version.hpp"

namespace rl {

using nvbench::summary;

namespace {

// ReduceLab's own figures: hidden, so nvbench's tables show only nvbench's columns.
nlohmann::json ownSummary(const std::string& tag, const std::string& name, const std::string& hint,
                          const std::string& type, const nlohmann::json& value) {
  return summary(tag, name, hint, type, value, "", true);
}

}  // namespace

nlohmann::json sessionJson(const SessionInfo& s, const std::vector<Measurement>& rows) {
  using nlohmann::json;
  const DeviceInfo& d = s.device;
  json j;
  j["meta"] = {{"argv", s.argv},
               {"version", {{"json", nvbench::version(1, 0, 0)}, {"reducelab", nvbench::version(versionNumbers().major, versionNumbers().minor, versionNumbers().patch)}, {"json_schema", nvbench::kJsonSchema}}},
               {"peaks",
                {{"theoretical_gbs", s.peaks.theoreticalGBs},
                 {"measured_read_gbs", s.peaks.readGBs},
                 {"measured_copy_gbs", s.peaks.copyGBs},
                 {"source", s.peaks.source},
                 // How the measured peaks were taken (buffer >= 8 x L2, spread, clocks).
                 {"buffer_bytes", s.peaks.bufferBytes},
                 {"measured_read_min_gbs", s.peaks.readMinGBs},
                 {"measured_read_max_gbs", s.peaks.readMaxGBs},
                 {"sm_clock_mhz", s.peaks.smClockMHz},
                 {"mem_clock_mhz", s.peaks.memClockMHz}}},
               // Like for like: which time the rows' speedups compare (comparisonBasis).
               {"compared_by", timeBasisLabel(comparisonBasis(rows))},
               {"compared_by_meaning", timeBasisMeaning(comparisonBasis(rows))}};
  json dev = {{"id", d.ordinal},
              {"name", d.available ? d.name : "none (CPU model)"},
              {"sm_version", d.ccMajor * 100 + d.ccMinor * 10},
              {"number_of_sms", d.smCount},
              {"max_threads_per_sm", d.maxThreadsPerSM},
              {"max_threads_per_block", d.maxThreadsPerBlock},
              {"max_blocks_per_sm", d.maxBlocksPerSM},
              {"registers_per_sm", d.regsPerSM},
              {"registers_per_block", d.regsPerBlock},
              {"global_memory_size", d.totalMemBytes},
              {"global_memory_bus_peak_clock_rate", int64_t(d.memClockKHz) * 1000},
              {"global_memory_bus_width", d.busWidthBits},
              {"global_memory_bus_bandwidth", d.theoreticalPeakGBs() * 1e9},
              {"l2_cache_size", d.l2Bytes},
              {"shared_memory_per_sm", d.smemPerSM},
              {"shared_memory_per_block", d.smemPerBlock},
              {"sm_default_clock_rate", int64_t(d.smClockKHz) * 1000},
              {"driver_version", cudaVersionString(d.driverVersion)},
              {"runtime_version", cudaVersionString(d.runtimeVersion)},
              {"uuid", d.uuid}};
  j["devices"] = json::array({dev});
  json bench;
  bench["name"] = s.benchmarkName;
  bench["index"] = 0;
  bench["devices"] = json::array({d.ordinal});
  const std::vector<nvbench::AxisColumn> cols = nvbench::axisColumns(rows);
  json axes = json::array();
  for (const nvbench::AxisColumn& a : cols) axes.push_back(nvbench::axisJson(a));
  // nvbench's tools match states of two files by name, so the name carries every axis that varies.
  auto varies = [&](const std::string& axis) {
    for (const nvbench::AxisColumn& a : cols)
      if (a.name == axis) return a.values.size() > 1;
    return false;
  };
  const bool bandwidthPeakKnown = s.peaks.theoreticalGBs > 0;
  json states = json::array();
  for (const Measurement& m : rows) {
    const RunConfig& c = m.config;
    json st;
    std::string stateName;
    json axisValues = json::array();
    for (const auto& [axis, value] : nvbench::axisPoint(m)) {
      axisValues.push_back({{"name", axis}, {"type", nvbench::axisType(axis)}, {"value", value}});
      if (axis == "Kernel" || axis == "T" || axis == "Op" || axis == "Elements" || axis == "Block" || varies(axis))
        stateName.append(stateName.empty() ? "" : " ").append(axis).append("=").append(value);
    }
    st["name"] = stateName;
    st["device"] = d.ordinal;
    st["axis_values"] = axisValues;
    st["is_skipped"] = !m.ok;
    // What a recording needs to give back the same record (nvbench's readers ignore extra keys).
    json own = {{"label", m.label}, {"reps", c.reps}, {"warmup", c.warmup}, {"range_lo", c.rangeLo},
                {"range_hi", c.rangeHi}, {"traced_block", c.tracedBlock}, {"enqueue_timeouts", m.enqueueTimeouts}};
    if (runsUserSource(c.kernel)) own["kernel_name"] = m.kernelName;  // the student's file: no catalogue to name it
    if (m.haveCpu)
      own["cpu"] = {{"median_ms", m.cpu.ms.median}, {"min_ms", m.cpu.ms.min}, {"max_ms", m.cpu.ms.max},
                    {"mean_ms", m.cpu.ms.mean}, {"stddev_ms", m.cpu.ms.stddev}, {"reps", m.cpu.reps},
                    {"result", m.cpu.result.isInt ? json(m.cpu.result.i) : json(m.cpu.result.f)}};
    if (!m.ok) {
      st["skip_reason"] = m.error;
      st["summaries"] = json::array();
      st["reducelab"] = own;
      states.push_back(st);
      continue;
    }
    // nvbench's "cold" measurement: one synchronised launch per sample; whether L2 was flushed
    // before each is the L2 axis.
    const std::string nv = "nv/cold/";
    json sum = json::array();
    sum.push_back(summary(nv + "sample_size", "Samples", "sample_size", "int64", m.kernel.count,
                          "Number of isolated kernel executions"));
    sum.push_back(summary(nv + "time/gpu/mean", "GPU Time", "duration", "float64", m.kernel.mean * 1e-3,
                          "Mean isolated kernel execution time (measured with CUDA events)"));
    if (m.kernel.mean > 0)
      sum.push_back(summary(nv + "time/gpu/stdev/relative", "Noise", "percentage", "float64",
                            m.kernel.stddev / m.kernel.mean, "Relative standard deviation of isolated GPU times"));
    sum.push_back(summary(nv + "time/gpu/median", "GPU Time (median)", "duration", "float64", m.kernel.median * 1e-3,
                          "Median isolated kernel execution time: ReduceLab's bandwidth uses it"));
    sum.push_back(summary(nv + "time/gpu/stdev/absolute", "Noise (absolute)", "duration", "float64",
                          m.kernel.stddev * 1e-3, "Standard deviation of isolated GPU times", true));
    sum.push_back(summary(nv + "time/gpu/min", "Min GPU Time", "duration", "float64", m.kernel.min * 1e-3,
                          "Fastest isolated kernel execution time", true));
    sum.push_back(summary(nv + "time/gpu/max", "Max GPU Time", "duration", "float64", m.kernel.max * 1e-3,
                          "Slowest isolated kernel execution time", true));
    sum.push_back(summary("nv/gmem/reads/Input", "Input", "bytes", "int64",
                          int64_t(c.n) * int64_t(elemBytes(c.type)), "Bytes read from global memory: N x element size"));
    sum.push_back(summary(nv + "bw/global/bytes_per_second", "GlobalMem BW", "byte_rate", "float64",
                          m.bandwidthGBs * 1e9, "Bytes read per second (N x element size / median GPU time)"));
    if (bandwidthPeakKnown)
      sum.push_back(summary(nv + "bw/global/utilization", "BWUtil", "percentage", "float64", m.pctTheoretical / 100,
                            "Global memory bandwidth as a fraction of the theoretical peak"));
    sum.push_back(ownSummary("reducelab/time/end_to_end/median", "End-to-end time (median)", "duration", "float64", m.endToEnd.median * 1e-3));
    if (m.launchFloorMs > 0)
      sum.push_back(ownSummary("reducelab/time/launch_floor", "Empty-launch floor (same timing)", "duration", "float64",
                               m.launchFloorMs * 1e-3));
    sum.push_back(ownSummary("reducelab/bw/measured_read_fraction", "% of measured read peak", "percentage", "float64", m.pctMeasuredRead / 100));
    // A run writing a whole output reads and writes: its bytes and the measured copy it is held to.
    if (const KernelFamily* f = familyOf(c); f && !f->scalarResult()) {
      sum.push_back(ownSummary("reducelab/matrix/bytes_moved", "Bytes moved (least)", "bytes", "float64", m.bytesRead));
      sum.push_back(ownSummary("reducelab/bw/measured_copy_fraction", "% of measured copy", "percentage", "float64", m.pctCopy / 100));
      if (f->measuresFlops()) {
        sum.push_back(ownSummary("reducelab/flops/gflops", "GFLOP/s", "", "float64", m.gflops));
        sum.push_back(ownSummary("reducelab/flops/peak_gflops", "Peak GFLOP/s", "", "float64", m.peakGflops));
        sum.push_back(ownSummary("reducelab/flops/peak_fraction", "% of peak FLOP/s", "percentage", "float64", m.pctPeakFlops / 100));
      }
    }
    sum.push_back(ownSummary("reducelab/result", "Result", "", m.result.isInt ? "int64" : "float64",
                             m.result.isInt ? json(m.result.i) : json(m.result.f)));
    if (m.haveReference) {
      sum.push_back(ownSummary("reducelab/reference", "Exact reference", "", "string", fixed(double(m.reference.exact), 6)));
      sum.push_back(ownSummary("reducelab/error/absolute", "Absolute error", "", "float64", m.check.absError));
      sum.push_back(ownSummary("reducelab/error/relative", "Relative error", "", "float64", m.check.relError));
      sum.push_back(ownSummary("reducelab/error/tolerance", "Tolerance", "", "float64", m.check.tolerance));
      sum.push_back(ownSummary("reducelab/check", "Check", "", "string", m.check.pass ? "pass" : "fail"));
      sum.push_back(ownSummary("reducelab/overflow", "Integer overflow", "", "int64", m.reference.overflow ? 1 : 0));
    }
    if (m.haveCpu) {
      sum.push_back(ownSummary("reducelab/cpu/time/median", "CPU loop time (median)", "duration", "float64", m.cpu.ms.median * 1e-3));
      sum.push_back(ownSummary("reducelab/speedup/cpu", "Speedup vs CPU", "", "float64", m.speedupVsCpu));
    }
    sum.push_back(ownSummary("reducelab/launch/shared_bytes", "Dynamic shared memory", "bytes", "int64", m.geometry.smemBytes));
    if (m.geometry.loadsInFlight > 0) {
      sum.push_back(ownSummary("reducelab/launch/loads_in_flight", "Loads in flight per thread", "", "int64", m.geometry.loadsInFlight));
      sum.push_back(ownSummary("reducelab/launch/cache_hint", "Cache hint of the loads", "", "string", std::string(name(m.geometry.cacheHint))));
      sum.push_back(ownSummary("reducelab/launch/policy", "Launch policy source", "", "string", m.geometry.policySource));
      sum.push_back(ownSummary("reducelab/launch/programmatic_dependent", "Later passes with programmatic dependent launch", "",
                               "int64", m.geometry.programmaticDependentLaunch ? 1 : 0));
    }
    sum.push_back(ownSummary("reducelab/resources/registers", "Registers per thread", "", "int64", m.resources.registers));
    sum.push_back(ownSummary("reducelab/resources/occupancy", "Theoretical occupancy", "percentage", "float64", m.resources.occupancy));
    sum.push_back(ownSummary("reducelab/resources/active_blocks_per_sm", "Active blocks per SM", "", "int64", m.resources.activeBlocksPerSM));
    sum.push_back(ownSummary("reducelab/resources/limiter", "Limiting resource", "", "string", m.resources.limiter));
    sum.push_back(ownSummary("reducelab/resources/waves", "Waves", "", "float64", m.resources.waves));
    st["summaries"] = sum;
    // Lists have no place in nvbench's summaries (scalars only); its readers ignore extra state keys.
    own["gpu_time_ms"] = m.kernelMs;
    own["end_to_end_ms"] = m.endToEndMs;
    own["distinct_results"] = m.distinctResults;
    own["grid_per_pass"] = m.geometry.passGrids;
    own["step_speedup"] = m.stepSpeedup;
    own["cumulative_speedup"] = m.cumulativeSpeedup;
    st["reducelab"] = own;
    states.push_back(st);
  }
  bench["axes"] = axes;
  bench["states"] = states;
  j["benchmarks"] = json::array({bench});
  return j;
}

}  // namespace rl
