#include "reducelab/catalogue.hpp"

#include "kernel_list.hpp"
#include "reducelab/family.hpp"
#include "reducelab/embedded_text.hpp"

namespace rl {

extern const EmbeddedText kKernelSources[];
extern const int kKernelSources_count;
extern const EmbeddedText kKernelNotes[];
extern const int kKernelNotes_count;

const std::vector<KernelInfo>& catalogue() {
#define RL_DESCRIPTOR(ID, STEM, FORM, KERNEL) desc::ID,
  static const std::vector<KernelInfo> k = {RL_KERNELS(RL_DESCRIPTOR)};
#undef RL_DESCRIPTOR
  return k;
}

const KernelInfo* findKernel(std::string_view key) {
  for (const KernelInfo& k : catalogue())
    if (k.key == key) return &k;
  return nullptr;
}

const KernelInfo& kernelInfo(KernelId id) {
  return catalogue().at(size_t(id));  // kernel_list.hpp keeps the list in KernelId order
}

std::string kernelKeys() {
  std::string s;
  for (const KernelInfo& k : catalogue()) s += (s.empty() ? "" : ",") + std::string(k.key);
  return s;
}

std::vector<std::string> catalogueKeys(bool traceableOnly, Family family) {
  std::vector<std::string> keys;
  for (const KernelInfo& k : catalogue())
    if ((k.traceable || !traceableOnly) && (family == Family::Unset ? familyOf(k).formsLadder() : k.family == family))
      keys.emplace_back(k.key);
  return keys;
}

std::vector<const KernelInfo*> parseKernelList(std::string_view text, std::string* error) {
  std::vector<const KernelInfo*> out;
  if (const KernelFamily* f = familyByListName(text)) {
    for (const KernelInfo& k : catalogue())
      if (&familyOf(k) == f) out.push_back(&k);
    return out;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view key = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    const KernelInfo* k = findKernel(key);
    if (!k) {
      if (error)
      {
        std::string lists;
        for (const KernelFamily* f : families())
          if (!f->listName().empty()) lists += std::string(f->listName()) + ", ";
        *error = "unknown kernel '" + std::string(key) + "' (known: " + lists + kernelKeys() + ")";
      }
      return {};
    }
    out.push_back(k);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string_view kernelSourceFile(std::string_view file) {
  return findEmbedded(kKernelSources, kKernelSources_count, file);
}
std::string_view kernelSource(const KernelInfo& k) { return kernelSourceFile(k.sourceFile); }
std::string_view kernelNotes(const KernelInfo& k) {
  return findEmbedded(kKernelNotes, kKernelNotes_count, std::string(k.key) + ".md");
}

FinalStage defaultFinal(const KernelInfo& k) { return k.finals.front(); }
bool allowsFinal(const KernelInfo& k, FinalStage f) {
  if (f == FinalStage::Default) return true;
  for (FinalStage a : k.finals)
    if (a == f) return true;
  return false;
}

uint64_t elemsPerIteration(const KernelInfo& k, ElemType in) {
  const uint64_t perLoad = k.bytesPerLoad ? uint64_t(k.bytesPerLoad) / elemBytes(in) : 1;
  return uint64_t(k.loadsPerIteration) * perLoad;
}

std::string_view familyName(Family f) { return f == Family::Unset ? "?" : familyOf(f).name(); }

bool hasTile(const KernelInfo& k, int tile) {
  for (int t : k.tiles)
    if (t == tile) return true;
  return false;
}

int matrixBlockX(const KernelInfo&, int tile) { return tile; }
int matrixBlockY(const KernelInfo& k, int tile) {
  if (k.threadRows == 0) return tile;
  return tile < k.threadRows ? tile : k.threadRows;  // a tile of 8 rows needs at most 8 thread rows
}

size_t sharedBytes(const KernelInfo& k, int block, ElemType acc, int tile) {
  const size_t t = size_t(tile > 0 ? tile : 0);
  switch (k.sharedRule) {
    case SharedRule::Tile: return t * t * elemBytes(acc);
    case SharedRule::TilePadded: return t * (t + 1) * elemBytes(acc);
    case SharedRule::TwoTiles: return 2 * t * t * elemBytes(acc);
    case SharedRule::NoneOwn: return 0;
    case SharedRule::TreeOfBlock: return size_t(block < 64 ? 64 : block) * elemBytes(acc);
    case SharedRule::OnePerWarp: return 32 * elemBytes(acc);
    case SharedRule::BulkRing: return size_t(kBulkRingOffset) + size_t(bulkStages(block)) * size_t(block) * 16;
    case SharedRule::None: case SharedRule::Unset: break;  // Unset: refused by kernel_list.hpp
  }
  return 0;
}

}  // namespace rl
