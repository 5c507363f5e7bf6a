#!/usr/bin/env bash
# Assembles .gpu-carry/ (ignored by git) from a build for the GPU machine: stripped binaries and the
# DejaVu fonts (the GPU machine has no Debian packages), packed into .gpu-carry.txz. Usage: scripts/gpu-carry.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-ci}
ex="$(git rev-parse --git-common-dir)/info/exclude"
for p in /.gpu-carry/ /.gpu-carry.txz; do grep -qx "$p" "$ex" 2>/dev/null || echo "$p" >> "$ex"; done
rm -rf .gpu-carry; mkdir -p .gpu-carry/fonts
for b in app/reducelab tests/reducelab_tests tests/reducelab_gpu_tests tests/reducelab_multigpu_tests tests/reducelab_instrumented_tests tests/remote_test_server tests/usercode_fake_worker; do
  [ -x "$build/$b" ] && strip -s -o ".gpu-carry/$(basename "$b")" "$build/$b"
done
# Other files the tests read from the build (they find them here through $REDUCELAB_TEST_BUILT).
[ -f "$build/kernels/instrumented/instrument_patches.ptx" ] && cp "$build/kernels/instrumented/instrument_patches.ptx" .gpu-carry/
# The shared-memory probe (scripts/bank_probe.cu, step bank-probe), built beside the app.
command -v nvcc > /dev/null && nvcc -arch=sm_90 -O2 -std=c++17 -o .gpu-carry/bank_probe scripts/bank_probe.cu
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf \
   /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf .gpu-carry/fonts/ 2>/dev/null || true
# Carried compressed (the working tree that travels is limited to 64 MiB); gpu-run.sh unpacks it.
tar -cJf .gpu-carry.txz .gpu-carry
du -sh .gpu-carry .gpu-carry.txz
