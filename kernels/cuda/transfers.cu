// Host <-> device transfers measured on the device (transfers.hpp): copies from pageable, pinned
// and mapped host memory, copy/kernel overlap on streams, and a reduction with its data's copy.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include "pitfalls_gpu.hpp"
#include "reducelab/collective.hpp"

namespace rl {
namespace {

struct Failure {
  std::string what;
};
void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Failure{what + ": " + cudaGetErrorString(e)};
  }
}

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Owned memory of each kind; freed on every path out (a Failure included).
struct DeviceMem {
  void* p = nullptr;
  explicit DeviceMem(size_t bytes) { check(cudaMalloc(&p, bytes), "cannot allocate " + collective::formatBytes(bytes) + " on the GPU"); }
  ~DeviceMem() { if (p) cudaFree(p); }
  DeviceMem(const DeviceMem&) = delete;
  DeviceMem& operator=(const DeviceMem&) = delete;
};
struct HostMem {  // pinned (cudaHostAlloc) or pageable (new[])
  unsigned char* p = nullptr;
  void* device = nullptr;  // the device's pointer to mapped memory
  bool pinned = false;
  HostMem(size_t bytes, bool pin, bool mapped) : pinned(pin) {
    if (pin) {
      check(cudaHostAlloc(reinterpret_cast<void**>(&p), bytes, mapped ? cudaHostAllocMapped : cudaHostAllocDefault),
            "cannot allocate " + collective::formatBytes(bytes) + " of pinned host memory");
      if (mapped)
        if (cudaError_t e = cudaHostGetDevicePointer(&device, p, 0); e != cudaSuccess) {
          cudaFreeHost(p);  // the destructor does not run for a constructor that throws
          p = nullptr;
          check(e, "cannot map host memory into the GPU");
        }
    } else {
      p = new (std::nothrow) unsigned char[bytes];
      if (!p) throw Failure{"cannot allocate " + collective::formatBytes(bytes) + " of host memory"};
    }
  }
  ~HostMem() {
    if (!p) return;
    if (pinned) cudaFreeHost(p);
    else delete[] p;
  }
  HostMem(const HostMem&) = delete;
  HostMem& operator=(const HostMem&) = delete;
};
struct Streams {
  std::vector<cudaStream_t> s;
  explicit Streams(int n) {
    for (int i = 0; i < n; ++i) {
      cudaStream_t st = nullptr;
      if (cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking); e != cudaSuccess) {
        for (cudaStream_t made : s) cudaStreamDestroy(made);  // no destructor after a throwing constructor
        check(e, "cannot create a stream");
      }
      s.push_back(st);
    }
  }
  ~Streams() { for (cudaStream_t st : s) cudaStreamDestroy(st); }
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;
};
struct Event {
  cudaEvent_t e = nullptr;
  Event() { check(cudaEventCreate(&e), "cannot create an event"); }
  ~Event() { cudaEventDestroy(e); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// A byte pattern every copy is compared against (no two neighbouring 8-byte words alike).
void fillPattern(unsigned char* p, uint64_t bytes, uint64_t salt) {
  uint64_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    const uint64_t v = (i / 8 + salt) * 0x9E3779B97F4A7C15ull;
    std::memcpy(p + i, &v, 8);
  }
  for (; i < bytes; ++i) p[i] = static_cast<unsigned char>(i * 131 + salt);
}

// Mapped memory's "copy": a kernel reads one side over the link and writes the other.
__global__ void copyBytes(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, uint64_t bytes) {
  const uint64_t words = bytes / 16;
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  const uint4* in4 = reinterpret_cast<const uint4*>(in);
  uint4* out4 = reinterpret_cast<uint4*>(out);
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) out4[i] = in4[i];
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < bytes % 16) out[words * 16 + t] = in[words * 16 + t];
}

// The streams' kernel: `work` steps of a linear congruential generator per element (exact on the
// CPU too, so the output can be checked).
__host__ __device__ inline uint32_t lcgSteps(uint32_t x, int work) {
  for (int w = 0; w < work; ++w) x = x * 1664525u + 1013904223u;
  return x;
}
__global__ void busyKernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, uint64_t n, int work) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = lcgSteps(in[i], work);
}

struct Context {
  const DeviceInfo& device;
  cudaStream_t stream;
  const PitfallRequest& r;
  const std::function<bool()>& cancel;
  void cancelled() const {
    if (cancel && cancel()) throw Failure{"cancelled"};
  }
  // On the engine's (non-blocking) stream and finished on return: a plain cudaMemcpy or cudaMemset
  // goes through the legacy stream, which the demonstration's streams do not wait for.
  void copyNow(void* dst, const void* src, uint64_t bytes, cudaMemcpyKind kind) const {
    check(cudaMemcpyAsync(dst, src, bytes, kind, stream), "copying");
    check(cudaStreamSynchronize(stream), "copying");
  }
  void clear(void* dev, uint64_t bytes) const {
    check(cudaMemsetAsync(dev, 0, bytes, stream), "clearing");
    check(cudaStreamSynchronize(stream), "clearing");
  }
  // Blocks of 256 for `items`, at most what the GPU holds at once (divided by `share` when that
  // many kernels must run side by side).
  unsigned gridFor(uint64_t items, int share = 1) const {
    const uint64_t perSm = uint64_t(std::max(256, device.maxThreadsPerSM)) / 256;
    const uint64_t most = std::max<uint64_t>(1, uint64_t(std::max(1, device.smCount)) * perSm / uint64_t(share));
    return unsigned(std::max<uint64_t>(1, std::min<uint64_t>((items + 255) / 256, most)));
  }
};

// Host memory the demonstration holds at once, against what the machine has available.
void checkHostMemory(uint64_t bytes) {
  if (std::string e = hostMemoryRefusal(bytes); !e.empty()) throw Failure{e};
}

// The link: NVML's maximum generation and width "possible with this device and system" (loaded at
// run time), else sysfs (the device's, limited by the port above it).
LinkInfo linkOf(const DeviceInfo& d) {
  LinkInfo l;
  if (void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL)) {
    using InitFn = int (*)();
    using HandleFn = int (*)(const char*, void**);
    using ValueFn = int (*)(void*, unsigned*);
    auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
    auto handle = reinterpret_cast<HandleFn>(dlsym(lib, "nvmlDeviceGetHandleByUUID"));
    auto gen = reinterpret_cast<ValueFn>(dlsym(lib, "nvmlDeviceGetMaxPcieLinkGeneration"));
    auto width = reinterpret_cast<ValueFn>(dlsym(lib, "nvmlDeviceGetMaxPcieLinkWidth"));
    auto genNow = reinterpret_cast<ValueFn>(dlsym(lib, "nvmlDeviceGetCurrPcieLinkGeneration"));
    auto widthNow = reinterpret_cast<ValueFn>(dlsym(lib, "nvmlDeviceGetCurrPcieLinkWidth"));
    auto shutdown = reinterpret_cast<InitFn>(dlsym(lib, "nvmlShutdown"));
    if (init && handle && gen && width && shutdown && init() == 0) {
      void* dev = nullptr;
      unsigned g = 0, w = 0, gn = 0, wn = 0;
      if (handle(d.uuid.c_str(), &dev) == 0 && gen(dev, &g) == 0 && width(dev, &w) == 0 && pcieGBs(int(g), int(w)) > 0) {
        l.known = true;
        l.name = "PCIe Gen" + std::to_string(g) + " x" + std::to_string(w);
        l.gbs = pcieGBs(int(g), int(w));
        l.source = "NVML";
        if (genNow && widthNow && genNow(dev, &gn) == 0 && widthNow(dev, &wn) == 0 && pcieGBs(int(gn), int(wn)) > 0 &&
            (gn != g || wn != w))
          l.now = "at Gen" + std::to_string(gn) + " x" + std::to_string(wn) + " when read (an idle link slows down)";
      }
      shutdown();
    }
    dlclose(lib);
  }
  return l.known ? l : readPcieLinkFromSysfs(d.pciBusId);
}

// Times `enqueue` (which returns once its work is queued) to the end of the work on `streams`:
// a warm-up, then the repetitions' median; `beforeLast` runs untimed before the last one.
template <class Enqueue>
double timeWall(const Context& c, int reps, const std::vector<cudaStream_t>& streams, Enqueue&& enqueue,
                const std::function<void()>& beforeLast = {}) {
  std::vector<double> ms;
  for (int k = 0; k <= reps; ++k) {
    c.cancelled();
    if (k == reps && beforeLast) beforeLast();
    const auto t0 = std::chrono::steady_clock::now();
    enqueue();
    for (cudaStream_t s : streams) check(cudaStreamSynchronize(s), "a transfer failed");
    if (k > 0) ms.push_back(msSince(t0));
  }
  return medianOf(ms);
}

// The same timed by CUDA events on the engine's stream, as the streams' loop is (seed 004).
template <class Enqueue>
double timeEvents(const Context& c, int reps, Enqueue&& enqueue) {
  Event start, stop;
  std::vector<double> ms;
  for (int k = 0; k <= reps; ++k) {
    c.cancelled();
    check(cudaEventRecord(start.e, c.stream), "event");
    enqueue();
    check(cudaEventRecord(stop.e, c.stream), "event");
    check(cudaEventSynchronize(stop.e), "a transfer or kernel failed");
    float e = 0;
    check(cudaEventElapsedTime(&e, start.e, stop.e), "event time");
    if (k > 0) ms.push_back(double(e));
  }
  return medianOf(ms);
}

void gpuTransfers(const Context& c, const std::vector<uint64_t>& sizes, TransferResults& out) {
  const uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  checkHostMemory(2 * largest);  // one memory kind's source and destination at a time
  std::vector<TransferDirection> dirs = c.r.directions;
  if (dirs.empty()) dirs = {TransferDirection::HostToDevice, TransferDirection::DeviceToHost, TransferDirection::Both};
  DeviceMem a(largest), b(largest);  // a: what H2D writes and D2H reads; b: the other direction's
  Streams two(2);
  const std::vector<cudaStream_t> one{c.stream}, both{two.s[0], two.s[1]};
  for (uint64_t bytes : sizes)
    for (TransferDirection d : dirs) {
      TransferRow row;
      row.bytes = bytes;
      row.direction = d;
      row.reps = transferReps(bytes);
      row.checked = true;
      out.rows.push_back(row);
    }
  auto rowOf = [&](uint64_t bytes, TransferDirection d) -> TransferRow& {
    for (TransferRow& t : out.rows)
      if (t.bytes == bytes && t.direction == d) return t;
    throw Failure{"internal: no row"};
  };
  enum Memory { Pageable, Pinned, Mapped };
  for (Memory m : {Pageable, Pinned, Mapped}) {
    HostMem src(largest, m != Pageable, m == Mapped), dst(largest, m != Pageable, m == Mapped);
    fillPattern(src.p, largest, 1);
    std::memset(dst.p, 0, largest);  // touched: a page fault is not a transfer
    for (uint64_t bytes : sizes) {
      const int reps = transferReps(bytes);
      // The device side starts as the source's bytes, so every D2H can be checked against it.
      c.copyNow(a.p, src.p, bytes, cudaMemcpyHostToDevice);
      int share = 1;  // "both": the two copy kernels side by side, each on half the GPU
      auto h2d = [&](cudaStream_t s, void* to) {
        if (m == Mapped)
          copyBytes<<<c.gridFor(bytes / 16 + 1, share), 256, 0, s>>>(static_cast<const unsigned char*>(src.device),
                                                             static_cast<unsigned char*>(to), bytes);
        else
          check(cudaMemcpyAsync(to, src.p, bytes, cudaMemcpyHostToDevice, s), "host to device");
      };
      auto d2h = [&](cudaStream_t s) {
        if (m == Mapped)
          copyBytes<<<c.gridFor(bytes / 16 + 1, share), 256, 0, s>>>(static_cast<const unsigned char*>(a.p),
                                                             static_cast<unsigned char*>(dst.device), bytes);
        else
          check(cudaMemcpyAsync(dst.p, a.p, bytes, cudaMemcpyDeviceToHost, s), "device to host");
      };
      auto clearDst = [&] { std::memset(dst.p, 0, bytes); };
      auto clearDevice = [&] { c.clear(b.p, bytes); };
      auto deviceHolds = [&](void* dev) {  // the device buffer read back and compared with the source
        c.copyNow(dst.p, dev, bytes, cudaMemcpyDeviceToHost);
        return std::memcmp(dst.p, src.p, bytes) == 0;
      };
      for (TransferDirection d : dirs) {
        TransferRow& row = rowOf(bytes, d);
        share = d == TransferDirection::Both ? 2 : 1;
        double ms = 0;
        bool same = false;
        switch (d) {
          case TransferDirection::HostToDevice:
            ms = timeWall(c, reps, one, [&] { h2d(c.stream, b.p); }, clearDevice);
            check(cudaGetLastError(), "the copy kernel");
            same = deviceHolds(b.p);
            break;
          case TransferDirection::DeviceToHost:
            ms = timeWall(c, reps, one, [&] { d2h(c.stream); }, clearDst);
            check(cudaGetLastError(), "the copy kernel");
            same = std::memcmp(dst.p, src.p, bytes) == 0;
            break;
          case TransferDirection::Both:
            ms = timeWall(c, reps, both, [&] { h2d(both[0], b.p); d2h(both[1]); }, [&] { clearDst(); clearDevice(); });
            check(cudaGetLastError(), "the copy kernel");
            same = std::memcmp(dst.p, src.p, bytes) == 0 && deviceHolds(b.p);
            break;
        }
        (m == Pageable ? row.pageableMs : m == Pinned ? row.pinnedMs : row.mappedMs) = ms;
        row.checked = row.checked && same;
        if (m == Pageable) {  // the host copy a pageable transfer adds, on these buffers
          std::vector<double> hostMs;
          for (int k = 0; k <= reps; ++k) {
            const auto t0 = std::chrono::steady_clock::now();
            std::memcpy(dst.p, src.p, bytes);
            if (k > 0) hostMs.push_back(msSince(t0));
          }
          row.hostCopyMs = medianOf(hostMs);
        }
      }
    }
  }
}

void gpuStreams(const Context& c, uint64_t bytes, TransferResults& out) {
  checkHostMemory(2 * bytes);
  const uint64_t n = bytes / 4;
  HostMem in(bytes, true, false), result(bytes, true, false);
  DeviceMem inD(bytes), outD(bytes);
  auto* inH = reinterpret_cast<uint32_t*>(in.p);
  auto* outH = reinterpret_cast<uint32_t*>(result.p);
  for (uint64_t i = 0; i < n; ++i) inH[i] = uint32_t(i * 2654435761u);
  Event start, stop;
  const int reps = 5;
  // Each stage alone, then the kernel's work sized so that it takes about a copy's time (where
  // streams help most; a kernel far shorter or longer than the copies hides little).
  out.parts.copyInMs = timeEvents(c, reps, [&] {
    check(cudaMemcpyAsync(inD.p, in.p, bytes, cudaMemcpyHostToDevice, c.stream), "copy in");
  });
  const int probe = 64;
  const unsigned grid = c.gridFor(n);
  const double probeMs = timeEvents(c, reps, [&] {
    busyKernel<<<grid, 256, 0, c.stream>>>(static_cast<const uint32_t*>(inD.p), static_cast<uint32_t*>(outD.p), n, probe);
  });
  check(cudaGetLastError(), "the kernel");
  auto kernelMs = [&](int w) {
    const double ms = timeEvents(c, reps, [&] {
      busyKernel<<<grid, 256, 0, c.stream>>>(static_cast<const uint32_t*>(inD.p), static_cast<uint32_t*>(outD.p), n, w);
    });
    check(cudaGetLastError(), "the kernel");
    return ms;
  };
  // The probe may be bound by memory, not arithmetic: scale, then scale once more from there.
  int work = probe;
  double ms = probeMs;
  for (int round = 0; round < 2; ++round) {
    work = int(std::clamp(double(work) * out.parts.copyInMs / std::max(ms, 1e-6), 1.0, 65536.0));
    ms = kernelMs(work);
  }
  out.parts.work = work;
  out.parts.kernelMs = ms;
  out.parts.copyOutMs = timeEvents(c, reps, [&] {
    check(cudaMemcpyAsync(result.p, outD.p, bytes, cudaMemcpyDeviceToHost, c.stream), "copy out");
  });
  for (int s = 1; s <= c.r.streams; ++s) {
    Streams st(s);
    const uint64_t chunk = (n + uint64_t(s) - 1) / uint64_t(s);
    std::vector<double> ms;
    for (int k = 0; k <= reps; ++k) {
      c.cancelled();
      if (k == reps) std::memset(result.p, 0, bytes);
      // The seed's events: start before the first stream's work, stop after every stream's.
      check(cudaEventRecord(start.e, st.s[0]), "event");
      for (int i = 1; i < s; ++i) check(cudaStreamWaitEvent(st.s[size_t(i)], start.e, 0), "event");
      auto part = [&](int i, uint64_t* first, uint64_t* count) {
        *first = std::min(n, uint64_t(i) * chunk);
        *count = std::min(n, *first + chunk) - *first;
      };
      uint64_t f = 0, cnt = 0;
      for (int i = 0; i < s; ++i) {
        part(i, &f, &cnt);
        if (cnt) check(cudaMemcpyAsync(static_cast<uint32_t*>(inD.p) + f, inH + f, cnt * 4, cudaMemcpyHostToDevice, st.s[size_t(i)]), "copy in");
      }
      for (int i = 0; i < s; ++i) {
        part(i, &f, &cnt);
        if (cnt)
          busyKernel<<<c.gridFor(cnt), 256, 0, st.s[size_t(i)]>>>(static_cast<const uint32_t*>(inD.p) + f,
                                                                  static_cast<uint32_t*>(outD.p) + f, cnt, work);
      }
      for (int i = 0; i < s; ++i) {
        part(i, &f, &cnt);
        if (cnt) check(cudaMemcpyAsync(outH + f, static_cast<uint32_t*>(outD.p) + f, cnt * 4, cudaMemcpyDeviceToHost, st.s[size_t(i)]), "copy out");
      }
      std::vector<Event> done(static_cast<size_t>(s - 1));  // streams 1.. join stream 0 before the stop
      for (int i = 1; i < s; ++i) {
        check(cudaEventRecord(done[size_t(i - 1)].e, st.s[size_t(i)]), "event");
        check(cudaStreamWaitEvent(st.s[0], done[size_t(i - 1)].e, 0), "event");
      }
      check(cudaEventRecord(stop.e, st.s[0]), "event");
      check(cudaEventSynchronize(stop.e), "the streams' work");
      check(cudaGetLastError(), "the kernel");
      float e = 0;
      check(cudaEventElapsedTime(&e, start.e, stop.e), "event time");
      if (k > 0) ms.push_back(double(e));
    }
    StreamRow row;
    row.streams = s;
    row.bytes = bytes;
    row.ms = medianOf(ms);
    // Sampled: 4096 elements spread over the array, and each chunk's first and last.
    row.checked = true;
    auto ok = [&](uint64_t i) { return i >= n || outH[i] == lcgSteps(inH[i], work); };
    for (uint64_t k = 0; k < 4096 && row.checked; ++k) row.checked = ok(k * (n / 4096 + 1));
    for (int i = 0; i < s && row.checked; ++i) row.checked = ok(uint64_t(i) * chunk) && ok(std::min(n, uint64_t(i + 1) * chunk) - 1);
    out.streams.push_back(row);
  }
}

void gpuReduceWithCopy(const Context& c, const std::vector<uint64_t>& sizes, TransferResults& out) {
  const uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
  checkHostMemory(2 * largest);
  HostMem pageable(largest, false, false), pinned(largest, true, false), result(sizeof(int64_t), true, false);
  DeviceMem data(largest), sum(sizeof(int64_t));
  const uint64_t most = largest / 4;
  for (uint64_t i = 0; i < most; ++i) {
    const int32_t v = int32_t((i * 2654435761ull) % 2001) - 1000;
    std::memcpy(pageable.p + 4 * i, &v, 4);
  }
  std::memcpy(pinned.p, pageable.p, largest);
  size_t tempBytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, tempBytes, static_cast<const int32_t*>(data.p), static_cast<int64_t*>(sum.p),
                               int64_t(most), c.stream), "CUB's temporary storage");
  DeviceMem temp(std::max<size_t>(tempBytes, 1));
  const std::vector<cudaStream_t> one{c.stream};
  for (uint64_t bytes : sizes) {
    const uint64_t n = bytes / 4;
    int64_t exact = 0;
    for (uint64_t i = 0; i < n; ++i) {
      int32_t v;
      std::memcpy(&v, pageable.p + 4 * i, 4);
      exact += v;
    }
    c.copyNow(data.p, pinned.p, bytes, cudaMemcpyHostToDevice);
    auto reduce = [&] {
      size_t t = tempBytes;
      check(cub::DeviceReduce::Sum(temp.p, t, static_cast<const int32_t*>(data.p), static_cast<int64_t*>(sum.p),
                                   int64_t(n), c.stream), "the reduction");
      check(cudaMemcpyAsync(result.p, sum.p, sizeof(int64_t), cudaMemcpyDeviceToHost, c.stream), "the result");
    };
    auto clear = [&] { std::memset(result.p, 0, sizeof(int64_t)); c.clear(data.p, bytes); };
    auto resultNow = [&] {
      int64_t v;
      std::memcpy(&v, result.p, sizeof v);
      return v;
    };
    const int reps = transferReps(bytes);
    ReduceCopyRow k{"kernel only (data already on the GPU)", n, 0, 0, exact};
    k.ms = timeWall(c, reps, one, reduce, [&] { std::memset(result.p, 0, sizeof(int64_t)); });
    k.result = resultNow();
    ReduceCopyRow p{"pinned copy + kernel", n, 0, 0, exact};
    p.ms = timeWall(c, reps, one, [&] {
      check(cudaMemcpyAsync(data.p, pinned.p, bytes, cudaMemcpyHostToDevice, c.stream), "copy in");
      reduce();
    }, clear);
    p.result = resultNow();
    ReduceCopyRow g{"pageable copy + kernel", n, 0, 0, exact};
    g.ms = timeWall(c, reps, one, [&] {
      check(cudaMemcpyAsync(data.p, pageable.p, bytes, cudaMemcpyHostToDevice, c.stream), "copy in");
      reduce();
    }, clear);
    g.result = resultNow();
    out.reduce.push_back(k);
    out.reduce.push_back(p);
    out.reduce.push_back(g);
  }
}

}  // namespace

std::string runTransfersOnGpu(const DeviceInfo& device, cudaStream_t stream, const PitfallRequest& r,
                              const std::function<bool()>& cancel, PitfallResult* out) {
  const Context c{device, stream, r, cancel};
  const std::vector<uint64_t> sizes = r.sizes.empty() ? defaultPitfallSizes(r.kind) : r.sizes;
  TransferResults& t = out->transfers;
  t.link = linkOf(device);
  if (cudaDeviceGetAttribute(&t.copyEngines, cudaDevAttrAsyncEngineCount, device.ordinal) != cudaSuccess) {
    t.copyEngines = 0;  // unknown; and no error left for a later check to misname
    cudaGetLastError();
  }
  try {
    switch (r.kind) {
      case Pitfall::HostCopies: gpuTransfers(c, sizes, t); break;
      case Pitfall::StreamOverlap: gpuStreams(c, sizes.front(), t); break;
      case Pitfall::ReduceWithCopy: gpuReduceWithCopy(c, sizes, t); break;
      default: return "not a transfer demonstration";
    }
  } catch (const Failure& f) {
    cudaDeviceSynchronize();
    cudaGetLastError();
    return f.what;
  }
  return {};
}

}  // namespace rl
