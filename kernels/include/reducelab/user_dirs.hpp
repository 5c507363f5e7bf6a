#pragma once
// Where ReduceLab keeps what it learns about this machine: $XDG_CONFIG_HOME/reducelab (else
// ~/.config/reducelab) for the measured peaks, the tuned policies and the GUI settings.
#include <filesystem>

namespace rl {

std::filesystem::path userConfigDir();

}  // namespace rl
