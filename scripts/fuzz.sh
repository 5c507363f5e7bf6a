#!/usr/bin/env bash
# Runs every libFuzzer harness (tests/fuzz) for MINUTES each (decimals allowed: 0.4 = 24 s) over
# the committed seed corpus, and prints the executions and time of each. New inputs go to
# build-fuzz/corpus/<harness> (kept between runs), crashes to build-fuzz/artifacts/.
#   scripts/fuzz.sh 10          # ten minutes per harness
#   FUZZ_JOBS=2 scripts/fuzz.sh 0.4   # harnesses run FUZZ_JOBS at a time (default: nproc)
# Exit code 1 if any harness found a crash, leak, timeout or failed property.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:?usage: scripts/fuzz.sh MINUTES}"
seconds=$(python3 -c "import sys; s=round(float(sys.argv[1])*60); assert s>=1; print(s)" "$minutes") ||
  { echo "fuzz.sh: MINUTES must be a positive number, got '$minutes'" >&2; exit 2; }
jobs="${FUZZ_JOBS:-$(nproc)}"
build=build-fuzz
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DREDUCELAB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -DNDEBUG" \
  -DREDUCELAB_USE_CCACHE=ON >/dev/null
cmake --build "$build" -j "$jobs" >/dev/null
harnesses=$(ls tests/fuzz/fuzz_*.cpp | sed 's|.*/fuzz_||; s|\.cpp$||')
mkdir -p "$build/artifacts" "$build/logs"
rm -f "$build/logs/failed"

run_one() {
  local name="$1"
  mkdir -p "$build/corpus/$name"
  # -timeout: one input taking over 10 s counts as a hang; -rss_limit_mb: a runaway allocation.
  "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" \
    "$build/corpus/$name" "tests/fuzz/corpus/$name" >"$build/logs/$name.log" 2>&1
}
export -f run_one
export build seconds

start=$(date +%s)
status=0
printf '%s\n' $harnesses | xargs -P "$jobs" -I{} bash -c 'run_one {} || echo {} >> "$build/logs/failed"' || true
printf '%-10s %12s %8s %10s %8s  %s\n' harness executions seconds "exec/s" corpus result
for name in $harnesses; do
  log="$build/logs/$name.log"
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "$seconds")
  corpus=$(ls "$build/corpus/$name" | wc -l)
  result=ok
  if grep -q "^$name\$" "$build/logs/failed" 2>/dev/null; then
    result="FAILED: $(grep -m1 -E 'ERROR|fuzz property|Test unit written' "$log" || tail -1 "$log")"
    status=1
  fi
  printf '%-10s %12s %8s %10s %8s  %s\n' "$name" "${runs:-0}" "${secs:-?}" \
    "$(( ${runs:-0} / (${secs:-1} > 0 ? ${secs:-1} : 1) ))" "$corpus" "$result"
done
rm -f "$build/logs/failed"
echo "fuzzing took $(( $(date +%s) - start )) s in all ($jobs at a time); logs in $build/logs"
exit $status
