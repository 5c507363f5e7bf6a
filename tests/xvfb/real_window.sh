#!/usr/bin/env bash
# A real ReduceLab window under Xvfb, driven by real key presses (xdotool):
#  - six quick Space taps (20 ms apart, press and release between two frames) toggle play six times
#  - F5 is handled with the Parameters panel hidden (presentation mode)
#  - presentation mode on and off: the window comes back where it was, inside the screen
#  - presenting: keys 1, 2, 3 put the views, the plots or the results on the whole screen
#  - the window's geometry is saved in settings.json and restored (clamped) on the next start
#  - idle CPU: near zero over 10 s (the loop waits for events)
#  - two F12 presses in one second: two screenshots in the export folder, neither overwritten
#  - Ctrl chords (Ctrl+=, Ctrl+-, Ctrl+Q) work whatever order the keys are released in
# Screenshots land in $OUT (default: a temp folder). Usage: tests/xvfb/real_window.sh BINARY [WxH]
set -u
BIN=${1:?usage: real_window.sh path/to/reducelab [WxH]}
SCREEN=${2:-1600x900}
OUT=${OUT:-$(mktemp -d)}
command -v Xvfb >/dev/null && command -v xdotool >/dev/null || { echo "SKIP: Xvfb or xdotool missing"; exit 77; }
export XDG_CONFIG_HOME="$OUT/config"
mkdir -p "$XDG_CONFIG_HOME"
fail=0
check() { if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; fail=1; fi; }

cleanup() { [ -n "${APP:-}" ] && kill "$APP" 2>/dev/null; [ -n "${XVFB:-}" ] && kill "$XVFB" 2>/dev/null; }
trap cleanup EXIT
. "$(dirname "$0")/start_xvfb.sh"
start_xvfb

start_app() {
  REDUCELAB_LOG_ACTIONS=1 "$BIN" "$@" 2>>"$OUT/actions.log" >/dev/null &
  APP=$!
  WIN=$(timeout 60 xdotool search --sync --onlyvisible --name ReduceLab | head -1)
  if [ -z "$WIN" ]; then echo "FAIL: no ReduceLab window within 60 s (see $OUT/actions.log)"; exit 1; fi
  sleep 2  # fonts, first trace
  xdotool mousemove --window "$WIN" 200 200 2>/dev/null || true
  xdotool windowfocus --sync "$WIN" 2>/dev/null || true
}
count() { grep -c "action $1 " "$OUT/actions.log" || true; }
quit_app() {  # Ctrl+Q; the settings are written on the way out
  xdotool mousemove --window "$WIN" 200 200 2>/dev/null || true  # no window manager: focus follows the pointer
  xdotool windowfocus --sync "$WIN" 2>/dev/null || true
  sleep 0.5
  xdotool key ctrl+q  # one press: xdotool releases Ctrl before Q, which once lost the quit
  for _ in $(seq 100); do kill -0 "$APP" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$APP" 2>/dev/null; then echo "FAIL: Ctrl+Q did not quit within 10 s"; fail=1; kill "$APP"; fi
  wait "$APP" 2>/dev/null; APP=
}

: >"$OUT/actions.log"
mkdir -p "$OUT/cwd"; cd "$OUT/cwd" || exit 1  # the export folder's default is relative to it
start_app
# Six quick taps.
xdotool key --delay 20 space space space space space space
# Each tap takes two frames (down, up): slow software frames (3840 x 2160) need a moment.
for _ in $(seq 50); do [ "$(count play-pause)" -ge 6 ] && break; sleep 0.2; done
sleep 0.5  # and no seventh
check "six quick Space taps toggle play six times (got $(count play-pause))" '[ "$(count play-pause)" = 6 ]'
import -window root "$OUT/window.png"
# Presentation: F11, then F5 with the Parameters panel hidden, then Esc.
read -r X0 Y0 < <(xdotool getwindowgeometry "$WIN" | awk '/Position/ {split($2,p,","); print p[1], p[2]}')
xdotool key F11; sleep 3
import -window root "$OUT/presentation.png"
xdotool key F5; sleep 0.5
check "F5 runs with the Parameters panel hidden (presentation)" '[ "$(count run)" = 1 ]'
# Presenting one panel at a time: 2 the plots, 3 the results, 1 the views again, each full screen.
xdotool key 2; sleep 1.5
import -window root "$OUT/presentation-plots.png"
xdotool key 3; sleep 1.5
import -window root "$OUT/presentation-results.png"
xdotool key 1; sleep 1.5
check "keys 1, 2 and 3 choose what presentation shows" \
  '[ "$(count present-plots)" = 1 ] && [ "$(count present-results)" = 1 ] && [ "$(count present-views)" = 1 ]'
# (compare prints large counts as 1.44e+06: awk reads them as numbers.)
differ() { compare -metric AE "$OUT/$1" "$OUT/$2" null: 2>&1 | awk '{ exit !($1 + 0 > 20000) }'; }
check "the plots, then the results, replace the views on the screen" \
  'differ presentation.png presentation-plots.png && differ presentation-plots.png presentation-results.png'
xdotool key Escape; sleep 3
import -window root "$OUT/after-presentation.png"
read -r X1 Y1 < <(xdotool getwindowgeometry "$WIN" | awk '/Position/ {split($2,p,","); print p[1], p[2]}')
read -r W1 H1 < <(xdotool getwindowgeometry "$WIN" | awk '/Geometry/ {split($2,g,"x"); print g[1], g[2]}')
SW=${SCREEN%x*}; SH=${SCREEN#*x}
check "leaving presentation puts the window back ($X0,$Y0 -> $X1,$Y1 ${W1}x${H1}) inside ${SCREEN}" \
  '[ "$X1" -ge 0 ] && [ "$Y1" -ge 0 ] && [ $((X1 + W1)) -le "$SW" ] && [ $((Y1 + H1)) -le "$SH" ]'
# Idle CPU over 10 s.
sleep 1
T0=$(awk '{print $14 + $15}' "/proc/$APP/stat"); sleep 10; T1=$(awk '{print $14 + $15}' "/proc/$APP/stat")
HZ=$(getconf CLK_TCK)
IDLE=$(awk -v a="$T0" -v b="$T1" -v hz="$HZ" 'BEGIN {printf "%.1f", 100 * (b - a) / hz / 10}')
echo "idle CPU over 10 s: $IDLE %"
check "idle CPU below 5 % (got $IDLE %)" "awk -v c=$IDLE 'BEGIN {exit !(c < 5)}'"
# Two F12 presses within one second: two files in the export folder, none in the working directory.
xdotool key --delay 100 F12 F12
for _ in $(seq 50); do [ "$(ls "$OUT/cwd/reducelab-export"/reducelab-*.png 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.2; done
SHOTS=$(ls "$OUT/cwd/reducelab-export"/reducelab-*.png 2>/dev/null | wc -l)
check "two F12 presses in one second give two screenshots in the export folder (got $SHOTS)" '[ "$SHOTS" = 2 ]'
check "no screenshot in the working directory" '[ -z "$(ls "$OUT/cwd"/*.png 2>/dev/null)" ]'
# Chords: each Ctrl+= and Ctrl+- is seen with Ctrl down, whatever order xdotool releases them in.
xdotool key --delay 100 ctrl+equal ctrl+equal ctrl+equal ctrl+minus ctrl+minus ctrl+minus
for _ in $(seq 50); do [ "$(count scale-down)" -ge 3 ] && break; sleep 0.2; done
check "three Ctrl+= and three Ctrl+- change the UI scale six times (got $(count scale-up) up, $(count scale-down) down)" \
  '[ "$(count scale-up)" = 3 ] && [ "$(count scale-down)" = 3 ]'
# Playing: frames keep coming (smooth), CPU higher than idle is expected.
xdotool key space; sleep 1
quit_app
check "settings remember the window" 'grep -q "\"window\"" "$XDG_CONFIG_HOME/reducelab/settings.json"'
# A saved geometry off the screen comes back inside it.
python3 - "$XDG_CONFIG_HOME/reducelab/settings.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p)); j["window"] = [5000, 4000, 3000, 2000]; json.dump(j, open(p, "w"))
PY
start_app
read -r X2 Y2 < <(xdotool getwindowgeometry "$WIN" | awk '/Position/ {split($2,p,","); print p[1], p[2]}')
read -r W2 H2 < <(xdotool getwindowgeometry "$WIN" | awk '/Geometry/ {split($2,g,"x"); print g[1], g[2]}')
check "a saved off-screen geometry is clamped to the screen ($X2,$Y2 ${W2}x${H2})" \
  '[ "$X2" -ge 0 ] && [ "$Y2" -ge 0 ] && [ $((X2 + W2)) -le "$SW" ] && [ $((Y2 + H2)) -le "$SH" ]'
import -window root "$OUT/restored.png"
kill "$APP"; wait "$APP" 2>/dev/null; APP=  # Ctrl+Q was checked above; this start only shows the geometry
echo "screenshots and log in $OUT"
exit $fail
