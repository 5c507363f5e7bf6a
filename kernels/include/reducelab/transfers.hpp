#pragma once
// Host <-> device transfers (seeds 002-004: "minimise transfers", PCIe 1.5 GB/s pageable and
// 3 GB/s pinned on a 4 GB/s link, two streams overlapping copies and a kernel). Three
// demonstrations beside seed 002's pitfalls, run the same way (pitfalls.hpp: a request, a result,
// a table and findings; the GPU through the engine, the CPU model without one):
//   copies         pageable, pinned and mapped memory; host to device, device to host, both at once;
//                  a size sweep; against the link's theoretical rate read from the device
//   streams        copy in, kernel, copy out on 1..4 streams (seed 004's loop)
//   reduce-copy    a reduction of data that lives on the host: with and without its transfer
// Not a kernel family: a copy has no threads, geometry or trace for a family to describe.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rl {

struct PitfallRequest;
struct PitfallResult;
struct Table;

// The link between host and GPU, per direction.
struct LinkInfo {
  bool known = false;
  std::string name;       // "PCIe Gen5 x16"
  double gbs = 0;         // theoretical, one direction, 1e9 bytes/s (after line encoding)
  std::string now;        // "running at Gen1 x16 now (idle links slow down)"; "" when the same or unknown
  std::string source;     // "sysfs 0000:1b:00.0", "NVML", "assumed (CPU model: an H200 on PCIe Gen5 x16)"
};
// PCIe: GT/s per lane x encoding (8b/10b to Gen2, 128b/130b from Gen3) x width / 8; 0 if unknown.
double pcieGBs(int generation, int width);
int pcieGenerationOfSpeed(double gts);  // 2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6; 0 otherwise
// From /sys/bus/pci/devices/<bus id>/{max,current}_link_{speed,width}, limited by the port above it
// where that folder says; known = false when unreadable.
LinkInfo readPcieLinkFromSysfs(const std::string& pciBusId, const std::string& sysRoot = "/sys");
// What the CPU model assumes (an H200 on PCIe Gen5 x16), and seed 004's GPU (PCIe x16 at 4 GB/s).
LinkInfo assumedLink();

enum class TransferDirection { HostToDevice, DeviceToHost, Both };
std::string_view name(TransferDirection d);  // "H2D", "D2H", "both"

// One size and direction: each memory's median time over the repetitions (0: not measured).
struct TransferRow {
  uint64_t bytes = 0;           // each way ("both": this many each way at once)
  TransferDirection direction = TransferDirection::HostToDevice;
  int reps = 0;
  double pageableMs = 0;        // malloc'd memory, cudaMemcpyAsync + wait (the runtime stages it)
  double pinnedMs = 0;          // cudaHostAlloc'd memory, cudaMemcpyAsync + wait
  double mappedMs = 0;          // cudaHostAllocMapped: a kernel reads or writes host memory itself
  double hostCopyMs = 0;        // memcpy between two host buffers (the staging copy pageable adds)
  bool checked = false;         // every byte of the last copy of each memory compared on the host
};
// Copy in, kernel, copy out of `bytes` split over `streams` (seed 004's loop: every copy in, then
// every kernel, then every copy out, each stream its chunk).
struct StreamRow {
  int streams = 0;
  uint64_t bytes = 0;
  double ms = 0;                // median, CUDA events around the whole loop (the seed's timing)
  bool checked = false;         // the output sampled and compared with the CPU's
};
struct StreamParts {            // each alone on one stream, medians
  double copyInMs = 0, kernelMs = 0, copyOutMs = 0;
  int work = 0;                 // the kernel's iterations per element (sized to take about a copy's time)
};
// A reduction (CUB's DeviceReduce::Sum of int32) of data that starts on the host.
struct ReduceCopyRow {
  std::string what;             // "kernel only (data already on the GPU)", "pinned copy + kernel", ...
  uint64_t n = 0;
  double ms = 0;                // median, wall clock from the first call to the result on the host
  int64_t result = 0, exact = 0;
};

struct TransferResults {
  LinkInfo link;
  std::vector<TransferRow> rows;
  std::vector<StreamRow> streams;
  StreamParts parts;
  std::vector<ReduceCopyRow> reduce;
  bool modelled = false;        // no GPU: times from the link's theoretical rate, labelled so
  int copyEngines = 0;          // cudaDevAttrAsyncEngineCount (0: unknown)
};

// The demonstrations' defaults and limits: bytes from 1 KiB to 4 GiB.
constexpr uint64_t kTransferMinBytes = 1024, kTransferMaxBytes = uint64_t(4) << 30;
std::vector<uint64_t> defaultTransferSizes();  // 1 KiB, 16 KiB, 256 KiB, 4 MiB, 64 MiB, 1 GiB
// "" or why not: sizes (1K to 4G, each once), directions (copies only, each once), streams (1 to 8,
// streams only).
std::string validateTransfers(const PitfallRequest& r);
// "" or why `bytes` of host memory cannot be used: more than half of MemAvailable.
std::string hostMemoryRefusal(uint64_t bytes);
// Repetitions by size: a 1 KiB copy takes microseconds, a 4 GiB one a tenth of a second.
int transferReps(uint64_t bytes);
// The CPU model: the host copy measured here, the GPU's times from the link's theoretical rate.
void runTransfersOnCpu(const PitfallRequest& r, PitfallResult* out);
Table transfersTable(const PitfallResult& r);
std::vector<std::string> transfersFindings(const PitfallResult& r);

}  // namespace rl
