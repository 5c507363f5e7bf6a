#!/usr/bin/env bash
# Installs ReduceLab's build and run dependencies from Debian 12 packages (idempotent).
# CUDA 13 (nvcc, CUB) is optional: found, the kernels are built; missing, the CPU-model app is.
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  libglfw3-dev libimgui-dev python3-glad
  libegl-dev libegl-mesa0 libgl1-mesa-dri
  libstb-dev libcli11-dev nlohmann-json3-dev libgtest-dev fonts-dejavu-core
  libcairo2-dev poppler-utils desktop-file-utils appstream
  zlib1g-dev  # recordings (.reducelab) are zlib-compressed
  texlive-latex-base texlive-latex-recommended
  python3-venv
  xvfb xdotool imagemagick  # tests/xvfb: a real window driven by key presses
  ccache
  clang-14 libfuzzer-14-dev  # scripts/fuzz.sh (libFuzzer harnesses of the input parsers)
  # The web build (scripts/build-web.sh, scripts/test-web.sh): Emscripten 3.1.6, and Chromium for the
  # headless browser test. ImGui's and zlib's sources come from Debian's source packages (below).
  emscripten chromium python3-websocket
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi
# The CUDA Toolkit (nvcc, CUB) is NVIDIA's, not Debian's: with it the kernels are built; without
# it everything else is (GUI, CPU model, lessons, exports) and the app runs the CPU model.
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA Toolkit found: the GPU kernels will be built"
else
  echo "setup: no CUDA Toolkit (nvcc): building the CPU-model app; install CUDA 13 from NVIDIA for the GPU kernels"
fi
# zenity is a run-time nicety, not a build or test need (the tests use a fake one): with it File > Open / Save and the
# export folder use the desktop's file chooser, without it an in-app path field. The .deb recommends it.
command -v zenity >/dev/null 2>&1 || echo "setup: optional: 'apt-get install zenity' for the desktop's file chooser"
# The web build compiles Dear ImGui's and zlib's own sources (Debian 12's source packages, into .web-cache/).
"$(dirname "$0")/scripts/web-sources.sh"
