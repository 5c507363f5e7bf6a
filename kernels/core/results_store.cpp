#include "reducelab/results_store.hpp"

#include "reducelab/family.hpp"

#include <random>

#include "reducelab/catalogue.hpp"
#include "reducelab/occupancy.hpp"

namespace rl {

std::vector<Measurement> syntheticResults(size_t n, uint64_t seed) {
  std::vector<Measurement> out;
  out.reserve(n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(0.9, 1.1);
  const DeviceInfo d = assumedH200();
  std::vector<KernelInfo> kernels;  // the ladder's: the synthetic records are N-sized runs
  for (const KernelInfo& k : catalogue())
    if (familyOf(k).formsLadder()) kernels.push_back(k);
  for (size_t i = 0; i < n; ++i) {
    Measurement m;
    m.config.kernel = std::string(kernels[i % kernels.size()].key);
    m.config.n = uint64_t(1) << (16 + i % 12);
    m.config.block = 256;
    m.label = "synthetic (--dev-fill-results)";
    m.kernelName = std::string(kernels[i % kernels.size()].name);
    m.geometry = assumedGeometry(m.config, d);
    m.resources = resourceUsage(m.config, d, nullptr);
    m.bytesRead = double(m.config.n) * 4;
    const double ms = m.bytesRead / 3e12 * 1e3 * jitter(rng) + 0.004;
    for (int r = 0; r < 5; ++r) {
      m.kernelMs.push_back(ms * jitter(rng));
      m.endToEndMs.push_back(ms * 1.2 * jitter(rng) + 0.01);
    }
    m.kernel = Stats::of(m.kernelMs);
    m.endToEnd = Stats::of(m.endToEndMs);
    m.bandwidthGBs = m.bytesRead / (m.kernel.median * 1e-3) / 1e9;
    m.endToEndGBs = m.bytesRead / (m.endToEnd.median * 1e-3) / 1e9;
    m.pctTheoretical = 100.0 * m.bandwidthGBs / d.theoreticalPeakGBs();
    m.result.isInt = false;
    m.result.f = double(m.config.n) * 0.5;
    m.ok = true;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace rl
