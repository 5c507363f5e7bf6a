// The lane records of a trace buffer (kernels/include/reducelab/trace_format.hpp), bound with
// glBindBufferRange at trace::kLanesOffset. A LaneRecord is 8 words: flags, addr[4],
// iterations, value (a double, not read here). Trace format 3 (the matrix families) changed the
// headers only (global regions, 2-D shape); the lane records these functions read are as in 2.
#ifdef RL_LANES_TEXTURE
// WebGL 2 has no shader storage buffers: the same words, row after row of an R32UI texture
// kLaneTextureWidth (gui/src/trace_common.cpp) wide, on texture unit 0.
uniform highp usampler2D uLanes;
uint laneWord(int i) { return texelFetch(uLanes, ivec2(i % 2048, i / 2048), 0).r; }
#else
layout(std430, binding = 0) readonly buffer TraceLanes { uint laneWords[]; };
uint laneWord(int i) { return laneWords[i]; }
#endif
uniform int uBlock;  // threads per block

uint laneFlags(int step, int thread) { return laneWord((step * uBlock + thread) * 8); }
int laneAddr(int step, int thread, int slot) { return int(laneWord((step * uBlock + thread) * 8 + 1 + slot)); }
bool laneActive(int step, int thread) { return (laneFlags(step, thread) & 1u) != 0u; }
bool laneHasSlot(int step, int thread, int slot) { return (laneFlags(step, thread) & (2u << slot)) != 0u; }
