#include "reducelab/occupancy.hpp"

#include "reducelab/config.hpp"
#include "reducelab/launch_plan.hpp"
#include "reducelab/record.hpp"

#include <algorithm>
#include <climits>

namespace rl {

OccupancyResult computeOccupancy(const DeviceInfo& d, const OccupancyInput& in) {
  OccupancyResult r;
  const int warpSize = d.warpSize > 0 ? d.warpSize : 32;
  const int warpsPerBlock = (in.blockSize + warpSize - 1) / warpSize;
  r.maxWarps = d.maxThreadsPerSM / warpSize;
  r.blocksByThreads = warpsPerBlock > 0 ? r.maxWarps / warpsPerBlock : 0;
  r.blocksByBlockLimit = d.maxBlocksPerSM;
  // Registers are allocated per warp in units of 256, from the register file of the warp's
  // sub-partition (4 per SM since Maxwell: 16K of an H100's 64K each), so a warp that does not
  // fit what is left of one quarter cannot use another's: 40 registers a thread give 4 x 12 = 48
  // warps, not 51 (the driver's answer for k10 at block 64, seen on an H100).
  constexpr int kSubPartitions = 4;
  const int regsPerWarp = ((std::max(in.registersPerThread, 1) * warpSize + 255) / 256) * 256;
  const int warpsByRegs = kSubPartitions * ((d.regsPerSM / kSubPartitions) / regsPerWarp);
  r.blocksByRegisters = in.registersPerThread > 255 ? 0 : warpsByRegs / warpsPerBlock;
  // Shared memory: allocated in units of 128 bytes, plus what the driver reserves per block.
  const int64_t smem = ((int64_t(in.sharedBytesPerBlock) + 127) / 128) * 128 + d.reservedSmemPerBlock;
  r.blocksBySharedMemory =
      in.sharedBytesPerBlock > d.smemPerBlockOptin && d.smemPerBlockOptin > 0
          ? 0
          : (smem > 0 ? int(std::min<int64_t>(d.smemPerSM / smem, INT_MAX)) : INT_MAX);
  r.activeBlocks = std::min({r.blocksByThreads, r.blocksByBlockLimit, r.blocksByRegisters,
                             r.blocksBySharedMemory});
  r.activeWarps = r.activeBlocks * warpsPerBlock;
  r.occupancy = r.maxWarps > 0 ? double(r.activeWarps) / r.maxWarps : 0;
  auto add = [&](int v, const char* name) {
    if (v == r.activeBlocks) r.limiter += (r.limiter.empty() ? "" : " + ") + std::string(name);
  };
  add(r.blocksByThreads, "threads");
  add(r.blocksByBlockLimit, "blocks per SM");
  add(r.blocksByRegisters, "registers");
  add(r.blocksBySharedMemory, "shared memory");
  return r;
}

DeviceInfo assumedH200() {
  DeviceInfo d;
  d.available = false;
  d.name = "NVIDIA H200 (assumed)";
  d.ccMajor = 9;
  d.ccMinor = 0;
  d.smCount = 132;
  d.l2Bytes = 60 << 20;
  d.totalMemBytes = int64_t(141) << 30;
  d.busWidthBits = 6016;
  d.memClockKHz = 3201000;
  d.warpSize = 32;
  d.maxThreadsPerBlock = 1024;
  d.maxThreadsPerSM = 2048;
  d.maxBlocksPerSM = 32;
  d.regsPerSM = 65536;
  d.regsPerBlock = 65536;
  d.smemPerSM = 233472;
  d.smemPerBlock = 49152;
  d.smemPerBlockOptin = 232448;
  d.reservedSmemPerBlock = 1024;
  return d;
}

Geometry assumedGeometry(const RunConfig& c, const DeviceInfo& d) { return modelGeometry(c, d); }

ResourceUsage resourceUsage(const RunConfig& c, const DeviceInfo& d, const KernelAttributes* measured) {
  ResourceUsage r;
  const KernelInfo* k = findKernel(c.kernel);
  if (!k) return r;
  if (k->id == KernelId::Cub) {
    r.limiter = "library (CUB chooses its own launch)";
    return r;
  }
  const Geometry probe = planGeometry(*k, c, 1);  // shared memory does not depend on the grid
  // Without the driver: the registers recorded for this device's architecture, else assumed.
  const std::optional<RecordedResources> recorded =
      measured ? std::nullopt : recordedResources(c, d.ccMajor, d.ccMinor);
  r.registersAssumed = !measured && !recorded;
  r.registersRecorded = !measured && recorded;
  r.registers = measured ? measured->registers : recorded ? recorded->registers : kAssumedRegisters;
  r.staticSmemBytes = measured ? measured->staticSmemBytes : recorded ? recorded->staticSmemBytes : 0;
  r.dynamicSmemBytes = int(probe.smemBytes);
  r.localBytes = measured ? measured->localBytes : recorded ? recorded->localBytes : 0;
  r.maxThreadsPerBlock = measured ? measured->maxThreadsPerBlock : d.maxThreadsPerBlock;
  const OccupancyResult calc =
      computeOccupancy(d, {c.block, r.registers, r.staticSmemBytes + r.dynamicSmemBytes});
  // The driver's answer wins where it was asked for (it knows the per-kernel carve-out).
  r.activeBlocksPerSM = measured && measured->driverActiveBlocks >= 0 ? measured->driverActiveBlocks : calc.activeBlocks;
  r.occupancy = d.maxThreadsPerSM > 0 ? double(r.activeBlocksPerSM) * c.block / d.maxThreadsPerSM : 0;
  r.limiter = calc.limiter;
  const Geometry g = planGeometry(*k, c, uint64_t(std::max(r.activeBlocksPerSM, 1)) * uint64_t(d.smCount));
  r.waves = r.activeBlocksPerSM > 0 && d.smCount > 0 ? double(g.grid()) / (double(r.activeBlocksPerSM) * d.smCount) : 0;
  return r;
}

OccupancyCurveInputs occupancyCurveInputs(const ResourceUsage& r, int block) {
  OccupancyCurveInputs in;
  in.registers = std::max(1, r.registers);
  in.sharedFixedBytes = r.staticSmemBytes;
  in.sharedPerThreadBytes = block > 0 ? r.dynamicSmemBytes / block : 0;
  return in;
}

}  // namespace rl
