#!/usr/bin/env bash
# Configures and builds ReduceLab with a CMake preset (default: "default").
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
preset="${1:-${REDUCELAB_PRESET:-default}}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
