#pragma once
// "Edit a copy" (docs/your-kernel.md, "Start from a catalogue kernel"): one plain-CUDA file per
// catalogue reduction kernel, the same algorithm written for the contract (no trace hooks, no
// ReduceLab headers, T and Op from the prelude, annotations where the defaults do not fit). The
// files are assets/kernels/starters/KEY.cu, compiled into the binary: the installed app needs
// none. Plain C++.
#include <string>
#include <string_view>
#include <vector>

namespace rl::usercode {

struct Starter {
  std::string key;       // the catalogue kernel it copies: "k3"
  std::string fileName;  // "k3.cu"
  std::string title;     // the catalogue kernel's title
};

// Every starter, in catalogue order.
const std::vector<Starter>& starters();
// The starter of a catalogue kernel, or nullptr. k5 (Harris's volatile last warp, a race since
// Volta) gives k5s, its correct form.
const Starter* findStarter(std::string_view key);
// The starter's text; "" for a key without one.
std::string starterSource(std::string_view key);
// Why a catalogue reduction kernel has no starter; "" when it has one or is no such kernel.
std::string_view whyNoStarter(std::string_view key);
// The starters' keys, comma separated (for messages).
std::string starterKeys();

}  // namespace rl::usercode
