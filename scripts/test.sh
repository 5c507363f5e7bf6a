#!/usr/bin/env bash
# Builds ReduceLab and runs its tests. GPU tests (label gpu) report "skipped" where no GPU exists.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-${REDUCELAB_PRESET:-default}}"
scripts/build.sh "$preset"
ctest --preset "$preset" -j "$(nproc)"
