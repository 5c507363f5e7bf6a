#!/usr/bin/env bash
# Runs on the GPU machine (device tool): the carried build in .gpu-carry/, logs and images to $OUT.
# Usage: scripts/gpu-run.sh STEP...   (steps: info ui tests bench sanitize ...)
set -uo pipefail
cd "$(dirname "$0")/.."
for f in .gpu-libs/*.deb; do dpkg -x "$f" / ; done; ldconfig
if [ ! -d /usr/share/glvnd/egl_vendor.d ] && [ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
C=$PWD/.gpu-carry
export REDUCELAB_BINARY=$C/reducelab REDUCELAB_FONT_DIR=$C/fonts PATH=$C:$PATH LD_LIBRARY_PATH=$C${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
log() { echo "=== $*"; }
for step in "$@"; do
  case "$step" in
    info)
      log info; nvidia-smi --query-gpu=name,driver_version,clocks.mem,clocks.sm --format=csv
      reducelab info | tee "$OUT/info.txt"; reducelab info --json > "$OUT/info.json" ;;
    ui)
      log ui; reducelab --headless --frames 3 --screenshot "$OUT/ui-h200.png" --stats ;;
    tests)
      log gpu tests; timeout 500 reducelab_gpu_tests 2>&1 | tee "$OUT/gpu-tests.log" | grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|checked|distinct|Failure|got " | head -80 ;;
    cputests)
      log cpu tests; timeout 200 reducelab_tests 2>&1 | tail -5 ;;
    bench)
      log bench
      reducelab bench --kernel all --type float32 --n 2^24 --block 512 | tee "$OUT/bench-f32-2p24.txt"
      reducelab bench --kernel all --type int32 --n 2^28 --block 512 --no-cpu | tee "$OUT/bench-i32-2p28.txt"
      reducelab bench --kernel all --type float64 --n 2^28 --block 512 --no-cpu | tee "$OUT/bench-f64-2p28.txt" ;;
    bench-json)
      reducelab bench --kernel all --type float32 --n 2^28 --block 512 --no-cpu --format json --out "$OUT/bench-f32-2p28.json" --force
      grep -c '"nv/cold/time/gpu/median"' "$OUT/bench-f32-2p28.json" ;;
    sanitize)
      for tool in memcheck racecheck synccheck; do
        log "compute-sanitizer $tool"
        REDUCELAB_TEST_QUICK=1 timeout 400 compute-sanitizer --tool $tool --print-limit 20 \
          reducelab_gpu_tests --gtest_filter='Catalogue/*' > "$OUT/sanitizer-$tool.log" 2>&1
        echo "rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Race reported|hazard" "$OUT/sanitizer-$tool.log" | sort | uniq -c | head -20
      done ;;
    *) "$@"; break ;;
  esac
done
