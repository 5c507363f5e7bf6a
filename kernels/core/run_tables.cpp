#include "reducelab/run_tables.hpp"

#include "reducelab/catalogue.hpp"
#include "reducelab/family.hpp"

namespace rl {

BenchColumns benchColumns(TimeBasis basis) {
  const std::string by = std::string(" (") + timeBasisName(basis) + ")";
  BenchColumns c;
  c.headers = {"kernel", "name", "final", "grid", "kernel ms", "min ms", "max ms", "e2e ms", "GB/s" + by,
               "% theor." + by, "% meas." + by, "step x" + by, "cum. x" + by, "vs CPU", "result", "abs err",
               "rel err", "check", "occ. %", "regs"};
  c.numeric = {false, false, false, true, true, true, true, true, true, true, true,
               true,  true,  true,  true, true, true, false, true, true};
  return c;
}

std::vector<std::string> benchRow(const Measurement& m, const Peaks& peaks, TimeBasis basis) {
  const size_t columns = benchColumns(basis).headers.size();
  const KernelInfo* k = findKernel(m.config.kernel);
  std::vector<std::string> r;
  r.push_back(m.config.kernel);
  r.push_back(k ? std::string(k->name) : m.kernelName);
  if (!m.ok) {
    r.push_back("-");
    while (r.size() < columns - 3) r.push_back("");
    r.push_back("not run: " + m.error);
    r.push_back("");
    r.push_back("");
    return r;
  }
  const double gbs = comparedGBs(m, basis);
  // A CPU final after more than one launch says how many (its grid column is the first pass's).
  const FinalWork work = finalWorkOf(m.geometry);
  r.push_back(std::string(name(m.geometry.final)) +
              (work.stage == FinalStage::Cpu && work.gpuPasses > 1 ? " after " + std::to_string(work.gpuPasses) + " passes" : ""));
  r.push_back(m.config.kernel == "cub" ? "-" : std::to_string(m.geometry.grid()));
  r.push_back(fixed(m.kernel.median, 4));
  r.push_back(fixed(m.kernel.min, 4));
  r.push_back(fixed(m.kernel.max, 4));
  r.push_back(m.endToEnd.count ? fixed(m.endToEnd.median, 4) : "-");
  r.push_back(fixed(gbs, 1));
  r.push_back(peaks.theoreticalGBs > 0 ? fixed(100.0 * gbs / peaks.theoreticalGBs, 1) : "-");
  r.push_back(peaks.readGBs > 0 ? fixed(100.0 * gbs / peaks.readGBs, 1) : "-");
  r.push_back(m.stepSpeedup > 0 ? fixed(m.stepSpeedup, 2) : "-");
  r.push_back(m.cumulativeSpeedup > 0 ? fixed(m.cumulativeSpeedup, 2) : "-");
  r.push_back(m.haveCpu ? fixed(m.speedupVsCpu, 1) : "-");
  std::string res = m.result.text();
  if (m.distinctResults.size() > 1)
    res += " (" + std::to_string(m.distinctResults.size()) + " different over the runs)";
  r.push_back(res);
  r.push_back(m.haveReference ? sci(m.check.absError) : "-");
  r.push_back(m.haveReference ? sci(m.check.relError) : "-");
  r.push_back(!m.haveReference ? "-" : (m.check.pass ? "PASS" : "FAIL") +
                                           (m.reference.overflow ? std::string(" (overflow)") : ""));
  r.push_back(m.config.kernel == "cub" ? "-" : fixed(100.0 * m.resources.occupancy, 0));
  r.push_back(m.config.kernel == "cub" ? "-" : std::to_string(m.resources.registers));
  return r;
}

Table matrixTable(const std::vector<Measurement>& rows) {
  Table t;
  t.headers = {"kernel", "name", "type", "size", "tile", "threads", "grid", "time ms", "min ms", "max ms", "e2e ms",
               "vs CPU", "GB/s", "% copy", "GFLOP/s", "% peak FLOP", "check", "max error", "occupancy %", "regs"};
  t.numeric = {false, false, false, false, true, false, false, true, true, true, true,
               true,  true,  true,  true,  true,  false, true,  true,  true};
  for (const Measurement& m : rows) {
    const RunConfig& c = m.config;
    const KernelInfo* k = findKernel(c.kernel);
    const KernelFamily* f = k ? &familyOf(*k) : nullptr;
    const bool flops = f && f->measuresFlops();
    std::string tile = "-";
    if (f)
      for (const FamilyParameter& p : f->parameters())
        if (p.role == ParameterRole::Tile) tile = std::to_string(p.used(*k, c));
    std::vector<std::string> r = {c.kernel, k ? std::string(k->name) : m.kernelName, std::string(name(c.type)),
                                  f ? f->extent(*k, c) : "-", tile};
    if (!m.ok) {
      r.push_back("not run: " + m.error);
      while (r.size() < t.headers.size()) r.push_back("");
      t.rows.push_back(r);
      continue;
    }
    r.push_back(std::to_string(m.geometry.blockX) + " x " + std::to_string(m.geometry.blockY));
    r.push_back(std::to_string(m.geometry.gridX) + " x " + std::to_string(m.geometry.gridY));
    r.push_back(fixed(m.kernel.median, 4));
    r.push_back(fixed(m.kernel.min, 4));
    r.push_back(fixed(m.kernel.max, 4));
    // The inputs sent, the kernel, the output read back (seed 003's Tabla 13), and the CPU loop over it.
    r.push_back(m.endToEnd.median > 0 ? fixed(m.endToEnd.median, 4) : "-");
    r.push_back(m.haveCpu && m.speedupVsCpu > 0 ? "x" + fixed(m.speedupVsCpu, 1) : "-");
    r.push_back(fixed(m.bandwidthGBs, 1));
    r.push_back(m.pctCopy > 0 ? fixed(m.pctCopy, 1) : "-");
    r.push_back(flops ? fixed(m.gflops, 1) : "-");
    r.push_back(flops && m.pctPeakFlops > 0 ? fixed(m.pctPeakFlops, 1) : "-");
    r.push_back(!m.haveReference ? "-" : m.check.pass ? "PASS" : "FAIL");
    r.push_back(m.haveReference ? sci(m.check.absError) : "-");
    r.push_back(fixed(100.0 * m.resources.occupancy, 0));
    r.push_back(std::to_string(m.resources.registers));
    t.rows.push_back(r);
  }
  return t;
}

bool isMatrixRun(const Measurement& m) {
  const KernelFamily* f = familyOf(m.config);
  return f && !f->scalarResult();  // a whole output written: its own columns
}

RunTables runTables(const std::vector<Measurement>& rows, const Peaks& peaks) {
  std::vector<Measurement> reductions, matrix;
  for (const Measurement& m : rows) (isMatrixRun(m) ? matrix : reductions).push_back(m);
  fillLadderSpeedups(reductions);
  return {benchTable(reductions, peaks), matrixTable(matrix)};
}

Table benchTable(const std::vector<Measurement>& rows, const Peaks& peaks) {
  const TimeBasis basis = comparisonBasis(rows);
  Table t;
  BenchColumns c = benchColumns(basis);
  t.headers = std::move(c.headers);
  t.numeric = std::move(c.numeric);
  t.caption = std::string("Rows ") + timeBasisMeaning(basis) + ".";
  if (std::string note = timingModesNote(rows); !note.empty()) t.caption += " " + note;
  for (const Measurement& m : rows) t.rows.push_back(benchRow(m, peaks, basis));
  return t;
}

Table sweepTable(const std::vector<Measurement>& rows, const Peaks& peaks) {
  // Like for like (comparisonBasis): end-to-end times where the rows' final stages differ.
  const TimeBasis basis = comparisonBasis(rows);
  const std::string by = std::string(" (") + timeBasisName(basis) + ")";
  Table t;
  t.caption = std::string("Rows ") + timeBasisMeaning(basis) + ".";
  if (std::string note = timingModesNote(rows); !note.empty()) t.caption += " " + note;
  t.headers = {"kernel", "type", "N", "block", "time ms" + by, "min ms" + by, "max ms" + by, "GB/s" + by,
               "% theor." + by, "% meas." + by, "occ. %", "regs", "check"};
  t.numeric = {false, false, true, true, true, true, true, true, true, true, true, true, false};
  for (const Measurement& m : rows) {
    const RunConfig& c = m.config;
    std::vector<std::string> r = {c.kernel, std::string(name(c.type)), formatCount(c.n), std::to_string(c.block)};
    t.setValue(t.rows.size(), 2, std::to_string(c.n));
    if (!m.ok) {
      r.insert(r.end(), {"-", "-", "-", "-", "-", "-", "-", "-", "not run: " + m.error});
    } else {
      const Stats& time = comparedTime(m, basis);
      const double gbs = comparedGBs(m, basis);
      r.push_back(fixed(time.median, 4));
      r.push_back(fixed(time.min, 4));
      r.push_back(fixed(time.max, 4));
      r.push_back(fixed(gbs, 1));
      r.push_back(peaks.theoreticalGBs > 0 ? fixed(100.0 * gbs / peaks.theoreticalGBs, 1) : "-");
      r.push_back(peaks.readGBs > 0 ? fixed(100.0 * gbs / peaks.readGBs, 1) : "-");
      r.push_back(c.kernel == "cub" ? "-" : fixed(100.0 * m.resources.occupancy, 0));
      r.push_back(c.kernel == "cub" ? "-" : std::to_string(m.resources.registers));
      r.push_back(!m.haveReference ? "-" : (m.check.pass ? "PASS" : "FAIL"));
    }
    t.rows.push_back(r);
  }
  return t;
}

}  // namespace rl
