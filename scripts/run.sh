#!/usr/bin/env bash
# Builds ReduceLab and opens it. Without a display it says so and renders the UI offscreen instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec build/app/reducelab "$@"
fi
echo "run: no display (DISPLAY and WAYLAND_DISPLAY are unset), so no window can open."
echo "run: rendering the same UI offscreen instead: build/reducelab-ui.png"
build/app/reducelab --headless --frames 3 --screenshot build/reducelab-ui.png "$@"
