#include "reducelab/usercode/starters.hpp"

#include <algorithm>

#include "reducelab/catalogue.hpp"
#include "reducelab/embedded_text.hpp"

namespace rl {
extern const EmbeddedText kStarterFiles[];  // assets/kernels/starters/*.cu (kernels/usercode/CMakeLists.txt)
extern const int kStarterFiles_count;
}  // namespace rl

namespace rl::usercode {

namespace {

// Kernels left without a starter, and why (also in assets/kernels/starters/README.md).
struct Missing {
  std::string_view key, why;
};
constexpr Missing kMissing[] = {
    {"k9", "cooperative groups need <cooperative_groups.h>, and NVRTC as ReduceLab runs it has no include path "
           "(the header is not built into NVRTC; it compiles with -I<cuda>/include -I<cuda>/include/cccl)"},
    {"k13", "its launch policy (loads in flight, grid cap, cache hint from the device's tuned table) and its "
            "one-cluster grid come from the host, which the contract cannot express"},
    {"k14", "its bulk copies and mbarriers are inline PTX for sm_90 only, and its ring of stages needs shared memory "
            "the contract's rules cannot size per block and type; not a starter's first edit"},
    {"auto", "a dispatch, not a kernel: it launches k13's code with the block, grid and finish its table picks "
             "per N (k12's starter is the nearest kernel to copy)"},
    {"cub", "a library call, not a kernel to copy"},
};

std::string_view stem(std::string_view fileName) {
  const size_t dot = fileName.rfind('.');
  return dot == std::string_view::npos ? fileName : fileName.substr(0, dot);
}

}  // namespace

const std::vector<Starter>& starters() {
  static const std::vector<Starter> list = [] {
    std::vector<Starter> out;
    for (int i = 0; i < kStarterFiles_count; ++i) {
      const std::string_view file = kStarterFiles[i].name;
      const KernelInfo* k = findKernel(stem(file));
      if (!k) continue;  // a file that names no kernel is no starter (a test says so)
      out.push_back({std::string(k->key), std::string(file), std::string(k->title)});
    }
    const auto order = [](const Starter& s) { return findKernel(s.key) - catalogue().data(); };
    std::sort(out.begin(), out.end(), [&](const Starter& a, const Starter& b) { return order(a) < order(b); });
    return out;
  }();
  return list;
}

const Starter* findStarter(std::string_view key) {
  if (key == "k5") key = "k5s";
  for (const Starter& s : starters())
    if (s.key == key) return &s;
  return nullptr;
}

std::string starterSource(std::string_view key) {
  const Starter* s = findStarter(key);
  return s ? std::string(findEmbedded(kStarterFiles, kStarterFiles_count, s->fileName)) : std::string();
}

std::string_view whyNoStarter(std::string_view key) {
  for (const Missing& m : kMissing)
    if (m.key == key) return m.why;
  return {};
}

std::string starterKeys() {
  std::string out;
  for (const Starter& s : starters()) out += (out.empty() ? "" : ", ") + s.key;
  return out;
}

}  // namespace rl::usercode
