// Host <-> device transfers: the link's theoretical rate, the CPU model, the tables and the
// findings. The GPU's measurements are kernels/cuda/transfers.cu.
#include "reducelab/transfers.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "reducelab/collective.hpp"
#include "reducelab/occupancy.hpp"
#include "reducelab/pitfalls.hpp"
#include "reducelab/types.hpp"

namespace rl {

namespace {

std::string us(double ms) { return ms > 0 ? fixed(ms * 1e3, 1) : "-"; }
std::string gbs(uint64_t bytes, double ms) { return ms > 0 ? fixed(double(bytes) / (ms * 1e-3) / 1e9, 2) : "-"; }
std::string pct(double part, double whole) { return whole > 0 && part > 0 ? fixed(100.0 * part / whole, 0) + " %" : "-"; }
double rate(uint64_t bytes, double ms) { return ms > 0 ? double(bytes) / (ms * 1e-3) / 1e9 : 0; }

std::string readLine(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// The bytes each way a row moves over the link ("both": twice, at once).
uint64_t linkBytes(const TransferRow& t) { return t.direction == TransferDirection::Both ? 2 * t.bytes : t.bytes; }

double medianMs(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<TransferDirection> directionsOf(const PitfallRequest& r) {
  if (!r.directions.empty()) return r.directions;
  return {TransferDirection::HostToDevice, TransferDirection::DeviceToHost, TransferDirection::Both};
}


}  // namespace

std::string_view name(TransferDirection d) {
  switch (d) {
    case TransferDirection::HostToDevice: return "H2D";
    case TransferDirection::DeviceToHost: return "D2H";
    case TransferDirection::Both: return "both";
  }
  return "?";
}

double pcieGBs(int generation, int width) {
  static const double kGts[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (generation < 1 || generation > 6 || width < 1 || width > 32) return 0;
  // 8b/10b up to Gen2, 128b/130b from Gen3; Gen6's FLIT mode carries 242 of each 256 bytes.
  const double encoding = generation <= 2 ? 0.8 : generation <= 5 ? 128.0 / 130.0 : 242.0 / 256.0;
  return kGts[generation] * encoding * width / 8.0;
}

int pcieGenerationOfSpeed(double gts) {
  static const double kGts[] = {2.5, 5, 8, 16, 32, 64};
  for (int g = 0; g < 6; ++g)
    if (std::fabs(gts - kGts[g]) < 0.01) return g + 1;
  return 0;
}

LinkInfo readPcieLinkFromSysfs(const std::string& pciBusId, const std::string& sysRoot) {
  LinkInfo out;
  // CUDA writes "0000:1B:00.0" (some versions an 8-digit domain); sysfs has "0000:1b:00.0".
  std::string id;
  for (char ch : pciBusId) id += char(std::tolower(static_cast<unsigned char>(ch)));
  if (const size_t colon = id.find(':'); colon == 8 && id.compare(0, 4, "0000") == 0) id = id.substr(4);
  if (id.empty() || id.find('/') != std::string::npos || id.find("..") != std::string::npos) return out;
  const std::string dir = sysRoot + "/bus/pci/devices/" + id + "/";
  auto generationIn = [&](const std::string& d, const std::string& file) {
    const std::string s = readLine(d + file);  // "32.0 GT/s PCIe"
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return end != s.c_str() ? pcieGenerationOfSpeed(v) : 0;
  };
  auto widthIn = [&](const std::string& d, const std::string& file) { return std::atoi(readLine(d + file).c_str()); };
  int gen = generationIn(dir, "max_link_speed"), w = widthIn(dir, "max_link_width");
  if (pcieGBs(gen, w) <= 0) return out;
  // The device's own maximum; the port above it (the devices entry is a link into that port's
  // folder) may allow less: a Gen5 GPU in a Gen4 slot trains at Gen4.
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(dir, ec);
  if (!ec && real.has_parent_path()) {
    const std::string up = real.parent_path().string() + "/";
    const int upGen = generationIn(up, "max_link_speed"), upW = widthIn(up, "max_link_width");
    if (pcieGBs(upGen, upW) > 0) gen = std::min(gen, upGen), w = std::min(w, upW);
  }
  out.known = true;
  out.name = "PCIe Gen" + std::to_string(gen) + " x" + std::to_string(w);
  out.gbs = pcieGBs(gen, w);
  out.source = "sysfs, " + id;
  const int genNow = generationIn(dir, "current_link_speed"), wNow = widthIn(dir, "current_link_width");
  if (pcieGBs(genNow, wNow) > 0 && (genNow != gen || wNow != w))
    out.now = "at Gen" + std::to_string(genNow) + " x" + std::to_string(wNow) + " when read (an idle link slows down)";
  return out;
}

std::string hostMemoryRefusal(uint64_t bytes) {
  // MemAvailable: free memory plus what the kernel can reclaim (page cache), unlike MemFree.
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") {
      const uint64_t avail = kib * 1024;
      if (bytes > avail / 2)
        return "needs " + collective::formatBytes(bytes) + " of host memory; " + collective::formatBytes(avail) +
               " is available, and at most half of it is used";
      return {};
    }
  return {};  // unknown: the allocation itself says
}

int transferReps(uint64_t bytes) {
  return bytes <= (uint64_t(4) << 20) ? 20 : bytes <= (uint64_t(64) << 20) ? 10 : bytes <= (uint64_t(1) << 30) ? 5 : 3;
}

LinkInfo assumedLink() {
  LinkInfo l;
  l.known = true;
  l.name = "PCIe Gen5 x16";
  l.gbs = pcieGBs(5, 16);
  l.source = "assumed: the CPU model's H200 on PCIe Gen5 x16";
  return l;
}

std::vector<uint64_t> defaultTransferSizes() {
  return {uint64_t(1) << 10, uint64_t(16) << 10, uint64_t(256) << 10, uint64_t(4) << 20, uint64_t(64) << 20,
          uint64_t(1) << 30};
}

std::string validateTransfers(const PitfallRequest& r) {
  const std::vector<uint64_t> sizes = r.sizes.empty() ? defaultPitfallSizes(r.kind) : r.sizes;
  if (sizes.empty() || sizes.size() > 8) return "a transfers step takes 1 to 8 sizes";
  for (uint64_t b : sizes) {
    if (b < kTransferMinBytes || b > kTransferMaxBytes)
      return "size " + collective::formatBytes(b) + " is out of range for " + std::string(name(r.kind)) +
             " (bytes, 1K to 4G)";
    if (r.kind != Pitfall::HostCopies && b % 4 != 0)
      return "size " + std::to_string(b) + " is not a whole number of int32 elements (a multiple of 4 bytes)";
  }
  for (size_t i = 0; i < sizes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (sizes[i] == sizes[j]) return "size " + collective::formatBytes(sizes[i]) + " is given twice";
  for (size_t i = 0; i < r.directions.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (r.directions[i] == r.directions[j]) return "direction " + std::string(name(r.directions[i])) + " is given twice";
  if (r.kind != Pitfall::HostCopies && !r.directions.empty())
    return std::string(name(r.kind)) + " has no directions (copies has)";
  if (r.kind == Pitfall::StreamOverlap && sizes.size() != 1) return "streams takes one size";
  if (r.streams < 1 || r.streams > 8) return "streams=" + std::to_string(r.streams) + " is not from 1 to 8";
  if (r.kind != Pitfall::StreamOverlap && r.streams != PitfallRequest{}.streams)
    return std::string(name(r.kind)) + " has no streams setting (streams has)";
  return {};
}

void runTransfersOnCpu(const PitfallRequest& r, PitfallResult* out) {
  TransferResults& t = out->transfers;
  t.modelled = true;
  t.link = assumedLink();
  const std::vector<uint64_t> sizes = r.sizes.empty() ? defaultPitfallSizes(r.kind) : r.sizes;
  const double linkMs = 1e3 / (t.link.gbs * 1e9);  // per byte
  switch (r.kind) {
    case Pitfall::HostCopies: {
      // The one part of a pageable transfer this machine can measure: the host copy into the
      // runtime's staging buffer. Both buffers touched first, as the seed's data would be.
      const uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
      if (std::string e = hostMemoryRefusal(2 * largest); !e.empty()) {
        out->error = e;
        return;
      }
      std::unique_ptr<unsigned char[]> a(new (std::nothrow) unsigned char[largest]), b(new (std::nothrow) unsigned char[largest]);
      if (!a || !b) {
        out->error = "cannot allocate 2 x " + collective::formatBytes(largest) + " of host memory";
        return;
      }
      std::memset(a.get(), 0x5A, largest);
      std::memset(b.get(), 0, largest);
      for (uint64_t bytes : sizes) {
        std::vector<double> ms;
        for (int k = 0; k < transferReps(bytes) + 1; ++k) {
          const auto t0 = std::chrono::steady_clock::now();
          std::memcpy(b.get(), a.get(), bytes);
          const double d = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          if (k > 0) ms.push_back(d);  // the first touches the caches and the TLB
        }
        for (TransferDirection d : directionsOf(r)) {
          TransferRow row;
          row.bytes = bytes;
          row.direction = d;
          row.reps = transferReps(bytes);
          row.hostCopyMs = medianMs(ms);
          t.rows.push_back(row);
        }
      }
      break;
    }
    case Pitfall::StreamOverlap: {
      // The pipeline's arithmetic with copy in = kernel = copy out = one copy's theoretical time:
      // one stream takes the three in turn; S streams overlap the chunks' stages (one copy engine
      // each way, the kernel on the SMs).
      const uint64_t bytes = sizes.front();
      t.parts.copyInMs = t.parts.kernelMs = t.parts.copyOutMs = double(bytes) * linkMs;
      for (int s = 1; s <= r.streams; ++s) {
        StreamRow row;
        row.streams = s;
        row.bytes = bytes;
        row.ms = t.parts.copyInMs * double(s + 2) / double(s);
        t.streams.push_back(row);
      }
      break;
    }
    case Pitfall::ReduceWithCopy: {
      const double hbm = assumedH200().theoreticalPeakGBs();
      for (uint64_t bytes : sizes) {
        const double kernelMs = double(bytes) / (hbm * 1e9) * 1e3, copyMs = double(bytes) * linkMs;
        t.reduce.push_back({"kernel only (data already on the GPU)", bytes / 4, kernelMs, 0, 0});
        t.reduce.push_back({"pinned copy + kernel", bytes / 4, kernelMs + copyMs, 0, 0});
      }
      break;
    }
    default: break;
  }
}

Table transfersTable(const PitfallResult& r) {
  Table t;
  const TransferResults& x = r.transfers;
  auto columns = [&](std::vector<std::pair<std::string, bool>> cols) {
    for (auto& [h, num] : cols) t.headers.push_back(h), t.numeric.push_back(num);
  };
  const std::string link = x.link.known ? x.link.name + ", " + fixed(x.link.gbs, 1) + " GB/s each way" : "not readable here";
  switch (r.kind) {
    case Pitfall::HostCopies: {
      auto linkUs = [&](uint64_t bytes) {
        const double v = x.link.gbs > 0 ? double(bytes) / (x.link.gbs * 1e9) * 1e6 : 0;
        return v <= 0 ? std::string("-") : fixed(v, v < 10 ? 3 : 1);
      };
      bool allSame = true;
      for (const TransferRow& row : x.rows) allSame = allSame && row.checked;
      if (x.modelled) {
        // Nothing of the GPU's is measured: the host copy, and the link's own time.
        t.caption = "CPU model: the host copy measured here, and the link's theoretical time for " + link + " (" +
                    x.link.source + "); no GPU, so no transfer measured";
        columns({{"size", true}, {"direction", false}, {"host memcpy GB/s", true}, {"link's time us", true}});
        for (const TransferRow& row : x.rows) {
          t.rows.push_back({collective::formatBytes(row.bytes), std::string(name(row.direction)),
                            gbs(row.bytes, row.hostCopyMs), linkUs(row.bytes)});
          t.setValue(t.rows.size() - 1, 0, std::to_string(row.bytes));
        }
        t.notes = {"bytes each way", "H2D: host to device; D2H: device to host; both: one of each at once",
                   "memcpy between two host buffers: the extra copy the runtime makes of pageable memory",
                   "the size / the link's theoretical rate one way"};
        break;
      }
      t.caption = "medians, from the call to the copy's end (wall clock); the link: " + link +
                  (x.link.known ? " (" + x.link.source + (x.link.now.empty() ? "" : "; " + x.link.now) + ")" : "") +
                  "; every copy compared byte for byte with its source: " +
                  (allSame ? "identical" : "a copy DIFFERS");
      columns({{"size", true}, {"direction", false}, {"pageable us", true}, {"pageable GB/s", true}, {"pinned us", true},
               {"pinned GB/s", true}, {"mapped us", true}, {"mapped GB/s", true}, {"host memcpy GB/s", true},
               {"pinned / link", true}});
      for (const TransferRow& row : x.rows) {
        const uint64_t b = linkBytes(row);
        t.rows.push_back({collective::formatBytes(row.bytes), std::string(name(row.direction)), us(row.pageableMs),
                          gbs(b, row.pageableMs), us(row.pinnedMs), gbs(b, row.pinnedMs), us(row.mappedMs),
                          gbs(b, row.mappedMs), gbs(row.bytes, row.hostCopyMs),
                          pct(rate(b, row.pinnedMs), x.link.gbs * (row.direction == TransferDirection::Both ? 2 : 1))});
        t.setValue(t.rows.size() - 1, 0, std::to_string(row.bytes));
      }
      t.notes = {"bytes each way",
                 "H2D: host to device; D2H: device to host; both: one of each at once, on two streams",
                 "malloc'd host memory: cudaMemcpyAsync, then the wait for it",
                 "the bytes moved (both directions: twice the size) / the median time",
                 "cudaHostAlloc'd (page-locked) host memory: cudaMemcpyAsync, then the wait",
                 "",
                 "cudaHostAllocMapped host memory read or written by a copy kernel over the link",
                 "",
                 "memcpy between two host buffers: the extra copy the runtime makes of pageable memory",
                 "pinned GB/s / the link's theoretical rate (both directions: twice it)"};
      break;
    }
    case Pitfall::StreamOverlap: {
      t.caption = x.modelled ? "CPU model: the pipeline's arithmetic, each stage one copy's theoretical time over " + link +
                                   " (no GPU: nothing measured)"
                             : "medians, CUDA events around the loop (seed 004's timing); the kernel iterates " +
                                   std::to_string(x.parts.work) + " times per element, about a copy's time";
      columns({{"what", false}, {"streams", true}, {"ms", true}, {"vs one stream", true}, {"output", false}});
      t.rows.push_back({"copy in alone", "1", fixed(x.parts.copyInMs, 3), "-", "-"});
      t.rows.push_back({"kernel alone", "1", fixed(x.parts.kernelMs, 3), "-", "-"});
      t.rows.push_back({"copy out alone", "1", fixed(x.parts.copyOutMs, 3), "-", "-"});
      const double one = x.streams.empty() ? 0 : x.streams.front().ms;
      for (const StreamRow& s : x.streams)
        t.rows.push_back({"in, kernel, out of " + collective::formatBytes(s.bytes), std::to_string(s.streams),
                          fixed(s.ms, 3), s.ms > 0 ? "x" + fixed(one / s.ms, 2) : "-",
                          x.modelled ? "-" : s.checked ? "right" : "WRONG"});
      break;
    }
    case Pitfall::ReduceWithCopy:
      t.caption = x.modelled ? "CPU model: the copy's theoretical time over " + link + " and the kernel's at the H200's "
                                   "memory peak (no GPU: nothing measured)"
                             : "CUB's DeviceReduce::Sum of int32 into int64; medians, wall clock from the first call to "
                               "the result on the host";
      columns({{"N", true}, {"what", false}, {"ms", true}, {"in the copy", true}, {"result", false}});
      for (const ReduceCopyRow& q : x.reduce) {
        double kernelOnly = 0;
        for (const ReduceCopyRow& k : x.reduce)
          if (k.n == q.n && kernelOnly == 0) kernelOnly = k.ms;  // each size's first row is the kernel alone
        t.rows.push_back({formatCount(q.n), q.what, fixed(q.ms, 3),
                          q.ms > kernelOnly && kernelOnly > 0 ? pct(q.ms - kernelOnly, q.ms) : "-",
                          x.modelled ? "-" : q.result == q.exact ? "exact" : "WRONG"});
        t.setValue(t.rows.size() - 1, 0, std::to_string(q.n));
      }
      break;
    default: break;
  }
  return t;
}

std::vector<std::string> transfersFindings(const PitfallResult& r) {
  std::vector<std::string> out;
  const TransferResults& x = r.transfers;
  const std::string where = r.onGpu ? r.source.substr(r.source.find(':') == std::string::npos ? 0 : r.source.find(':') + 2) : "";
  switch (r.kind) {
    case Pitfall::HostCopies: {
      // Each direction's largest and smallest row (a step may measure D2H and both only).
      auto largest = [&](TransferDirection d) {
        const TransferRow* b = nullptr;
        for (const TransferRow& t : x.rows)
          if (t.direction == d && (!b || t.bytes > b->bytes)) b = &t;
        return b;
      };
      const TransferRow* h2d = largest(TransferDirection::HostToDevice);
      const TransferRow* d2h = largest(TransferDirection::DeviceToHost);
      const TransferRow* both = largest(TransferDirection::Both);
      const TransferRow* one = h2d ? h2d : d2h;  // a one-way row for the rates
      const TransferRow* smallest = nullptr;
      for (const TransferRow& t : x.rows)
        if (!smallest || t.bytes < smallest->bytes) smallest = &t;
      const TransferRow* any = one ? one : both;
      const std::string linkText = x.link.known ? x.link.name + "'s " + fixed(x.link.gbs, 1) + " GB/s" : "";
      if (x.modelled) {
        out.push_back("No GPU here: no transfer is measured. Over " + x.link.name + " a copy cannot beat " +
                      fixed(x.link.gbs, 1) + " GB/s each way; the seed's GPU had PCIe x16 at 4 GB/s and reached 1.5 GB/s "
                      "from pageable memory, 3 GB/s from pinned.");
        if (any && any->hostCopyMs > 0)
          out.push_back("Pageable memory is copied twice: the runtime first copies it into a pinned staging buffer, "
                        "which is a host memcpy, measured here at " + gbs(any->bytes, any->hostCopyMs) + " GB/s for " +
                        collective::formatBytes(any->bytes) + ".");
        break;
      }
      if (!x.link.known)
        out.push_back("The link's generation and width could not be read (sysfs, NVML): no theoretical rate to compare with.");
      if (one && one->pinnedMs > 0)
        out.push_back("From pinned memory, " + collective::formatBytes(one->bytes) +
                      (one == h2d ? " goes to the GPU at " : " comes back from the GPU at ") + gbs(one->bytes, one->pinnedMs) +
                      " GB/s" + (x.link.known ? ": " + pct(rate(one->bytes, one->pinnedMs), x.link.gbs) + " of " + linkText +
                                                    " (packet headers and the DMA's requests take the rest)"
                                              : "") +
                      ". From pageable memory: " + gbs(one->bytes, one->pageableMs) +
                      " GB/s; the runtime copies it through a pinned staging buffer (host memcpy here: " +
                      gbs(one->bytes, one->hostCopyMs) + " GB/s).");
      if (smallest && one && smallest->bytes <= (uint64_t(64) << 10) && smallest->bytes < one->bytes && smallest->pinnedMs > 0)
        out.push_back("A " + collective::formatBytes(smallest->bytes) + " copy takes " + us(smallest->pinnedMs) +
                      " us pinned and " + us(smallest->pageableMs) + " us pageable: a fixed cost per call that no link "
                      "speed removes. Seed 004: group many small transfers into one large one.");
      if (one && one->mappedMs > 0)
        out.push_back("Mapped memory needs no copy call: the kernel " + std::string(one == h2d ? "reads" : "writes") +
                      " host memory over the link itself, at " + gbs(one->bytes, one->mappedMs) +
                      " GB/s here. Worth it for data used once; data read twice crosses the link twice.");
      if (both && both->pinnedMs > 0) {
        const double together = rate(2 * both->bytes, both->pinnedMs);
        double alone = 0;  // the faster single direction at that size
        for (const TransferRow& t : x.rows)
          if (t.bytes == both->bytes && t.direction != TransferDirection::Both) alone = std::max(alone, rate(t.bytes, t.pinnedMs));
        std::string f = "Both directions at once (pinned, two streams): " + gbs(2 * both->bytes, both->pinnedMs) + " GB/s in all";
        if (alone > 0 && together > 1.3 * alone)
          f += ", against " + fixed(alone, 2) + " GB/s one way: the link carries each direction on its own lanes" +
               (x.copyEngines >= 2 ? ", and this GPU has " + std::to_string(x.copyEngines) + " copy engines to fill both" : "");
        else if (alone > 0)
          f += ", no more than one way (" + fixed(alone, 2) + " GB/s): the two copies did not overlap" +
               (x.copyEngines == 1 ? " (this GPU has one copy engine)" : "");
        out.push_back(f + ". From pageable memory: " + gbs(2 * both->bytes, both->pageableMs) + " GB/s.");
      }
      std::string seed = "Seed 004's GPU (PCIe x16, 4 GB/s) reached 1.5 GB/s pageable (38 %) and 3 GB/s pinned (75 %)";
      if (one && one->pinnedMs > 0 && x.link.known)
        seed += "; this " + where + ": " + pct(rate(one->bytes, one->pageableMs), x.link.gbs) + " and " +
                pct(rate(one->bytes, one->pinnedMs), x.link.gbs);
      out.push_back(seed + ".");
      bool allSame = true;
      for (const TransferRow& t : x.rows) allSame = allSame && t.checked;
      if (!allSame) out.push_back("A copy DIFFERS from its source.");
      break;
    }
    case Pitfall::StreamOverlap: {
      if (x.streams.empty()) break;
      const double sum = x.parts.copyInMs + x.parts.kernelMs + x.parts.copyOutMs;
      const StreamRow& one = x.streams.front();
      const StreamRow& last = x.streams.back();
      if (x.modelled)
        out.push_back("No GPU here: the times are the pipeline's arithmetic. With every stage equal, one stream takes "
                      "the three in turn (3 units); S streams let chunk i's kernel run while chunk i+1 comes in and "
                      "chunk i-1 goes out: (S + 2) / S units, 1.5 with 4 streams.");
      else
        out.push_back("On one stream the three stages run in turn: " + fixed(one.ms, 3) + " ms against " + fixed(sum, 3) +
                      " ms for the parts alone. With " + std::to_string(last.streams) + " streams, chunk i's kernel "
                      "runs while the next chunk comes in and the previous one goes out: " + fixed(last.ms, 3) +
                      " ms, x" + fixed(one.ms / last.ms, 2) + ". No schedule beats the longest stage (" +
                      fixed(std::max({x.parts.copyInMs, x.parts.kernelMs, x.parts.copyOutMs}), 3) + " ms)" +
                      (x.copyEngines >= 2 ? "; with " + std::to_string(x.copyEngines) +
                                                " copy engines, a chunk's copy in and another's copy out can run at once"
                                          : x.copyEngines == 1 ? "; with one copy engine, copies in and out take turns" : "") + ".");
      out.push_back("Seed 004 queues every copy in, then every kernel, then every copy out (its loop, as here); the "
                    "overlap needs pinned memory (cudaMallocHost) and cudaMemcpyAsync on non-default streams.");
      break;
    }
    case Pitfall::ReduceWithCopy: {
      for (size_t i = 0; i + 1 < x.reduce.size(); ++i) {
        const ReduceCopyRow& k = x.reduce[i];
        if (k.what.rfind("kernel only", 0) != 0) continue;
        const ReduceCopyRow& p = x.reduce[i + 1];
        out.push_back("Summing " + formatCount(k.n) + " ints takes " + fixed(k.ms, 3) + " ms when they are on the GPU "
                      "already; copied in from pinned memory first, " + fixed(p.ms, 3) + " ms, " +
                      pct(p.ms - k.ms, p.ms) + " of it the copy" +
                      (i + 2 < x.reduce.size() && x.reduce[i + 2].n == k.n
                           ? "; from pageable memory, " + fixed(x.reduce[i + 2].ms, 3) + " ms"
                           : "") + (x.modelled ? " (CPU model: theoretical times)." : "."));
        break;
      }
      out.push_back("A reduction reads each element once: the GPU's memory delivers it many times faster than the link "
                    "can bring it. Keep data on the GPU between kernels, as seeds 002-004 advise (\"minimizar "
                    "transferencias\").");
      for (const ReduceCopyRow& q : x.reduce)
        if (!x.modelled && q.result != q.exact) {
          out.push_back("A result is WRONG: " + std::to_string(q.result) + " instead of " + std::to_string(q.exact) + ".");
          break;
        }
      break;
    }
    default: break;
  }
  return out;
}

}  // namespace rl
