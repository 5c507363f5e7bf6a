#!/usr/bin/env bash
# The remote protocol with a real GPU behind the pipe (issue 11, item 4; docs/remote.md): traces,
# a sweep, a killed server and the GUI through `--remote-command "reducelab serve --stdio"`,
# against the same commands run locally on the same GPU.
#   scripts/remote-check.sh [OUTDIR]      (reducelab on PATH, or REDUCELAB_BINARY=/path/to/reducelab)
# Exit code 1 if any check fails; every check prints one line.
set -uo pipefail
B=${REDUCELAB_BINARY:-$(command -v reducelab)}
OUT=${1:-/tmp/remote-check}
mkdir -p "$OUT"
rm -rf "$OUT"/sweep-local "$OUT"/sweep-remote "$OUT"/sweep-killed
R="$B serve --stdio"
status=0
pass() { echo "ok:   $*"; }
fail() { echo "FAIL: $*"; status=1; }

# 1. Traces: the bytes the GPU's traced kernel wrote, through the pipe, give the same output.
for args in "--kernel k8 --type int32 --block 1024" "--kernel k3 --block 256 --format json" \
            "--kernel k10 --type float64 --format json" "--kernel k12 --type int64 --block 512" \
            "--kernel k2 --block 128 --traced-block 7"; do
  "$B" trace $args > "$OUT/trace-local.txt" 2>/dev/null
  "$B" trace $args --remote-command "$R" > "$OUT/trace-remote.txt" 2> "$OUT/trace-remote.err"
  if cmp -s "$OUT/trace-local.txt" "$OUT/trace-remote.txt" && grep -q "from the gpu\|\"source\": \"gpu" "$OUT/trace-remote.txt"; then
    pass "trace $args: identical to local, from the GPU"
  else
    fail "trace $args: differs (or not from the GPU): $(head -c 300 "$OUT/trace-remote.err")"
  fi
done
if "$B" trace --kernel k8 --type int32 --compare --remote-command "$R" > /dev/null 2> "$OUT/compare.err" &&
   grep -q "identical" "$OUT/compare.err"; then
  pass "trace --compare through the pipe: the GPU's trace equals the CPU model computed here"
else
  fail "trace --compare: $(tail -1 "$OUT/compare.err")"
fi

# 2. A sweep: the same configurations and checks as locally, bandwidths within run-to-run noise.
t0=$(date +%s.%N)
"$B" sweep --axis block --kernel k3,k7,k10 --n 2^26 --format csv,json --out "$OUT/sweep-local" > /dev/null 2> "$OUT/sweep-local.err"
t1=$(date +%s.%N)
"$B" sweep --axis block --kernel k3,k7,k10 --n 2^26 --format csv,json --out "$OUT/sweep-remote" \
  --remote-command "$R" > /dev/null 2> "$OUT/sweep-remote.err"
rc=$?
t2=$(date +%s.%N)
echo "      sweep times: local $(python3 -c "print(round($t1 - $t0, 1))") s, remote $(python3 -c "print(round($t2 - $t1, 1))") s (rc $rc)"
python3 - "$OUT/sweep-local/sweep-block.csv" "$OUT/sweep-remote/sweep-block.csv" <<'EOF' || status=1
import csv, sys
a = list(csv.DictReader(open(sys.argv[1]))); b = list(csv.DictReader(open(sys.argv[2])))
if len(a) != len(b) or not a:
    print(f"FAIL: sweep rows: local {len(a)}, remote {len(b)}"); sys.exit(1)
bw = [k for k in a[0] if k.startswith("GB/s")][0]
worst = 0.0
for x, y in zip(a, b):
    for k in ("kernel", "type", "N", "block", "check"):
        if x[k] != y[k]:
            print(f"FAIL: sweep row {x['kernel']} block {x['block']}: {k} {x[k]} vs {y[k]}"); sys.exit(1)
    worst = max(worst, abs(float(x[bw]) - float(y[bw])) / float(x[bw]))
print(f"{'ok:  ' if worst < 0.10 else 'FAIL:'} sweep: {len(a)} rows, same configurations and checks; "
      f"largest bandwidth difference {100 * worst:.1f} % ({bw})")
sys.exit(0 if worst < 0.10 else 1)
EOF

# 3. The server killed mid-sweep (SIGKILL): reported, the rows that arrived written, exit 1.
"$B" sweep --axis n --kernel k3,k7,k10,cub --format json --out "$OUT/sweep-killed" --remote-command "$R" \
  > /dev/null 2> "$OUT/sweep-killed.err" &
client=$!
sleep 6
server=$(pgrep -P "$client" | head -1)
[ -n "$server" ] && kill -9 "$server"
wait "$client"; rc=$?
if [ "$rc" = 1 ] && grep -q "was lost (the server ended, killed by signal 9)" "$OUT/sweep-killed.err" &&
   grep -q "runs that arrived" "$OUT/sweep-killed.err" && [ -f "$OUT/sweep-killed/sweep-n.json" ]; then
  pass "killed mid-sweep: $(grep -o 'the files hold the [0-9]* runs that arrived' "$OUT/sweep-killed.err")"
else
  fail "killed mid-sweep (rc $rc): $(tail -2 "$OUT/sweep-killed.err")"
fi

# 4. The GUI (headless) on the remote GPU: runs measured there, its trace shown, quit cleanly.
if "$B" --headless --frames 3 --kernel k7,k10 --run --remote-command "$R" --screenshot "$OUT/ui-remote.png" \
     --dump-layout "$OUT/ui-remote.json" 2> "$OUT/ui-remote.err" &&
   python3 -c "
import json, sys; j = json.load(open('$OUT/ui-remote.json'))
ok = j['remote']['link'] == 'connected' and j['results'] == 2 and 'remote pipe' in j['trace']['source']
print(j['remote'], j['results'], j['trace']['source']); sys.exit(0 if ok else 1)"; then
  pass "GUI: two runs and the GPU's trace through the pipe ($OUT/ui-remote.png)"
else
  fail "GUI: $(tail -2 "$OUT/ui-remote.err")"
fi
# 5. Quitting mid-sweep: prompt, the server ended.
t0=$(date +%s.%N)
"$B" --headless --frames 30 --kernel k3,k7 --sweep n --remote-command "$R" > /dev/null 2>&1
t1=$(date +%s.%N)
left=$(pgrep -f "serve --stdio" || true)
secs=$(python3 -c "print(round($t1 - $t0, 1))")
if [ -z "$left" ] && python3 -c "import sys; sys.exit(0 if $secs < 15 else 1)"; then pass "quit mid-sweep: $secs s, no server left"
else fail "quit mid-sweep: $secs s, servers left: $left"; fi
exit $status
