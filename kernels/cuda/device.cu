// Device discovery and the CUDA-GL interop smoke kernel.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "reducelab/cuda_device.hpp"
#include "reducelab/interop_pattern.hpp"

namespace rl {
namespace {

std::string explain(cudaError_t e, int driverVersion) {
  switch (e) {
    case cudaErrorInsufficientDriver:
      if (driverVersion > 0)
        return "the NVIDIA driver supports CUDA " + std::to_string(driverVersion / 1000) + "." +
               std::to_string(driverVersion % 1000 / 10) + ", older than this CUDA runtime needs";
      return "no NVIDIA driver is loaded";
    case cudaErrorNoDevice:
      return "the NVIDIA driver reports no CUDA-capable device";
    default:
      return std::string("CUDA error: ") + cudaGetErrorString(e);
  }
}

// No driver installed (libcuda absent: the runtime reports driver version 0) and no device are
// the normal state of a machine without a GPU; any other failure means a GPU setup that exists
// and does not work (a driver older than the runtime included).
bool deviceQueryBroken(cudaError_t e, int driverVersion) {
  if (e == cudaErrorNoDevice) return false;
  if (e == cudaErrorInsufficientDriver && driverVersion == 0) return false;
  return true;
}

int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  cudaDeviceGetAttribute(&v, a, dev);
  return v;
}

__global__ void interopPatternKernel(float* out, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = interopPattern(i, count);
}

}  // namespace

// REDUCELAB_HIDE_GPU=1: ReduceLab takes the path of a machine without a GPU (the CPU suite runs
// so on GPU machines), leaving the GPU to the GL driver. CUDA_VISIBLE_DEVICES= would hide it from
// NVIDIA's EGL too: the headless frames then rendered black, 30 s each.
static bool gpuHidden() {
  const char* h = std::getenv("REDUCELAB_HIDE_GPU");
  return h && std::string(h) == "1";
}
static constexpr const char* kHiddenReason = "hidden by REDUCELAB_HIDE_GPU=1";

DeviceInfo queryDevice(int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  if (gpuHidden()) {
    d.unavailableReason = kHiddenReason;
    return d;
  }
  cudaRuntimeGetVersion(&d.runtimeVersion);
  cudaDriverGetVersion(&d.driverVersion);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    d.unavailableReason = explain(e, d.driverVersion);
    d.broken = deviceQueryBroken(e, d.driverVersion);
    return d;
  }
  if (ordinal < 0 || ordinal >= count) {
    d.unavailableReason = "CUDA device " + std::to_string(ordinal) + " does not exist (" +
                          std::to_string(count) + " found)";
    return d;
  }
  cudaDeviceProp p{};
  if ((e = cudaGetDeviceProperties(&p, ordinal)) != cudaSuccess) {
    d.unavailableReason = explain(e, d.driverVersion);
    d.broken = true;  // the device was counted but does not answer
    return d;
  }
  d.available = true;
  d.name = p.name;
  char uuid[64];
  const unsigned char* u = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
  std::snprintf(uuid, sizeof uuid,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                u[14], u[15]);
  d.uuid = uuid;
  char bus[32];
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal) == cudaSuccess) d.pciBusId = bus;
  d.ccMajor = p.major;
  d.ccMinor = p.minor;
  d.smCount = p.multiProcessorCount;
  d.l2Bytes = p.l2CacheSize;
  d.totalMemBytes = int64_t(p.totalGlobalMem);
  d.busWidthBits = attr(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  // CUDA 13 removed cudaDeviceProp::memoryClockRate / clockRate; the attributes remain.
  d.memClockKHz = attr(cudaDevAttrMemoryClockRate, ordinal);
  d.smClockKHz = attr(cudaDevAttrClockRate, ordinal);
  d.warpSize = p.warpSize;
  d.maxThreadsPerBlock = p.maxThreadsPerBlock;
  d.maxThreadsPerSM = p.maxThreadsPerMultiProcessor;
  d.maxBlocksPerSM = attr(cudaDevAttrMaxBlocksPerMultiprocessor, ordinal);
  d.regsPerSM = p.regsPerMultiprocessor;
  d.regsPerBlock = p.regsPerBlock;
  d.smemPerSM = int64_t(p.sharedMemPerMultiprocessor);
  d.smemPerBlock = int64_t(p.sharedMemPerBlock);
  d.smemPerBlockOptin = int64_t(p.sharedMemPerBlockOptin);
  d.reservedSmemPerBlock = attr(cudaDevAttrReservedSharedMemoryPerBlock, ordinal);
  size_t freeB = 0, totalB = 0;
  if (cudaSetDevice(ordinal) == cudaSuccess && cudaMemGetInfo(&freeB, &totalB) == cudaSuccess)
    d.freeMemBytes = int64_t(freeB);
  return d;
}

DeviceCount countDevices() {
  DeviceCount c;
  if (gpuHidden()) {
    c.reason = kHiddenReason;
    return c;
  }
  int driver = 0;
  cudaDriverGetVersion(&driver);
  const cudaError_t e = cudaGetDeviceCount(&c.count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    c.count = 0;
    c.reason = explain(e, driver);
    c.broken = deviceQueryBroken(e, driver);
  }
  return c;
}

std::string launchInteropPattern(float* devPtr, size_t count) {
  if (count == 0) return {};
  unsigned blocks = unsigned((count + 255) / 256 < 65535 ? (count + 255) / 256 : 65535);
  interopPatternKernel<<<blocks, 256>>>(devPtr, count);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
}

}  // namespace rl
