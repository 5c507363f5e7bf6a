#!/usr/bin/env bash
# Issue 13 on the GPU machine (run through scripts/gpu-run.sh, which sets PATH and the carry):
#   fastest-h200.sh tests|tune|bench|ncu ...   results under $OUT
# tests: the GPU tests of the new and changed parts; tune: k13's policies into $XDG_CONFIG_HOME;
# bench: k10,k11,k12,k13,cub for int32, float32, float64 at N = 2^12 .. 2^34 (every second power
# of two, as memory allows), one bench JSON per (type, N) packed into $OUT/bench.tgz, plus the
# floor and graph/events rows at small N; ncu: where a goal is missed.
set -uo pipefail
OUT=${OUT:-/tmp/out}
while [ $# -gt 0 ]; do
  step=$1; shift
  case "$step" in
    tests)
      echo "=== gpu tests (new and changed parts)"
      timeout 400 reducelab_gpu_tests --gtest_filter='TunedKernel.*:TimingModes.*:Catalogue/KernelCorrectness.*/k13:Catalogue/KernelDataAndFinals.*:Catalogue/TraceEquality.*/k13:Catalogue/TraceEquality.*/k10:TracedTwin.*:Determinism.*:KernelCorrectnessLarge.*' \
        > "$OUT/gpu-tests.log" 2>&1; echo "rc=$?"
      grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|Failure" "$OUT/gpu-tests.log" | tail -40 ;;
    tune)
      echo "=== tune"; ( time reducelab tune ) > "$OUT/tune.txt" 2>&1; echo "rc=$?"; tail -5 "$OUT/tune.txt"
      cp "${XDG_CONFIG_HOME:-$HOME/.config}/reducelab/policies.json" "$OUT/policies.json" 2>/dev/null ;;
    bench)
      echo "=== bench"; rm -rf /tmp/bench; mkdir -p /tmp/bench
      for t in int32 float32 float64; do
        for e in 12 14 16 18 20 22 24 26 28 30 32 34; do
          reducelab bench --kernel k10,k11,k12,k13,cub --type $t --n 2^$e --block 512 --no-cpu --reps 30 \
            --out /tmp/bench/bench-$t-2p$e.json --force > /tmp/bench/log-$t-$e.txt 2>&1 || echo "bench $t 2^$e rc=$?"
          for b in 256 1024; do  # the tuned kernel at the other tuned block sizes
            reducelab bench --kernel k13 --type $t --n 2^$e --block $b --no-cpu --reps 30 \
              --out /tmp/bench/bench-k13-b$b-$t-2p$e.json --force > /dev/null 2>&1 || echo "k13 block $b $t 2^$e rc=$?"
          done
        done
        for e in 12 16 20; do  # the timing modes at small N
          for m in events graph; do
            reducelab bench --kernel k10,k12,k13,cub --type $t --n 2^$e --block 512 --no-cpu --reps 30 --timing $m \
              --out /tmp/bench/timing-$m-$t-2p$e.json --force > /tmp/bench/log-timing-$m-$t-$e.txt 2>&1 || echo "timing $m $t 2^$e rc=$?"
          done
        done
      done
      tar czf "$OUT/bench.tgz" -C /tmp/bench . ; ls /tmp/bench | wc -l ;;
    *) "$step" "$@"; break ;;
  esac
done
