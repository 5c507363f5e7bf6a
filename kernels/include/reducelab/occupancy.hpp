#pragma once
// Theoretical occupancy as the CUDA occupancy calculator computes it, with the limiting
// resource named. Used for the limiter column and for the occupancy explorer's what-if.
#include <string>

#include "reducelab/device_info.hpp"

namespace rl {

struct OccupancyInput {
  int blockSize = 256;
  int registersPerThread = 32;
  int sharedBytesPerBlock = 0;  // static + dynamic
};

struct OccupancyResult {
  int blocksByThreads = 0, blocksByBlockLimit = 0, blocksByRegisters = 0, blocksBySharedMemory = 0;
  int activeBlocks = 0;
  int activeWarps = 0, maxWarps = 0;
  double occupancy = 0;  // activeWarps / maxWarps
  std::string limiter;   // the resource(s) giving activeBlocks, e.g. "threads" or "registers"
};

OccupancyResult computeOccupancy(const DeviceInfo& d, const OccupancyInput& in);

// The H200 as ReduceLab assumes it where no GPU is present (CPU model, what-if plots).
DeviceInfo assumedH200();

// The launch geometry on a device known only by its properties (CPU model): occupancy from
// the calculator with `registers` per thread, then planGeometry.
struct Geometry;
struct RunConfig;
Geometry assumedGeometry(const RunConfig& c, const DeviceInfo& d, int registers = 32);

}  // namespace rl
