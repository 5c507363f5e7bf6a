#!/usr/bin/env bash
# The performance table of auto against CUB (issue 24), in two halves:
#   scripts/perf-table.sh run DIR     on the GPU machine: every measurement, one bench JSON per cell, into DIR
#   scripts/perf-table.sh table DIR   here: docs/performance.md's table, docs/figures/auto-vs-cub.svg and
#                                      the README's numbers, from DIR (the run's JSONs)
# `run` measures, for N = 2^4 .. 2^34 (as the GPU's memory holds) and int32, int64, float32, float64:
#   - auto and CUB for sum (to 2^34), min and max (to 2^30: the same bytes read, and the CPU's exact reference
#     of 2^34 elements takes a while), twice (pass a and pass b: the run-to-run noise is their difference);
#   - every catalogue reduction (k1 .. k14, auto, cub) for sum up to 2^30 (the slow ladder kernels above it
#     would take most of a device call).
# Each is one `reducelab sweep --axis n` (powers of two; its largest N is what the GPU's free memory holds).
# Then what --deterministic costs (bench, float32 and float64 sums at six N). PASSES="a" and CATALOGUE=0 split
# the run over several device calls (the DIRs are then merged into one before `table`).
# Kernel time, cold L2, blocked timing (nvbench's), median of the repetitions; end to end as bench reports it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-}; dir=${2:-}
[ -n "$mode" ] && [ -n "$dir" ] || { echo "usage: $0 run|table DIR" >&2; exit 2; }
case "$mode" in
  run)
    mkdir -p "$dir"
    app=${REDUCELAB:-reducelab}
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$dir/gpu.txt" 2>&1
    date -u +%Y-%m-%d > "$dir/date.txt"
    "$app" --version > "$dir/version.txt" 2>&1
    "$app" info > "$dir/info.txt" 2>&1
    t0=$(date +%s)
    # DEADLINE (epoch seconds): a device call's end; a step that would start after it is skipped, one
    # running at it is stopped (what was measured is kept, and the table says what is missing).
    limit() { if [ -n "${DEADLINE:-}" ]; then echo $(( DEADLINE - $(date +%s) )); else echo 100000; fi; }
    run() { local l; l=$(limit); if [ "$l" -le 5 ]; then echo "skipped (deadline): $*"; return 1; fi; timeout "$l" "$@"; }
    # One sweep over N per (pass, type, op): one process, one input per N shared by its kernels.
    for pass in ${PASSES:-a b}; do
      for t in int32 int64 float32 float64; do
        for op in sum min max; do
          nmax=2^34; [ "$op" = sum ] || nmax=2^30  # min and max read the same bytes: above 2^30 the sums say it
          run "$app" sweep --axis n --kernel auto,cub --type $t --op $op --n-min 2^4 --n-max $nmax --reps 20 \
            --format json --out "$dir/auto-$pass-$t-$op" --force > "$dir/log-auto-$pass-$t-$op.txt" 2>&1 ||
            echo "auto,cub $pass $t $op: rc=$? ($(tail -1 "$dir/log-auto-$pass-$t-$op.txt"))"
        done
        echo "pass $pass $t: $(( $(date +%s) - t0 )) s"
      done
    done
    [ "${CATALOGUE:-1}" = 1 ] || exit 0
    # What --deterministic costs: auto's fixed-order plan against its default, float sums.
    for t in float32 float64; do
      for e in 12 16 20 24 28 30; do
        run "$app" bench --kernel auto --type $t --n 2^$e --no-cpu --reps 20 --format json \
          --out "$dir/det-default-$t-$e.json" --force > /dev/null 2>&1 || echo "auto $t 2^$e: rc=$?"
        run "$app" bench --kernel auto --deterministic --type $t --n 2^$e --no-cpu --reps 20 --format json \
          --out "$dir/det-fixed-$t-$e.json" --force > /dev/null 2>&1 || echo "auto --deterministic $t 2^$e: rc=$?"
      done
    done
    echo "deterministic: $(( $(date +%s) - t0 )) s"
    for t in int32 int64 float32 float64; do
      run "$app" sweep --axis n --kernel all --type $t --n-min 2^4 --n-max 2^30 --reps 10 \
        --format json --out "$dir/all-$t" --force > "$dir/log-all-$t.txt" 2>&1 ||
        echo "all $t: rc=$? ($(tail -1 "$dir/log-all-$t.txt"))"
      echo "catalogue $t: $(( $(date +%s) - t0 )) s"
    done ;;
  table)
    python3 "$here/perf_table.py" "$dir" --markdown "$here/../docs/performance.md" \
      --readme "$here/../README.md" --svg "$here/../docs/figures/auto-vs-cub.svg" ;;
  *) echo "usage: $0 run|table DIR" >&2; exit 2 ;;
esac
