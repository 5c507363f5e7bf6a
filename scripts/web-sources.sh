#!/usr/bin/env bash
# The C sources the WebAssembly build compiles that Debian ships only as source packages: Dear
# ImGui 1.86 (libimgui-dev has its headers, an x86_64 libimgui.a and the backends, not imgui.cpp)
# and zlib (recordings are zlib-compressed; Emscripten's zlib port would download at build time).
# Fetched once with `apt-get source` (Debian 12's own versions) into .web-cache/ (git-ignored);
# nothing else is downloaded, and build-web.sh reads them from there. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=.web-cache
want_imgui=1.86 want_zlib=1.2.13
if [ -f "$cache/imgui-$want_imgui/imgui.cpp" ] && [ -f "$cache/zlib-$want_zlib/inflate.c" ]; then
  echo "web-sources: imgui $want_imgui and zlib $want_zlib present in $cache"; exit 0
fi
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
# apt-get source needs a deb-src line for bookworm: added in a file of its own (removable) when none is there.
if ! grep -rqs '^\(Types: *deb-src\|deb-src \)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "web-sources: enabling Debian 12 source packages (/etc/apt/sources.list.d/reducelab-web-src.sources)"
  printf '%s\n' "# ReduceLab's scripts/web-sources.sh: Debian 12 source packages (imgui, zlib) for the WebAssembly build" \
    "Types: deb-src" "URIs: http://deb.debian.org/debian" "Suites: bookworm" "Components: main" \
    "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
    $sudo tee /etc/apt/sources.list.d/reducelab-web-src.sources >/dev/null
  $sudo apt-get update -qq
fi
mkdir -p "$cache/download"
(cd "$cache/download" && apt-get source --download-only -qq "imgui=$want_imgui+ds-1" "zlib=1:$want_zlib.dfsg-1" 2>&1 |
  grep -v '^NOTICE\|salsa\|git clone\|retrieve the latest\|^Please use\|unsandboxed' || true)
tar -C "$cache" -xf "$cache"/download/imgui_"$want_imgui"+ds.orig.tar.xz
rm -rf "$cache/zlib-$want_zlib"
tar -C "$cache" -xf "$cache"/download/zlib_"$want_zlib".dfsg.orig.tar.bz2
mv "$cache/zlib-$want_zlib.dfsg" "$cache/zlib-$want_zlib"
[ -f "$cache/imgui-$want_imgui/imgui.cpp" ] && [ -f "$cache/zlib-$want_zlib/inflate.c" ]
echo "web-sources: imgui $want_imgui and zlib $want_zlib unpacked in $cache"
