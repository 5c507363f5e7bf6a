#!/usr/bin/env bash
# Feeds the JSON ReduceLab writes (sweep, bench and session shapes) to nvbench's own tools from PyPI
# (cuda-bench[tools]): nvbench-json-summary, nvbench-compare-legacy and the bandwidth-utilisation plot.
# Fails when a tool exits non-zero or prints a warning, a traceback or "No utilization data".
# No GPU needed: the measurements are the H200's in docs/data.
#   scripts/check-nvbench-json.sh [preset]      (build first; default preset: $REDUCELAB_PRESET or default)
#   NVBENCH_VENV=DIR   use (or create) this virtual environment (default: <build dir>/nvbench-venv)
#   NVBENCH_JSON_OUT=DIR   keep the JSON files, tool outputs and PNGs there (default: a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-${REDUCELAB_PRESET:-default}}"
build="build"; [ "$preset" = default ] || build="build-$preset"
app="$build/app/reducelab"; tests="$build/tests/reducelab_tests"
for f in "$app" "$tests"; do
  [ -x "$f" ] || { echo "check-nvbench-json: $f is missing; build the $preset preset first" >&2; exit 1; }
done

venv="${NVBENCH_VENV:-$build/nvbench-venv}"
if [ ! -x "$venv/bin/nvbench-json-summary" ] || [ ! -x "$venv/bin/nvbench-compare-legacy" ]; then
  echo "check-nvbench-json: installing cuda-bench[tools] into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'cuda-bench[tools]'
fi
echo "check-nvbench-json: cuda-bench $("$venv/bin/pip" show cuda-bench 2>/dev/null | sed -n 's/^Version: //p')"

if [ -n "${NVBENCH_JSON_OUT:-}" ]; then
  work="$NVBENCH_JSON_OUT"; mkdir -p "$work"
else
  work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/drawn" "$work/redrawn" "$work/app" "$work/out"

# Sweep JSON: the H200 files re-drawn (old layout in, new out), then re-drawn again from the new files.
for axis in n block type; do
  "$app" sweep --axis "$axis" --from "docs/data/h200-sweep-$axis.json" --format json --out "$work/drawn" --force >/dev/null
  "$app" sweep --axis "$axis" --from "$work/drawn/sweep-$axis.json" --format json --out "$work/redrawn" --force >/dev/null
done
# Bench- and session-shaped JSON (what `reducelab bench --format json` and the GUI's session export write).
REDUCELAB_NVBENCH_JSON_DIR="$work/app" "$tests" --gtest_filter='NvbenchJsonTools.*' >/dev/null

failed=0
# run NAME CMD...: runs a tool, keeps its output in $work/out/NAME.txt, fails on any sign of trouble.
run() {
  local name="$1"; shift
  local log="$work/out/$name.txt" rc=0
  MPLBACKEND=Agg "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ] || grep -Eq 'WARNING|Traceback|No utilization data|No data -- check log|Error' "$log"; then
    echo "check-nvbench-json: FAIL $name (exit $rc):" >&2
    sed 's/^/  | /' "$log" | head -40 >&2
    failed=1
  else
    echo "check-nvbench-json: ok   $name ($(wc -l <"$log") lines)"
  fi
}

files=("$work"/drawn/sweep-{n,block,type}.json "$work/app/bench.json" "$work/app/session.json")
for f in "${files[@]}"; do
  stem="$(basename "$(dirname "$f")")-$(basename "$f" .json)"
  run "summary-$stem" "$venv/bin/nvbench-json-summary" "$f"
  # The plot draws one bar per state: the long N sweep is limited to one N (also exercises the pow2 filter).
  filter=(); [ "$(basename "$f")" = sweep-n.json ] && filter=(-a 'Elements[pow2]=24')
  run "bwutil-$stem" "$venv/bin/python" -m cuda.bench.scripts.nvbench_plot_bwutil "${filter[@]}" -o "$work/out/bwutil-$stem.png" "$f"
  [ -s "$work/out/bwutil-$stem.png" ] || { echo "check-nvbench-json: FAIL bwutil-$stem wrote no PNG" >&2; failed=1; }
done
for axis in n block type; do
  run "compare-sweep-$axis" "$venv/bin/nvbench-compare-legacy" --no-color "$work/drawn/sweep-$axis.json" "$work/redrawn/sweep-$axis.json"
done
cp "$work/app/session.json" "$work/app/session-again.json"
run "compare-session" "$venv/bin/nvbench-compare-legacy" --no-color "$work/app/session.json" "$work/app/session-again.json"

# Re-reading a file loses nothing: the sweep re-drawn from ReduceLab's own file has the same devices and states.
for axis in n block type; do
  if ! python3 - "$work/drawn/sweep-$axis.json" "$work/redrawn/sweep-$axis.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(0 if a["devices"] == b["devices"] and a["benchmarks"] == b["benchmarks"] else 1)
PY
  then
    echo "check-nvbench-json: FAIL sweep-$axis.json changes when ReduceLab re-reads and re-writes it" >&2; failed=1
  fi
done

# The check itself can fail: the old, unversioned layout (docs/data) must be flagged.
old_layout="$(MPLBACKEND=Agg "$venv/bin/python" -m cuda.bench.scripts.nvbench_plot_bwutil \
               -o "$work/out/old-layout.png" docs/data/h200-sweep-type.json 2>&1 || true)"
if ! grep -Eq 'WARNING|No utilization data' <<<"$old_layout"; then
  echo "check-nvbench-json: FAIL the bandwidth plot no longer flags the old layout; is the check blind?" >&2
  failed=1
else
  echo "check-nvbench-json: ok   the old layout in docs/data is still flagged (the check can fail)"
fi

if [ "$failed" -ne 0 ]; then echo "check-nvbench-json: nvbench's tools do not read ReduceLab's JSON cleanly" >&2; exit 1; fi
echo "check-nvbench-json: nvbench's tools read every file"
