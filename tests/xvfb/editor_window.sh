#!/usr/bin/env bash
# The editor of your own kernel in a real window under Xvfb, driven by real keys and clicks (xdotool):
#  - --kernel-file opens the file in the editor; a click puts the caret, typed text goes in
#  - Ctrl+S writes the file; Ctrl+Z undoes the typing (and Ctrl+S writes that back)
#  - the file saved by another program comes back into the editor (watched)
#  - kill -9 with unsaved typing: the next start restores it from the autosave; nothing else is written
# Screenshots land in $OUT. Usage: tests/xvfb/editor_window.sh BINARY SOURCE_DIR [WxH]
set -u
BIN=${1:?usage: editor_window.sh path/to/reducelab SOURCE_DIR [WxH]}
SRC=${2:?usage: editor_window.sh path/to/reducelab SOURCE_DIR [WxH]}
SCREEN=${3:-1600x900}
OUT=${OUT:-$(mktemp -d)}
command -v Xvfb >/dev/null && command -v xdotool >/dev/null || { echo "SKIP: Xvfb or xdotool missing"; exit 77; }
export XDG_CONFIG_HOME="$OUT/config" XDG_STATE_HOME="$OUT/state" XDG_CACHE_HOME="$OUT/cache"
mkdir -p "$XDG_CONFIG_HOME" "$OUT/work"
fail=0
check() { if eval "$2"; then echo "PASS: $1"; else echo "FAIL: $1"; fail=1; fi; }

cleanup() { [ -n "${APP:-}" ] && kill "$APP" 2>/dev/null; [ -n "${XVFB:-}" ] && kill "$XVFB" 2>/dev/null; }
trap cleanup EXIT
. "$(dirname "$0")/start_xvfb.sh"
start_xvfb

KERNEL="$OUT/work/mine.cu"
cp "$SRC/tests/data/usercode/harris3.cu" "$KERNEL"
ORIGINAL=$(cat "$KERNEL")

start_app() {
  REDUCELAB_LOG_ACTIONS=1 "$BIN" --kernel-file "$KERNEL" --size "$SCREEN" 2>>"$OUT/actions.log" >/dev/null &
  APP=$!
  WIN=$(timeout 60 xdotool search --sync --onlyvisible --name ReduceLab | head -1)
  if [ -z "$WIN" ]; then
    kill -0 "$XVFB" 2>/dev/null && xvfb="still running" || xvfb="gone: Xvfb itself exited"
    echo "FAIL: no ReduceLab window within 60 s (display $DISPLAY, $xvfb; see $OUT/actions.log)"; exit 1
  fi
  sleep 3  # fonts, first trace, the first compile
  xdotool mousemove --window "$WIN" 700 400 2>/dev/null || true
  xdotool windowfocus --sync "$WIN" 2>/dev/null || true
}
# The end of the editor's first line: a click on its text, then End.
caret_to_first_line() {
  read -r LX LY < <(python3 - "$OUT/layout.json" <<'PY' 2>/dev/null || echo "700 260"
import json, sys
x, y, w, h = json.load(open(sys.argv[1]))["panels"]["Views"]
print(int(x + w * 0.5), int(y + h * 0.45))  # below the toolbar and the status lines: the text
PY
)
  xdotool mousemove --window "$WIN" "$LX" "$LY" click 1
  sleep 0.3
  xdotool key ctrl+Home End
  sleep 0.3
}

: >"$OUT/actions.log"
cd "$OUT/work" || exit 1
"$BIN" --headless --kernel-file "$KERNEL" --size "$SCREEN" --frames 3 --dump-layout "$OUT/layout.json" >/dev/null 2>&1
start_app
import -window root "$OUT/editor-opened.png"
caret_to_first_line
xdotool type --delay 30 " typed-by-xdotool"
sleep 1
xdotool key ctrl+s
sleep 1
check "typed text is saved by Ctrl+S" 'head -1 "$KERNEL" | grep -q "typed-by-xdotool"'
import -window root "$OUT/editor-typed.png"
xdotool key ctrl+z
sleep 0.5
xdotool key ctrl+s
sleep 1
cp "$KERNEL" "$OUT/after-undo.cu"
check "Ctrl+Z undoes the typing (saved again: the file is the original)" '[ "$(cat "$KERNEL")" = "$ORIGINAL" ]'
# Saved by another program: the editor follows (and the autosave holds what the editor shows).
printf '%s\n// appended by another editor\n' "$ORIGINAL" >"$KERNEL.tmp" && mv "$KERNEL.tmp" "$KERNEL"
sleep 3
import -window root "$OUT/editor-reloaded.png"
check "a save by another program is reloaded into the editor" \
  'grep -q "appended by another editor" "$XDG_STATE_HOME/reducelab/editor-autosave.json"'
# Unsaved typing, then the process is killed: the autosave brings it back.
caret_to_first_line
xdotool type --delay 30 " unsaved-then-killed"
sleep 3  # the autosave is written 1.5 s after the last change
kill -9 "$APP"; wait "$APP" 2>/dev/null; APP=
check "killed with unsaved typing: the file was not written" '! grep -q "unsaved-then-killed" "$KERNEL"'
start_app
import -window root "$OUT/editor-restored.png"
xdotool key ctrl+s
sleep 1
check "the next start restores the unsaved typing (Ctrl+S writes it)" 'head -1 "$KERNEL" | grep -q "unsaved-then-killed"'
# Idle with a kernel in the editor: no frames drawn, so (almost) no CPU over 5 s.
sleep 3
T0=$(awk '{print $14 + $15}' "/proc/$APP/stat"); sleep 5; T1=$(awk '{print $14 + $15}' "/proc/$APP/stat")
IDLE=$(awk -v a="$T0" -v b="$T1" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", 100 * (b - a) / hz / 5}')
check "idle with the editor open: $IDLE % CPU over 5 s (< 10 %)" 'awk -v v="$IDLE" "BEGIN {exit !(v < 10)}"'
check "nothing but the kernel file was written in its folder" '[ "$(ls -A "$OUT/work" | sort | tr "\n" " ")" = "mine.cu " ]'
kill "$APP"; wait "$APP" 2>/dev/null; APP=
exit $fail
