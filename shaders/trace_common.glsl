// The lane records of a trace buffer (kernels/include/reducelab/trace_format.hpp), bound with
// glBindBufferRange at trace::kLanesOffset. A LaneRecord is 8 words: flags, addr[4],
// iterations, value (a double, not read here). Trace format 3 (the matrix families) changed the
// headers only (global regions, 2-D shape); the lane records these functions read are as in 2.
layout(std430, binding = 0) readonly buffer TraceLanes { uint laneWords[]; };
uniform int uBlock;  // threads per block

uint laneFlags(int step, int thread) { return laneWords[(step * uBlock + thread) * 8]; }
int laneAddr(int step, int thread, int slot) { return int(laneWords[(step * uBlock + thread) * 8 + 1 + slot]); }
bool laneActive(int step, int thread) { return (laneFlags(step, thread) & 1u) != 0u; }
bool laneHasSlot(int step, int thread, int slot) { return (laneFlags(step, thread) & (2u << slot)) != 0u; }
