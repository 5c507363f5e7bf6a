#pragma once
// The smoke-test pattern written into a GL buffer by CUDA (GPU) or by the CPU (CPU model):
// a ramp 0..1 with a marker run of 24 values every 512, so a misplaced write shows in the strip.
#include <cstddef>

#include "reducelab/host_device.hpp"

namespace rl {

RL_HD inline float interopPattern(size_t i, size_t count) {
  float ramp = count > 1 ? float(i) / float(count - 1) : 0.0f;
  return (i % 512 < 24) ? -1.0f : ramp;  // -1: marker, drawn white by strip.frag
}

}  // namespace rl
