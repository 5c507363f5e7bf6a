// The ring and tree schedules of Reduce and AllReduce across G GPUs, the contribution sets that
// check them, step timing and byte formats. See collective.hpp.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

#include "reducelab/collective.hpp"

namespace rl::collective {

std::string_view name(Algorithm a) { return a == Algorithm::Ring ? "ring" : "tree"; }
std::string_view name(Collective c) { return c == Collective::AllReduce ? "allreduce" : "reduce"; }

namespace {

// `parts` chunks of elements/parts each, the first elements%parts one larger.
std::vector<Chunk> split(uint64_t elements, int parts) {
  std::vector<Chunk> out;
  const uint64_t base = elements / uint64_t(parts), extra = elements % uint64_t(parts);
  uint64_t first = 0;
  for (int c = 0; c < parts; ++c) {
    const uint64_t count = base + (uint64_t(c) < extra ? 1 : 0);
    out.push_back({first, count});
    first += count;
  }
  return out;
}

int mod(int a, int g) { return ((a % g) + g) % g; }

void ringAllReduce(Schedule& s) {
  const int g = s.gpus;
  s.chunks = split(s.elements, g);
  // Reduce-scatter: at step k GPU r passes chunk r-k on; after G-1 steps GPU r owns chunk r+1.
  for (int k = 0; k < g - 1; ++k) {
    Step st{"reduce-scatter", {}};
    for (int r = 0; r < g; ++r) {
      const int c = mod(r - k, g);
      st.transfers.push_back({r, mod(r + 1, g), c, s.chunkBytes(c), TransferKind::Reduce});
    }
    s.steps.push_back(std::move(st));
  }
  // All-gather: the finished chunks travel once more round the ring, copied.
  for (int k = 0; k < g - 1; ++k) {
    Step st{"all-gather", {}};
    for (int r = 0; r < g; ++r) {
      const int c = mod(r + 1 - k, g);
      st.transfers.push_back({r, mod(r + 1, g), c, s.chunkBytes(c), TransferKind::Copy});
    }
    s.steps.push_back(std::move(st));
  }
}

void ringReduce(Schedule& s) {
  const int g = s.gpus;
  s.chunks = split(s.elements, g);  // G pieces in flight along the chain
  // The chain root+1 -> root+2 -> ... -> root: link j goes from chain[j] to chain[j+1].
  std::vector<int> chain;
  for (int j = 1; j <= g; ++j) chain.push_back(mod(s.root + j, g));
  const int links = g - 1, pieces = g;
  for (int t = 0; t < pieces + links - 1; ++t) {
    Step st{"reduce", {}};
    for (int j = 0; j < links; ++j) {
      const int piece = t - j;
      if (piece < 0 || piece >= pieces) continue;
      st.transfers.push_back({chain[size_t(j)], chain[size_t(j) + 1], piece, s.chunkBytes(piece), TransferKind::Reduce});
    }
    s.steps.push_back(std::move(st));
  }
}

int depthOf(int r) {
  int d = 0;
  for (int x = r + 1; x > 1; x >>= 1) ++d;
  return d;
}

void tree(Schedule& s, bool broadcast) {
  const int g = s.gpus;
  s.chunks = {Chunk{0, s.elements}};
  const int depth = depthOf(g - 1);
  // Up: the deepest level first; a parent adds its children's buffers in.
  for (int level = depth; level >= 1; --level) {
    Step st{"reduce", {}};
    for (int r = 0; r < g; ++r)
      if (depthOf(r) == level) st.transfers.push_back({r, (r - 1) / 2, 0, s.chunkBytes(0), TransferKind::Reduce});
    s.steps.push_back(std::move(st));
  }
  if (!broadcast) return;
  for (int level = 1; level <= depth; ++level) {
    Step st{"broadcast", {}};
    for (int r = 0; r < g; ++r)
      if (depthOf(r) == level) st.transfers.push_back({(r - 1) / 2, r, 0, s.chunkBytes(0), TransferKind::Copy});
    s.steps.push_back(std::move(st));
  }
}

}  // namespace

std::optional<Schedule> makeSchedule(Algorithm a, Collective c, int gpus, uint64_t elements, uint64_t elemBytes,
                                     std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Schedule> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  if (gpus < 1 || gpus > 64) return fail("the number of GPUs must be 1 to 64, got " + std::to_string(gpus));
  if (elements < 1) return fail("the buffer must hold at least one element");
  if (elemBytes < 1 || elemBytes > 16) return fail("element size must be 1 to 16 bytes");
  if (elements > (uint64_t(1) << 40)) return fail("the buffer is larger than 2^40 elements");
  Schedule s;
  s.algorithm = a;
  s.collective = c;
  s.gpus = gpus;
  s.elements = elements;
  s.elemBytes = elemBytes;
  if (gpus == 1) {
    s.chunks = {Chunk{0, elements}};  // nothing to move
    return s;
  }
  if (a == Algorithm::Ring) {
    if (c == Collective::AllReduce) ringAllReduce(s);
    else ringReduce(s);
  } else {
    tree(s, c == Collective::AllReduce);
  }
  return s;
}

std::vector<uint64_t> Schedule::sentBytes() const {
  std::vector<uint64_t> out(size_t(gpus), 0);
  for (const Step& st : steps)
    for (const Transfer& t : st.transfers) out[size_t(t.from)] += t.bytes;
  return out;
}

std::vector<uint64_t> Schedule::receivedBytes() const {
  std::vector<uint64_t> out(size_t(gpus), 0);
  for (const Step& st : steps)
    for (const Transfer& t : st.transfers) out[size_t(t.to)] += t.bytes;
  return out;
}

std::vector<std::vector<uint64_t>> Schedule::linkBytes(int s) const {
  std::vector<std::vector<uint64_t>> out(size_t(gpus), std::vector<uint64_t>(size_t(gpus), 0));
  if (s < 0 || size_t(s) >= steps.size()) return out;
  for (const Transfer& t : steps[size_t(s)].transfers) out[size_t(t.from)][size_t(t.to)] += t.bytes;
  return out;
}

uint64_t Schedule::busiestGpuBytes(int s) const {
  if (s < 0 || size_t(s) >= steps.size()) return 0;
  std::vector<uint64_t> sent(size_t(gpus), 0), received(size_t(gpus), 0);
  for (const Transfer& t : steps[size_t(s)].transfers) {
    sent[size_t(t.from)] += t.bytes;
    received[size_t(t.to)] += t.bytes;
  }
  uint64_t most = 0;
  for (int g = 0; g < gpus; ++g) most = std::max({most, sent[size_t(g)], received[size_t(g)]});
  return most;
}

uint64_t Schedule::totalBytesMoved() const {
  uint64_t total = 0;
  for (uint64_t b : sentBytes()) total += b;
  return total;
}

Contributions initialContributions(const Schedule& s) {
  Contributions state(size_t(s.gpus), std::vector<uint64_t>(s.chunks.size(), 0));
  for (int g = 0; g < s.gpus; ++g)
    for (auto& c : state[size_t(g)]) c = uint64_t(1) << g;
  return state;
}

std::string applyStep(const Schedule& s, int step, Contributions* state) {
  if (step < 0 || size_t(step) >= s.steps.size()) return "no step " + std::to_string(step);
  const Contributions before = *state;  // the transfers of one step happen together
  for (const Transfer& t : s.steps[size_t(step)].transfers) {
    const uint64_t sent = before[size_t(t.from)][size_t(t.chunk)];
    uint64_t& held = (*state)[size_t(t.to)][size_t(t.chunk)];
    if (t.kind == TransferKind::Copy) {
      held = sent;
    } else {
      if (held & sent)
        return "step " + std::to_string(step + 1) + ": GPU " + std::to_string(t.to) + " would add chunk " +
               std::to_string(t.chunk) + " contributions it already holds";
      held |= sent;
    }
  }
  return "";
}

int popcountContributions(uint64_t set) {
  int n = 0;
  for (; set; set &= set - 1) ++n;
  return n;
}

std::string verifySchedule(const Schedule& s) {
  Contributions state = initialContributions(s);
  for (int k = 0; k < int(s.steps.size()); ++k)
    if (std::string e = applyStep(s, k, &state); !e.empty()) return e;
  const uint64_t all = s.gpus == 64 ? ~uint64_t(0) : (uint64_t(1) << s.gpus) - 1;
  for (int g = 0; g < s.gpus; ++g) {
    if (s.collective == Collective::Reduce && g != s.root) continue;
    for (size_t c = 0; c < s.chunks.size(); ++c)
      if (s.chunks[c].count > 0 && state[size_t(g)][c] != all)
        return "GPU " + std::to_string(g) + " ends without every GPU's data in chunk " + std::to_string(c);
  }
  uint64_t covered = 0;
  for (const Chunk& c : s.chunks) {
    if (c.first != covered) return "the chunks do not tile the buffer";
    covered += c.count;
  }
  if (covered != s.elements) return "the chunks do not cover the buffer";
  return "";
}

StepTiming timeSteps(const Schedule& s, double gpuLinkGBs, double latencySeconds, double measuredTotalSeconds) {
  StepTiming t;
  for (int k = 0; k < int(s.steps.size()); ++k) {
    const double transfer = gpuLinkGBs > 0 ? double(s.busiestGpuBytes(k)) / (gpuLinkGBs * 1e9) : 0;
    t.seconds.push_back(latencySeconds + transfer);
    t.total += t.seconds.back();
  }
  if (measuredTotalSeconds > 0 && t.total > 0) {
    const double scale = measuredTotalSeconds / t.total;
    for (double& x : t.seconds) x *= scale;
    t.total = measuredTotalSeconds;
    t.measured = true;
  }
  return t;
}

double busBandwidthFactor(Collective c, int gpus) {
  if (c == Collective::Reduce || gpus < 1) return 1.0;
  return 2.0 * double(gpus - 1) / double(gpus);
}

namespace {

std::optional<uint64_t> parseOneSize(std::string_view s, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<uint64_t> {
    if (error) *error = why;
    return std::nullopt;
  };
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty()) return fail("an empty size");
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return fail("'" + std::string(s) + "' is not a size (e.g. 1K, 64M, 8G, 4096)");
  std::string_view unit(end, size_t(s.data() + s.size() - end));
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.remove_suffix(1);
  if (unit.size() == 2 && (unit.back() == 'i' || unit.back() == 'I')) unit.remove_suffix(1);
  int shift = 0;
  if (unit.empty()) shift = 0;
  else if (unit.size() == 1 && std::toupper(unit[0]) == 'K') shift = 10;
  else if (unit.size() == 1 && std::toupper(unit[0]) == 'M') shift = 20;
  else if (unit.size() == 1 && std::toupper(unit[0]) == 'G') shift = 30;
  else return fail("'" + std::string(s) + "': unknown unit (K, M or G: powers of 1024)");
  if (v == 0) return fail("a size of zero bytes");
  if (v > ((uint64_t(64) << 30) >> shift)) return fail("'" + std::string(s) + "' is larger than 64 GiB");
  return v << shift;
}

}  // namespace

std::optional<std::vector<uint64_t>> parseSizeList(std::string_view text, std::string* error) {
  std::vector<uint64_t> out;
  const size_t dots = text.find("..");
  if (dots != std::string_view::npos) {
    auto lo = parseOneSize(text.substr(0, dots), error);
    auto hi = parseOneSize(text.substr(dots + 2), error);
    if (!lo || !hi) return std::nullopt;
    if (*lo > *hi) {
      if (error) *error = "--sizes " + std::string(text) + ": the first size is larger than the last";
      return std::nullopt;
    }
    for (uint64_t b = *lo; b <= *hi; b *= 2) {
      out.push_back(b);
      if (b > *hi / 2) break;
    }
    if (out.back() != *hi) out.push_back(*hi);  // the last size asked for is always measured
    return out;
  }
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto v = parseOneSize(item, error);
    if (!v) return std::nullopt;
    out.push_back(*v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string formatBytes(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  int u = 0;
  while (u < 3 && (bytes >> (10 * (u + 1))) >= 1) ++u;
  const uint64_t unit = uint64_t(1) << (10 * u);
  if (bytes % unit == 0) return std::to_string(bytes / unit) + " " + units[u];
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %s", double(bytes) / double(unit), units[u]);
  return b;
}

}  // namespace rl::collective
