#pragma once
// The figures ReduceLab draws, built from measurement records. Each comes with the run
// configuration of every point, so a click on a point can select that configuration.
#include <optional>
#include <string>
#include <vector>

#include "reducelab/device_info.hpp"
#include "reducelab/gui/plot.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/record.hpp"

namespace rl::gui {

struct Figure {
  PlotSpec spec;
  std::vector<std::vector<RunConfig>> configs;  // [series][point]
  std::string fileStem;                         // "ladder", "sweep-n", ... for exports
};

// What tells runs apart, in reading order: kernel, type, op, shape (N and block), final stage, L2,
// timing mode ("" where a part does not apply or is the default). configKey joins them:
// "k7 float32 sum N=2^24 b512 final cpu cold L2" (what a live-plot series stands for).
std::vector<std::string> configParts(const RunConfig& c);
std::string configKey(const RunConfig& c);

// GB/s of every measured run, in order, one series per configuration; peaks and CUB as lines. On
// `basis`, the whole session's (ResultsStore::basis): the same as the headline and results table.
Figure liveBandwidthFigure(const std::vector<Measurement>& runs, const Peaks& peaks, TimeBasis basis);
// The Live tab's headline: the latest ok run's bandwidth on `basis`, with its basis named.
struct Headline {
  std::string value;   // "3082 GB/s"
  std::string config;  // configKey
  std::string detail;  // "kernel time: 64.0% of theoretical, 0.0218 ms median"
};
std::optional<Headline> liveHeadline(const std::vector<Measurement>& runs, const Peaks& peaks, TimeBasis basis);
// The ladder: bandwidth per kernel as bars, step and cumulative speedups above them.
Figure ladderFigure(const std::vector<Measurement>& rows, const Peaks& peaks);
// Bandwidth against block size per kernel, theoretical occupancy on the right axis.
Figure blockSweepFigure(const std::vector<Measurement>& rows, const Peaks& peaks);
// The matrix families against the tile or the matrix side (axis "tile" or "size"): GB/s for the
// transpose (with the measured copy as a line), GFLOP/s when every row is a matmul.
Figure matrixSweepFigure(const std::string& axis, const std::vector<Measurement>& rows, const Peaks& peaks);
// Bandwidth against N (log2) per kernel; the L2-resident region and the launch-latency
// regime shaded.
Figure nSweepFigure(const std::vector<Measurement>& rows, const Peaks& peaks, const DeviceInfo& d);
// Bandwidth per element type (bars) and elements per second (right axis).
Figure typeSweepFigure(const std::vector<Measurement>& rows, const Peaks& peaks);
// Theoretical occupancy against block size for a kernel using `registers` per thread and
// `sharedFixed` + `sharedPerThread` x block bytes of shared memory; limiter as point labels.
Figure occupancyFigure(const DeviceInfo& d, const std::string& kernel, int registers, int sharedFixed,
                       int sharedPerThread);

// Which figure a set of sweep rows belongs to.
Figure figureForSweep(const std::string& axis, const std::vector<Measurement>& rows, const Peaks& peaks,
                      const DeviceInfo& d);

}  // namespace rl::gui
