#!/usr/bin/env bash
# Configures and builds ReduceLab with a CMake preset (default: "default").
set -euo pipefail
cd "$(dirname "$0")/.."
# nvcc from the CUDA Toolkit when it is installed. REDUCELAB_HIDE_NVCC=1 builds as on a machine
# without it (CI checks the CPU-only build that way): every PATH entry holding nvcc is dropped.
if [ "${REDUCELAB_HIDE_NVCC:-0}" = 1 ]; then
  PATH=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/nvcc" ] || printf '%s:' "$d"; done)
  export PATH=${PATH%:}
  if command -v nvcc >/dev/null; then echo "build: could not hide nvcc" >&2; exit 1; fi
else
  [ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
fi
preset="${1:-${REDUCELAB_PRESET:-default}}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
