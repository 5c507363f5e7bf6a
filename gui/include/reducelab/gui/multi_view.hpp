#pragma once
// The multi-GPU panel: the ring / tree algorithm animated from the CPU model (collective.hpp),
// timed by a measured `reducelab multi --format json` run where one is loaded, and the chart of
// algbw / busbw by size against the peer-copy bandwidth and the HBM roof.
#include <string>

#include "reducelab/collective.hpp"
#include "reducelab/gui/model.hpp"
#include "reducelab/gui/plots.hpp"
#include "reducelab/multi.hpp"

namespace rl::gui {

struct MultiPanelState {
  int gpus = 4;                 // animated GPUs (the measured count once a run is loaded)
  int algorithm = 0;            // 0 ring, 1 tree
  int collective = 0;           // 0 allreduce, 1 reduce
  int sizeLog2 = 30;            // animated buffer: 2^sizeLog2 bytes per GPU
  int step = 0;                 // 0: before the first step; k: after step k
  bool playing = false;
  float progress = 0.5f;        // 0..1 through the current step's transfers
  float secondsPerStep = 1.2f;  // animation speed (wall clock)
  char loadPath[512] = "";
  std::string loadError;
  bool haveMeasured = false;
  multi::Report measured;
};

MultiPanelState& multiPanelState(Model& model);  // the window's panel state (made on first use)

// Loads a saved `reducelab multi --format json` file into the panel. "" or a one-line error.
std::string loadMultiResults(MultiPanelState& s, const std::string& path);

// busbw and algbw of the vector AllReduce by size, one series per algorithm, with the measured
// peer-copy bandwidth, the HBM read roof and the published NCCL figure as reference lines.
Figure multiFigure(const multi::Report& r);

// The measured time of (algorithm, collective, bytes) in the loaded run, or 0.
double measuredSeconds(const multi::Report& r, collective::Algorithm a, collective::Collective c, uint64_t bytes,
                       int gpus);

// One frame of the animation as a standalone SVG (white background, for slides): the state after
// `done` steps with step `done` in flight half way (done == steps: the end state).
std::string scheduleSvg(const collective::Schedule& s, int done);

void drawMultiGpuPanel(Model& model, UiActions& actions);

}  // namespace rl::gui
