#include "reducelab/record.hpp"

#include <algorithm>

#include "reducelab/family.hpp"

namespace rl {

FinalWork finalWorkOf(const RunConfig& c) {
  FinalWork w{resolvedFinal(c), 1};
  if (w.stage != FinalStage::Cpu) return w;
  if (const KernelInfo* k = findKernel(c.kernel))
    for (const FamilyParameter& p : familyOf(*k).parameters())
      if (p.role == ParameterRole::Count) w.gpuPasses = std::max<uint64_t>(p.used(*k, c), 1);
  return w;
}

FinalWork finalWorkOf(const Geometry& g) {
  return {g.final, std::max<uint64_t>(g.passGrids.size(), 1)};
}

TimeBasis basisOfFinals(FinalWork a, FinalWork b) {
  // Only a CPU final stage lies outside the kernel time: GPU, atomic and last-block finals are
  // launches or instructions of the kernels, inside it, so rows mixing those compare by kernel time.
  const bool cpu = a.stage == FinalStage::Cpu || b.stage == FinalStage::Cpu;
  const bool same = a.stage == b.stage && (a.stage != FinalStage::Cpu || a.gpuPasses == b.gpuPasses);
  return cpu && !same ? TimeBasis::EndToEnd : TimeBasis::Kernel;
}

bool hasTimeBasis(const Measurement& m) {
  const KernelFamily* f = familyOf(m.config);
  return m.ok && (!f || f->scalarResult());  // a transpose or a product has no final stage
}

TimeBasis comparisonBasisAfter(TimeBasis basis, const Measurement* firstOk, const Measurement& added) {
  if (basis == TimeBasis::EndToEnd || !hasTimeBasis(added) || !firstOk) return basis;
  return basisOfFinals(finalWorkOf(firstOk->geometry), finalWorkOf(added.geometry));
}

TimeBasis comparisonBasis(const std::vector<Measurement>& rows) {
  TimeBasis b = TimeBasis::Kernel;
  const Measurement* first = nullptr;
  for (const Measurement& m : rows) {
    b = comparisonBasisAfter(b, first, m);
    if (!first && hasTimeBasis(m)) first = &m;
  }
  return b;
}

const char* timeBasisLabel(TimeBasis b) { return b == TimeBasis::EndToEnd ? "e2e" : "kernel"; }

const char* timeBasisName(TimeBasis b) { return b == TimeBasis::EndToEnd ? "end to end" : "kernel"; }

const char* timeBasisMeaning(TimeBasis b) {
  return b == TimeBasis::EndToEnd
             ? "compared by end-to-end time (launches + copy of partials + CPU final): some rows end on the CPU, "
               "others on the GPU"
             : "compared by kernel time (all launches of the reduction): no row's final stage lies outside it";
}

std::string bandwidthLabel(TimeBasis b) { return std::string("GB/s (") + timeBasisName(b) + ")"; }

const Stats& comparedTime(const Measurement& m, TimeBasis b) {
  return b == TimeBasis::EndToEnd && m.endToEnd.count > 0 ? m.endToEnd : m.kernel;
}

double comparedGBs(const Measurement& m, TimeBasis b) {
  return b == TimeBasis::EndToEnd && m.endToEnd.count > 0 ? m.endToEndGBs : m.bandwidthGBs;
}

bool mixedTimingModes(const std::vector<Measurement>& rows) {
  const Measurement* first = nullptr;
  for (const Measurement& m : rows) {
    if (!m.ok) continue;
    if (!first) first = &m;
    else if (m.config.timing != first->config.timing) return true;
  }
  return false;
}

std::string timingModesNote(const std::vector<Measurement>& rows) {
  if (!mixedTimingModes(rows)) return {};
  std::string modes;
  bool seen[3] = {};
  for (const Measurement& m : rows)
    if (m.ok && !seen[int(m.config.timing)]) {
      seen[int(m.config.timing)] = true;
      modes += (modes.empty() ? "" : ", ") + std::string(name(m.config.timing));
    }
  return "The rows were timed in different modes (" + modes +
         "): their times are not like for like, so no speedups are given.";
}

void fillLadderSpeedups(std::vector<Measurement>& rows) {
  if (mixedTimingModes(rows)) {
    for (Measurement& m : rows) m.stepSpeedup = m.cumulativeSpeedup = 0;
    return;
  }
  const TimeBasis basis = comparisonBasis(rows);
  const Measurement* first = nullptr;
  const Measurement* prev = nullptr;
  for (Measurement& m : rows) {
    if (!m.ok) continue;
    if (!first) first = &m;
    const double t = comparedTime(m, basis).median;
    m.stepSpeedup = prev && t > 0 ? comparedTime(*prev, basis).median / t : 1.0;
    m.cumulativeSpeedup = t > 0 ? comparedTime(*first, basis).median / t : 1.0;
    prev = &m;
  }
}

}  // namespace rl
