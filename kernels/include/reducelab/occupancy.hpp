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

// Registers per thread assumed where no device reports them (CPU model, reports without GPU).
constexpr int kAssumedRegisters = 32;

// The launch geometry on a device known only by its properties (CPU model): the one launch plan
// (launch_plan.hpp) with the calculator's answers.
struct Geometry;
struct RunConfig;
struct ResourceUsage;
Geometry assumedGeometry(const RunConfig& c, const DeviceInfo& d);

// What the device reports for one compiled kernel (cudaFuncGetAttributes, and the driver's
// cudaOccupancyMaxActiveBlocksPerMultiprocessor when asked).
struct KernelAttributes {
  int registers = 0;
  int staticSmemBytes = 0;
  int localBytes = 0;
  int maxThreadsPerBlock = 0;
  int driverActiveBlocks = -1;  // -1: not asked
};

// THE computation of resources and occupancy (GUI Occupancy tab, CLI tables, report): the
// calculator over the kernel's registers and static shared memory (from `measured`, or
// kAssumedRegisters and none when null) plus the dynamic shared memory of its plan.
ResourceUsage resourceUsage(const RunConfig& c, const DeviceInfo& d, const KernelAttributes* measured);

// The inputs of the occupancy-against-block-size curve for a kernel with these resources:
// registers, the shared memory that does not scale with the block, and the bytes per thread
// that do (the dynamic shared memory of the kernels is one accumulator per thread).
struct OccupancyCurveInputs {
  int registers = kAssumedRegisters;
  int sharedFixedBytes = 0;
  int sharedPerThreadBytes = 0;
};
OccupancyCurveInputs occupancyCurveInputs(const ResourceUsage& r, int block);

}  // namespace rl
