// Seed 002's pitfalls run for real: the practicum's kernels as it wrote them (floyd_reduccion,
// kernel_calcularMaximo) beside their fixes, with the consequence read back from the device.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "pitfalls_gpu.hpp"

namespace rl {
namespace {

// ---- the seed's kernels (seed 002, 2.2.1 and 3.1.1), names and lines as written there ----

// int data reduced in a float shared array; partials written as long int.
__global__ void floyd_reduccion(const int* M, long int* suma, const int nverts2) {
  extern __shared__ float sdata[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = ((i < nverts2) ? M[i] : 0.0f);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) suma[blockIdx.x] = sdata[0];
}

// The fix: the shared array holds what it sums.
__global__ void floyd_reduccion_fixed(const int* M, long int* suma, const int nverts2) {
  extern __shared__ long long sdataLong[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdataLong[tid] = ((i < nverts2) ? M[i] : 0);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdataLong[tid] += sdataLong[tid + s];
    __syncthreads();
  }
  if (tid == 0) suma[blockIdx.x] = sdataLong[0];
}

// Two elements per thread, the second read as V_in[i] (the seed) or V_in[i_seg] (the fix).
template <bool kFixed>
__global__ void kernel_calcularMaximo(const float* V_in, float* V_out, const int N) {
  extern __shared__ float sdata[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int i_seg = gridDim.x * blockDim.x + i;
  float segundo_valor;
  sdata[tid] = ((i < N) ? V_in[i] : -1000000000.0f);
  if constexpr (kFixed) segundo_valor = ((i_seg < N) ? V_in[i_seg] : -1000000000.0f);
  else segundo_valor = ((i_seg < N) ? V_in[i] : -1000000000.0f);
  sdata[tid] = max(sdata[tid], segundo_valor);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = max(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) V_out[blockIdx.x] = sdata[0];
}

// Seed 000's float sum (each thread 8 elements, the block a tree in shared memory), and the same
// with Kahan's compensation: each thread keeps what its additions rounded away, the tree adds the
// (sum, compensation) pairs with TwoSum. kahanPass in pitfalls.cpp is this kernel on the CPU,
// operation for operation.
template <bool kCompensated>
__global__ void floatSumPass(const float* in, float* out, unsigned long long n) {
  __shared__ float hi[kKahanBlock], lo[kKahanBlock];
  const unsigned int tid = threadIdx.x;
  const unsigned long long first = (unsigned long long)blockIdx.x * kKahanBlock * 8 + tid;
  float sum = 0, c = 0;
  for (unsigned int k = 0; k < 8; ++k) {
    const unsigned long long i = first + (unsigned long long)k * kKahanBlock;
    if (i < n) {
      if (kCompensated) {
        const float y = in[i] - c;
        const float t = sum + y;
        c = (t - sum) - y;
        sum = t;
      } else {
        sum += in[i];
      }
    }
  }
  hi[tid] = sum;
  lo[tid] = kCompensated ? -c : 0.0f;
  __syncthreads();
  for (unsigned int stride = kKahanBlock / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      if (kCompensated) {
        const float a = hi[tid], b = hi[tid + stride];
        const float t = a + b;
        const float z = t - a;
        const float err = (a - (t - z)) + (b - z);
        hi[tid] = t;
        lo[tid] = lo[tid] + lo[tid + stride] + err;
      } else {
        hi[tid] = hi[tid] + hi[tid + stride];
      }
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = kCompensated ? hi[0] + lo[0] : hi[0];
}

// ---- host side ----

class Buffer {  // device memory freed on every path out
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  ~Buffer() {
    if (p_) cudaFree(p_);
  }
  cudaError_t alloc(size_t bytes) {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    cudaError_t e = cudaMalloc(&p_, bytes);
    if (e != cudaSuccess) p_ = nullptr, cudaGetLastError();
    return e;
  }
  template <class T>
  T* as() const { return static_cast<T*>(p_); }

 private:
  void* p_ = nullptr;
};

struct Failure {
  std::string what;
};
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Failure{std::string(what) + ": " + cudaGetErrorString(e)};
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Context {
  const PitfallRequest& r;
  cudaStream_t stream;
  const std::function<bool()>& cancel;
  uint64_t blocksFor(uint64_t n) const { return (n + uint64_t(r.block) - 1) / uint64_t(r.block); }
  void cancelled() const {
    if (cancel && cancel()) throw Failure{"cancelled"};
  }
};

// Host to device on the engine's stream, finished before it returns: a plain cudaMemcpy from
// pageable memory goes through the legacy stream, which a non-blocking stream does not wait for.
void upload(const Context& c, void* dst, const void* src, size_t bytes, const char* what) {
  check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c.stream), what);
  check(cudaStreamSynchronize(c.stream), what);
}

std::vector<int32_t> hostInts(uint64_t seed, uint64_t n, int64_t valueMax) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (uint64_t i = 0; i < n; ++i) v[i] = pitfallInt(seed, i, valueMax);
  return v;
}

// The seed's reduction (or its fix) of `n` ints at `in` into `suma`; the host's loop after.
void launchSum(const Context& c, bool fixedKernel, const int* in, long int* suma, uint64_t n) {
  const unsigned blocks = unsigned(c.blocksFor(n));
  if (fixedKernel)
    floyd_reduccion_fixed<<<blocks, c.r.block, c.r.block * sizeof(long long), c.stream>>>(in, suma, int(n));
  else
    floyd_reduccion<<<blocks, c.r.block, c.r.block * sizeof(float), c.stream>>>(in, suma, int(n));
}
int64_t hostSumOf(const Context& c, const long int* suma, uint64_t blocks) {
  std::vector<long int> h(static_cast<size_t>(blocks));
  check(cudaMemcpyAsync(h.data(), suma, blocks * sizeof(long int), cudaMemcpyDeviceToHost, c.stream), "copying the partials");
  check(cudaStreamSynchronize(c.stream), "the reduction");
  int64_t s = 0;
  for (long int v : h) s += v;
  return s;
}

void gpuClock(const Context& c, const std::vector<uint64_t>& sizes, PitfallResult& out) {
  const uint64_t nMax = *std::max_element(sizes.begin(), sizes.end());
  Buffer in, suma;
  check(in.alloc(nMax * sizeof(int)), "allocating the matrix");
  check(suma.alloc(c.blocksFor(nMax) * sizeof(long int)), "allocating the partials");
  const std::vector<int32_t> host = hostInts(c.r.seed, nMax, 999);
  upload(c, in.as<int>(), host.data(), nMax * sizeof(int), "copying the matrix");
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  check(cudaEventCreate(&e0), "creating an event");
  struct EventGuard {
    cudaEvent_t& a;
    cudaEvent_t& b;
    ~EventGuard() {
      if (a) cudaEventDestroy(a);
      if (b) cudaEventDestroy(b);
    }
  } guard{e0, e1};
  check(cudaEventCreate(&e1), "creating an event");
  constexpr int kReps = 9;
  for (uint64_t n : sizes) {
    c.cancelled();
    ClockRow row;
    row.n = n;
    // Warm-up: the first launch also loads the module; the seed's single launch paid that too.
    launchSum(c, false, in.as<int>(), suma.as<long int>(), n);
    check(cudaStreamSynchronize(c.stream), "the warm-up launch");
    std::vector<double> clockLaunch, wallLaunch, clockSync, wallSync, events;
    for (int rep = 0; rep < kReps; ++rep) {
      // The seed: clock() read right after the launch returns.
      std::clock_t t0 = std::clock();
      auto w0 = std::chrono::steady_clock::now();
      launchSum(c, false, in.as<int>(), suma.as<long int>(), n);
      std::clock_t t1 = std::clock();
      wallLaunch.push_back(msSince(w0));
      clockLaunch.push_back(double(t1 - t0) * 1e3 / CLOCKS_PER_SEC);
      check(cudaGetLastError(), "launching floyd_reduccion");
      check(cudaStreamSynchronize(c.stream), "floyd_reduccion");
      // clock() with the wait the seed left out.
      t0 = std::clock();
      w0 = std::chrono::steady_clock::now();
      launchSum(c, false, in.as<int>(), suma.as<long int>(), n);
      check(cudaStreamSynchronize(c.stream), "floyd_reduccion");
      t1 = std::clock();
      wallSync.push_back(msSince(w0));
      clockSync.push_back(double(t1 - t0) * 1e3 / CLOCKS_PER_SEC);
      // The fix: events on the stream around the kernel.
      check(cudaEventRecord(e0, c.stream), "recording an event");
      launchSum(c, false, in.as<int>(), suma.as<long int>(), n);
      check(cudaEventRecord(e1, c.stream), "recording an event");
      check(cudaEventSynchronize(e1), "floyd_reduccion");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, e0, e1), "reading the events");
      events.push_back(ms);
    }
    row.clockLaunchMs = median(clockLaunch);
    row.wallLaunchMs = median(wallLaunch);
    row.clockSyncMs = median(clockSync);
    row.wallSyncMs = median(wallSync);
    row.eventMs = median(events);
    out.clock.push_back(row);
  }
}

void gpuFloatSum(const Context& c, const std::vector<uint64_t>& sizes, PitfallResult& out) {
  const uint64_t nMax = *std::max_element(sizes.begin(), sizes.end());
  Buffer in, suma;
  check(in.alloc(nMax * sizeof(int)), "allocating the matrix");
  check(suma.alloc(c.blocksFor(nMax) * sizeof(long int)), "allocating the partials");
  for (int64_t valueMax : {int64_t(999), int64_t((1 << 20) - 1)}) {
    const std::vector<int32_t> host = hostInts(c.r.seed, nMax, valueMax);
    for (uint64_t n : sizes) {
      c.cancelled();
      // The same prefix of one array for every N: row n is the first n values.
      upload(c, in.as<int>(), host.data(), n * sizeof(int), "copying the matrix");
      FloatSumRow row;
      row.n = n;
      row.valueMax = valueMax;
      row.blocks = c.blocksFor(n);
      launchSum(c, false, in.as<int>(), suma.as<long int>(), n);
      check(cudaGetLastError(), "launching floyd_reduccion");
      std::vector<long int> partials(static_cast<size_t>(row.blocks));
      check(cudaMemcpyAsync(partials.data(), suma.as<long int>(), row.blocks * sizeof(long int), cudaMemcpyDeviceToHost,
                            c.stream), "copying the partials");
      check(cudaStreamSynchronize(c.stream), "floyd_reduccion");
      for (uint64_t b = 0; b < row.blocks; ++b) {
        int64_t exactBlock = 0;
        for (uint64_t i = b * uint64_t(c.r.block); i < std::min(n, (b + 1) * uint64_t(c.r.block)); ++i) exactBlock += host[i];
        row.exact += exactBlock;
        row.seedSum += partials[b];
        row.inexactBlocks += partials[b] != exactBlock;
        row.absBlockError += std::llabs(int64_t(partials[b]) - exactBlock);
      }
      launchSum(c, true, in.as<int>(), suma.as<long int>(), n);
      check(cudaGetLastError(), "launching the fixed reduction");
      row.fixSum = hostSumOf(c, suma.as<long int>(), row.blocks);
      out.floatSum.push_back(row);
    }
  }
}

void gpuMean(const Context& c, const std::vector<uint64_t>& sizes, PitfallResult& out) {
  const uint64_t nMax = *std::max_element(sizes.begin(), sizes.end());
  Buffer in, suma;
  check(in.alloc(nMax * sizeof(int)), "allocating the matrix");
  check(suma.alloc(c.blocksFor(nMax) * sizeof(long int)), "allocating the partials");
  const std::vector<int32_t> host = hostInts(c.r.seed, nMax, 999);
  upload(c, in.as<int>(), host.data(), nMax * sizeof(int), "copying the matrix");
  for (uint64_t n : sizes) {
    c.cancelled();
    launchSum(c, true, in.as<int>(), suma.as<long int>(), n);  // an exact sum: the division is the point
    check(cudaGetLastError(), "launching the reduction");
    MeanRow row;
    row.n = n;
    row.sum = hostSumOf(c, suma.as<long int>(), c.blocksFor(n));
    const long int sumaGPU = long(row.sum);
    const int nverts2 = int(n);
    row.seedMean = sumaGPU / nverts2;  // the seed's line, on purpose
    row.correctMean = double(row.sum) / double(n);
    out.mean.push_back(row);
  }
}

void gpuOverrun(const Context& c, uint64_t n, PitfallResult& out) {
  OverrunResult o;
  o.n = n;
  o.blocks = c.blocksFor(n);
  o.allocatedBytes = sizeof(float) * o.blocks;
  o.writtenBytes = sizeof(long int) * o.blocks;
  o.guardBytes = o.writtenBytes - o.allocatedBytes + 256;
  const std::vector<int32_t> host = hostInts(c.r.seed, n, 999);
  for (int32_t v : host) o.exact += v;
  Buffer in, arena, fixArena;
  check(in.alloc(n * sizeof(int)), "allocating the matrix");
  upload(c, in.as<int>(), host.data(), n * sizeof(int), "copying the matrix");
  // The seed's buffer of sizeof(float) x blocks at the start of one allocation that also holds
  // the guard: the kernel's writes past the buffer's end land in memory this run owns.
  const size_t arenaBytes = size_t(o.allocatedBytes + o.guardBytes);
  check(arena.alloc(arenaBytes), "allocating the arena");
  check(cudaMemsetAsync(arena.as<void>(), o.fill, arenaBytes, c.stream), "filling the guard");
  launchSum(c, false, in.as<int>(), arena.as<long int>(), n);
  check(cudaGetLastError(), "launching floyd_reduccion");
  o.arena.resize(arenaBytes);
  check(cudaMemcpyAsync(o.arena.data(), arena.as<void>(), arenaBytes, cudaMemcpyDeviceToHost, c.stream), "reading the arena");
  // The seed's copy back: sizeof(float) x blocks bytes into a long int array (zeroed here; the
  // seed's malloc left it as it came).
  std::vector<long int> hostSeed(size_t(o.blocks), 0);
  check(cudaMemcpyAsync(hostSeed.data(), arena.as<void>(), o.allocatedBytes, cudaMemcpyDeviceToHost, c.stream),
        "the seed's copy");
  // The fix: sizeof(long int) x blocks, with a guard of its own.
  const size_t fixBytes = size_t(o.writtenBytes + 256);
  check(fixArena.alloc(fixBytes), "allocating the fix's buffer");
  check(cudaMemsetAsync(fixArena.as<void>(), o.fill, fixBytes, c.stream), "filling the guard");
  launchSum(c, false, in.as<int>(), fixArena.as<long int>(), n);
  check(cudaGetLastError(), "launching floyd_reduccion");
  o.fixArena.resize(fixBytes);
  check(cudaMemcpyAsync(o.fixArena.data(), fixArena.as<void>(), fixBytes, cudaMemcpyDeviceToHost, c.stream), "reading the fix");
  check(cudaStreamSynchronize(c.stream), "floyd_reduccion");
  for (long int v : hostSeed) o.hostSumSeed += v;
  o.partials.resize(size_t(o.blocks));
  std::memcpy(o.partials.data(), o.fixArena.data(), size_t(o.writtenBytes));
  for (int64_t v : o.partials) o.hostSumFix += v;
  summarizeGuard(&o);
  out.overrun = std::move(o);
}

void gpuMax(const Context& c, const std::vector<uint64_t>& sizes, PitfallResult& out) {
  for (uint64_t n : sizes) {
    c.cancelled();
    std::vector<float> host(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n; ++i) host[i] = pitfallMaxData(c.r.seed, i, n);
    const float exact = *std::max_element(host.begin(), host.end());
    Buffer in, vmax;
    const uint64_t M = uint64_t(c.r.block);
    check(in.alloc(n * sizeof(float)), "allocating the vector");
    check(vmax.alloc(((n + M - 1) / M) * sizeof(float)), "allocating the block maxima");
    upload(c, in.as<float>(), host.data(), n * sizeof(float), "copying the vector");
    for (const auto& [launch, blocks] :
         {std::pair{std::string("seed's grid: N / M blocks"), (n + M - 1) / M},
          std::pair{std::string("two per thread: N / 2M blocks"), (n + 2 * M - 1) / (2 * M)}}) {
      MaxRow row;
      row.launch = launch;
      row.n = n;
      row.blocks = blocks;
      row.exactMax = exact;
      row.maxIndex = pitfallMaxIndex(n);
      for (bool fixedRead : {false, true}) {
        if (fixedRead)
          kernel_calcularMaximo<true><<<unsigned(blocks), c.r.block, M * sizeof(float), c.stream>>>(in.as<float>(), vmax.as<float>(), int(n));
        else
          kernel_calcularMaximo<false><<<unsigned(blocks), c.r.block, M * sizeof(float), c.stream>>>(in.as<float>(), vmax.as<float>(), int(n));
        check(cudaGetLastError(), "launching kernel_calcularMaximo");
        std::vector<float> h(static_cast<size_t>(blocks));
        check(cudaMemcpyAsync(h.data(), vmax.as<float>(), blocks * sizeof(float), cudaMemcpyDeviceToHost, c.stream),
              "copying the block maxima");
        check(cudaStreamSynchronize(c.stream), "kernel_calcularMaximo");
        float maximo_GPU = -10000000.0f;  // the seed's host loop
        for (float v : h) maximo_GPU = std::max(maximo_GPU, v);
        (fixedRead ? row.fixMax : row.seedMax) = maximo_GPU;
      }
      out.max.push_back(row);
    }
  }
}

void gpuKahan(const Context& c, const std::vector<uint64_t>& sizes, PitfallResult& out) {
  for (uint64_t n : sizes) {
    c.cancelled();
    std::vector<float> host(static_cast<size_t>(n));
    uint64_t units = 0;  // the exact sum in units of 2^-24
    for (uint64_t i = 0; i < n; ++i) {
      host[i] = kahanData(c.r.seed, i);
      units += uint64_t(std::ldexp(double(host[i]), 24));
    }
    KahanRow row;
    row.n = n;
    row.exact = std::ldexp(double(units), -24);
    const uint64_t per = uint64_t(kKahanBlock) * 8;
    Buffer in, a, b;
    check(in.alloc(n * sizeof(float)), "allocating the data");
    check(a.alloc(((n + per - 1) / per) * sizeof(float)), "allocating the partial sums");
    check(b.alloc(((n + per - 1) / per) * sizeof(float)), "allocating the partial sums");
    upload(c, in.as<float>(), host.data(), n * sizeof(float), "copying the data");
    cudaEvent_t start = nullptr, stop = nullptr;
    check(cudaEventCreate(&start), "event");
    if (cudaError_t e = cudaEventCreate(&stop); e != cudaSuccess) {
      cudaEventDestroy(start);
      check(e, "event");
    }
    struct Events {
      cudaEvent_t a, b;
      ~Events() { cudaEventDestroy(a), cudaEventDestroy(b); }
    } events{start, stop};
    for (bool compensated : {false, true}) {
      // Every pass until one value is left: the data, then the blocks' sums, ping-pong.
      auto sumOnce = [&]() {
        const float* from = in.as<float>();
        float* to = a.as<float>();
        uint64_t count = n;
        do {
          const uint64_t blocks = (count + per - 1) / per;
          if (compensated) floatSumPass<true><<<unsigned(blocks), kKahanBlock, 0, c.stream>>>(from, to, count);
          else floatSumPass<false><<<unsigned(blocks), kKahanBlock, 0, c.stream>>>(from, to, count);
          check(cudaGetLastError(), "launching the float sum");
          from = to;
          to = to == a.as<float>() ? b.as<float>() : a.as<float>();
          count = blocks;
        } while (count > 1);
        return from;
      };
      std::vector<double> ms;
      const float* result = nullptr;
      for (int rep = 0; rep <= 10; ++rep) {
        c.cancelled();
        check(cudaEventRecord(start, c.stream), "event");
        result = sumOnce();
        check(cudaEventRecord(stop, c.stream), "event");
        check(cudaEventSynchronize(stop), "the float sum");
        float e = 0;
        check(cudaEventElapsedTime(&e, start, stop), "event time");
        if (rep > 0) ms.push_back(double(e));
      }
      float sum = 0;
      check(cudaMemcpyAsync(&sum, result, sizeof sum, cudaMemcpyDeviceToHost, c.stream), "reading the sum");
      check(cudaStreamSynchronize(c.stream), "reading the sum");
      (compensated ? row.treeKahanSum : row.treeSum) = sum;
      (compensated ? row.treeKahanMs : row.treeMs) = median(ms);
    }
    kahanLoops(host.data(), n, &row);
    out.kahan.push_back(row);
  }
}

}  // namespace

PitfallResult runPitfallOnGpu(const DeviceInfo& device, cudaStream_t stream, const PitfallRequest& r,
                              const std::function<bool()>& cancel) {
  PitfallResult out = startPitfallResult(r, "GPU: " + device.name, true);
  if (!out.error.empty()) return out;
  const std::vector<uint64_t> sizes = r.sizes.empty() ? defaultPitfallSizes(r.kind) : r.sizes;
  const Context c{r, stream, cancel};
  try {
    switch (r.kind) {
      case Pitfall::ClockTiming: {
        gpuClock(c, sizes, out);
        // The CPU-side fact too: what clock() counts.
        const PitfallResult cpu = runPitfallOnCpu(r);
        out.clockCpu = cpu.clockCpu;
        break;
      }
      case Pitfall::FloatSharedSum: gpuFloatSum(c, sizes, out); break;
      case Pitfall::IntegerMean: gpuMean(c, sizes, out); break;
      case Pitfall::UndersizedPartials: gpuOverrun(c, sizes.front(), out); break;
      case Pitfall::DoubleReadMax: gpuMax(c, sizes, out); break;
      case Pitfall::KahanSum: gpuKahan(c, sizes, out); break;
      case Pitfall::AchievedOccupancy: throw Failure{"the engine reads the counter (CudaEngine::runPitfall)"};
      case Pitfall::HostCopies:
      case Pitfall::StreamOverlap:
      case Pitfall::ReduceWithCopy:
        if (std::string e = runTransfersOnGpu(device, stream, r, cancel, &out); !e.empty()) throw Failure{e};
        break;
    }
  } catch (const Failure& f) {
    cudaStreamSynchronize(stream);
    cudaGetLastError();
    out.error = f.what;
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace rl
