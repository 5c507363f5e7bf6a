#pragma once
// What ReduceLab knows about the CUDA device (or why there is none). Plain C++: the GUI reads it.
#include <cstdint>
#include <string>

namespace rl {

struct DeviceInfo {
  bool available = false;          // a usable CUDA device was found
  std::string unavailableReason;   // plain sentence when !available
  // !available because a driver or device answered but failed (initialisation error, driver
  // older than the runtime, device unavailable): a broken GPU setup, unlike a machine that has no
  // driver or no device, where the CPU model is the expected answer.
  bool broken = false;
  int ordinal = 0;
  std::string name;
  std::string uuid;
  std::string pciBusId;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int64_t l2Bytes = 0;
  int64_t totalMemBytes = 0;
  int64_t freeMemBytes = 0;
  int busWidthBits = 0;
  int memClockKHz = 0;             // peak memory clock (cudaDevAttrMemoryClockRate)
  int smClockKHz = 0;              // peak SM clock (cudaDevAttrClockRate)
  int driverVersion = 0;           // e.g. 13000
  int runtimeVersion = 0;
  int warpSize = 32;
  int maxThreadsPerBlock = 0;
  int maxThreadsPerSM = 0;
  int maxBlocksPerSM = 0;
  int regsPerSM = 0;
  int regsPerBlock = 0;
  int64_t smemPerSM = 0;
  int64_t smemPerBlock = 0;        // default static + dynamic limit (48 KiB)
  int64_t smemPerBlockOptin = 0;   // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int64_t reservedSmemPerBlock = 0;

  // 2 (DDR) x memory clock x bus width / 8, in GB/s (1e9 bytes/s).
  double theoreticalPeakGBs() const {
    return 2.0 * memClockKHz * 1e3 * (busWidthBits / 8.0) / 1e9;
  }
  std::string ccString() const { return std::to_string(ccMajor) + "." + std::to_string(ccMinor); }
};

// "13.0" from 13000.
std::string cudaVersionString(int v);
// 13000 from "13.0"; 0 for "none" or anything else that is not MAJOR.MINOR.
int cudaVersionFromString(const std::string& s);

}  // namespace rl
