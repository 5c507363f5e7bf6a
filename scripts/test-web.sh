#!/usr/bin/env bash
# Tests the web build (scripts/build-web.sh) in a real browser: serves build-web/site/ with
# python3 -m http.server on localhost, starts headless Chromium (WebGL 2 in software: SwiftShader
# through ANGLE) and drives the page through the DevTools protocol (tests/web/drive_page.py): the
# shipped H200 recording opened from the folder (?recording=), a lesson step, the four trace views, a
# view exported as PNG, the bandwidth figure as SVG, the results table (CSV, Markdown, LaTeX), the
# session; a configuration the recording lacks (the CPU model, on a worker); a .lesson file beside the
# page; a recording dropped on the page, chosen in the page's picker and through File > Open; the page
# resized. The Views panel is compared with the desktop's. Screenshots and exports go to
# build-web/test-out/. Fails on a console error, a blank canvas or a wrong figure.
set -euo pipefail
cd "$(dirname "$0")/.."
site=build-web/site out=build-web/test-out
[ -f "$site/index.html" ] && [ -f "$site/reducelab.wasm" ] || { echo "test-web: no $site: run scripts/build-web.sh" >&2; exit 1; }
for tool in chromium identify compare; do
  command -v "$tool" >/dev/null || { echo "test-web: $tool not found (setup.sh installs it)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import websocket' 2>/dev/null || { echo "test-web: python3-websocket not installed (setup.sh)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
# The desktop's frame of the same state, when a desktop build is here (REDUCELAB_DESKTOP names another,
# or none): drive_page.py compares the two Views panels (without one, with tests/web/reference/).
desktop="${REDUCELAB_DESKTOP:-}"
[ "$desktop" = none ] && desktop=" "
for b in build-ci/app/reducelab build/app/reducelab; do [ -z "$desktop" ] && [ -x "$b" ] && desktop=$b; done
if [ -n "${desktop// }" ]; then
  "$desktop" --headless --size 1600x900 --frames 10 assets/recordings/upc.reducelab \
    --screenshot "$out/desktop-01.png" --dump-layout "$out/desktop-01.json" >"$out/desktop.log" 2>&1 ||
    { echo "test-web: $desktop could not render the desktop's frame (see $out/desktop.log)" >&2; exit 1; }
fi
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
http_port=$(free_port) debug_port=$(free_port)
profile=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$profile"
}
trap cleanup EXIT
/usr/bin/python3 -m http.server "$http_port" --bind 127.0.0.1 --directory "$site" >"$out/http.log" 2>&1 &
pids+=($!)
chromium --headless=new --no-sandbox --no-first-run --no-default-browser-check --disable-gpu-sandbox \
  --use-gl=angle --use-angle=swiftshader --enable-unsafe-swiftshader --ignore-gpu-blocklist \
  --window-size=1600,900 --user-data-dir="$profile" --remote-debugging-port="$debug_port" about:blank \
  >"$out/chromium.log" 2>&1 &
pids+=($!)
/usr/bin/python3 tests/web/drive_page.py "http://127.0.0.1:$http_port/index.html" "$debug_port" "$out"
