// `reducelab starter [KEY] [-o FILE] [--force]`: a catalogue kernel as a plain-CUDA file written
// for the contract of docs/your-kernel.md, to edit, compile and check. Without KEY: the list.
#include <cstdio>

#include "cmd_usercode.hpp"
#include "reducelab/atomic_file.hpp"
#include "reducelab/catalogue.hpp"
#include "reducelab/usercode/starters.hpp"

namespace rl::app {

namespace uc = rl::usercode;

CLI::App* addStarterCommand(CLI::App& cli, StarterCommandOptions& o) {
  CLI::App* c = cli.add_subcommand("starter", "Write a catalogue kernel as a plain-CUDA file to edit, compile and check "
                                              "(no KEY: list them; docs/your-kernel.md)");
  c->add_option("key", o.key, "The catalogue kernel to copy: k1, k2, ...");
  c->add_option("-o,--out", o.out, "The file to write (default: KEY.cu here; - for stdout)");
  c->add_flag("--force", o.force, "Overwrite the file if it exists");
  return c;
}

namespace {

int listStarters() {
  std::printf("Starters: catalogue kernels as plain-CUDA files to edit (reducelab starter KEY writes KEY.cu):\n");
  for (const uc::Starter& s : uc::starters()) std::printf("  %-5s %s\n", s.key.c_str(), s.title.c_str());
  std::string without;
  for (const KernelInfo& k : catalogue())
    if (!uc::whyNoStarter(k.key).empty() && k.key != "cub") without += (without.empty() ? "" : ", ") + std::string(k.key);
  std::printf("k5 gives k5s, its race-free form. No starter: %s (reducelab starter KEY says why).\n", without.c_str());
  return 0;
}

int unknownKey(const std::string& key) {
  const std::string why(uc::whyNoStarter(key));
  if (!why.empty())
    std::fprintf(stderr, "reducelab: error: %s has no starter: %s. The starters: %s\n", key.c_str(), why.c_str(),
                 uc::starterKeys().c_str());
  else
    std::fprintf(stderr, "reducelab: error: no starter '%s'. The starters: %s\n", key.c_str(), uc::starterKeys().c_str());
  return 2;
}

}  // namespace

int runStarterCommand(const StarterCommandOptions& o) {
  if (o.key.empty()) {
    if (!o.out.empty()) {
      std::fprintf(stderr, "reducelab: error: --out needs the KEY of the starter to write. The starters: %s\n",
                   uc::starterKeys().c_str());
      return 2;
    }
    return listStarters();
  }
  const uc::Starter* s = uc::findStarter(o.key);
  if (!s) return unknownKey(o.key);
  const std::string source = uc::starterSource(s->key);
  if (s->key != o.key)  // k5: its correct form
    std::fprintf(stderr, "reducelab: %s relies on the lanes of a warp running in step (a race since Volta): "
                         "the starter is its correct form, %s\n", o.key.c_str(), s->key.c_str());
  if (o.out == "-") {
    std::fwrite(source.data(), 1, source.size(), stdout);
    return 0;
  }
  const std::string path = o.out.empty() ? s->fileName : o.out;
  if (std::string e = checkOutputTarget(path, o.force); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  if (std::string e = writeTextAtomic(path, source); !e.empty()) {
    std::fprintf(stderr, "reducelab: error: %s\n", e.c_str());
    return 1;
  }
  std::printf("wrote %s: a copy of %s (%s). Next: reducelab compile %s; reducelab check %s\n", path.c_str(),
              s->key.c_str(), s->title.c_str(), path.c_str(), path.c_str());
  return 0;
}

}  // namespace rl::app
