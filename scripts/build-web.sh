#!/usr/bin/env bash
# Builds ReduceLab for the browser (WebAssembly, Emscripten 3.1.6 from Debian 12) into a static folder
# that any web server hosts: build-web/site/ (index.html, reducelab.js/.wasm/.data, the service worker
# that makes the page cross-origin isolated, the shipped recording and the lessons). Nothing is
# downloaded: ImGui's and zlib's sources come from Debian's source packages (scripts/web-sources.sh).
# Usage: scripts/build-web.sh [JOBS]   (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${1:-2}"
command -v emcmake >/dev/null || { echo "build-web: emcmake not found: apt-get install emscripten (setup.sh)" >&2; exit 1; }
scripts/web-sources.sh >/dev/null
# Emscripten's JS tools need acorn (node-acorn): Debian's node finds /usr/share/nodejs by itself, another
# node on PATH (NodeSource's) does not.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
# Emscripten's cache (prebuilt system libraries) is Debian's; its config must not point elsewhere.
emcmake cmake -S . -B build-web -DCMAKE_BUILD_TYPE=Release -DREDUCELAB_CUDA=OFF -DREDUCELAB_BUILD_TESTS=OFF \
  >build-web-configure.log 2>&1 || { cat build-web-configure.log >&2; exit 1; }
rm -f build-web-configure.log
cmake --build build-web -j "$jobs" --target reducelab
site=build-web/site
rm -rf "$site" && mkdir -p "$site/recordings" "$site/lessons"
cp build-web/web/reducelab.js build-web/web/reducelab.wasm build-web/web/reducelab.data build-web/web/reducelab.worker.js "$site/"
cp web/shell.html "$site/index.html"
cp web/isolation-worker.js "$site/"
cp assets/recordings/upc.reducelab "$site/recordings/"
cp assets/lessons/*.lesson "$site/lessons/"
echo "build-web: $site ($(du -sh "$site" | cut -f1); reducelab.wasm $(du -h "$site/reducelab.wasm" | cut -f1))"
