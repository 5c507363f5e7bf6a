#pragma once
// RL_HD: functions compiled for both the host (CPU reference, CPU model) and the device (kernels).
#if defined(__CUDACC__)
#define RL_HD __host__ __device__
#else
#define RL_HD
#endif
