#include "reducelab/pitfalls.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

#include "reducelab/lesson.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/record.hpp"
#include "reducelab/types.hpp"

namespace rl {

namespace {

constexpr std::pair<Pitfall, std::string_view> kNames[] = {
    {Pitfall::ClockTiming, "clock"},
    {Pitfall::FloatSharedSum, "float-shared"},
    {Pitfall::IntegerMean, "integer-mean"},
    {Pitfall::UndersizedPartials, "undersized-partials"},
    {Pitfall::DoubleReadMax, "double-read"},
    {Pitfall::KahanSum, "kahan"},
    {Pitfall::AchievedOccupancy, "achieved"},
    {Pitfall::HostCopies, "copies"},
    {Pitfall::StreamOverlap, "streams"},
    {Pitfall::ReduceWithCopy, "reduce-copy"},
};

uint64_t mix(uint64_t x) {  // splitmix64's finaliser: a cheap, well-spread hash
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::string us(double ms) { return fixed(ms * 1e3, 1); }
std::string count(uint64_t n) { return formatCount(n); }
std::string withCommas(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return (v < 0 ? "-" : "") + out;
}
std::string floatText(float v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", double(v));
  return b;
}
// N as the seed wrote it where it is a square (nverts^2), else as a count.
std::string sizeText(uint64_t n) {
  const uint64_t r = uint64_t(std::llround(std::sqrt(double(n))));
  if (r * r == n && r >= 100) return std::to_string(r) + "^2";
  return count(n);
}

// How many of the partials the seed's copy of 4 x blocks bytes brings back (half, and the low
// half of one more when the count is odd).
std::string copiedPartials(const OverrunResult& o) {
  return std::to_string(o.allocatedBytes / 8) + (o.allocatedBytes % 8 ? ".5" : "");
}

std::string hexBytes(const std::vector<uint8_t>& bytes, uint64_t from, uint64_t count) {
  std::string out;
  for (uint64_t i = from; i < std::min<uint64_t>(bytes.size(), from + count); ++i) {
    char b[4];
    std::snprintf(b, sizeof b, "%02x", bytes[i]);
    out += (out.empty() ? "" : " ") + std::string(b);
  }
  return out.empty() ? "-" : out;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string_view name(Pitfall p) {
  for (const auto& [k, n] : kNames)
    if (k == p) return n;
  return "?";
}

std::optional<Pitfall> parsePitfall(std::string_view text) {
  for (const auto& [k, n] : kNames)
    if (n == text) return k;
  return std::nullopt;
}

std::string pitfallNames() {
  std::string out;
  for (const auto& [k, n] : kNames) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

std::vector<Pitfall> allPitfalls() {
  std::vector<Pitfall> out;
  for (const auto& [k, n] : kNames)
    if (!isTransferDemo(k) && k != Pitfall::KahanSum && k != Pitfall::AchievedOccupancy) out.push_back(k);
  return out;
}

std::vector<Pitfall> transferDemos() { return {Pitfall::HostCopies, Pitfall::StreamOverlap, Pitfall::ReduceWithCopy}; }

bool isTransferDemo(Pitfall p) {
  return p == Pitfall::HostCopies || p == Pitfall::StreamOverlap || p == Pitfall::ReduceWithCopy;
}

std::string pitfallTitle(Pitfall p) {
  return (isTransferDemo(p)                    ? "Transfers: "
          : p == Pitfall::KahanSum             ? "Precision: "
          : p == Pitfall::AchievedOccupancy    ? "Counter: "
                                               : "Pitfall: ") +
         std::string(name(p));
}

std::string pitfallWindowHeading(Pitfall p) {
  return isTransferDemo(p)            ? "Host <-> device transfers (seeds 002-004)"
         : p == Pitfall::KahanSum ? "Float sums (seed 000)"
         : p == Pitfall::AchievedOccupancy ? "Achieved occupancy (seed 000)"
                                      : "Seed 002's pitfalls";
}

std::pair<std::string, std::string> pitfallCodeHeadings(Pitfall p) {
  switch (p) {
    case Pitfall::HostCopies: return {"Seed 003: host memory from malloc (pageable)", "Seed 004: pinned host memory"};
    case Pitfall::StreamOverlap: return {"One stream: copy in, kernel, copy out", "Seed 004: two streams"};
    case Pitfall::ReduceWithCopy: return {"The data copied in for each reduction", "The data kept on the GPU"};
    case Pitfall::KahanSum: return {"Seed 000: a float sum", "Kahan's compensated sum"};
    case Pitfall::AchievedOccupancy: return {"Seed 000: nvprof", "ReduceLab: CUPTI's range profiler"};
    default: return {"As seed 002 wrote it", "The fix"};
  }
}

std::vector<uint64_t> defaultPitfallSizes(Pitfall p) {
  auto sq = [](uint64_t v) { return v * v; };
  switch (p) {
    case Pitfall::ClockTiming: return {sq(400), sq(1000), sq(2000), sq(8000)};
    case Pitfall::FloatSharedSum: return {sq(400), sq(1000), sq(2000), sq(4000)};
    case Pitfall::IntegerMean: return {sq(400), sq(1000), sq(1400), sq(2000)};
    case Pitfall::UndersizedPartials: return {sq(1000)};
    case Pitfall::DoubleReadMax: return {sq(1000)};
    case Pitfall::KahanSum: return {uint64_t(1) << 20, uint64_t(1) << 24, uint64_t(1) << 26};
    case Pitfall::AchievedOccupancy: return {uint64_t(1) << 24};
    case Pitfall::HostCopies: return defaultTransferSizes();
    case Pitfall::StreamOverlap: return {uint64_t(256) << 20};
    case Pitfall::ReduceWithCopy: return {uint64_t(4) << 20, uint64_t(64) << 20, uint64_t(1) << 30};
  }
  return {};
}

std::string validatePitfall(const PitfallRequest& r) {
  if (isTransferDemo(r.kind)) return validateTransfers(r);
  if (r.kind == Pitfall::AchievedOccupancy && !r.sizes.empty())
    return "achieved runs the seed's seven launches (2^24 doubles): it takes no sizes";
  if (r.block < 32 || r.block > 1024 || (r.block & (r.block - 1)) != 0)
    return "block size " + std::to_string(r.block) + " is not a power of two from 32 to 1024";
  const std::vector<uint64_t> sizes = r.sizes.empty() ? defaultPitfallSizes(r.kind) : r.sizes;
  if (sizes.size() > 8) return "at most 8 sizes per pitfall";
  // The double read needs pairs: the second half starts past the first half's threads.
  const uint64_t minN = r.kind == Pitfall::DoubleReadMax ? uint64_t(8) * uint64_t(r.block) : 1;
  for (uint64_t n : sizes)
    if (n < minN || n > kPitfallMaxN)
      return "size " + count(n) + " is out of range for " + std::string(name(r.kind)) + " (" + count(minN) + " to " +
             count(kPitfallMaxN) + ")";
  if (r.kind == Pitfall::UndersizedPartials && sizes.size() != 1) return "undersized-partials takes one size";
  return {};
}

int32_t pitfallInt(uint64_t seed, uint64_t i, int64_t valueMax) {
  return int32_t(mix(seed * 0x100000001B3ull ^ i) % uint64_t(valueMax + 1));
}

uint64_t pitfallMaxIndex(uint64_t n) { return n - 1 - n / 8; }

float pitfallMaxData(uint64_t seed, uint64_t i, uint64_t n) {
  if (i == pitfallMaxIndex(n)) return 1e6f;
  return float(int64_t(mix(seed ^ (i * 0x2545F4914F6CDD1Dull)) % 2000000) - 1000000) / 1000.0f;
}

int64_t floatTreePartial(const int32_t* values, uint64_t count, int block) {
  std::vector<float> s(size_t(block), 0.0f);
  for (uint64_t t = 0; t < uint64_t(block); ++t) s[t] = t < count ? float(values[t]) : 0.0f;
  for (int stride = block / 2; stride > 0; stride >>= 1)
    for (int t = 0; t < stride; ++t) s[size_t(t)] += s[size_t(t + stride)];
  return int64_t(s[0]);
}

float seedMaxBlock(const float* data, uint64_t n, uint64_t blockIndex, uint64_t blocks, int block, bool fixedRead) {
  const float sentinel = -1000000000.0f;
  float best = sentinel;
  for (uint64_t tid = 0; tid < uint64_t(block); ++tid) {
    const uint64_t i = blockIndex * uint64_t(block) + tid;
    const uint64_t iSeg = blocks * uint64_t(block) + i;
    const float first = i < n ? data[i] : sentinel;
    const float second = iSeg < n ? data[fixedRead ? iSeg : i] : sentinel;
    best = std::max(best, std::max(first, second));  // max is exact: the tree's order cannot matter
  }
  return best;
}

void summarizeGuard(OverrunResult* r) {
  r->changedPastEnd = 0;
  r->firstChanged = r->lastChanged = 0;
  r->guardTailIntact = true;
  for (uint64_t off = r->allocatedBytes; off < uint64_t(r->arena.size()); ++off) {
    if (r->arena[off] == r->fill) continue;
    if (r->changedPastEnd++ == 0) r->firstChanged = off;
    r->lastChanged = off;
    if (off >= r->writtenBytes) r->guardTailIntact = false;
  }
  r->pastEndIsPartials = r->partials.size() * 8 >= r->writtenBytes && r->arena.size() >= r->writtenBytes;
  for (uint64_t off = r->allocatedBytes; r->pastEndIsPartials && off < r->writtenBytes; ++off)
    r->pastEndIsPartials = r->arena[off] == reinterpret_cast<const uint8_t*>(r->partials.data())[off];
  r->fixGuardIntact = true;
  for (uint64_t off = r->writtenBytes; off < uint64_t(r->fixArena.size()); ++off)
    if (r->fixArena[off] != r->fill) r->fixGuardIntact = false;
}

// ---- the CPU model ----

namespace {

void cpuClock(PitfallResult& out) {
  // clock() is the process's CPU time: a thread that sleeps (as a CPU waiting on a blocking
  // synchronisation does) adds nothing to it, a thread that spins adds all of it.
  auto threadCpuMs = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
  };
  auto measure = [&](const std::string& what, auto&& body) {
    const std::clock_t c0 = std::clock();
    const double t0 = threadCpuMs();
    const auto w0 = std::chrono::steady_clock::now();
    body();
    const double wall = msSince(w0);
    const double thread = threadCpuMs() - t0;
    const double cpu = double(std::clock() - c0) * 1e3 / CLOCKS_PER_SEC;
    out.clockCpu.push_back({what, cpu, thread, wall});
  };
  measure("sleep 30 ms", [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); });
  measure("spin 30 ms", [] {
    const auto t0 = std::chrono::steady_clock::now();
    volatile uint64_t sink = 0;
    while (msSince(t0) < 30.0) sink = sink + 1;
  });
}

void cpuFloatSum(const PitfallRequest& r, const std::vector<uint64_t>& sizes, PitfallResult& out) {
  for (int64_t valueMax : {int64_t(999), int64_t((1 << 20) - 1)})
    for (uint64_t n : sizes) {
      FloatSumRow row;
      row.n = n;
      row.valueMax = valueMax;
      row.blocks = (n + uint64_t(r.block) - 1) / uint64_t(r.block);
      std::vector<int32_t> chunk(static_cast<size_t>(r.block));
      for (uint64_t b = 0; b < row.blocks; ++b) {
        const uint64_t first = b * uint64_t(r.block), cnt = std::min<uint64_t>(uint64_t(r.block), n - first);
        int64_t exactBlock = 0;
        for (uint64_t t = 0; t < cnt; ++t) exactBlock += chunk[t] = pitfallInt(r.seed, first + t, valueMax);
        const int64_t partial = floatTreePartial(chunk.data(), cnt, r.block);
        row.exact += exactBlock;
        row.fixSum += exactBlock;  // the long long shared array is the exact sum
        row.seedSum += partial;
        row.inexactBlocks += partial != exactBlock;
        row.absBlockError += std::llabs(partial - exactBlock);
      }
      out.floatSum.push_back(row);
    }
}

void cpuMean(const PitfallRequest& r, const std::vector<uint64_t>& sizes, PitfallResult& out) {
  for (uint64_t n : sizes) {
    MeanRow row;
    row.n = n;
    for (uint64_t i = 0; i < n; ++i) row.sum += pitfallInt(r.seed, i, 999);
    const int nverts2 = int(n);
    const long sumaGPU = long(row.sum);
    row.seedMean = sumaGPU / nverts2;  // the seed's line, on purpose: long / int
    row.correctMean = double(row.sum) / double(n);
    out.mean.push_back(row);
  }
}

void cpuOverrun(const PitfallRequest& r, uint64_t n, PitfallResult& out) {
  OverrunResult o;
  o.n = n;
  o.blocks = (n + uint64_t(r.block) - 1) / uint64_t(r.block);
  o.allocatedBytes = sizeof(float) * o.blocks;
  o.writtenBytes = sizeof(int64_t) * o.blocks;
  o.guardBytes = o.writtenBytes - o.allocatedBytes + 256;
  std::vector<int32_t> chunk(static_cast<size_t>(r.block));
  for (uint64_t b = 0; b < o.blocks; ++b) {
    const uint64_t first = b * uint64_t(r.block), cnt = std::min<uint64_t>(uint64_t(r.block), n - first);
    for (uint64_t t = 0; t < cnt; ++t) {
      chunk[t] = pitfallInt(r.seed, first + t, 999);
      o.exact += chunk[t];
    }
    o.partials.push_back(floatTreePartial(chunk.data(), cnt, r.block));
  }
  // The seed's kernel writes suma[blockIdx.x] (8 bytes each) into a buffer of 4 x blocks bytes:
  // here into an arena of buffer + guard, so every byte it writes is ours.
  o.arena.assign(size_t(o.allocatedBytes + o.guardBytes), o.fill);
  for (uint64_t b = 0; b < o.blocks; ++b) std::memcpy(&o.arena[size_t(b * 8)], &o.partials[b], 8);
  o.fixArena.assign(size_t(o.writtenBytes + 256), o.fill);
  for (uint64_t b = 0; b < o.blocks; ++b) std::memcpy(&o.fixArena[size_t(b * 8)], &o.partials[b], 8);
  // The host copies sizeof(float) x blocks bytes into its long int array (never initialised by
  // the seed: zero here), so only the first half of the partials reach the sum.
  std::vector<int64_t> host(size_t(o.blocks), 0);
  std::memcpy(host.data(), o.arena.data(), size_t(o.allocatedBytes));
  for (int64_t v : host) o.hostSumSeed += v;
  for (uint64_t b = 0; b < o.blocks; ++b) o.hostSumFix += o.partials[b];
  summarizeGuard(&o);
  out.overrun = std::move(o);
}

void cpuMax(const PitfallRequest& r, const std::vector<uint64_t>& sizes, PitfallResult& out) {
  for (uint64_t n : sizes) {
    std::vector<float> data(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n; ++i) data[i] = pitfallMaxData(r.seed, i, n);
    const float exact = *std::max_element(data.begin(), data.end());
    const uint64_t M = uint64_t(r.block);
    for (const auto& [launch, blocks] :
         {std::pair{std::string("seed's grid: N / M blocks"), (n + M - 1) / M},
          std::pair{std::string("two per thread: N / 2M blocks"), (n + 2 * M - 1) / (2 * M)}}) {
      MaxRow row;
      row.launch = launch;
      row.n = n;
      row.blocks = blocks;
      row.exactMax = exact;
      row.maxIndex = pitfallMaxIndex(n);
      row.seedMax = row.fixMax = -1000000000.0f;
      for (uint64_t b = 0; b < blocks; ++b) {  // the host's loop over vmax[]
        row.seedMax = std::max(row.seedMax, seedMaxBlock(data.data(), n, b, blocks, r.block, false));
        row.fixMax = std::max(row.fixMax, seedMaxBlock(data.data(), n, b, blocks, r.block, true));
      }
      out.max.push_back(row);
    }
  }
}

}  // namespace

float kahanData(uint64_t seed, uint64_t i) {
  return std::ldexp(float(mix(seed * 0x9E3779B97F4A7C15ull ^ (i + 1)) >> 40), -24);
}

uint64_t kahanPass(const float* in, float* out, uint64_t n, bool compensated) {
  const uint64_t per = uint64_t(kKahanBlock) * 8, blocks = (n + per - 1) / per;
  float hi[kKahanBlock], lo[kKahanBlock];
  for (uint64_t b = 0; b < blocks; ++b) {
    for (int tid = 0; tid < kKahanBlock; ++tid) {
      float sum = 0, c = 0;
      for (uint64_t k = 0; k < 8; ++k) {
        const uint64_t i = b * per + uint64_t(tid) + k * kKahanBlock;
        if (i >= n) continue;
        if (compensated) {
          const float y = in[i] - c;
          const float t = sum + y;
          c = (t - sum) - y;
          sum = t;
        } else {
          sum += in[i];
        }
      }
      hi[tid] = sum;
      lo[tid] = compensated ? -c : 0.0f;
    }
    for (int stride = kKahanBlock / 2; stride > 0; stride >>= 1)
      for (int tid = 0; tid < stride; ++tid) {
        if (compensated) {
          const float a = hi[tid], bb = hi[tid + stride];
          const float t = a + bb;
          const float z = t - a;
          const float err = (a - (t - z)) + (bb - z);
          hi[tid] = t;
          lo[tid] = lo[tid] + lo[tid + stride] + err;
        } else {
          hi[tid] = hi[tid] + hi[tid + stride];
        }
      }
    out[b] = compensated ? hi[0] + lo[0] : hi[0];
  }
  return blocks;
}

void kahanLoops(const float* data, uint64_t n, KahanRow* row) {
  for (bool compensated : {false, true}) {
    std::vector<double> ms;
    float result = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      float acc = 0, c = 0;
      if (compensated)
        for (uint64_t i = 0; i < n; ++i) {
          const float y = data[i] - c;
          const float t = acc + y;
          c = (t - acc) - y;
          acc = t;
        }
      else
        for (uint64_t i = 0; i < n; ++i) acc += data[i];
      ms.push_back(msSince(t0));
      result = acc;
    }
    std::sort(ms.begin(), ms.end());
    (compensated ? row->loopKahanSum : row->loopSum) = result;
    (compensated ? row->loopKahanMs : row->loopMs) = ms[1];
  }
}

std::vector<AchievedRow> achievedOccupancyRuns() {
  // The occupancy lesson's first step, as lesson text: one reading of the seed's launches.
  static const char* kText =
      "title: t\nstep: s\nset kernel=k1 final=cpu n=2^24 block=512 type=float64\n"
      "run label=Kernel01\nrun label=Kernel02 gpu-passes=2\nrun label=Kernel03 kernel=k2 gpu-passes=2\n"
      "run label=Kernel04 kernel=k3 gpu-passes=2\nrun label=Kernel05 kernel=k4 gpu-passes=2\n"
      "run label=Kernel06 kernel=k5 gpu-passes=2\nrun label=Kernel07 kernel=k7 gpu-passes=1 grid=4096\n";
  static const double kSeed[] = {0.971, 0.971, 0.967, 0.952, 0.949, 0.754, 0.908};
  static const double kNcu[] = {0.942, 0.942, 0.897, 0.879, 0.887, 0.774, 0.888};
  std::string err;
  const std::optional<Lesson> l = parseLesson(kText, "achieved", &err);
  std::vector<AchievedRow> out;
  if (!l) return out;
  for (size_t i = 0; i < l->steps[0].runs.size() && i < 7; ++i) {
    AchievedRow row;
    row.label = l->steps[0].runs[i].label;
    row.config = l->steps[0].runs[i].config;
    row.seedNvprof = kSeed[i];
    row.ncuH200 = kNcu[i];
    out.push_back(row);
  }
  return out;
}

namespace {
void cpuAchieved(PitfallResult& out) {
  const DeviceInfo h200 = assumedH200();
  for (AchievedRow row : achievedOccupancyRuns()) {
    row.theoretical = resourceUsage(row.config, h200, nullptr).occupancy;
    row.counterError = "no GPU: no counter to read";
    out.achieved.push_back(row);
  }
}

void cpuKahan(const PitfallRequest& r, const std::vector<uint64_t>& sizes, PitfallResult& out) {
  for (uint64_t n : sizes) {
    std::vector<float> data(static_cast<size_t>(n)), a, b;
    uint64_t units = 0;
    for (uint64_t i = 0; i < n; ++i) {
      data[i] = kahanData(r.seed, i);
      units += uint64_t(std::ldexp(double(data[i]), 24));
    }
    KahanRow row;
    row.n = n;
    row.exact = std::ldexp(double(units), -24);
    for (bool compensated : {false, true}) {
      const float* from = data.data();
      uint64_t count = n;
      a.assign(static_cast<size_t>((n + 2047) / 2048), 0.0f);
      b = a;
      float* to = a.data();
      do {
        count = kahanPass(from, to, count, compensated);
        from = to;
        to = to == a.data() ? b.data() : a.data();
      } while (count > 1);
      (compensated ? row.treeKahanSum : row.treeSum) = *from;
    }
    kahanLoops(data.data(), n, &row);
    out.kahan.push_back(row);
  }
}
}  // namespace

PitfallResult startPitfallResult(const PitfallRequest& r, const std::string& source, bool onGpu) {
  PitfallResult out;
  out.kind = r.kind;
  out.label = r.label;
  out.block = r.block;
  out.onGpu = onGpu;
  out.source = source;
  out.error = validatePitfall(r);
  return out;
}

PitfallResult runPitfallOnCpu(const PitfallRequest& r) {
  PitfallResult out = startPitfallResult(r, "CPU model", false);
  if (!out.error.empty()) return out;
  const std::vector<uint64_t> sizes = r.sizes.empty() ? defaultPitfallSizes(r.kind) : r.sizes;
  switch (r.kind) {
    case Pitfall::ClockTiming: cpuClock(out); break;
    case Pitfall::FloatSharedSum: cpuFloatSum(r, sizes, out); break;
    case Pitfall::IntegerMean: cpuMean(r, sizes, out); break;
    case Pitfall::UndersizedPartials: cpuOverrun(r, sizes.front(), out); break;
    case Pitfall::DoubleReadMax: cpuMax(r, sizes, out); break;
    case Pitfall::KahanSum: cpuKahan(r, sizes, out); break;
    case Pitfall::AchievedOccupancy: cpuAchieved(out); break;
    case Pitfall::HostCopies:
    case Pitfall::StreamOverlap:
    case Pitfall::ReduceWithCopy:
      runTransfersOnCpu(r, &out);
      if (!out.error.empty()) return out;
      break;
  }
  out.ok = true;
  return out;
}

// ---- presentation ----

Table pitfallTable(const PitfallResult& r) {
  if (isTransferDemo(r.kind)) return transfersTable(r);
  Table t;
  auto add = [&](std::vector<std::string> row) { t.rows.push_back(std::move(row)); };
  auto columns = [&](std::vector<std::pair<std::string, bool>> cols) {
    for (auto& [h, num] : cols) t.headers.push_back(h), t.numeric.push_back(num);
  };
  switch (r.kind) {
    case Pitfall::ClockTiming:
      if (!r.clock.empty()) {
        t.caption = "clock() around an asynchronous launch (the seed) against CUDA events; medians, block " +
                    std::to_string(r.block);
        columns({{"N", true}, {"seed: clock() around the launch us", true}, {"launch call, wall clock us", true},
                 {"fix: clock() + synchronize us", true}, {"wall clock + synchronize us", true},
                 {"fix: CUDA events (kernel) us", true}, {"seed's reading / kernel", true}});
        for (const ClockRow& c : r.clock) {
          add({sizeText(c.n), us(c.clockLaunchMs), us(c.wallLaunchMs), us(c.clockSyncMs), us(c.wallSyncMs), us(c.eventMs),
               c.eventMs > 0 ? fixed(c.clockLaunchMs / c.eventMs, 3) : "-"});
          t.setValue(t.rows.size() - 1, 0, std::to_string(c.n));
        }
      } else {
        t.caption = "clock() is the process's CPU time (CPU model: there is no launch to time)";
        columns({{"what the thread did", false}, {"clock() ms (whole process)", true}, {"the thread's CPU time ms", true},
                 {"wall clock ms", true}});
        for (const ClockCpuRow& c : r.clockCpu)
          add({c.what, fixed(c.clockMs, 2), fixed(c.threadMs, 2), fixed(c.wallMs, 2)});
      }
      break;
    case Pitfall::FloatSharedSum:
      t.caption = "ints summed through a float shared array (the seed) and a long long one (the fix), block " +
                  std::to_string(r.block);
      columns({{"N", true}, {"values", false}, {"exact sum", true}, {"seed: float shared", true}, {"seed's error", true},
               {"inexact blocks", true}, {"sum of |block errors|", true}, {"fix's error", true}});
      for (const FloatSumRow& f : r.floatSum) {
        add({sizeText(f.n), "0.." + withCommas(f.valueMax), withCommas(f.exact), withCommas(f.seedSum),
             withCommas(f.seedSum - f.exact), std::to_string(f.inexactBlocks) + " of " + std::to_string(f.blocks),
             withCommas(f.absBlockError), withCommas(f.fixSum - f.exact)});
        t.setValue(t.rows.size() - 1, 0, std::to_string(f.n));
      }
      break;
    case Pitfall::IntegerMean:
      t.caption = "the mean of ints in 0..999: mediaGPU = sumaGPU / nverts2 (the seed) against double(sum) / N";
      columns({{"N", true}, {"sum", true}, {"seed: long / int", true}, {"fix: double(sum) / N", true}, {"lost", true}});
      for (const MeanRow& m : r.mean) {
        add({sizeText(m.n), withCommas(m.sum), floatText(m.seedMean), fixed(m.correctMean, 6),
             fixed(m.correctMean - double(m.seedMean), 6)});
        t.setValue(t.rows.size() - 1, 0, std::to_string(m.n));
      }
      break;
    case Pitfall::UndersizedPartials:
      if (r.overrun) {
        const OverrunResult& o = *r.overrun;
        t.caption = "long int partials in cudaMalloc(sizeof(float) x blocks), inside an allocation with a guard zone "
                    "filled with 0x" + [&] { char b[4]; std::snprintf(b, sizeof b, "%02X", o.fill); return std::string(b); }();
        columns({{"", false}, {"seed: sizeof(float) x blocks", false}, {"fix: sizeof(long int) x blocks", false}});
        add({"blocks (N = " + sizeText(o.n) + ")", std::to_string(o.blocks), std::to_string(o.blocks)});
        add({"bytes allocated", std::to_string(o.allocatedBytes), std::to_string(o.writtenBytes)});
        add({"bytes the kernel writes", std::to_string(o.writtenBytes), std::to_string(o.writtenBytes)});
        add({"guard bytes changed", std::to_string(o.changedPastEnd) + " (offsets " + std::to_string(o.firstChanged) +
                                        ".." + std::to_string(o.lastChanged) + ")",
             o.fixGuardIntact ? "0" : "CHANGED"});
        add({"bytes past the end hold",
             o.pastEndIsPartials ? "partials " + copiedPartials(o) + ".." + std::to_string(o.blocks - 1) + " exactly"
                                 : "OTHER BYTES",
             "-"});
        add({"first 8 bytes past the end", hexBytes(o.arena, o.allocatedBytes, 8), hexBytes(o.fixArena, o.writtenBytes, 8)});
        add({"guard past the kernel's last write", o.guardTailIntact ? "intact" : "CHANGED", o.fixGuardIntact ? "intact" : "CHANGED"});
        add({"partials the host copy brings", copiedPartials(o) + " of " + std::to_string(o.blocks),
             std::to_string(o.blocks) + " of " + std::to_string(o.blocks)});
        add({"host sum (exact " + withCommas(o.exact) + ")", withCommas(o.hostSumSeed), withCommas(o.hostSumFix)});
      }
      break;
    case Pitfall::KahanSum: {
      t.caption = "one float sum four ways on the same data (k / 2^24 in [0, 1)): the seeds' CPU loop on this machine, "
                  "and the tree (block " + std::to_string(kKahanBlock) + ", 8 elements a thread) " +
                  (r.onGpu ? "on the GPU, its time the median of every pass's kernels"
                           : "in the CPU model: the kernels' operations in the same order, so a GPU's sums; no GPU time");
      columns({{"N", true}, {"how", false}, {"result", true}, {"error", true}, {"ms", true}, {"Kahan's cost", true}});
      for (const KahanRow& k : r.kahan) {
        auto add = [&](const char* how, float v, double ms, double plainMs) {
          t.rows.push_back({count(k.n), how, fixed(double(v), 3), fixed(double(v) - k.exact, 3),
                            ms > 0 ? fixed(ms, 3) : "-",
                            plainMs > 0 && ms > 0 ? fixed(100.0 * (ms / plainMs - 1), 0) + " %" : "-"});
          t.setValue(t.rows.size() - 1, 0, std::to_string(k.n));
        };
        add("CPU loop", k.loopSum, k.loopMs, 0);
        add("CPU loop, Kahan", k.loopKahanSum, k.loopKahanMs, k.loopMs);
        add(r.onGpu ? "GPU tree" : "tree (CPU model)", k.treeSum, k.treeMs, 0);
        add(r.onGpu ? "GPU tree, Kahan + TwoSum" : "tree, Kahan + TwoSum (CPU model)", k.treeKahanSum, k.treeKahanMs, k.treeMs);
      }
      t.notes = {"elements", "", "the float result", "result - the exact sum (the data are multiples of 2^-24: their sum is exact in integers)",
                 "median time: the CPU loop on one core; the tree's kernels on the GPU (every pass)",
                 "Kahan's time over the plain one's, minus 1"};
      break;
    }
    case Pitfall::AchievedOccupancy: {
      t.caption = std::string(r.onGpu ? "the counter read now through CUPTI (" + r.source + "), the first kernel of each launch"
                                      : "the CPU model: the theoretical occupancy of an H200; no counter without a GPU") +
                  "; double, 2^24, 512 threads, final stage on the CPU";
      columns({{"run", false}, {"kernel", false}, {"theoretical", true}, {"achieved (counter, now)", true},
               {"seed's nvprof (K40c)", true}, {"ncu (H200, recorded)", true}, {"kernel ms", true}});
      for (const AchievedRow& a : r.achieved)
        t.rows.push_back({a.label, a.config.kernel, fixed(a.theoretical, 3), a.achieved >= 0 ? fixed(a.achieved, 3) : "-",
                          fixed(a.seedNvprof, 3), fixed(a.ncuH200, 3), a.kernelMs > 0 ? fixed(a.kernelMs, 4) : "-"});
      t.notes = {"", "", "resident warps per SM the launch allows over the SM's maximum (the occupancy calculator)",
                 "sm__warps_active.avg.pct_of_peak_sustained_active / 100 of the first kernel, read now",
                 "the seed's Achieved_occupancy row", "Nsight Compute's same metric, recorded once on an H200",
                 "median kernel time, every pass"};
      break;
    }
    case Pitfall::HostCopies:
    case Pitfall::StreamOverlap:
    case Pitfall::ReduceWithCopy: break;  // transfersTable
    case Pitfall::DoubleReadMax:
      t.caption = "a two-elements-per-thread max whose second read is V_in[i] (the seed) or V_in[i_seg] (the fix), block " +
                  std::to_string(r.block);
      columns({{"launch", false}, {"N", true}, {"blocks", true}, {"exact max", true}, {"seed: V_in[i] twice", true},
               {"fix: V_in[i_seg]", true}, {"seed", false}});
      for (const MaxRow& m : r.max)
        add({m.launch, sizeText(m.n), std::to_string(m.blocks), floatText(m.exactMax), floatText(m.seedMax),
             floatText(m.fixMax), m.seedMax == m.exactMax ? "right" : "WRONG"});
      break;
  }
  return t;
}

std::vector<std::string> pitfallFindings(const PitfallResult& r) {
  std::vector<std::string> out;
  if (!r.ok) return {"not run: " + r.error};
  if (isTransferDemo(r.kind)) return transfersFindings(r);
  const std::string where = r.onGpu ? r.source : "the CPU model";
  switch (r.kind) {
    case Pitfall::ClockTiming: {
      if (!r.clock.empty()) {
        const ClockRow& a = r.clock.front();
        const ClockRow& b = r.clock.back();
        out.push_back("clock() right after the launch reads " + us(a.clockLaunchMs) + " us at N = " + sizeText(a.n) +
                      " and " + us(b.clockLaunchMs) + " us at N = " + sizeText(b.n) + ": the time the CPU took to enqueue "
                      "the launch (the launch call alone takes " + us(a.wallLaunchMs) + " / " + us(b.wallLaunchMs) +
                      " us of wall time), whatever the kernel's work. The kernel itself takes " + us(a.eventMs) + " / " +
                      us(b.eventMs) + " us (CUDA events).");
        out.push_back("The seed's 0.000015 s for N = 1000 is such a launch time. clock() also has a resolution of 1 us "
                      "(CLOCKS_PER_SEC = 1,000,000) and counts CPU time, not elapsed time.");
      } else {
        out.push_back("No GPU here: the launch cannot be timed. The CPU-side fact behind the pitfall is measured instead.");
      }
      if (r.clockCpu.size() == 2) {
        const ClockCpuRow& sl = r.clockCpu[0];
        const ClockCpuRow& sp = r.clockCpu[1];
        out.push_back("clock() is CPU time, not elapsed time: a thread that sleeps " + fixed(sl.wallMs, 1) +
                      " ms uses " + fixed(sl.threadMs, 2) + " ms of CPU, one that spins " + fixed(sp.wallMs, 1) +
                      " ms uses " + fixed(sp.threadMs, 2) + " ms (all of it when it has a core to itself). And "
                      "clock() adds up every thread of the process: it read " + fixed(sl.clockMs, 2) + " ms over the "
                      "sleep. A CPU waiting for the GPU in a blocking synchronisation counts for nothing.");
      }
      break;
    }
    case Pitfall::FloatSharedSum: {
      const FloatSumRow* firstWrong = nullptr;
      for (const FloatSumRow& f : r.floatSum)
        if (!firstWrong && f.seedSum != f.exact) firstWrong = &f;
      out.push_back("A float holds every integer only up to 2^24 = 16,777,216; past it, each addition in the shared "
                    "array rounds. With values 0..999 a block of " + std::to_string(r.block) + " never gets there "
                    "and the float array is exact; with values up to 2^20 each block's partial rounds.");
      const FloatSumRow* lastWrong = nullptr;
      for (const FloatSumRow& f : r.floatSum)
        if (f.valueMax == (firstWrong ? firstWrong->valueMax : -1)) lastWrong = &f;
      if (firstWrong && lastWrong)
        out.push_back("In " + where + " the float shared array misses the exact sum by " +
                      withCommas(firstWrong->seedSum - firstWrong->exact) + " at N = " + sizeText(firstWrong->n) +
                      " and by " + withCommas(lastWrong->seedSum - lastWrong->exact) + " at N = " + sizeText(lastWrong->n) +
                      " (values 0.." + withCommas(firstWrong->valueMax) + "). The blocks' rounding errors grow with N (" +
                      withCommas(firstWrong->absBlockError) + " to " + withCommas(lastWrong->absBlockError) +
                      " in all) and partly cancel. The long long shared array (8 bytes a thread) is exact.");
      break;
    }
    case Pitfall::IntegerMean:
      if (!r.mean.empty()) {
        const MeanRow& m = r.mean.front();
        out.push_back("sumaGPU / nverts2 divides a long int by an int: the quotient is truncated before it reaches the "
                      "float, so the mean of N = " + sizeText(m.n) + " is " + floatText(m.seedMean) + " instead of " +
                      fixed(m.correctMean, 6) + ". double(sum) / N keeps the fraction.");
      }
      break;
    case Pitfall::UndersizedPartials:
      if (r.overrun) {
        const OverrunResult& o = *r.overrun;
        out.push_back("cudaMalloc(sizeof(float) x " + std::to_string(o.blocks) + ") gives " +
                      std::to_string(o.allocatedBytes) + " bytes; the kernel writes " + std::to_string(o.blocks) +
                      " long ints, " + std::to_string(o.writtenBytes) + " bytes: " +
                      std::to_string(o.writtenBytes - o.allocatedBytes) + " past the end. In the seed they land in "
                      "whatever the allocator put next; here the buffer starts a larger allocation of ours whose guard "
                      "zone shows them (" + where + ": " + std::to_string(o.changedPastEnd) + " bytes changed; a written "
                      "byte equal to the fill looks unchanged)" +
                      std::string(o.guardTailIntact ? ", and the guard past the last write is intact." : "."));
        out.push_back("The host then copies sizeof(float) x blocks bytes back: " + copiedPartials(o) + " of the " +
                      std::to_string(o.blocks) + " partials. Its sum is " + withCommas(o.hostSumSeed) +
                      " instead of " + withCommas(o.exact) + ". Allocate and copy sizeof(long int) x blocks.");
      }
      break;
    case Pitfall::KahanSum: {
      if (r.kahan.empty()) break;
      const KahanRow& k = r.kahan.back();
      auto err = [&](float v) { return fixed(std::fabs(double(v) - k.exact), 3); };
      const double spacing = double(std::nextafter(float(k.exact), 1e30f)) - double(float(k.exact));
      out.push_back("At N = " + count(k.n) + " the seeds' CPU loop misses the exact sum by " + err(k.loopSum) +
                    "; with Kahan's compensation by " + err(k.loopKahanSum) + ". Each addition to a running sum near " +
                    fixed(k.exact, 0) + " rounds to a spacing of " + fixed(spacing, 3) +
                    ", and the loop makes N of them; Kahan keeps what each lost and adds it back." +
                    (k.loopSum == 16777216.0f && k.exact > 16777216.0 + 1
                         ? " The loop's sum stopped at 2^24 = 16,777,216: there the spacing is 2, more than twice any "
                           "element, so every addition rounds back down."
                         : ""));
      out.push_back("The tree misses by " + err(k.treeSum) + " plain and " + err(k.treeKahanSum) + " with Kahan and TwoSum (" +
                    (r.onGpu ? r.source : "the CPU model") + "): it adds numbers of similar size, so it is already "
                    "within a few spacings; half a spacing is all a float result can promise.");
      if (k.treeMs > 0 && k.treeKahanMs > 0)
        out.push_back("Kahan costs three more additions per element in the loop (and TwoSum's extra ones in the tree): " + fixed(100.0 * (k.treeKahanMs / k.treeMs - 1), 0) +
                      " % in the GPU's time (it waits on memory, not on arithmetic), " +
                      fixed(100.0 * (k.loopKahanMs / k.loopMs - 1), 0) + " % in the CPU loop's. A double accumulator "
                      "(the previous step) is exact for these data.");
      break;
    }
    case Pitfall::AchievedOccupancy: {
      const AchievedRow* k6 = nullptr;
      double lo = 2, hi = -1, thLo = 2, thHi = -1;
      std::string why;
      int unread = 0;
      for (const AchievedRow& a : r.achieved) {
        thLo = std::min(thLo, a.theoretical), thHi = std::max(thHi, a.theoretical);
        if (a.achieved < 0) {
          if (why.empty()) why = a.counterError;
          ++unread;
          continue;
        }
        if (a.label == "Kernel06") k6 = &a;
        else lo = std::min(lo, a.achieved), hi = std::max(hi, a.achieved);
      }
      if (unread > 0)
        out.push_back("The counter was not read for " + std::to_string(unread) + " of " + std::to_string(r.achieved.size()) +
                      " launches: " + why + ". The recorded ncu column is the same metric on an H200.");
      const std::string allows = thLo == thHi ? "allows " + fixed(thLo, 2) : "allows " + fixed(thLo, 2) + " to " + fixed(thHi, 2);
      if (k6 && hi >= 0 && k6->achieved < lo)
        out.push_back("Read now, Kernel06 reaches " + fixed(k6->achieved, 3) + " against " + fixed(lo, 3) + " to " +
                      fixed(hi, 3) + " for the others (the seed: 0.754 against 0.908 to 0.971), while every launch " +
                      allows + ": its idle warps leave early, so fewer stay resident.");
      else if (k6 && hi >= 0)
        out.push_back("Read now, Kernel06 reaches " + fixed(k6->achieved, 3) + ", the others " + fixed(lo, 3) + " to " +
                      fixed(hi, 3) + ": here it is not the lowest, as it was in the seed's row (0.754).");
      break;
    }
    case Pitfall::HostCopies:
    case Pitfall::StreamOverlap:
    case Pitfall::ReduceWithCopy: break;  // transfersFindings
    case Pitfall::DoubleReadMax:
      for (const MaxRow& m : r.max)
        if (m.seedMax != m.exactMax)
          out.push_back("Launched two elements per thread (" + std::to_string(m.blocks) + " blocks), the seed's kernel "
                        "reads V_in[i] for both elements: the second half of the array is never read, and the maximum " +
                        floatText(m.exactMax) + " at index " + std::to_string(m.maxIndex) + " (the second element of "
                        "its pair) is missed: " + floatText(m.seedMax) + ". Reading V_in[i_seg] finds it.");
      for (const MaxRow& m : r.max)
        if (m.seedMax == m.exactMax && m.blocks * uint64_t(r.block) >= m.n) {
          out.push_back("With the seed's own launch (one element per thread, " + std::to_string(m.blocks) +
                        " blocks) i_seg is never below N: the second read never happens, and the answer is right by "
                        "accident.");
          break;
        }
      break;
  }
  return out;
}

std::string pitfallSeedCode(Pitfall p) {
  switch (p) {
    case Pitfall::ClockTiming:
      return "time = clock();\nfloyd_reduccion<<<blocks, threads, smem>>>(...);\nTgpu = (clock() - time) / CLOCKS_PER_SEC;";
    case Pitfall::FloatSharedSum:
      return "extern __shared__ float sdata[];\nsdata[tid] = ((i < nverts2) ? M[i] : 0.0f);";
    case Pitfall::IntegerMean: return "long int sumaGPU; float mediaGPU;\nmediaGPU = sumaGPU / nverts2;";
    case Pitfall::UndersizedPartials:
      return "long int *suma_GPU_d;\ncudaMalloc((void **) &suma_GPU_d, sizeof(float)*numBlocks);\n"
             "cudaMemcpy(suma_GPU, suma_GPU_d, numBlocks*sizeof(float), ...);";
    case Pitfall::DoubleReadMax:
      return "int i_seg = gridDim.x * blockDim.x + i;\nsegundo_valor = ((i_seg < N) ? V_in[i] : -1000000000.0f);";
    case Pitfall::KahanSum:
      return "float sum = 0;\nfor (k = 0; k < 8; ++k) sum += in[i + k * blockDim.x];\n"
             "... sdata[tid] += sdata[tid + s];  /* the tree */";
    case Pitfall::AchievedOccupancy:
      return "nvprof --metrics achieved_occupancy ./reduction";
    case Pitfall::HostCopies:
      return "A = (float *) malloc(size);\nerr = cudaMemcpy(d_In_M, A, size, cudaMemcpyHostToDevice);";
    case Pitfall::StreamOverlap:
      return "cudaMemcpy(input_d, input_h, 2 * size, cudaMemcpyHostToDevice);\nmyKernel<<<grid, block>>>(input_d, "
             "output_d, 2 * size);\ncudaMemcpy(output_h, output_d, 2 * size, cudaMemcpyDeviceToHost);";
    case Pitfall::ReduceWithCopy:
      return "for (...) {\n  cudaMemcpy(V_d, V, N * sizeof(int), cudaMemcpyHostToDevice);\n  reduce<<<...>>>(V_d, ...);\n}";
  }
  return {};
}

std::string pitfallFixCode(Pitfall p) {
  switch (p) {
    case Pitfall::ClockTiming:
      return "cudaEventRecord(start);\nfloyd_reduccion<<<blocks, threads, smem>>>(...);\ncudaEventRecord(stop);\n"
             "cudaEventSynchronize(stop);  cudaEventElapsedTime(&ms, start, stop);";
    case Pitfall::FloatSharedSum:
      return "extern __shared__ long long sdata[];\nsdata[tid] = ((i < nverts2) ? M[i] : 0);";
    case Pitfall::IntegerMean: return "double mediaGPU = double(sumaGPU) / nverts2;";
    case Pitfall::UndersizedPartials:
      return "cudaMalloc((void **) &suma_GPU_d, sizeof(long int)*numBlocks);\n"
             "cudaMemcpy(suma_GPU, suma_GPU_d, numBlocks*sizeof(long int), ...);";
    case Pitfall::DoubleReadMax: return "segundo_valor = ((i_seg < N) ? V_in[i_seg] : -1000000000.0f);";
    case Pitfall::KahanSum:
      return "float y = in[i] - c, t = sum + y;\nc = (t - sum) - y;  sum = t;  /* what the addition lost */\n"
             "... TwoSum in the tree: t = a + b; z = t - a; err = (a - (t - z)) + (b - z);";
    case Pitfall::AchievedOccupancy:
      return "cuptiRangeProfilerSetConfig(... CUPTI_AutoRange, CUPTI_KernelReplay ...);\n"
             "metric: sm__warps_active.avg.pct_of_peak_sustained_active";
    case Pitfall::HostCopies:
      return "cudaMallocHost((void **) &A, size);  /* page-locked */\ncudaMemcpyAsync(d_In_M, A, size, "
             "cudaMemcpyHostToDevice, stream);";
    case Pitfall::StreamOverlap:
      return "for (int i = 0; i < 2; ++i) cudaMemcpyAsync(input_d + i * size, input_h + i * size, size, H2D, stream[i]);\n"
             "for (int i = 0; i < 2; ++i) myKernel<<<grid, block, 0, stream[i]>>>(input_d + i * size, ...);\n"
             "for (int i = 0; i < 2; ++i) cudaMemcpyAsync(output_h + i * size, output_d + i * size, size, D2H, stream[i]);";
    case Pitfall::ReduceWithCopy:
      return "cudaMemcpy(V_d, V, N * sizeof(int), cudaMemcpyHostToDevice);  /* once */\nfor (...) reduce<<<...>>>(V_d, ...);";
  }
  return {};
}

}  // namespace rl
