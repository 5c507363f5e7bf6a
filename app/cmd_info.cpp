// `reducelab info`: the device, the GL context and whether CUDA-GL interop works in it.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gl_context.hpp"
#include "interop.hpp"
#include "reducelab/cuda_device.hpp"
#include "reducelab/backend.hpp"
#include "reducelab/engine.hpp"
#include "reducelab/family.hpp"
#include "reducelab/launch_plan.hpp"
#include "reducelab/version.hpp"

namespace rl::app {
namespace {

// Every instantiated variant of the catalogue's kernels (CUB decides its own) with the driver's
// registers, static shared memory and local memory: the CPU model's residency table.
int printKernelResources(const DeviceInfo& d) {
  std::unique_ptr<Backend> gpu = makeLocalGpuBackend(d.ordinal);  // through the measurement service
  if (std::string no = gpu->measuresNot(); !no.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", no.c_str());
    return 1;
  }
  nlohmann::json variants = nlohmann::json::object();
  auto record = [&](RunConfig c) {
    if (!validate(c, &gpu->device()).empty()) return;
    std::string e;
    ResourceUsage r;
    gpu->onEngine([&](Engine& engine) { r = engine.resources(c, &e); });
    if (!e.empty() || r.registers <= 0) return;
    variants[resourceKey(c)] = {r.registers, r.staticSmemBytes, r.localBytes};
  };
  for (const KernelInfo& k : catalogue())
    for (const RunConfig& c : familyOf(k).resourceVariants(k)) record(c);
  const nlohmann::json j = {{"arch", "sm_" + std::to_string(d.ccMajor) + std::to_string(d.ccMinor)},
                            {"recorded", "reducelab info --kernel-resources on " + d.name + ", driver " +
                                             cudaVersionString(d.driverVersion) + ", reducelab " + versionString() +
                                             " (commit " + gitCommit() + ")"},
                            {"format", "variant key: [registers per thread, static shared bytes, local bytes per thread]"},
                            {"variants", variants}};
  std::printf("%s\n", j.dump(1).c_str());
  return 0;
}

}  // namespace

int runInfo(const InfoOptions& options) {
  const DeviceInfo d = queryDevice(0);
  if (options.kernelResources) {
    if (!d.available) {
      std::fprintf(stderr, "reducelab: error: --kernel-resources asks the driver: no GPU (%s)\n", d.unavailableReason.c_str());
      return 1;
    }
    return printKernelResources(d);
  }
  // GL: a headless EGL context, whatever the display, so the answer is the same everywhere.
  std::string glError, renderer, version, platform, interop = "not tried";
  bool interopOk = false;
  {
    std::unique_ptr<GlContext> ctx = createHeadlessContext(64, 64, &glError);
    if (ctx) {
      renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
      version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
      platform = ctx->description();
      if (d.available) {
        const int n = 1 << 20;
        GLuint buf = createFloatBuffer(n);
        CudaGlBuffer cgl;
        std::string writer;
        std::string e = fillInteropBuffer(buf, n, true, cgl, &writer);
        cgl.detach();
        int bad = e.empty() ? countPatternMismatches(buf, n) : n;
        glDeleteBuffers(1, &buf);
        interopOk = e.empty() && bad == 0;
        interop = interopOk ? "works (" + std::to_string(n) +
                                  " floats written by a CUDA kernel into a GL buffer, read back "
                                  "with glGetBufferSubData: all correct)"
                  : e.empty() ? "FAILED: " + std::to_string(bad) + " of " + std::to_string(n) +
                                    " values wrong after readback"
                              : "FAILED: " + e;
      } else {
        interop = "not available (no CUDA device); the CPU model fills GL buffers instead";
      }
    } else {
      interop = "not available (no GL context)";
    }
  }

  // The bandwidth peaks: from the cache, or measured now when asked to (or when none is cached).
  Peaks peaks;
  std::string peaksError;
  // The empty-launch floor in each timing mode: what a launch costs before it does any work.
  const TimingMode modes[] = {TimingMode::Blocked, TimingMode::Events, TimingMode::Graph};
  Stats floors[3];
  if (d.available) {
    std::unique_ptr<Backend> gpu = makeLocalGpuBackend(d.ordinal);  // through the measurement service
    peaksError = gpu->onEngine([&](Engine& e) {
      peaks = e.peaks(options.remeasurePeaks);
      for (int i = 0; i < 3; ++i) floors[i] = e.launchFloor(modes[i]);
    });
  } else if (options.remeasurePeaks) {
    peaksError = "no CUDA device: nothing to measure";
  }
  const bool peaksMeasured = peaks.readGBs > 0;
  if (options.remeasurePeaks && !peaksMeasured && peaksError.empty()) peaksError = peaks.source;

  if (options.json) {
    nlohmann::json j;
    if (d.available || options.remeasurePeaks) {
      nlohmann::json pj = {{"source", peaksMeasured ? peaks.source : peaksError.empty() ? peaks.source : peaksError}};
      if (peaksMeasured)
        pj.update({{"read_gbs", peaks.readGBs}, {"read_min_gbs", peaks.readMinGBs}, {"read_max_gbs", peaks.readMaxGBs},
                   {"copy_gbs", peaks.copyGBs}, {"copy_min_gbs", peaks.copyMinGBs}, {"copy_max_gbs", peaks.copyMaxGBs},
                   {"buffer_bytes", peaks.bufferBytes}, {"sm_clock_mhz", peaks.smClockMHz},
                   {"mem_clock_mhz", peaks.memClockMHz}});
      j["peaks"] = pj;
    }
    if (d.available) {
      nlohmann::json fj = nlohmann::json::object();
      for (int i = 0; i < 3; ++i)
        fj[std::string(name(modes[i]))] =
            floors[i].count > 0 ? nlohmann::json{{"median_us", floors[i].median * 1e3}, {"min_us", floors[i].min * 1e3},
                                                 {"max_us", floors[i].max * 1e3}, {"launches", floors[i].count}}
                                : nlohmann::json(nullptr);
      j["launch_floor"] = fj;
    }
    j["cuda_runtime"] = cudaVersionString(d.runtimeVersion);
    j["cuda_driver"] = cudaVersionString(d.driverVersion);
    j["device_available"] = d.available;
    if (d.available) {
      j["device"] = {{"name", d.name},
                     {"uuid", d.uuid},
                     {"compute_capability", d.ccString()},
                     {"sm_count", d.smCount},
                     {"l2_bytes", d.l2Bytes},
                     {"memory_bytes", d.totalMemBytes},
                     {"bus_width_bits", d.busWidthBits},
                     {"memory_clock_khz", d.memClockKHz},
                     {"sm_clock_khz", d.smClockKHz},
                     {"theoretical_peak_gbs", d.theoreticalPeakGBs()}};
    } else {
      j["unavailable_reason"] = d.unavailableReason;
    }
    j["gl"] = {{"renderer", renderer}, {"version", version}, {"platform", platform},
               {"error", glError}};
    j["interop_ok"] = interopOk;
    j["interop"] = interop;
    std::printf("%s\n", j.dump(2).c_str());
    return options.remeasurePeaks && !peaksMeasured ? 1 : 0;
  }

  std::printf("ReduceLab device information\n");
  std::printf("  CUDA runtime        %s (linked statically)\n",
              cudaVersionString(d.runtimeVersion).c_str());
  std::printf("  CUDA driver         %s\n", d.driverVersion > 0
                                                 ? cudaVersionString(d.driverVersion).c_str()
                                                 : "none found");
  if (!d.available) {
    std::printf("  GPU                 none: %s\n", d.unavailableReason.c_str());
    std::printf("                      ReduceLab runs in CPU-model mode: traces come from the CPU "
                "model, measurements need an NVIDIA GPU.\n");
  } else {
    std::printf("  device %d            %s\n", d.ordinal, d.name.c_str());
    std::printf("  compute capability  %s\n", d.ccString().c_str());
    std::printf("  SMs                 %d\n", d.smCount);
    std::printf("  L2 cache            %.1f MiB (%lld bytes)\n", d.l2Bytes / 1048576.0,
                (long long)d.l2Bytes);
    std::printf("  memory              %.1f GiB (%.1f GiB free)\n", d.totalMemBytes / 1073741824.0,
                d.freeMemBytes / 1073741824.0);
    std::printf("  memory bus width    %d bit\n", d.busWidthBits);
    std::printf("  memory clock        %d MHz\n", d.memClockKHz / 1000);
    std::printf("  SM clock (peak)     %d MHz\n", d.smClockKHz / 1000);
    std::printf("  theoretical peak    %.1f GB/s  (2 x %d MHz x %d bit / 8)\n",
                d.theoreticalPeakGBs(), d.memClockKHz / 1000, d.busWidthBits);
    if (peaksMeasured) {
      std::printf("  measured read peak  %.1f GB/s (min %.1f, max %.1f)\n", peaks.readGBs, peaks.readMinGBs,
                  peaks.readMaxGBs);
      std::printf("  measured copy peak  %.1f GB/s (min %.1f, max %.1f)\n", peaks.copyGBs, peaks.copyMinGBs,
                  peaks.copyMaxGBs);
      std::printf("                      %.0f MiB buffer, SM clock %d MHz, memory clock %s, %s\n",
                  peaks.bufferBytes / 1048576.0, peaks.smClockMHz,
                  peaks.memClockMHz > 0 ? (std::to_string(peaks.memClockMHz) + " MHz").c_str() : "unknown",
                  peaks.source.c_str());
    } else {
      std::printf("  measured peaks      %s\n", peaksError.empty() ? peaks.source.c_str() : peaksError.c_str());
    }
    for (int i = 0; i < 3; ++i) {
      const std::string label = "launch floor " + std::string(name(modes[i]));
      if (floors[i].count > 0)
        std::printf("  %-19s %.2f us (median of %d empty launches, min %.2f, max %.2f)\n", label.c_str(),
                    floors[i].median * 1e3, floors[i].count, floors[i].min * 1e3, floors[i].max * 1e3);
      else
        std::printf("  %-19s not measured\n", label.c_str());
    }
  }
  if (!renderer.empty())
    std::printf("  GL renderer         %s, %s\n                      via %s\n", renderer.c_str(),
                version.c_str(), platform.c_str());
  else
    std::printf("  GL renderer         none: %s\n", glError.c_str());
  std::printf("  CUDA-GL interop     %s\n", interop.c_str());
  if (options.remeasurePeaks && !peaksMeasured) {
    std::fprintf(stderr, "reducelab: error: peaks not measured: %s\n", peaksError.c_str());
    return 1;
  }
  return 0;
}

}  // namespace rl::app
