#pragma once
// `reducelab serve --stdio`: the GPU side of a remote session (docs/remote.md). Requests come on
// stdin, records go out on stdout; ssh (or any pipe) carries them. All GPU work goes through the
// MeasurementService, as in the GUI.
#include <string>

#include "reducelab/device_info.hpp"
#include "reducelab/measurement_service.hpp"

namespace rl::app {

struct ServeOptions {
  bool stdio = false;
};
int runServe(const ServeOptions& options);

// Serves one client on inFd / outFd until it says bye, closes its end, or the pipe breaks.
// `device`: what the hello announces (the engine's device). Without an engine (no GPU) traces
// come from the CPU model, as `reducelab trace` gives them there. Returns the exit code.
int serveRemote(int inFd, int outFd, MeasurementService::EngineFactory makeEngine, const DeviceInfo& device);

}  // namespace rl::app
