#!/usr/bin/env bash
# Frame times of every view on the CPU model (CUDA hidden), offscreen at one size: the figure
# issue 10 asks for (llvmpipe on a 2-core machine at 1600x900: median <= 16.7 ms). Each view
# renders FRAMES frames after start-up; --stats prints the median and p99. Run it on a quiet machine.
#   scripts/frame-times.sh [BINARY] [WxH] [FRAMES]
set -euo pipefail
bin=${1:-build-ci/app/reducelab}
size=${2:-1600x900}
frames=${3:-120}
export CUDA_VISIBLE_DEVICES=  # the CPU model draws, as on a machine without a GPU
run() {  # run LABEL ARGS...
  local label="$1"; shift
  local line
  line=$("$bin" --headless --size "$size" --frames "$frames" --stats "$@" 2>&1 | grep "frame time" | tail -1)
  printf '%-34s %s\n' "$label" "$line"
}
for view in warp bank tree coalescing all source; do
  run "$view, k2 block 1024" --kernel k2 --block 1024 --view "$view" --step 3
done
run "warp, k7 block 256 (default)" --kernel k7 --block 256
run "bank, transpose tile 32" --kernel tr-tile --view bank
run "warp, tiled matmul tile 32" --kernel mm-tiled --tile 32 --view warp
run "all, presentation" --kernel k2 --block 1024 --view all --step 3 --presentation
run "lesson upc (bank view)" lesson upc
